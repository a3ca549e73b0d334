// Tests for support/npy.h: .npy reading, writing and every error the reader reports.
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/npy.h"
#include "support/numerics.h"

#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace chipless {
namespace {

/// A fresh temp directory per test, plus helpers to build .npy files byte by byte.
class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/chipless_npy_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (std::system(("rm -rf '" + dir_ + "'").c_str()) != 0)
      ADD_FAILURE() << "cannot remove " << dir_;
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  /// A .npy image: magic, version, little-endian header length, `header` verbatim, `data`.
  static std::string image(const std::string& header, const std::string& data, int major = 1,
                           int minor = 0) {
    std::string bytes("\x93NUMPY", 6);
    bytes += char(major);
    bytes += char(minor);
    const size_t lengthBytes = major == 1 ? 2 : 4;
    for (size_t i = 0; i < lengthBytes; ++i) bytes += char((header.size() >> (8 * i)) & 0xFF);
    return bytes + header + data;
  }

  /// Writes a file made by image() and returns its path.
  std::string writeImage(const std::string& name, const std::string& header,
                         const std::string& data, int major = 1, int minor = 0) {
    const std::string p = path(name);
    writeFileAtomically(p, image(header, data, major, minor));
    return p;
  }

  /// The message of the chipless::Error that reading `p` throws; fails the test if none.
  static std::string readError(const std::string& p) {
    try {
      readNpy(p);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected chipless::Error reading " << p;
    return "";
  }

  std::string dir_;
};

/// Expects `message` to start with "path: field:" and to contain every one of `parts`.
void expectMessage(const std::string& message, const std::string& path, const std::string& field,
                   std::initializer_list<const char*> parts = {}) {
  EXPECT_EQ(message.rfind(path + ": " + field, 0), 0u) << message;
  for (const char* part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
}

const std::string kF4Header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n";

// ---------------------------------------------------------------------------------------------
// Writing and reading back
// ---------------------------------------------------------------------------------------------

TEST_F(NpyTest, MakeNpyIsZeroFilled) {
  const NpyArray a = makeNpy(DType::F32, {2, 3});
  EXPECT_EQ(a.dtype, DType::F32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.elements(), 6u);
  EXPECT_EQ(a.data, std::vector<uint8_t>(24, 0));
  EXPECT_EQ(makeNpy(DType::F16, {}).elements(), 1u);
  EXPECT_EQ(makeNpy(DType::F16, {}).data.size(), 2u);
  EXPECT_EQ(makeNpy(DType::I32, {4, 0}).data.size(), 0u);
  EXPECT_THROW(makeNpy(DType::F32, {2, -1}), Error);
}

TEST_F(NpyTest, RoundTripEveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {3, 4}, {2, 0, 3}, {1, 1, 1, 7}, {0}};
  for (DType dtype : {DType::F16, DType::F32, DType::I32, DType::I64}) {
    for (const auto& shape : shapes) {
      NpyArray a = makeNpy(dtype, shape);
      for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = uint8_t(i * 7 + 3);
      const std::string p = path(std::string("rt_") + dtypeName(dtype) + ".npy");
      writeNpy(p, a);
      const NpyArray b = readNpy(p);
      EXPECT_EQ(b.dtype, dtype);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(b.data, a.data);
      // The header is padded so that the data starts on a 64-byte boundary.
      const size_t fileSize = readFile(p).size();
      EXPECT_EQ((fileSize - a.data.size()) % 64, 0u) << dtypeName(dtype);
    }
  }
}

TEST_F(NpyTest, WritesNumpyHeaderLayout) {
  NpyArray a = makeNpy(DType::F32, {5});
  writeNpy(path("a.npy"), a);
  const std::string bytes = readFile(path("a.npy"));
  ASSERT_EQ(bytes.size(), 128u + 20u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8), 118);
  EXPECT_EQ(bytes.substr(10, 57), "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }");
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.find_first_not_of(' ', 67), 127u);

  writeNpy(path("s.npy"), makeNpy(DType::I32, {}));
  const std::string scalar = readFile(path("s.npy"));
  EXPECT_NE(scalar.find("'shape': (), }"), std::string::npos);
  EXPECT_EQ(scalar.size(), 128u + 4u);
}

