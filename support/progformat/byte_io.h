#pragma once
/// Little-endian byte streams for the binary program formats (SpyreCode job binaries and TPU
/// program binaries): one writer and one bounds-checked reader, so both formats report a
/// truncated or malformed file the same way, naming the file and the field.
#include "support/error.h"

#include <cstring>
#include <string>

namespace chipless {

/// Appends plain values and length-prefixed strings to a byte string.
class ByteWriter {
public:
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  /// A string with a 16-bit length prefix.
  void str(const std::string& s) {
    put<uint16_t>(static_cast<uint16_t>(s.size()));
    out_ += s;
  }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

/// Reads what ByteWriter wrote; running past the end throws an Error naming `path` and the
/// field being read (`what`).
class ByteReader {
public:
  /// `in` and `path` must outlive the reader.
  ByteReader(const std::string& in, const std::string& path) : in_(in), path_(path) {}
  template <typename T>
  T get(const char* what) {
    if (pos_ + sizeof(T) > in_.size())
      fail(std::string("truncated: expected ") + what + " at byte " + std::to_string(pos_) +
           " but the file ends at byte " + std::to_string(in_.size()));
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  /// A string with a 16-bit length prefix.
  std::string str(const char* what) {
    auto n = get<uint16_t>(what);
    if (pos_ + n > in_.size()) fail(std::string("truncated inside ") + what);
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }
  bool atEnd() const { return pos_ == in_.size(); }
  [[noreturn]] void fail(const std::string& msg) const { throw Error(located(path_, 0, msg)); }

private:
  const std::string& in_;
  const std::string& path_;
  size_t pos_ = 0;
};

} // namespace chipless
