// The device protocol's composite values (runtime/remote/codec.h) come back as they were
// written, however short their names, and a malformed one is an error naming the field.
#include "runtime/remote/codec.h"
#include "runtime/remote/protocol.h"
#include "support/error.h"

#include <gtest/gtest.h>

namespace chipless::runtime::remote {
namespace {

TEST(RemoteCodec, ProgramInfoRoundTripsWithShortNames) {
  ProgramInfo info;
  info.kernel = "k";
  for (const char* n : {"a", "b", "c", "d", "e"}) // the smallest arguments there are
    info.arguments.push_back({n, progformat::ArgRole::InOut, DType::BF16, DType::F32, ""});
  info.scalars = {"", "M"};
  WireWriter w;
  putProgramInfo(w, info);
  std::string bytes = w.take();
  WireReader r(bytes, "Prepare reply");
  ProgramInfo back = getProgramInfo(r);
  r.expectEnd();
  ASSERT_EQ(back.arguments.size(), 5u);
  EXPECT_EQ(back.arguments[4].name, "e");
  EXPECT_EQ(back.arguments[4].role, progformat::ArgRole::InOut);
  EXPECT_EQ(back.arguments[4].dtype, DType::BF16);
  EXPECT_EQ(back.scalars, info.scalars);
}

TEST(RemoteCodec, ArraysAndTensorsRoundTripAndMalformedOnesAreRefused) {
  NpyArray a = makeNpy(DType::I32, {2, 3});
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i);
  NpyArray empty = makeNpy(DType::F16, {0, 5});
  WireWriter w;
  putArray(w, a);
  putArray(w, empty);
  putTensor(w, DeviceTensor{4096, DType::F16, {7, 9}});
  std::string bytes = w.take();
  WireReader r(bytes, "msg");
  NpyArray back = getArray(r, "a");
  EXPECT_EQ(back.shape, a.shape);
  EXPECT_EQ(back.data, a.data);
  EXPECT_EQ(getArray(r, "empty").shape, empty.shape);
  DeviceTensor t = getTensor(r, "t");
  EXPECT_EQ(t.address, 4096u);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{7, 9}));
  r.expectEnd();

  // Data that does not match the shape, an unknown dtype, an overflowing shape.
  auto refused = [](const std::string& message, const char* words) {
    WireReader bad(message, "msg");
    try {
      getArray(bad, "input");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  WireWriter shortData;
  shortData.put<uint8_t>(static_cast<uint8_t>(DType::F32));
  shortData.putShape({4});
  shortData.putBytes("12345678");
  refused(shortData.take(), "msg: field 'input': 8 data bytes do not match");
  WireWriter dtype;
  dtype.put<uint8_t>(77);
  refused(dtype.take(), "unknown dtype 77");
  WireWriter huge;
  huge.put<uint8_t>(static_cast<uint8_t>(DType::F32));
  huge.putShape({1ll << 40, 1ll << 40});
  huge.putBytes("");
  refused(huge.take(), "do not match");
}

TEST(RemoteCodec, FrameHeadersAreCheckedBeforeAnyPayload) {
  FrameHeader h;
  h.opcode = static_cast<uint16_t>(Opcode::Launch);
  h.length = 12;
  char raw[kHeaderBytes];
  encodeHeader(h, raw);
  FrameHeader back = decodeHeader(raw);
  EXPECT_EQ(back.opcode, h.opcode);
  EXPECT_EQ(back.length, 12u);
  EXPECT_EQ(headerProblem(back), "");
  back.length = kMaxFramePayload + 1;
  EXPECT_NE(headerProblem(back).find("over the limit"), std::string::npos);
  back = h;
  back.magic = 1;
  EXPECT_NE(headerProblem(back).find("bad magic"), std::string::npos);
  EXPECT_TRUE(isRequest(static_cast<uint16_t>(Opcode::Stats)));
  EXPECT_FALSE(isRequest(static_cast<uint16_t>(Opcode::Abort)));
  EXPECT_EQ(opcodeName(4242), "opcode 4242");
  // Every opcode has its name (the switch has no default, so the compiler warns of one left out).
  for (uint16_t op = 1; op <= static_cast<uint16_t>(Opcode::RunCollective); ++op) {
    if (op > 2 && op < 16) continue;
    EXPECT_EQ(opcodeName(op).find("opcode "), std::string::npos) << op;
  }
  EXPECT_TRUE(isRequest(static_cast<uint16_t>(Opcode::Collective)));
  EXPECT_FALSE(isRequest(static_cast<uint16_t>(Opcode::RunCollective)));
}

} // namespace
} // namespace chipless::runtime::remote