TEST_F(NpyTest, WriteStoresValues) {
  NpyArray a = makeNpy(DType::F16, {2});
  const float values[] = {1.0f, -0.5f};
  encodeFromFloat(DType::F16, values, a.data.data(), 2, Fp16Format::Ieee);
  writeNpy(path("h.npy"), a);
  const NpyArray b = readNpy(path("h.npy"));
  float back[2];
  decodeToFloat(DType::F16, b.data.data(), back, 2, Fp16Format::Ieee);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -0.5f);
}

TEST_F(NpyTest, WriteRejectsBadArraysAndWritesNothing) {
  NpyArray bf = makeNpy(DType::BF16, {2});
  try {
    writeNpy(path("bf.npy"), bf);
    ADD_FAILURE() << "expected an error for bf16";
  } catch (const Error& e) {
    expectMessage(e.what(), path("bf.npy"), "cannot write dtype bf16");
  }
  NpyArray wrongSize = makeNpy(DType::F32, {3});
  wrongSize.data.pop_back();
  try {
    writeNpy(path("ws.npy"), wrongSize);
    ADD_FAILURE() << "expected an error for a short buffer";
  } catch (const Error& e) {
    expectMessage(e.what(), path("ws.npy"), "cannot write", {"needs 12 bytes", "holds 11"});
  }
  NpyArray negative = makeNpy(DType::F32, {3});
  negative.shape = {-3};
  EXPECT_THROW(writeNpy(path("neg.npy"), negative), Error);
  EXPECT_THROW(readFile(path("bf.npy")), Error);
  EXPECT_THROW(readFile(path("ws.npy")), Error);
  EXPECT_THROW(readFile(path("neg.npy")), Error);
}

TEST_F(NpyTest, WriteIntoMissingDirectoryFails) {
  EXPECT_THROW(writeNpy(path("missing/a.npy"), makeNpy(DType::F32, {1})), Error);
}

// ---------------------------------------------------------------------------------------------
// Accepted variants
// ---------------------------------------------------------------------------------------------

TEST_F(NpyTest, ReadsVersions2And3) {
  const std::string data(12, '\x01');
  for (int major : {2, 3}) {
    const std::string p = writeImage("v" + std::to_string(major) + ".npy", kF4Header, data, major);
    const NpyArray a = readNpy(p);
    EXPECT_EQ(a.dtype, DType::F32);
    EXPECT_EQ(a.shape, std::vector<int64_t>{3});
    EXPECT_EQ(a.data, std::vector<uint8_t>(12, 1));
  }
}

TEST_F(NpyTest, AcceptsNativeAndNotApplicableByteOrderMarks) {
  const std::string p1 = writeImage(
      "eq.npy", "{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }\n", std::string(4, 0));
  EXPECT_EQ(readNpy(p1).dtype, DType::F32);
  const std::string p2 = writeImage(
      "bar.npy", "{'descr': '|i4', 'fortran_order': False, 'shape': (1,), }\n", std::string(4, 0));
  EXPECT_EQ(readNpy(p2).dtype, DType::I32);
  const std::string p3 = writeImage(
      "f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }\n", std::string(4, 0));
  EXPECT_EQ(readNpy(p3).dtype, DType::F16);
}

