#include "runtime/remote/device_service.h"

#include "runtime/remote/channel_passing.h"
#include "runtime/remote/codec.h"
#include "runtime/remote/program_files.h"
#include "runtime/remote/worker_loop.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"
#include "support/wire.h"

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace chipless::runtime::remote {

namespace fs = std::filesystem;

DeviceService::DeviceService(ChipKind kind, int index, std::string workDirectory)
    : kind_(kind), index_(index), workDirectory_(std::move(workDirectory)) {}

DeviceService::~DeviceService() {
  close();
}

void DeviceService::close() {
  programs_.clear();
  device_.reset();
  std::error_code ignored;
  for (const auto& [id, dir] : programDirectories_) fs::remove_all(dir, ignored);
  programDirectories_.clear();
}

Device& DeviceService::device() {
  if (!device_)
    throw Error(std::string(chipKindName(kind_)) + ":" + std::to_string(index_) +
                ": the device is not open (Open comes first)");
  return *device_;
}

Program& DeviceService::program(uint32_t id) {
  auto found = programs_.find(id);
  if (found == programs_.end())
    throw Error(device().name() + ": no prepared program " + std::to_string(id));
  return *found->second;
}

std::string DeviceService::answer(const Message& request) {
  const std::string what = opcodeName(static_cast<uint16_t>(request.opcode)) + " request";
  WireReader r(request.payload, what);
  WireWriter w;
  switch (request.opcode) {
  case Opcode::Open:
    return open(r);
  case Opcode::Close:
    r.expectEnd();
    close();
    return "";
  case Opcode::Allocate: {
    uint64_t bytes = r.get<uint64_t>("bytes");
    std::string name = r.getString("name");
    r.expectEnd();
    w.put<uint64_t>(device().allocate(bytes, name));
    return w.take();
  }
  case Opcode::Release: {
    uint64_t address = r.get<uint64_t>("address");
    r.expectEnd();
    device().release(address);
    return "";
  }
  case Opcode::CopyIn: {
    uint64_t address = r.get<uint64_t>("address");
    int chip = r.get<int32_t>("chip");
    std::string_view bytes = r.getBytes("bytes");
    r.expectEnd();
    device().copyIn(address, bytes.data(), bytes.size(), chip);
    return "";
  }
  case Opcode::CopyOut: {
    uint64_t address = r.get<uint64_t>("address");
    uint64_t bytes = r.get<uint64_t>("bytes");
    int chip = r.get<int32_t>("chip");
    r.expectEnd();
    if (bytes > kDefaultMaxMessage) r.fail("bytes", "more than one message can carry");
    w.put<uint64_t>(bytes);
    device().copyOut(address, w.appendSpace(bytes), bytes, chip);
    return w.take();
  }
  case Opcode::TensorBytes: {
    DType dtype = getDType(r, "dtype");
    std::vector<int64_t> shape = r.getShape("shape");
    r.expectEnd();
    w.put<uint64_t>(device().tensorBytes(dtype, shape));
    return w.take();
  }
  case Opcode::WriteTensor: {
    DeviceTensor tensor = getTensor(r, "tensor");
    std::string name = r.getString("what");
    NpyArray host = getArray(r, "array");
    r.expectEnd();
    w.put<double>(device().writeTensor(tensor, host, name));
    return w.take();
  }
  case Opcode::ReadTensor: {
    DeviceTensor tensor = getTensor(r, "tensor");
    r.expectEnd();
    double seconds = 0;
    NpyArray host = device().readTensor(tensor, seconds);
    putArray(w, host);
    w.put<double>(seconds);
    return w.take();
  }
  case Opcode::Prepare:
    return prepare(r);
  case Opcode::FreeProgram: {
    uint32_t id = r.get<uint32_t>("program");
    r.expectEnd();
    program(id);
    programs_.erase(id);
    std::error_code ignored;
    fs::remove_all(programDirectories_[id], ignored);
    programDirectories_.erase(id);
    return "";
  }
  case Opcode::Launch:
    return launch(r);
  case Opcode::Stats: {
    LaunchReport last;
    last.cycles = r.get<double>("cycles");
    last.hostSeconds = r.get<double>("host seconds");
    last.issued = r.get<uint64_t>("issued");
    r.expectEnd();
    return device().stats(last).encode();
  }
  default:
    throw Error("device worker: " + what + " is not a device request");
  }
}

std::string DeviceService::open(WireReader& r) {
  std::string kind = r.getString("kind");
  r.get<int32_t>("index"); // the server chose this worker's device for it
  DeviceOptions options;
  options.index = index_;
  options.timingOnly = r.get<uint8_t>("timing only") != 0;
  options.chips = r.get<int32_t>("chips");
  options.maxCycles = r.get<double>("max cycles");
  options.timeoutSeconds = r.get<double>("timeout");
  std::string yaml = r.getString("architecture");
  options.share = getShare(r);
  r.expectEnd();
  if (parseChipKind(kind, "Open request: kind") != kind_)
    throw Error("device worker: asked to open a " + kind + " on " + chipKindName(kind_) + ":" +
                std::to_string(index_));
  if (device_) throw Error(device_->name() + ": already open on this connection");
  std::string file = workDirectory_ + "/open-arch.yaml";
  {
    std::ofstream out(file, std::ios::binary);
    out << yaml;
    if (!out) throw Error("device server: cannot write " + file);
  }
  const auto& schema = kind_ == ChipKind::Spyre ? SpyreArch::schema() : TpuArch::schema();
  ArchDescription arch = ArchDescription::load(file, schema, {});
  device_ = Device::openLocal(kind_, arch, options);
  WireWriter w;
  w.put<int32_t>(device_->index());
  w.put<int32_t>(device_->chips());
  putShareInfo(w, device_->shareInfo());
  return w.take();
}

std::string DeviceService::prepare(WireReader& r) {
  Device& d = device();
  uint32_t id = nextProgram_++;
  std::string dir = workDirectory_ + "/program-" + std::to_string(id);
  fs::create_directories(dir);
  try {
    UnpackedProgram unpacked = getProgramFiles(r, dir);
    std::unique_ptr<Program> p;
    try {
      p = d.prepare(unpacked.planPath);
    } catch (const Error& e) {
      // Name the client's files, as the in-process prepare would have.
      std::string message = e.what();
      for (size_t at = message.find(dir); at != std::string::npos;
           at = message.find(dir, at + unpacked.clientDirectory.size()))
        message.replace(at, dir.size(), unpacked.clientDirectory);
      throw Error(message);
    }
    WireWriter w;
    w.put<uint32_t>(id);
    putProgramInfo(w, p->info());
    programs_[id] = std::move(p);
    programDirectories_[id] = dir;
    return w.take();
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    throw;
  }
}

std::string DeviceService::launch(WireReader& r) {
  Program& p = program(r.get<uint32_t>("program"));
  LaunchArgs args;
  for (uint32_t n = r.getCount("inputs", 8); n > 0; --n) {
    std::string name = r.getString("input name");
    args.inputs[name] = getArray(r, "input");
  }
  for (uint32_t n = r.getCount("scalars", 16); n > 0; --n) {
    std::string name = r.getString("scalar name");
    args.scalars[name] = r.get<int64_t>("scalar");
  }
  for (uint32_t n = r.getCount("reals", 16); n > 0; --n) {
    std::string name = r.getString("real name");
    args.reals[name] = r.get<double>("real");
  }
  for (uint32_t n = r.getCount("resident tensors", 8); n > 0; --n) {
    std::string name = r.getString("resident name");
    args.resident[name] = getTensor(r, "resident tensor");
  }
  args.statistics = r.get<uint8_t>("statistics") != 0;
  std::unique_ptr<TraceWriter> trace;
  if (r.get<uint8_t>("trace") != 0) {
    TraceWriter::ResumePoint point;
    point.offsetNs = r.get<int64_t>("trace offset");
    point.endNs = r.get<int64_t>("trace end");
    point.capacity = r.get<uint64_t>("trace capacity");
    trace = std::make_unique<TraceWriter>(point.capacity);
    trace->resumeFrom(point);
    args.trace = trace.get();
  }
  r.expectEnd();
  LaunchReport report = device().launch(p, args);
  WireWriter w;
  w.put<uint32_t>(static_cast<uint32_t>(report.outputs.size()));
  for (const auto& [name, array] : report.outputs) {
    w.putString(name);
    putArray(w, array);
  }
  w.put<double>(report.cycles);
  w.put<double>(report.hostSeconds);
  w.put<uint64_t>(report.issued);
  w.put<uint64_t>(report.sharedSteps);
  w.put<uint8_t>(report.deviceStats ? 1 : 0);
  if (report.deviceStats) w.putBytes(report.deviceStats->encode());
  if (trace) w.putBytes(trace->encode());
  return w.take();
}

int serveDevice(int control, ChipKind kind, int index) {
  const std::string name = std::string(chipKindName(kind)) + "-" + std::to_string(index);
  WorkDirectory work("worker-" + name);
  std::mutex mutex;
  std::condition_variable ended;
  std::set<int> channels; // the sessions being answered
  int failed = 0;
  int running = 0;
  int status = 0;
  for (uint64_t session = 1;; ++session) {
    int fd = -1;
    try {
      fd = receiveChannel(control);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "chipless-device-server worker %s: %s\n", name.c_str(), e.what());
      status = 1;
    }
    if (fd < 0) break;
    std::lock_guard lock(mutex);
    channels.insert(fd);
    ++running;
    // Each session on a thread of its own: the shares of a device meet at its gate.
    std::thread([&, fd, session] {
      std::string dir = work.path() + "/session-" + std::to_string(session);
      std::error_code ignored;
      fs::create_directories(dir, ignored);
      int rc;
      {
        DeviceService service(kind, index, dir);
        rc = answerUntilClosed(fd, "worker " + name,
                               [&](const Message& request) { return service.answer(request); });
      }
      fs::remove_all(dir, ignored);
      {
        std::lock_guard lock(mutex);
        channels.erase(fd); // before the number can be given to another channel
      }
      ::close(fd);
      std::lock_guard lock(mutex);
      failed += rc != 0;
      --running;
      ended.notify_all();
    }).detach();
  }
  // The server is gone: end the sessions still answering, then leave.
  std::unique_lock lock(mutex);
  for (int fd : channels) ::shutdown(fd, SHUT_RDWR);
  ended.wait(lock, [&] { return running == 0; });
  return status != 0 || failed != 0 ? 1 : 0;
}

} // namespace chipless::runtime::remote
