#include "runtime/remote/protocol.h"

#include "support/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace chipless::runtime::remote {

std::string opcodeName(uint16_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
  case Opcode::Reply:
    return "Reply";
  case Opcode::Error:
    return "Error";
  case Opcode::Hello:
    return "Hello";
  case Opcode::Open:
    return "Open";
  case Opcode::Close:
    return "Close";
  case Opcode::Allocate:
    return "Allocate";
  case Opcode::Release:
    return "Release";
  case Opcode::CopyIn:
    return "CopyIn";
  case Opcode::CopyOut:
    return "CopyOut";
  case Opcode::TensorBytes:
    return "TensorBytes";
  case Opcode::WriteTensor:
    return "WriteTensor";
  case Opcode::ReadTensor:
    return "ReadTensor";
  case Opcode::Prepare:
    return "Prepare";
  case Opcode::FreeProgram:
    return "FreeProgram";
  case Opcode::Launch:
    return "Launch";
  case Opcode::Stats:
    return "Stats";
  case Opcode::Abort:
    return "Abort";
  case Opcode::Collective:
    return "Collective";
  case Opcode::RunCollective:
    return "RunCollective";
  }
  return "opcode " + std::to_string(opcode);
}

bool isRequest(uint16_t opcode) {
  return (opcode >= static_cast<uint16_t>(Opcode::Hello) &&
          opcode < static_cast<uint16_t>(Opcode::Abort)) ||
         opcode == static_cast<uint16_t>(Opcode::Collective);
}

namespace {
template <typename T>
void putLe(char* out, T v) {
  std::memcpy(out, &v, sizeof v);
}
template <typename T>
T getLe(const char* in) {
  T v;
  std::memcpy(&v, in, sizeof v);
  return v;
}
} // namespace

void encodeHeader(const FrameHeader& h, char out[kHeaderBytes]) {
  putLe(out, h.magic);
  putLe(out + 4, h.version);
  putLe(out + 6, h.opcode);
  putLe(out + 8, h.flags);
  putLe(out + 12, h.length);
}

FrameHeader decodeHeader(const char in[kHeaderBytes]) {
  FrameHeader h;
  h.magic = getLe<uint32_t>(in);
  h.version = getLe<uint16_t>(in + 4);
  h.opcode = getLe<uint16_t>(in + 6);
  h.flags = getLe<uint32_t>(in + 8);
  h.length = getLe<uint32_t>(in + 12);
  return h;
}

std::string headerProblem(const FrameHeader& h) {
  if (h.magic != kMagic) return "not a chipless device protocol frame (bad magic)";
  if (h.version != kVersion)
    return "protocol version " + std::to_string(h.version) +
           " is not supported (this side speaks " + std::to_string(kVersion) + ")";
  if (h.flags & ~kMore) return "unknown frame flags " + std::to_string(h.flags);
  if (h.length > kMaxFramePayload)
    return "frame of " + std::to_string(h.length) + " bytes is over the limit of " +
           std::to_string(kMaxFramePayload);
  return "";
}

void FrameStream::writeAll(const char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd_, data, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      throw Error(peer_ + ": connection lost while sending (" + std::strerror(errno) + ")");
    data += k;
    n -= static_cast<size_t>(k);
  }
}

bool FrameStream::readExactly(char* data, size_t n, bool eofOk) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = ::recv(fd_, data + got, n - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0 && got == 0 && eofOk) return false;
    if (k == 0) throw Error(peer_ + ": connection closed in the middle of a message");
    if (k < 0)
      throw Error(peer_ + ": connection lost while receiving (" + std::strerror(errno) + ")");
    got += static_cast<size_t>(k);
  }
  return true;
}

void FrameStream::send(Opcode opcode, std::string_view head, std::string_view tail) {
  const size_t total = head.size() + tail.size();
  size_t pos = 0;
  do {
    size_t n = std::min<size_t>(total - pos, kMaxFramePayload);
    FrameHeader h;
    h.opcode = static_cast<uint16_t>(opcode);
    h.length = static_cast<uint32_t>(n);
    h.flags = pos + n < total ? kMore : 0;
    char header[kHeaderBytes];
    encodeHeader(h, header);
    writeAll(header, kHeaderBytes);
    // The frame's bytes: what is left of the head, then of the tail.
    size_t end = pos + n;
    if (pos < head.size()) writeAll(head.data() + pos, std::min(end, head.size()) - pos);
    if (end > head.size()) {
      size_t from = std::max(pos, head.size()) - head.size();
      writeAll(tail.data() + from, end - head.size() - from);
    }
    pos = end;
  } while (pos < total);
}

const Message& FrameStream::receive(bool* eof) {
  Message& m = message_;
  m.payload.clear(); // keeps its capacity
  bool first = true;
  for (;;) {
    char raw[kHeaderBytes];
    if (!readExactly(raw, kHeaderBytes, first && eof)) {
      *eof = true;
      return m;
    }
    FrameHeader h = decodeHeader(raw);
    std::string problem = headerProblem(h);
    if (!problem.empty()) throw Error(peer_ + ": " + problem);
    if (static_cast<Opcode>(h.opcode) == Opcode::Abort) {
      m.payload.clear();
      first = true;
      continue;
    }
    if (!first && h.opcode != static_cast<uint16_t>(m.opcode))
      throw Error(peer_ + ": a " + opcodeName(h.opcode) + " frame inside a " +
                  opcodeName(static_cast<uint16_t>(m.opcode)) + " message");
    if (m.payload.size() + h.length > maxMessage_)
      throw Error(peer_ + ": message over the limit of " + std::to_string(maxMessage_) + " bytes");
    m.opcode = static_cast<Opcode>(h.opcode);
    size_t at = m.payload.size();
    m.payload.resize(at + h.length);
    readExactly(m.payload.data() + at, h.length, false);
    first = false;
    if (!(h.flags & kMore)) break;
  }
  if (eof) *eof = false;
  return m;
}

} // namespace chipless::runtime::remote
