#include "support/npy.h"

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/host_buffer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace chipless {
namespace {

/// "\x93NUMPY": the six bytes every .npy file starts with.
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// numpy aligns the start of the data to this many bytes.
constexpr size_t kHeaderAlign = 64;
/// numpy leaves room for a shape extent of this many digits so headers can grow in place.
constexpr size_t kGrowthAxisMaxDigits = 21;

// ---------------------------------------------------------------------------------------------
// The header is a Python literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// ---------------------------------------------------------------------------------------------

/// One parsed Python literal; only the kinds a .npy header can contain are modelled.
struct PyValue {
  enum class Kind { Str, Bool, Int, Float, Tuple, List, Dict, None } kind = Kind::None;
  std::string source;           ///< The literal as written, for error messages.
  std::string str;              ///< Str: the contents without quotes.
  bool boolean = false;         ///< Bool.
  int64_t integer = 0;          ///< Int (valid unless integerOverflow).
  bool integerOverflow = false; ///< Int outside int64_t.
  std::vector<PyValue> items;   ///< Tuple, List.
  std::vector<std::pair<std::string, PyValue>> entries; ///< Dict (string keys only).
};

/// Recursive-descent parser for the subset of Python literal syntax numpy headers use.
class PyLiteralParser {
public:
  explicit PyLiteralParser(const std::string& source) : src_(source) {}

  /// Parses the whole source as one literal plus whitespace; on failure returns false and
  /// error() says what went wrong where.
  bool parse(PyValue& out) {
    if (!value(out)) return false;
    skipSpace();
    if (pos_ != src_.size()) return fail("unexpected text after the literal");
    return true;
  }

  /// Why parse() failed, with the offset in the header text.
  const std::string& error() const { return error_; }

private:
  /// Records the first failure with its offset; always returns false.
  bool fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at header offset " + std::to_string(pos_);
    return false;
  }

  /// Skips Python whitespace (numpy pads headers with spaces and a newline).
  void skipSpace() {
    while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
  }

  /// Skips whitespace and consumes `c` if it comes next.
  bool consume(char c) {
    skipSpace();
    if (pos_ < src_.size() && src_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  /// Parses any literal, dispatching on its first character.
  bool value(PyValue& out) {
    skipSpace();
    if (pos_ >= src_.size()) return fail("unexpected end of header");
    const size_t start = pos_;
    const char c = src_[pos_];
    bool ok;
    if (c == '{')
      ok = dict(out);
    else if (c == '(')
      ok = sequence(out, ')');
    else if (c == '[')
      ok = sequence(out, ']');
    else if (c == '\'' || c == '"')
      ok = string(out);
    else if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c)))
      ok = number(out);
    else
      ok = keyword(out);
    if (ok && out.source.empty()) out.source = src_.substr(start, pos_ - start);
    return ok;
  }

  /// Parses {key: value, ...} with string keys and an optional trailing comma.
  bool dict(PyValue& out) {
    ++pos_; // '{'
    out.kind = PyValue::Kind::Dict;
    if (consume('}')) return true;
    for (;;) {
      PyValue key;
      if (!value(key)) return false;
      if (key.kind != PyValue::Kind::Str)
        return fail("dict key " + key.source + " is not a string");
      if (!consume(':')) return fail("expected ':' after dict key " + key.source);
      PyValue item;
      if (!value(item)) return false;
      out.entries.emplace_back(key.str, std::move(item));
      if (consume('}')) return true;
      if (!consume(',')) return fail("expected ',' or '}' in dict");
      if (consume('}')) return true;
    }
  }

  /// Parses a tuple (...) or list [...]; a parenthesised single value without a comma is
  /// that value, as in Python.
  bool sequence(PyValue& out, char close) {
    ++pos_; // '(' or '['
    out.kind = close == ')' ? PyValue::Kind::Tuple : PyValue::Kind::List;
    if (consume(close)) return true;
    bool sawComma = false;
    for (;;) {
      PyValue item;
      if (!value(item)) return false;
      out.items.push_back(std::move(item));
      if (consume(close)) break;
      if (!consume(',')) return fail(std::string("expected ',' or '") + close + "'");
      sawComma = true;
      if (consume(close)) break;
    }
    if (close == ')' && !sawComma) { // "(5)" is just 5 in Python, not a tuple
      PyValue inner = std::move(out.items.front());
      out = std::move(inner);
    }
    return true;
  }

  /// Parses a '...' or "..." string; a backslash takes the next character literally.
  bool string(PyValue& out) {
    const char quote = src_[pos_++];
    std::string contents;
    while (pos_ < src_.size() && src_[pos_] != quote) {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) ++pos_;
      contents += src_[pos_++];
    }
    if (pos_ >= src_.size()) return fail("unterminated string");
    ++pos_; // closing quote
    out.kind = PyValue::Kind::Str;
    out.str = std::move(contents);
    return true;
  }

  /// Parses an integer (with Python 2's optional L suffix) or, for error messages, a float.
  bool number(PyValue& out) {
    bool negative = false;
    if (src_[pos_] == '-' || src_[pos_] == '+') negative = src_[pos_++] == '-';
    if (pos_ >= src_.size() || !std::isdigit(static_cast<unsigned char>(src_[pos_])))
      return fail("malformed number");
    uint64_t magnitude = 0;
    bool overflow = false;
    while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) {
      const uint64_t digit = static_cast<uint64_t>(src_[pos_++] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        overflow = true;
      else
        magnitude = magnitude * 10 + digit;
    }
    if (pos_ < src_.size() && (src_[pos_] == '.' || src_[pos_] == 'e' || src_[pos_] == 'E')) {
      // A float such as 3.5 or 1e3: kept only so that errors can name it.
      while (pos_ < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[pos_])) ||
                                    src_[pos_] == '.' || src_[pos_] == 'e' || src_[pos_] == 'E' ||
                                    ((src_[pos_] == '-' || src_[pos_] == '+') &&
                                     (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E'))))
        ++pos_;
      out.kind = PyValue::Kind::Float;
      return true;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'L' || src_[pos_] == 'l')) ++pos_; // Python 2 long
    if (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_]))))
      return fail("malformed number");
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (magnitude > limit + (negative ? 1 : 0)) overflow = true;
    out.kind = PyValue::Kind::Int;
    out.integerOverflow = overflow;
    if (!overflow)
      out.integer =
          negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return true;
  }

  /// Parses True, False or None; any other name is an error.
  bool keyword(PyValue& out) {
    size_t end = pos_;
    while (end < src_.size() &&
           (std::isalnum(static_cast<unsigned char>(src_[end])) || src_[end] == '_'))
      ++end;
    const std::string word = src_.substr(pos_, end - pos_);
    if (word == "True" || word == "False") {
      out.kind = PyValue::Kind::Bool;
      out.boolean = word == "True";
    } else if (word == "None") {
      out.kind = PyValue::Kind::None;
    } else {
      return fail(word.empty() ? "unexpected character '" + std::string(1, src_[pos_]) + "'"
                               : "unexpected name '" + word + "'");
    }
    pos_ = end;
    return true;
  }

  const std::string& src_; ///< The header text being parsed.
  size_t pos_ = 0;         ///< Offset of the next unread character.
  std::string error_;      ///< First failure, empty while parsing succeeds.
};

