#pragma once
/// A little-endian binary encoding of plain values, for messages that cross a process
/// boundary (the device server's protocol, docs/device-protocol.md, and the traces and
/// statistics it carries). The writer appends; the reader checks every read against what is
/// left and throws chipless::Error naming the field, so a truncated or malformed message is
/// an error, never a read past the end.
#include "support/error.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chipless {

/// Appends values to a byte string.
class WireWriter {
public:
  /// An integer or floating-point value, in its own width, little-endian.
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  void put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  /// A byte string: its length (u64), then its bytes.
  void putBytes(std::string_view bytes) {
    put<uint64_t>(bytes.size());
    out_.append(bytes.data(), bytes.size());
  }
  void putString(std::string_view text) { putBytes(text); }
  /// A list of i64 (a tensor shape).
  void putShape(const std::vector<int64_t>& shape) {
    put<uint32_t>(static_cast<uint32_t>(shape.size()));
    for (int64_t d : shape) put<int64_t>(d);
  }
  /// Appends `n` zero bytes and returns where they start, for a caller to fill in place.
  char* appendSpace(size_t n) {
    out_.resize(out_.size() + n);
    return out_.data() + out_.size() - n;
  }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

/// Reads the values a WireWriter wrote, in the same order.
class WireReader {
public:
  /// Reads from `bytes` (not copied: it must outlive the reader); errors begin with `what`.
  WireReader(std::string_view bytes, std::string what) : in_(bytes), what_(std::move(what)) {}

  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  T get(const char* field) {
    need(sizeof(T), field);
    T value;
    std::memcpy(&value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string_view getBytes(const char* field) {
    uint64_t n = get<uint64_t>(field);
    need(n, field);
    std::string_view bytes = in_.substr(pos_, n);
    pos_ += n;
    return bytes;
  }
  std::string getString(const char* field) { return std::string(getBytes(field)); }
  /// A shape: at most 64 dimensions, none negative.
  std::vector<int64_t> getShape(const char* field) {
    uint32_t rank = get<uint32_t>(field);
    if (rank > 64) fail(field, "rank " + std::to_string(rank) + " is above 64");
    std::vector<int64_t> shape(rank);
    for (auto& d : shape) {
      d = get<int64_t>(field);
      if (d < 0) fail(field, "negative extent " + std::to_string(d));
    }
    return shape;
  }
  /// A count of items that follow, each at least `minItemBytes` long: bounded by what is
  /// left, so a corrupt count cannot make the caller reserve absurd memory.
  uint32_t getCount(const char* field, size_t minItemBytes) {
    uint32_t n = get<uint32_t>(field);
    if (minItemBytes && n > (in_.size() - pos_) / minItemBytes)
      fail(field, "count " + std::to_string(n) + " exceeds the message");
    return n;
  }
  /// Bytes not read yet.
  size_t remaining() const { return in_.size() - pos_; }
  /// Fails unless every byte was read (trailing bytes mean a malformed message).
  void expectEnd() const {
    if (pos_ != in_.size())
      throw Error(what_ + ": " + std::to_string(in_.size() - pos_) + " unexpected trailing bytes");
  }
  [[noreturn]] void fail(const char* field, const std::string& why) const {
    throw Error(what_ + ": field '" + field + "': " + why);
  }

private:
  void need(uint64_t n, const char* field) const {
    if (n > in_.size() - pos_)
      fail(field, "truncated (" + std::to_string(n) + " bytes needed, " +
                      std::to_string(in_.size() - pos_) + " left)");
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string what_;
};

} // namespace chipless
