#pragma once
/// The device server's wire protocol (docs/device-protocol.md), version 3: what a client
/// (runtime::RemoteDevice), the server (chipless-device-server) and the server's per-device
/// worker processes say to each other. A message is one or more frames; a frame is a 16-byte
/// header and at most kMaxFramePayload bytes. Every request gets exactly one reply message:
/// Reply with the result, or Error with the message the in-process device would have thrown.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace chipless::runtime::remote {

/// "CLDS" read as a little-endian u32: the first four bytes of every frame.
constexpr uint32_t kMagic = 0x53444c43;
/// The protocol version this build speaks; a frame of another version gets an Error.
constexpr uint16_t kVersion = 3;
/// Most payload bytes in one frame; a longer message is split into frames with kMore set.
constexpr uint32_t kMaxFramePayload = 4u << 20;
/// Default bound on one message (all its frames): larger ones are refused.
constexpr uint64_t kDefaultMaxMessage = 4ull << 30;

/// What a message asks for (requests) or is (Reply, Error).
enum class Opcode : uint16_t {
  Reply = 1,        ///< the result of the request before
  Error = 2,        ///< a string: why the request before failed
  Hello = 16,       ///< token, client pid, client name -> server pid, devices
  Open = 17,        ///< kind, index, options, architecture, share -> index, chips, share
  Close = 18,       ///< -> nothing; the device, its memory and programs are released
  Allocate = 19,    ///< bytes, name -> address
  Release = 20,     ///< address -> nothing
  CopyIn = 21,      ///< address, chip, bytes -> nothing
  CopyOut = 22,     ///< address, bytes, chip -> bytes
  TensorBytes = 23, ///< dtype, shape -> bytes of the canonical layout
  WriteTensor = 24, ///< tensor, what, array -> link seconds
  ReadTensor = 25,  ///< tensor -> array, link seconds
  Prepare = 26,     ///< directory, plan file, files -> program id, program info
  FreeProgram = 27, ///< program id -> nothing
  Launch = 28,      ///< program id, arguments, trace point -> outputs, report, trace
  Stats = 29,       ///< cycles, host seconds, issued -> statistics
  Abort = 30,       ///< server to worker only: drop a partly received message
  Collective =
      31, ///< group, sequence, rank, size, network, kind, root, tag, block -> result, seconds
  RunCollective = 32, ///< server to a network worker only: kind, root, blocks -> results
};

/// The name of an opcode ("Launch"), or "opcode N" for an unknown one.
std::string opcodeName(uint16_t opcode);
/// Whether `opcode` is one a client may send (not Abort or RunCollective, which only the
/// server sends its workers).
bool isRequest(uint16_t opcode);

/// Header flag: more frames of this message follow.
constexpr uint32_t kMore = 1;

/// The 16 bytes before every frame's payload (little-endian).
struct FrameHeader {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  uint16_t opcode = 0;
  uint32_t flags = 0;
  uint32_t length = 0; ///< payload bytes that follow
};
constexpr size_t kHeaderBytes = 16;

void encodeHeader(const FrameHeader& h, char out[kHeaderBytes]);
FrameHeader decodeHeader(const char in[kHeaderBytes]);
/// Why `h` is not acceptable (wrong magic or version, unknown flags, payload over the
/// limit), or "" when it is.
std::string headerProblem(const FrameHeader& h);

/// A whole message: its opcode and payload (all frames joined).
struct Message {
  Opcode opcode = Opcode::Reply;
  std::string payload;
};

/// Blocking message I/O on a connected stream socket, for the client and the workers.
/// Every failure throws chipless::Error starting with `peer` ("device server unix:/p").
class FrameStream {
public:
  FrameStream(int fd, std::string peer, uint64_t maxMessage = kDefaultMaxMessage)
      : fd_(fd), peer_(std::move(peer)), maxMessage_(maxMessage) {}
  /// Sends `payload` as one message, split into frames.
  void send(Opcode opcode, std::string_view payload) { send(opcode, payload, {}); }
  /// Sends `head` followed by `tail` as one message, without joining them first (a copy's
  /// fields, then its bytes where the caller has them).
  void send(Opcode opcode, std::string_view head, std::string_view tail);
  /// Receives one whole message into this stream's buffer, which the next receive reuses (so a
  /// stream of large messages does not fault in fresh memory for each). `eof` (when given) is
  /// set instead of throwing when the peer closed the connection cleanly before a message
  /// began. An Abort frame drops the frames received so far and the message starts again.
  const Message& receive(bool* eof = nullptr);
  int fd() const { return fd_; }
  const std::string& peer() const { return peer_; }

private:
  /// Reads exactly `n` bytes; false on a clean end of stream before the first byte when
  /// `eofOk`.
  bool readExactly(char* data, size_t n, bool eofOk);
  void writeAll(const char* data, size_t n);

  int fd_;
  std::string peer_;
  uint64_t maxMessage_;
  Message message_; ///< the last message received
};

} // namespace chipless::runtime::remote