/// A short description of what a literal is, for "expected X, found Y" messages.
std::string describe(const PyValue& v) {
  switch (v.kind) {
  case PyValue::Kind::Str:
    return "the string " + v.source;
  case PyValue::Kind::Bool:
    return v.source;
  case PyValue::Kind::Int:
    return "the integer " + v.source;
  case PyValue::Kind::Float:
    return "the float " + v.source;
  case PyValue::Kind::Tuple:
    return "the tuple " + v.source;
  case PyValue::Kind::List:
    return "the list " + v.source;
  case PyValue::Kind::Dict:
    return "a dict";
  case PyValue::Kind::None:
    return "None";
  }
  return v.source;
}

// ---------------------------------------------------------------------------------------------
// Header fields
// ---------------------------------------------------------------------------------------------

/// An error about `path`, naming the offending field first: "path: field: message".
Error fieldError(const std::string& path, const std::string& field, const std::string& message) {
  return Error(located(path, 0, field + ": " + message));
}

/// The dtype strings numpy writes for the supported types (little-endian).
const char* npyDescr(DType type) {
  switch (type) {
  case DType::F16:
    return "<f2";
  case DType::F32:
    return "<f4";
  case DType::I32:
    return "<i4";
  case DType::I8:
    return "|i1";
  case DType::I64:
    return "<i8";
  case DType::BF16:
    break;
  }
  return nullptr;
}