TEST_F(NpyTest, AcceptsHeaderSpellingVariants) {
  // Other key order, double quotes, no trailing comma, Python 2 longs, extra whitespace.
  const std::string p =
      writeImage("variants.npy",
                 "{ \"shape\" : ( 2L , 3L ) , \"fortran_order\": False, 'descr': \"<i4\" }   \n",
                 std::string(24, 0));
  const NpyArray a = readNpy(p);
  EXPECT_EQ(a.dtype, DType::I32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
}

// ---------------------------------------------------------------------------------------------
// Errors: each names the path and the field
// ---------------------------------------------------------------------------------------------

TEST_F(NpyTest, MissingFile) {
  const std::string p = path("absent.npy");
  expectMessage(readError(p), p, "cannot open", {"No such file or directory"});
}

TEST_F(NpyTest, DirectoryIsNotAnNpyFile) {
  expectMessage(readError(dir_), dir_, "cannot open");
}

TEST_F(NpyTest, BadMagic) {
  const std::string p = path("bad.npy");
  writeFileAtomically(p, std::string("PK\x03\x04 this is a zip file, not an npy file"));
  expectMessage(readError(p), p, "magic", {"not a .npy file"});
  writeFileAtomically(p, std::string());
  expectMessage(readError(p), p, "magic");
  writeFileAtomically(p, std::string("\x93NUM", 4));
  expectMessage(readError(p), p, "magic");
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string p = writeImage("v4.npy", kF4Header, std::string(12, 0), 4);
  expectMessage(readError(p), p, "version", {"4.0", "1.0, 2.0, 3.0"});
  p = writeImage("v11.npy", kF4Header, std::string(12, 0), 1, 1);
  expectMessage(readError(p), p, "version", {"1.1"});
  p = path("short.npy");
  writeFileAtomically(p, std::string("\x93NUMPY\x01", 7));
  expectMessage(readError(p), p, "version");
}

TEST_F(NpyTest, TruncatedHeader) {
  std::string bytes = image(kF4Header, "");
  std::string p = path("trunc.npy");
  writeFileAtomically(p, bytes.substr(0, bytes.size() - 10));
  expectMessage(readError(p), p, "header", {"file ends inside the header"});
  writeFileAtomically(p, bytes.substr(0, 9));
  expectMessage(readError(p), p, "header", {"length"});
}

TEST_F(NpyTest, HeaderNotADict) {
  std::string p = writeImage("list.npy", "['<f4', False, (3,)]\n", std::string(12, 0));
  expectMessage(readError(p), p, "header", {"expected a Python dict", "list"});
  p = writeImage("garbage.npy", "{'descr': <f4, 'shape': (3,)}\n", std::string(12, 0));
  expectMessage(readError(p), p, "header", {"not a Python dict literal"});
  p = writeImage("unclosed.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)",
                 std::string(12, 0));
  expectMessage(readError(p), p, "header", {"not a Python dict literal"});
  p = writeImage("trailing.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x",
                 std::string(12, 0));
  expectMessage(readError(p), p, "header", {"not a Python dict literal"});
  p = writeImage("empty.npy", "", std::string(12, 0));
  expectMessage(readError(p), p, "header");
  p = writeImage("intkey.npy", "{1: '<f4'}", std::string(12, 0));
  expectMessage(readError(p), p, "header", {"not a string"});
}

TEST_F(NpyTest, MissingKeys) {
  const std::string data(12, 0);
  std::string p = writeImage("nodescr.npy", "{'fortran_order': False, 'shape': (3,), }\n", data);
  expectMessage(readError(p), p, "header", {"missing key 'descr'"});
  p = writeImage("noorder.npy", "{'descr': '<f4', 'shape': (3,), }\n", data);
  expectMessage(readError(p), p, "header", {"missing key 'fortran_order'"});
  p = writeImage("noshape.npy", "{'descr': '<f4', 'fortran_order': False, }\n", data);
  expectMessage(readError(p), p, "header", {"missing key 'shape'"});
}

TEST_F(NpyTest, UnsupportedDtype) {
  const std::string p = writeImage(
      "f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n", std::string(24, 0));
  expectMessage(readError(p), p, "descr", {"'<f8'", "'<f2'", "'<f4'", "'<i4'"});
  const std::string p2 = writeImage(
      "u1.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", std::string(3, 0));
  expectMessage(readError(p2), p2, "descr", {"'|u1'", "supported"});
  const std::string p3 =
      writeImage("struct.npy",
                 "{'descr': [('x', '<f4'), ('y', '<i4')], 'fortran_order': False, 'shape': (3,), }",
                 std::string(24, 0));
  expectMessage(readError(p3), p3, "descr", {"structured", "supported"});
}

TEST_F(NpyTest, BigEndianDtype) {
  const std::string p = writeImage(
      "be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }\n", std::string(12, 0));
  expectMessage(readError(p), p, "descr", {"big-endian", "'>f4'"});
}

TEST_F(NpyTest, FortranOrder) {
  std::string p = writeImage("fo.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }\n",
                             std::string(12, 0));
  expectMessage(readError(p), p, "fortran_order", {"numpy.ascontiguousarray"});
  p = writeImage("fo2.npy", "{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }\n",
                 std::string(12, 0));
  expectMessage(readError(p), p, "fortran_order", {"expected True or False"});
}

TEST_F(NpyTest, BadShapes) {
  const std::string data(12, 0);
  auto header = [](const std::string& shape) {
    return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }\n";
  };
  std::string p = writeImage("neg.npy", header("(3, -1)"), data);
  expectMessage(readError(p), p, "shape", {"negative", "-1", "dimension 1"});
  p = writeImage("int.npy", header("3"), data);
  expectMessage(readError(p), p, "shape", {"expected a tuple"});
  p = writeImage("paren.npy", header("(3)"), data);
  expectMessage(readError(p), p, "shape", {"expected a tuple"});
  p = writeImage("list.npy", header("[3]"), data);
  expectMessage(readError(p), p, "shape", {"expected a tuple", "list"});
  p = writeImage("str.npy", header("(3, 'a')"), data);
  expectMessage(readError(p), p, "shape", {"dimension 1", "'a'"});
  p = writeImage("float.npy", header("(3.5,)"), data);
  expectMessage(readError(p), p, "shape", {"3.5"});
  p = writeImage("none.npy", header("None"), data);
  expectMessage(readError(p), p, "shape", {"None"});
  p = writeImage("huge.npy", header("(99999999999999999999,)"), data);
  expectMessage(readError(p), p, "shape", {"too large"});
  p = writeImage("overflow.npy", header("(4294967296, 4294967296, 4294967296)"), data);
  expectMessage(readError(p), p, "shape", {"too large"});
}

