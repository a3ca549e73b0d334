#pragma once
/// Errors that reach the user: bad input files, bad programs, failed simulations.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace chipless {

/// An error a user can act on. The message already names where the problem is:
/// "file:line: what was expected" for inputs, "core 3 load0 pc 12: address 0x.. out of
/// bounds" for programs. Tools print the message and exit non-zero; nothing is written.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A program stopped itself: a `trap CODE` instruction ran (a check of its own
/// preconditions failed). The runtime adds what the program's plan says the code means.
class ProgramTrap : public Error {
public:
  ProgramTrap(const std::string& message, int64_t code) : Error(message), code_(code) {}
  int64_t code() const { return code_; }

private:
  int64_t code_;
};

/// Formats "file:line: message" (line omitted when <= 0).
inline std::string located(const std::string& file, int line, const std::string& message) {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
  return file + ": " + message;
}

} // namespace chipless