/// Maps a 'descr' value to a DType or throws naming what was found and what is supported.
DType parseDescr(const std::string& path, const PyValue& descr) {
  static const std::string kSupported =
      "supported: '<f2' (f16), '<f4' (f32), '<i4' (i32), '|i1' (i8), '<i8' (i64)";
  if (descr.kind != PyValue::Kind::Str)
    throw fieldError(path, "descr",
                     "expected a dtype string such as '<f4', found " + describe(descr) +
                         " (structured dtypes are not supported); " + kSupported);
  const std::string& s = descr.str;
  if (s.size() == 3 && s[0] == '>' && (s == ">f2" || s == ">f4" || s == ">i4" || s == ">i8"))
    throw fieldError(path, "descr",
                     "big-endian dtype '" + s +
                         "' is not supported; save a little-endian array, e.g. with "
                         "a.astype(a.dtype.newbyteorder('<'))");
  // '=' is native order and '|' means "not applicable"; both are little-endian on this host.
  if (s.size() == 3 && (s[0] == '<' || s[0] == '=' || s[0] == '|')) {
    const std::string kind = s.substr(1);
    if (kind == "f2") return DType::F16;
    if (kind == "f4") return DType::F32;
    if (kind == "i4") return DType::I32;
    if (kind == "i1") return DType::I8;
    if (kind == "i8") return DType::I64;
  }
  throw fieldError(path, "descr", "unsupported dtype '" + s + "'; " + kSupported);
}

/// Validates the 'shape' value: a tuple of non-negative integers.
std::vector<int64_t> parseShape(const std::string& path, const PyValue& shape) {
  if (shape.kind != PyValue::Kind::Tuple)
    throw fieldError(path, "shape",
                     "expected a tuple of non-negative integers such as (3, 4), found " +
                         describe(shape));
  std::vector<int64_t> extents;
  for (size_t i = 0; i < shape.items.size(); ++i) {
    const PyValue& item = shape.items[i];
    if (item.kind == PyValue::Kind::Int && item.integerOverflow)
      throw fieldError(path, "shape",
                       "dimension " + std::to_string(i) + " extent " + item.source +
                           " is too large (in " + shape.source + ")");
    if (item.kind != PyValue::Kind::Int)
      throw fieldError(path, "shape",
                       "dimension " + std::to_string(i) + " is " + describe(item) +
                           ", expected a non-negative integer (in " + shape.source + ")");
    if (item.integer < 0)
      throw fieldError(path, "shape",
                       "dimension " + std::to_string(i) + " has negative extent " + item.source +
                           " (in " + shape.source + ")");
    extents.push_back(item.integer);
  }
  return extents;
}

/// Bytes needed for `shape` elements of `type`, or false on overflow.
bool byteCount(const std::vector<int64_t>& shape, DType type, uint64_t& bytes) {
  uint64_t total = dtypeSize(type);
  for (int64_t extent : shape)
    if (__builtin_mul_overflow(total, static_cast<uint64_t>(extent), &total)) return false;
  bytes = total;
  return true;
}

/// Python's repr of a shape tuple: "()", "(5,)", "(3, 4)".
std::string shapeRepr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