TEST_F(NpyTest, DataShorterOrLongerThanShape) {
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n";
  std::string p = writeImage("short.npy", header, std::string(40, 0));
  expectMessage(readError(p), p, "data", {"48", "40", "(3, 4)"});
  p = writeImage("long.npy", header, std::string(52, 0));
  expectMessage(readError(p), p, "data", {"48", "52"});
  p = writeImage("empty.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", "");
  expectMessage(readError(p), p, "data", {"needs 4", "has 0"});
}

// ---------------------------------------------------------------------------------------------
// Interoperability with numpy itself (skipped when /usr/bin/python3 has no numpy)
// ---------------------------------------------------------------------------------------------

/// True if /usr/bin/python3 can import numpy.
bool haveNumpy() {
  static const bool available =
      std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  return available;
}

/// Runs a Python script with /usr/bin/python3 in `dir`; returns its exit status.
int runPython(const std::string& dir, const std::string& script) {
  const std::string file = dir + "/script.py";
  writeFileAtomically(file, script);
  return std::system(("cd '" + dir + "' && /usr/bin/python3 '" + file + "'").c_str());
}

TEST_F(NpyTest, ReadsFilesWrittenByNumpy) {
  if (!haveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  ASSERT_EQ(runPython(dir_, R"(
import numpy as np
from numpy.lib import format as fmt
np.save('f2.npy', (np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5 - 1).astype(np.float16))
np.save('f4.npy', np.arange(5, dtype=np.float32) / 4)
np.save('i4.npy', np.arange(-3, 3, dtype=np.int32).reshape(2, 1, 3))
np.save('scalar.npy', np.array(7.25, dtype=np.float32))
np.save('empty.npy', np.zeros((0, 3), dtype=np.int32))
with open('v2.npy', 'wb') as f: fmt.write_array(f, np.arange(4, dtype=np.float32), version=(2, 0))
with open('v3.npy', 'wb') as f: fmt.write_array(f, np.arange(4, dtype=np.float32), version=(3, 0))
np.save('fortran.npy', np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
np.save('big.npy', np.ones(3, dtype='>f4'))
np.save('f8.npy', np.ones(3))
np.save('i8.npy', np.array([-(2**40), 5, 2**33], dtype=np.int64))
)"),
            0);
  NpyArray i8 = readNpy(path("i8.npy")); // numpy's default integer: index tensors come so
  EXPECT_EQ(i8.dtype, DType::I64);
  ASSERT_EQ(i8.data.size(), 24u);
  int64_t first;
  std::memcpy(&first, i8.data.data(), 8);
  EXPECT_EQ(first, -(int64_t{1} << 40));
  auto floats = [](const NpyArray& a) {
    std::vector<float> out(a.elements());
    decodeToFloat(a.dtype, a.data.data(), out.data(), out.size(), Fp16Format::Ieee);
    return out;
  };
  NpyArray f2 = readNpy(path("f2.npy"));
  EXPECT_EQ(f2.dtype, DType::F16);
  EXPECT_EQ(f2.shape, (std::vector<int64_t>{3, 4}));
  std::vector<float> v = floats(f2);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], i * 0.5f - 1) << i;

  NpyArray f4 = readNpy(path("f4.npy"));
  EXPECT_EQ(f4.shape, std::vector<int64_t>{5});
  v = floats(f4);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v[i], i / 4.0f);

  NpyArray i4 = readNpy(path("i4.npy"));
  EXPECT_EQ(i4.dtype, DType::I32);
  EXPECT_EQ(i4.shape, (std::vector<int64_t>{2, 1, 3}));
  for (int i = 0; i < 6; ++i) {
    int32_t x;
    std::memcpy(&x, i4.data.data() + 4 * i, 4);
    EXPECT_EQ(x, i - 3);
  }

  NpyArray scalar = readNpy(path("scalar.npy"));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(floats(scalar), std::vector<float>{7.25f});

  NpyArray empty = readNpy(path("empty.npy"));
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.data.empty());

  for (const char* name : {"v2.npy", "v3.npy"})
    EXPECT_EQ(floats(readNpy(path(name))), (std::vector<float>{0, 1, 2, 3})) << name;

  expectMessage(readError(path("fortran.npy")), path("fortran.npy"), "fortran_order");
  expectMessage(readError(path("big.npy")), path("big.npy"), "descr", {"big-endian"});
  expectMessage(readError(path("f8.npy")), path("f8.npy"), "descr", {"'<f8'"});
}

