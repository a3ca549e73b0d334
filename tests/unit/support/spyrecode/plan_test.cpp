// Tests for support/spyrecode/plan.h (job.plan JSON) and directory.h (a SpyreCode directory on
// disk): round trips, the standard steps, and every error a malformed plan or directory gets.
#include "support/spyrecode/directory.h"
#include "support/spyrecode/plan.h"
#include "tests/unit/util/spyrecode_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace chipless::spyrecode {
namespace {

using nlohmann::json;
using testing::errorOf;
using testing::TempDir;

/// Arguments of three roles, a scalar, a buffer, the standard steps and a host step.
/// execute: [0] A in, [1] D in, [2] ComputeOnDevice, [3] C out, [4] D out, [5] ComputeOnHost.
JobPlan samplePlan() {
  JobPlan p;
  p.kernel = "k";
  p.scalars.push_back({"N"});
  p.args.push_back({"A", ArgRole::Input, DType::F16, {int64_t{4}, std::string("N")}});
  p.args.push_back({"C", ArgRole::Output, DType::F32, {std::string("N")}});
  p.args.push_back({"D", ArgRole::InOut, DType::BF16, {int64_t{2}, int64_t{3}}});
  p.args.back().paddedRows = 4;
  p.buffers.push_back({"tmp", 256});
  addStandardSteps(p, 0x1C00000000ull, 1000, 128);
  PlanCommand host;
  host.kind = PlanCommand::Kind::ComputeOnHost;
  host.function = "softmax";
  host.inputs = {"A"};
  host.outputs = {"C"};
  host.metadata = json{{"axis", -1}, {"note", "x"}};
  p.execute.push_back(host);
  return p;
}

json base() {
  return json::parse(planToJson(samplePlan()));
}

JobPlan parse(const json& j) {
  return parsePlan(j.dump(2), "job.plan");
}

/// Expects `j` to be rejected with a message that starts with "job.plan: " and contains `words`.
void expectPlanError(const json& j, std::initializer_list<std::string> words) {
  std::string msg = errorOf([&] { parse(j); });
  EXPECT_EQ(msg.rfind("job.plan: ", 0), 0u) << msg;
  for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << msg << "\n" << w;
}

// ---- round trip --------------------------------------------------------------------------

TEST(Plan, RoundTrip) {
  JobPlan p = samplePlan();
  std::string text = planToJson(p);
  JobPlan back = parsePlan(text, "job.plan");
  EXPECT_TRUE(back == p);
  EXPECT_EQ(planToJson(back), text);
  EXPECT_EQ(planToJson(p), text); // deterministic
  for (const auto& file : testing::kernelFiles()) {
    Job job = assemble(readFile(file), file, testing::defaultOptions());
    EXPECT_TRUE(parsePlan(planToJson(job.plan), file) == job.plan) << file;
  }
}

TEST(Plan, JsonFields) {
  json j = base();
  EXPECT_EQ(j["format"], "spyrecode");
  EXPECT_EQ(j["version"], kPlanVersion);
  EXPECT_EQ(j["kernel"], "k");
  EXPECT_EQ(j["binary"], "init.bin");
  EXPECT_EQ(j["arguments"][0], (json{{"name", "A"},
                                     {"role", "input"},
                                     {"dtype", "f16"},
                                     {"shape", {4, "N"}},
                                     {"layout", "stick"}}));
  EXPECT_EQ(j["arguments"][2]["role"], "inout");
  EXPECT_EQ(j["scalars"], (json::array({{{"name", "N"}}})));
  EXPECT_EQ(j["buffers"], (json::array({{{"name", "tmp"}, {"size", 256}}})));
  EXPECT_EQ(j["prepare"][0], (json{{"command", "Allocate"},
                                   {"name", "program"},
                                   {"size", 1000},
                                   {"dev_ptr", "0x1C00000000"}}));
  EXPECT_EQ(j["prepare"][1], (json{{"command", "InitTransfer"},
                                   {"file_path", "init.bin"},
                                   {"size", 1000},
                                   {"dev_ptr", "0x1C00000000"}}));
  EXPECT_EQ(j["prepare"][2]["dev_ptr"], "0x1C00000400");
  EXPECT_EQ(j["execute"][0], (json{{"command", "DataTransfer"},
                                   {"direction", 0},
                                   {"host_handle", "A"},
                                   {"size", 0},
                                   {"dev_ptr", "@A"}}));
  EXPECT_EQ(j["execute"][2],
            (json{{"command", "ComputeOnDevice"}, {"job_bin_ptr", "0x1C00000000"}}));
  EXPECT_EQ(j["execute"][5]["metadata"]["axis"], -1);
}

TEST(Plan, OptionalFields) {
  json j = base();
  j.erase("scalars");
  j.erase("buffers");
  j["arguments"] =
      json::array({{{"name", "A"}, {"role", "input"}, {"dtype", "i32"}, {"shape", {8}}}});
  j["prepare"] = json::array();
  j["execute"] = json::array(
      {{{"command", "DataTransfer"}, {"direction", 1}, {"host_handle", "A"}, {"dev_ptr", "@A"}},
       {{"command", "ComputeOnHost"},
        {"function", "f"},
        {"inputs", json::array()},
        {"outputs", {"A"}}}});
  JobPlan p = parse(j);
  EXPECT_TRUE(p.scalars.empty());
  EXPECT_TRUE(p.buffers.empty());
  EXPECT_EQ(p.args[0].dtype, DType::I32);
  EXPECT_EQ(p.execute[0].size, 0);
  EXPECT_EQ(p.execute[0].direction, 1);
  EXPECT_EQ(p.execute[1].metadata, json::object());
  EXPECT_EQ(p.findArg("A"), &p.args[0]);
  EXPECT_EQ(p.findArg("B"), nullptr);
}

TEST(Plan, ScalarConstraints) {
  // A KTIR runtime_arg<index, granularity = 4096, upperbound = 4194304>: the fields appear
  // only when set, and read back equal.
  JobPlan p = samplePlan();
  p.scalars.push_back({"n", 4096, 0, 4194304});
  p.scalars.push_back({"lo", 1, -8, std::nullopt});
  json j = json::parse(planToJson(p));
  EXPECT_EQ(j["scalars"][0], (json{{"name", "N"}}));
  EXPECT_EQ(j["scalars"][1],
            (json{{"name", "n"}, {"multiple_of", 4096}, {"min", 0}, {"max", 4194304}}));
  EXPECT_EQ(j["scalars"][2], (json{{"name", "lo"}, {"min", -8}}));
  EXPECT_TRUE(parse(j) == p);
  EXPECT_FALSE(parse(j) == samplePlan());
}

TEST(PlanErrors, BadScalarConstraints) {
  json j = base();
  j["scalars"][0]["multiple_of"] = 0;
  expectPlanError(j, {"scalars[0]: scalar 'N': multiple_of must be positive, got 0"});
  j = base();
  j["scalars"][0]["min"] = 10;
  j["scalars"][0]["max"] = 9;
  expectPlanError(j, {"scalars[0]: scalar 'N': min 10 is greater than max 9"});
  j = base();
  j["scalars"][0]["max"] = "big";
  expectPlanError(j, {"scalars[0].max: expected an integer"});
}

TEST(Plan, StandardSteps) {
  JobPlan p;
  p.binaryFile = "kernel.bin";
  p.args.push_back({"O", ArgRole::Output, DType::F16, {int64_t{1}}});
  p.args.push_back({"I", ArgRole::Input, DType::F16, {int64_t{1}}});
  p.buffers = {{"a", 100}, {"b", 300}, {"c", 128}};
  p.execute.push_back({}); // replaced
  addStandardSteps(p, 0x1C00000080ull, 129, 128);
  ASSERT_EQ(p.prepare.size(), 5u);
  EXPECT_EQ(p.prepare[0].devPtr, "0x1C00000080");
  EXPECT_EQ(p.prepare[0].size, 129);
  EXPECT_EQ(p.prepare[1].filePath, "kernel.bin");
  EXPECT_EQ(p.prepare[2].devPtr, "0x1C00000180"); // 0x80 + 129 rounded up to 128
  EXPECT_EQ(p.prepare[3].devPtr, "0x1C00000200");
  EXPECT_EQ(p.prepare[4].devPtr, "0x1C00000380");
  EXPECT_EQ(p.prepare[4].size, 128);
  ASSERT_EQ(p.execute.size(), 3u);
  EXPECT_EQ(p.execute[0].hostHandle, "I");
  EXPECT_EQ(p.execute[1].kind, PlanCommand::Kind::ComputeOnDevice);
  EXPECT_EQ(p.execute[1].devPtr, "0x1C00000080");
  EXPECT_EQ(p.execute[2].hostHandle, "O");
  JobPlan again = p;
  addStandardSteps(again, 0x1C00000080ull, 129, 128);
  EXPECT_TRUE(again == p) << "the steps are replaced, not appended";
}

TEST(Plan, DevicePointers) {
  EXPECT_EQ(parseDevPtr("0x1C00000080", "w"), 0x1C00000080ull);
  EXPECT_EQ(parseDevPtr("0X10", "w"), 16u);
  EXPECT_EQ(parseDevPtr("4096", "w"), 4096u);
  EXPECT_EQ(parseDevPtr("0", "w"), 0u);
  EXPECT_EQ(parseDevPtr("010", "w"), 10u); // decimal, not octal
  EXPECT_EQ(formatDevPtr(0x1C00000080ull), "0x1C00000080");
  EXPECT_EQ(formatDevPtr(0), "0x0");
  EXPECT_EQ(parseDevPtr(formatDevPtr(0xFFFFFFFFFFFFFFFFull), "w"), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_ERROR_PARTS([] { parseDevPtr("", "where"); },
                     "where: expected a device address, got an empty string");
  for (const char* bad : {"zz", "-1", "0x1G", "12 ", " 12", "+12", " -1", "0x-5", "0x 5", "@A",
                          "0x", "1e3", "a5", "0x1FFFFFFFFFFFFFFFFF", "18446744073709551616"})
    EXPECT_ERROR_PARTS([&] { parseDevPtr(bad, "where"); },
                       "where: expected a device address like 0x1C00000000, got '" +
                           std::string(bad) + "'");
}

TEST(Plan, Names) {
  EXPECT_STREQ(commandName(PlanCommand::Kind::Allocate), "Allocate");
  EXPECT_STREQ(commandName(PlanCommand::Kind::InitTransfer), "InitTransfer");
  EXPECT_STREQ(commandName(PlanCommand::Kind::DataTransfer), "DataTransfer");
  EXPECT_STREQ(commandName(PlanCommand::Kind::ComputeOnDevice), "ComputeOnDevice");
  EXPECT_STREQ(commandName(PlanCommand::Kind::ComputeOnHost), "ComputeOnHost");
  EXPECT_STREQ(argRoleName(ArgRole::Input), "input");
  EXPECT_STREQ(argRoleName(ArgRole::Output), "output");
  EXPECT_STREQ(argRoleName(ArgRole::InOut), "inout");
}

// ---- parse errors ----------------------------------------------------------------------------

TEST(PlanErrors, MalformedJsonNamesTheLine) {
  EXPECT_ERROR_PARTS(
      [] { parsePlan("{\n  \"format\": \"spyrecode\",\n  \"version\": 1,,\n}", "job.plan"); },
      "job.plan:3: malformed JSON", "syntax error");
  EXPECT_ERROR_PARTS([] { parsePlan("", "job.plan"); }, "job.plan:1: malformed JSON");
  EXPECT_ERROR_PARTS([] { parsePlan("{\"format\": \"spyrecode\"", "job.plan"); },
                     "job.plan:1: malformed JSON");
}

// A number no JSON number type holds (found by fuzz_tpu_plan): located like a syntax error.
TEST(PlanErrors, NumberOverflowNamesTheLine) {
  EXPECT_ERROR_PARTS([] { parsePlan("{\n  \"version\": 1E99999\n}", "job.plan"); },
                     "job.plan:2: malformed JSON", "number overflow", "1E99999");
}

TEST(PlanErrors, TopLevel) {
  expectPlanError(json::array(), {"expected an object"});
  json j = base();
  j["format"] = "tpu";
  expectPlanError(j, {"format: expected \"spyrecode\", got \"tpu\""});
  j = base();
  j["format"] = 1;
  expectPlanError(j, {"format: expected a string, got 1"});
  j = base();
  j["version"] = 2;
  expectPlanError(j, {"version: unsupported version 2 (this build reads version 1)"});
  j = base();
  j["version"] = "1";
  expectPlanError(j, {"version: expected an integer, got \"1\""});
  j = base();
  j["version"] = 1.5;
  expectPlanError(j, {"version: expected an integer"});
  j = base();
  j["kernel"] = 5;
  expectPlanError(j, {"kernel: expected a string, got 5"});
  j = base();
  j["binary"] = nullptr;
  expectPlanError(j, {"binary: expected a string, got null"});
}

TEST(PlanErrors, MissingFields) {
  for (const char* key :
       {"format", "version", "kernel", "binary", "arguments", "prepare", "execute"}) {
    SCOPED_TRACE(key);
    json j = base();
    j.erase(key);
    expectPlanError(j, {std::string("missing field '") + key + "'"});
  }
  json j = base();
  j["arguments"][1].erase("dtype");
  expectPlanError(j, {"arguments[1]: missing field 'dtype'"});
  j = base();
  j["arguments"][0].erase("shape");
  expectPlanError(j, {"arguments[0]: missing field 'shape'"});
  j = base();
  j["scalars"][0].erase("name");
  expectPlanError(j, {"scalars[0]: missing field 'name'"});
  j = base();
  j["buffers"][0].erase("size");
  expectPlanError(j, {"buffers[0]: missing field 'size'"});
  j = base();
  j["prepare"][0].erase("command");
  expectPlanError(j, {"prepare[0]: missing field 'command'"});
  j = base();
  j["prepare"][0].erase("size");
  expectPlanError(j, {"prepare[0]: missing field 'size'"});
  j = base();
  j["prepare"][1].erase("file_path");
  expectPlanError(j, {"prepare[1]: missing field 'file_path'"});
  j = base();
  j["execute"][0].erase("host_handle");
  expectPlanError(j, {"execute[0]: missing field 'host_handle'"});
  j = base();
  j["execute"][2].erase("job_bin_ptr");
  expectPlanError(j, {"execute[2]: missing field 'job_bin_ptr'"});
  j = base();
  j["execute"][5].erase("function");
  expectPlanError(j, {"execute[5]: missing field 'function'"});
  j = base();
  j["execute"][5].erase("outputs");
  expectPlanError(j, {"execute[5]: missing field 'outputs'"});
}

TEST(PlanErrors, UnknownFields) {
  json j = base();
  j["extra"] = 1;
  expectPlanError(j, {"extra: unknown field (expected one of: arch, arguments, binary, buffers, "
                      "execute, format, kernel, prepare, scalars, version)"});
  j = base();
  j["arguments"][0]["strides"] = {1};
  expectPlanError(j, {"arguments[0].strides: unknown field (expected one of: dtype, layout, name, "
                      "padded_rows, role, shape)"});
  j = base();
  j["scalars"][0]["value"] = 3;
  expectPlanError(
      j, {"scalars[0].value: unknown field (expected one of: max, min, multiple_of, name, type)"});
  j = base();
  j["buffers"][0]["align"] = 3;
  expectPlanError(j, {"buffers[0].align: unknown field"});
  j = base();
  j["prepare"][0]["align"] = 128;
  expectPlanError(j, {"prepare[0].align: unknown field (expected one of: command, dev_ptr, name, "
                      "size)"});
  j = base();
  j["prepare"][1]["name"] = "program"; // a field of another command
  expectPlanError(j, {"prepare[1].name: unknown field (expected one of: command, dev_ptr, "
                      "file_path, size)"});
  j = base();
  j["execute"][0]["stream"] = 1;
  expectPlanError(j, {"execute[0].stream: unknown field"});
  j = base();
  j["execute"][2]["dev_ptr"] = "0x0";
  expectPlanError(j, {"execute[2].dev_ptr: unknown field (expected one of: command, job_bin_ptr)"});
  j = base();
  j["execute"][5]["shapes"] = json::array();
  expectPlanError(j, {"execute[5].shapes: unknown field"});
}

TEST(PlanErrors, WrongTypes) {
  json j = base();
  j["arguments"] = json::object();
  expectPlanError(j, {"arguments: expected an array"});
  j = base();
  j["arguments"][0] = 5;
  expectPlanError(j, {"arguments[0]: expected an object"});
  j = base();
  j["arguments"][0]["name"] = 5;
  expectPlanError(j, {"arguments[0].name: expected a string, got 5"});
  j = base();
  j["scalars"] = "N";
  expectPlanError(j, {"scalars: expected an array"});
  j = base();
  j["buffers"] = 1;
  expectPlanError(j, {"buffers: expected an array"});
  j = base();
  j["buffers"][0]["size"] = "1";
  expectPlanError(j, {"buffers[0].size: expected an integer, got \"1\""});
  j = base();
  j["buffers"][0]["size"] = -1;
  expectPlanError(j, {"buffers[0].size: must not be negative, got -1"});
  j = base();
  j["prepare"] = json::object();
  expectPlanError(j, {"prepare: expected an array"});
  j = base();
  j["execute"] = "run";
  expectPlanError(j, {"execute: expected an array"});
  j = base();
  j["prepare"][0] = json::array();
  expectPlanError(j, {"prepare[0]: expected an object"});
  j = base();
  j["prepare"][0]["command"] = 1;
  expectPlanError(j, {"prepare[0].command: expected a string, got 1"});
  j = base();
  j["prepare"][0]["size"] = "big";
  expectPlanError(j, {"prepare[0].size: expected an integer, got \"big\""});
  j = base();
  j["prepare"][1]["size"] = -5;
  expectPlanError(j, {"prepare[1].size: must not be negative, got -5"});
  j = base();
  j["execute"][0]["size"] = 1.5;
  expectPlanError(j, {"execute[0].size: expected an integer"});
  j = base();
  j["execute"][0]["direction"] = "0";
  expectPlanError(j, {"execute[0].direction: expected an integer"});
  j = base();
  j["execute"][5]["inputs"] = "A";
  expectPlanError(j, {"execute[5].inputs: expected an array of names"});
  j = base();
  j["execute"][5]["outputs"] = {1};
  expectPlanError(j, {"execute[5].outputs[0]: expected a string, got 1"});
}

TEST(PlanErrors, BadRoleDtypeLayout) {
  json j = base();
  j["arguments"][0]["role"] = "both";
  expectPlanError(j, {"arguments[0].role: expected input, output or inout, got 'both'"});
  j = base();
  j["arguments"][1]["dtype"] = "f64";
  expectPlanError(j, {"arguments[1].dtype: expected f16, bf16, f32 or i32, got 'f64'"});
  j = base();
  j["arguments"][0]["layout"] = "tiled";
  expectPlanError(j, {"arguments[0].layout: expected \"stick\" or \"row_major\", got 'tiled'"});
  j = base();
  j["arguments"][0]["layout"] = 1;
  expectPlanError(j, {"arguments[0].layout: expected a string"});
  j = base();
  j["arguments"][0]["padded_rows"] = 0;
  expectPlanError(j, {"arguments[0].padded_rows: must be positive"});
  j = base();
  j["arguments"][0]["layout"] = "row_major";
  j["arguments"][0]["padded_rows"] = 64;
  expectPlanError(j, {"arguments[0].padded_rows: applies to the stick layout only"});
}

TEST(PlanErrors, BadShapes) {
  for (const json& shape : {json::array(), json("4"), json(4), json(nullptr)}) {
    json j = base();
    j["arguments"][2]["shape"] = shape;
    expectPlanError(j, {"arguments[2].shape: expected a non-empty array of sizes or scalar names"});
  }
  for (const json& entry :
       {json(0), json(-3), json(1.5), json(""), json(true), json(nullptr), json::array({2})}) {
    SCOPED_TRACE(entry.dump());
    json j = base();
    j["arguments"][2]["shape"] = {2, entry};
    expectPlanError(j, {"arguments[2].shape[1]: expected a positive size or a scalar name, got " +
                        entry.dump()});
  }
}

TEST(PlanErrors, UndeclaredScalarInAShape) {
  json j = base();
  j["arguments"][0]["shape"] = {4, "M"};
  expectPlanError(j, {"arguments[0].shape[1]: 'M' is not a declared scalar"});
  j = base();
  j["arguments"][0]["shape"] = {"tmp"}; // a buffer is not a scalar
  expectPlanError(j, {"arguments[0].shape[0]: 'tmp' is not a declared scalar"});
}

TEST(PlanErrors, DuplicateNames) {
  json j = base();
  j["arguments"][1]["name"] = "A";
  expectPlanError(j, {"arguments[1]: name 'A' is used twice"});
  j = base();
  j["scalars"][0]["name"] = "D";
  expectPlanError(j, {"scalars[0]: name 'D' is used twice"});
  j = base();
  j["buffers"][0]["name"] = "N";
  expectPlanError(j, {"buffers[0]: name 'N' is used twice"});
  j = base();
  j["buffers"].push_back({{"name", "tmp"}, {"size", 1}});
  expectPlanError(j, {"buffers[1]: name 'tmp' is used twice"});
}

TEST(PlanErrors, BadDirection) {
  for (int d : {2, -1}) {
    json j = base();
    j["execute"][3]["direction"] = d;
    expectPlanError(j, {"execute[3].direction: expected 0 (host to device) or 1 (device to host), "
                        "got " +
                        std::to_string(d)});
  }
}

TEST(PlanErrors, BadDevPtr) {
  json j = base();
  j["prepare"][0]["dev_ptr"] = "zz";
  expectPlanError(j, {"prepare[0].dev_ptr: expected a device address like 0x1C00000000, got 'zz'"});
  j = base();
  j["prepare"][1]["dev_ptr"] = "@A"; // preparation runs before tensors are bound
  expectPlanError(j, {"prepare[1].dev_ptr: expected a device address"});
  j = base();
  j["prepare"][2]["dev_ptr"] = "";
  expectPlanError(j, {"prepare[2].dev_ptr: expected a device address, got an empty string"});
  j = base();
  j["execute"][2]["job_bin_ptr"] = "program";
  expectPlanError(j, {"execute[2].job_bin_ptr: expected a device address"});
  j = base();
  j["execute"][0]["dev_ptr"] = 5;
  expectPlanError(j, {"execute[0].dev_ptr: expected a string, got 5"});
  // DataTransfer addresses may name the argument ("@A") or be absolute.
  j = base();
  j["execute"][0]["dev_ptr"] = "0x2000";
  EXPECT_EQ(parse(j).execute[0].devPtr, "0x2000");
}

TEST(PlanErrors, CommandsInTheWrongList) {
  json j = base();
  j["prepare"].push_back(j["execute"][0]);
  expectPlanError(j, {"prepare[3].command: expected Allocate or InitTransfer in the preparation "
                      "plan, got 'DataTransfer'"});
  j = base();
  j["prepare"][0] = base()["execute"][2];
  expectPlanError(j, {"prepare[0].command", "got 'ComputeOnDevice'"});
  j = base();
  j["execute"][1] = base()["prepare"][0];
  expectPlanError(j, {"execute[1].command: expected DataTransfer, ComputeOnDevice or ComputeOnHost "
                      "in the execution plan, got 'Allocate'"});
  j = base();
  j["execute"][1] = base()["prepare"][1];
  expectPlanError(j, {"execute[1].command", "got 'InitTransfer'"});
  j = base();
  j["execute"][1]["command"] = "Launch";
  expectPlanError(j, {"execute[1].command", "got 'Launch'"});
}

TEST(PlanErrors, HostNamesMustBeArguments) {
  json j = base();
  j["execute"][0]["host_handle"] = "Z";
  expectPlanError(j, {"execute[0].host_handle: 'Z' is not a tensor argument"});
  j = base();
  j["execute"][0]["host_handle"] = "N"; // a scalar
  expectPlanError(j, {"execute[0].host_handle: 'N' is not a tensor argument"});
  j = base();
  j["execute"][5]["inputs"] = {"A", "tmp"};
  expectPlanError(j, {"execute[5].inputs: 'tmp' is not a tensor argument"});
  j = base();
  j["execute"][5]["outputs"] = {"Z"};
  expectPlanError(j, {"execute[5].outputs: 'Z' is not a tensor argument"});
}

// ---- directories ---------------------------------------------------------------------------

TEST(Directory, DirectoryOf) {
  EXPECT_EQ(directoryOf("a/b/job.plan"), "a/b");
  EXPECT_EQ(directoryOf("job.plan"), ".");
  EXPECT_EQ(directoryOf("/job.plan"), "/");
  EXPECT_EQ(directoryOf("/x/job.plan"), "/x");
}

TEST(Directory, WriteThenRead) {
  TempDir tmp;
  for (const auto& file : testing::kernelFiles()) {
    Job job = assemble(readFile(file), file, testing::defaultOptions());
    job.arch.reset(); // a job without an architecture record (arch_record_test has those)
    std::string dir = tmp.path() + "/" + job.plan.kernel;
    writeJob(dir, job);
    EXPECT_EQ(readFile(dir + "/job.plan"), planToJson(job.plan));
    EXPECT_EQ(readFile(dir + "/init.bin"), encodeBinary(job.binary));
    Job back = readJob(dir + "/job.plan");
    EXPECT_TRUE(back.plan == job.plan) << file;
    EXPECT_TRUE(back.binary == job.binary) << file;
    writeJob(dir, job); // an existing directory is fine; the files are replaced
    EXPECT_TRUE(readJob(dir + "/job.plan").binary == job.binary);
  }
  Job synthetic = testing::syntheticJob();
  synthetic.plan.binaryFile = "kernel.bin";
  addStandardSteps(synthetic.plan, 0x1C00000000ull,
                   static_cast<int64_t>(encodeBinary(synthetic.binary).size()), 128);
  writeJob(tmp.path() + "/syn", synthetic);
  EXPECT_EQ(readFile(tmp.path() + "/syn/kernel.bin"), encodeBinary(synthetic.binary));
  Job back = readJob(tmp.path() + "/syn/job.plan");
  EXPECT_TRUE(back.plan == synthetic.plan);
  EXPECT_TRUE(back.binary == synthetic.binary);
}

TEST(Directory, WriteCreatesParentsOrWritesNothing) {
  TempDir tmp;
  Job job = testing::syntheticJob();
  writeJob(tmp.path() + "/no/such/dir", job);
  EXPECT_TRUE(readJob(tmp.path() + "/no/such/dir/job.plan").binary == job.binary);
  writeFileAtomically(tmp.path() + "/file", "not a folder");
  EXPECT_ERROR_PARTS([&] { writeJob(tmp.path() + "/file/dir", job); },
                     tmp.path() + "/file: cannot create directory");
}

TEST(Directory, TheArchitectureRecordIsWrittenAndReadBack) {
  TempDir tmp;
  SpyreArch arch = SpyreArch::load(SpyreArch::defaultFile(), {"chip.cores=16"});
  Job job =
      assemble(readFile(testing::kernelFiles().front()), "k.s", AssembleOptions::forArch(arch));
  ASSERT_TRUE(job.arch.has_value());
  writeJob(tmp.path() + "/k", job);
  std::string plan = tmp.path() + "/k/job.plan";
  EXPECT_EQ(readFile(tmp.path() + "/k/arch.yaml"), arch.description.toYaml());
  Job back = readJob(plan);
  ASSERT_TRUE(back.plan.arch.has_value());
  EXPECT_EQ(back.plan.arch->file, "arch.yaml");
  EXPECT_EQ(back.plan.arch->fingerprint, arch.description.fingerprint());
  ASSERT_TRUE(back.arch.has_value());
  EXPECT_EQ(back.arch->getInt("chip.cores"), 16);
  // A record that does not match its file, or names none, is an error naming the file.
  std::string text = readFile(plan);
  std::string f = arch.description.fingerprint();
  std::string tampered = text;
  tampered.replace(tampered.find(f), f.size(), "fnv1a64:0000000000000000");
  writeFileAtomically(plan, tampered);
  EXPECT_ERROR_PARTS([&] { readJob(plan); }, tmp.path() + "/k/arch.yaml",
                     "do not match the fingerprint");
  std::string noFile = text;
  noFile.replace(noFile.find("\"arch.yaml\""), 11, "\"gone.yaml\"");
  writeFileAtomically(plan, noFile);
  EXPECT_ERROR_PARTS([&] { readJob(plan); }, tmp.path() + "/k/gone.yaml", "cannot open");
  std::string badField = text;
  badField.replace(badField.find(f), f.size(), "md5:1234");
  writeFileAtomically(plan, badField);
  EXPECT_ERROR_PARTS([&] { readJob(plan); }, plan, "arch.fingerprint");
}

class DirectoryErrors : public ::testing::Test {
protected:
  void SetUp() override {
    job_ = testing::syntheticJob();
    writeJob(tmp_.path(), job_);
    plan_ = tmp_.path() + "/job.plan";
    bin_ = tmp_.path() + "/init.bin";
  }
  /// Rewrites init.bin with these symbols.
  void setSymbols(std::vector<std::string> symbols) {
    JobBinary bin = job_.binary;
    bin.symbols = std::move(symbols);
    writeFileAtomically(bin_, encodeBinary(bin));
  }
  TempDir tmp_;
  Job job_;
  std::string plan_, bin_;
};

TEST_F(DirectoryErrors, MissingFiles) {
  ::unlink(bin_.c_str());
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, bin_, "cannot open");
  EXPECT_ERROR_PARTS([&] { readJob(tmp_.path() + "/other.plan"); }, tmp_.path() + "/other.plan",
                     "cannot open");
}

TEST_F(DirectoryErrors, MalformedFilesNameThemselves) {
  writeFileAtomically(bin_, "SPYRBIN");
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, bin_ + ": truncated");
  writeFileAtomically(plan_, "{ nope");
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, plan_ + ":1: malformed JSON");
}