/// Little-endian unsigned integer of `n` bytes at `p`.
uint32_t loadLe(const unsigned char* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

/// Closes a file descriptor when the reader is done, on success or error.
struct FileCloser {
  int fd;
  ~FileCloser() { ::close(fd); }
};

/// Reads exactly `size` bytes from `fd` or throws "path: field: cannot read: reason".
void readExactly(const std::string& path, const char* field, int fd, void* dst, size_t size) {
  auto* bytes = static_cast<char*>(dst);
  while (size > 0) {
    const ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw fieldError(path, field,
                       std::string("cannot read: ") +
                           (n == 0 ? "file changed while reading" : std::strerror(errno)));
    bytes += n;
    size -= static_cast<size_t>(n);
  }
}

/// Positions `fd` at `offset` or throws.
void seekTo(const std::string& path, int fd, uint64_t offset) {
  if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw Error(located(path, 0, std::string("cannot seek: ") + std::strerror(errno)));
}

} // namespace

size_t NpyArray::elements() const {
  size_t n = 1;
  for (int64_t extent : shape) n *= static_cast<size_t>(extent);
  return n;
}

NpyArray makeNpy(DType dtype, std::vector<int64_t> shape) {
  NpyArray array;
  array.dtype = dtype;
  uint64_t bytes = 0;
  for (int64_t extent : shape)
    if (extent < 0) throw Error("makeNpy: negative extent in shape " + shapeRepr(shape));
  if (!byteCount(shape, dtype, bytes) || bytes > std::numeric_limits<size_t>::max())
    throw Error("makeNpy: shape " + shapeRepr(shape) + " is too large");
  array.shape = std::move(shape);
  resizeHuge(array.data, static_cast<size_t>(bytes));
  return array;
}