TEST_F(NpyTest, NumpyReadsFilesWeWrite) {
  if (!haveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  NpyArray f2 = makeNpy(DType::F16, {2, 3});
  std::vector<float> values = {0.5f, -1.0f, 2.0f, 65504.0f, 0.0f, -0.25f};
  encodeFromFloat(DType::F16, values.data(), f2.data.data(), 6, Fp16Format::Ieee);
  writeNpy(path("f2.npy"), f2);

  NpyArray f4 = makeNpy(DType::F32, {4});
  for (int i = 0; i < 4; ++i) {
    const float x = i * 1.5f;
    std::memcpy(f4.data.data() + 4 * i, &x, 4);
  }
  writeNpy(path("f4.npy"), f4);

  NpyArray i4 = makeNpy(DType::I32, {3, 1});
  for (int i = 0; i < 3; ++i) {
    const int32_t x = -1000 * i;
    std::memcpy(i4.data.data() + 4 * i, &x, 4);
  }
  writeNpy(path("i4.npy"), i4);

  NpyArray scalar = makeNpy(DType::F32, {});
  const float s = 3.0f;
  std::memcpy(scalar.data.data(), &s, 4);
  writeNpy(path("scalar.npy"), scalar);
  writeNpy(path("empty.npy"), makeNpy(DType::F32, {0}));

  ASSERT_EQ(runPython(dir_, R"(
import numpy as np
a = np.load('f2.npy')
assert a.dtype == np.float16 and a.shape == (2, 3), (a.dtype, a.shape)
assert (a == np.array([[0.5, -1, 2], [65504, 0, -0.25]], dtype=np.float16)).all(), a
b = np.load('f4.npy')
assert b.dtype == np.float32 and b.shape == (4,) and (b == [0, 1.5, 3, 4.5]).all(), b
c = np.load('i4.npy')
assert c.dtype == np.int32 and c.shape == (3, 1) and (c[:, 0] == [0, -1000, -2000]).all(), c
d = np.load('scalar.npy')
assert d.dtype == np.float32 and d.shape == () and d == 3.0, d
e = np.load('empty.npy')
assert e.dtype == np.float32 and e.shape == (0,), e
)"),
            0);
}

TEST_F(NpyTest, WritesTheSameBytesAsNumpy) {
  if (!haveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  ASSERT_EQ(runPython(dir_, R"(
import numpy as np
np.save('np_scalar.npy', np.zeros((), dtype=np.float16))
np.save('np_vec.npy', np.zeros((5,), dtype=np.float32))
np.save('np_mat.npy', np.zeros((3, 4), dtype=np.int32))
np.save('np_big.npy', np.zeros((1234567, 0, 2), dtype=np.float32))
)"),
            0);
  writeNpy(path("scalar.npy"), makeNpy(DType::F16, {}));
  writeNpy(path("vec.npy"), makeNpy(DType::F32, {5}));
  writeNpy(path("mat.npy"), makeNpy(DType::I32, {3, 4}));
  writeNpy(path("big.npy"), makeNpy(DType::F32, {1234567, 0, 2}));
  for (const char* name : {"scalar.npy", "vec.npy", "mat.npy", "big.npy"})
    EXPECT_EQ(readFile(path(name)), readFile(path(std::string("np_") + name))) << name;
}

} // namespace
} // namespace chipless