TEST_F(DirectoryErrors, SymbolNamingNothing) {
  setSymbols({"A", "Z", "A.d1", "M", "buf", "B"});
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, bin_ + ": ",
                     "symbol '@Z' of " + plan_ +
                         ": 'Z' is not a declared argument, scalar or buffer");
}

TEST_F(DirectoryErrors, DimensionSymbols) {
  // Every kind of symbol the runtime can bind is accepted.
  setSymbols({"A", "A.d0", "A.d1", "B.d2", "M", "buf", "C"});
  EXPECT_NO_THROW(readJob(plan_));
  for (const char* bad : {"A.d2", "B.d3", "M.d0", "buf.d0", "A.x", "A.d", "A.d1x", "A.", "Z.d0",
                          "A.d99999999999999999999"}) {
    SCOPED_TRACE(bad);
    std::vector<std::string> symbols = job_.binary.symbols;
    symbols[1] = bad;
    setSymbols(symbols);
    std::string base = std::string(bad).substr(0, std::string(bad).find('.'));
    bool arg = base == "A" || base == "B";
    EXPECT_ERROR_PARTS([&] { readJob(plan_); }, bin_ + ": ",
                       "symbol '@" + std::string(bad) + "' of " + plan_ + ": ",
                       arg ? "expected " + base + ".d0 .. "
                           : "'" + base + "' is not a tensor argument");
  }
}

// A plan may load further binaries (a multi-kernel job): each must exist beside the plan,
// named by a plain file name.
TEST_F(DirectoryErrors, InitTransferOfAnotherFile) {
  JobPlan plan = job_.plan;
  plan.prepare[1].filePath = "other.bin";
  writeFileAtomically(plan_, planToJson(plan));
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, "other.bin: cannot open");
  plan.prepare[1].filePath = "../init.bin";
  writeFileAtomically(plan_, planToJson(plan));
  EXPECT_ERROR_PARTS([&] { readJob(plan_); }, plan_ + ": ",
                     "prepare: InitTransfer of '../init.bin': a job binary is a file name in the "
                     "plan's directory");
}

} // namespace
} // namespace chipless::spyrecode