NpyArray readNpy(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(located(path, 0, std::string("cannot open: ") + std::strerror(errno)));
  const FileCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(located(path, 0, std::string("cannot open: ") + std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw Error(located(path, 0,
                        std::string("cannot open: ") +
                            (S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : "not a regular file")));
  const uint64_t fileSize = static_cast<uint64_t>(st.st_size);

  // Preamble: magic, version, header length.
  unsigned char preamble[12] = {};
  const size_t preambleSize = static_cast<size_t>(std::min<uint64_t>(fileSize, sizeof preamble));
  readExactly(path, "magic", fd, preamble, preambleSize);
  if (preambleSize < kMagicSize || std::memcmp(preamble, kMagic, kMagicSize) != 0)
    throw fieldError(path, "magic", "not a .npy file: it does not start with \"\\x93NUMPY\"");
  if (preambleSize < kMagicSize + 2)
    throw fieldError(path, "version", "file ends inside the version field");
  const int major = preamble[6], minor = preamble[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    throw fieldError(path, "version",
                     "unsupported .npy format version " + std::to_string(major) + "." +
                         std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const uint64_t headerStart = kMagicSize + 2 + lengthBytes;
  if (fileSize < headerStart)
    throw fieldError(path, "header", "file ends inside the header length field");
  const uint64_t headerLength = loadLe(preamble + kMagicSize + 2, lengthBytes);
  if (fileSize < headerStart + headerLength)
    throw fieldError(path, "header",
                     "file ends inside the header (header of " + std::to_string(headerLength) +
                         " bytes declared, file has " + std::to_string(fileSize) + " bytes)");
  std::string header(static_cast<size_t>(headerLength), '\0');
  seekTo(path, fd, headerStart);
  readExactly(path, "header", fd, header.data(), header.size());

  // Header dict.
  PyValue dict;
  PyLiteralParser parser(header);
  if (!parser.parse(dict))
    throw fieldError(path, "header", "not a Python dict literal: " + parser.error());
  if (dict.kind != PyValue::Kind::Dict)
    throw fieldError(path, "header", "expected a Python dict, found " + describe(dict));
  auto find = [&](const char* key) -> const PyValue& {
    for (const auto& [name, value] : dict.entries)
      if (name == key) return value;
    throw fieldError(path, "header", std::string("missing key '") + key + "'");
  };
  const PyValue& descr = find("descr");
  const PyValue& fortranOrder = find("fortran_order");
  const PyValue& shapeValue = find("shape");

  NpyArray array;
  array.dtype = parseDescr(path, descr);
  if (fortranOrder.kind != PyValue::Kind::Bool)
    throw fieldError(path, "fortran_order",
                     "expected True or False, found " + describe(fortranOrder));
  if (fortranOrder.boolean)
    throw fieldError(path, "fortran_order",
                     "True: Fortran-ordered (column-major) data is not supported; convert with "
                     "numpy.ascontiguousarray before saving");
  array.shape = parseShape(path, shapeValue);

  // Data: exactly the bytes the shape requires.
  uint64_t expected = 0;
  if (!byteCount(array.shape, array.dtype, expected) ||
      expected > std::numeric_limits<size_t>::max())
    throw fieldError(path, "shape", shapeRepr(array.shape) + " is too large");
  const uint64_t actual = fileSize - headerStart - headerLength;
  if (actual != expected)
    throw fieldError(path, "data",
                     "shape " + shapeRepr(array.shape) + " of " + dtypeName(array.dtype) +
                         " needs " + std::to_string(expected) +
                         " bytes of data, but the file has " + std::to_string(actual) +
                         (actual < expected ? " (file is truncated)" : " (trailing bytes)"));
  resizeHuge(array.data, static_cast<size_t>(expected));
  readExactly(path, "data", fd, array.data.data(), array.data.size());
  return array;
}

void writeNpy(const std::string& path, const NpyArray& array) {
  const std::string header = npyHeader(array, path); // checks the array before any file exists
  StagedFile file(path);
  file.append(header);
  file.append(npyData(array));
  file.commit();
}

std::string_view npyData(const NpyArray& array) {
  return std::string_view(reinterpret_cast<const char*>(array.data.data()), array.data.size());
}

std::string encodeNpy(const NpyArray& array, const std::string& path) {
  std::string bytes = npyHeader(array, path);
  bytes.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return bytes;
}

std::string npyHeader(const NpyArray& array, const std::string& path) {
  const char* descr = npyDescr(array.dtype);
  if (descr == nullptr)
    throw Error(located(path, 0,
                        std::string("cannot write dtype ") + dtypeName(array.dtype) +
                            " to .npy: numpy has no such dtype (use f16, f32 or i32)"));
  uint64_t expected = 0;
  for (int64_t extent : array.shape)
    if (extent < 0)
      throw Error(
          located(path, 0, "cannot write shape " + shapeRepr(array.shape) + ": negative extent"));
  if (!byteCount(array.shape, array.dtype, expected) || expected != array.data.size())
    throw Error(located(path, 0,
                        "cannot write: shape " + shapeRepr(array.shape) + " of " +
                            dtypeName(array.dtype) + " needs " + std::to_string(expected) +
                            " bytes but the array holds " + std::to_string(array.data.size())));

  // Exactly what numpy.lib.format writes: sorted keys, growth room, space padding, newline.
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shapeRepr(array.shape) + ", }";
  if (!array.shape.empty()) {
    const size_t digits = std::to_string(array.shape.front()).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // Version 1.0 has a 2-byte header length; numpy switches to 2.0 when that is too small.
  int major = 1;
  size_t lengthBytes = 2;
  size_t padding = kHeaderAlign - (kMagicSize + 2 + lengthBytes + dict.size() + 1) % kHeaderAlign;
  if (dict.size() + 1 + padding > 0xFFFF) {
    major = 2;
    lengthBytes = 4;
    padding = kHeaderAlign - (kMagicSize + 2 + lengthBytes + dict.size() + 1) % kHeaderAlign;
  }
  const size_t headerLength = dict.size() + padding + 1;

  std::string bytes(kMagic, kMagicSize);
  bytes += static_cast<char>(major);
  bytes += static_cast<char>(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    bytes += static_cast<char>((headerLength >> (8 * i)) & 0xFF);
  bytes += dict;
  bytes.append(padding, ' ');
  bytes += '\n';
  return bytes;
}

} // namespace chipless
