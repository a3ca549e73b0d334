#pragma once
/// What every libFuzzer harness of tests/fuzz shares: the rule that bad input may only end
/// in a chipless::Error (a located message for the user) or an MLIR diagnostic, scratch
/// files for the readers that take a path, and the one-input form of a program directory.
#include "support/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <string_view>

namespace chipless::fuzz {

/// The input as text (MLIR, YAML, JSON and assembly readers take a string).
inline std::string asText(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs `read` on one input. A chipless::Error is the expected outcome of bad input; any
/// other exception escaping a reader is a finding (the user would see a message that
/// names no file, field or line), reported and turned into a crash for libFuzzer to keep.
template <typename Read>
void expectCleanError(const char* harness, Read&& read) {
  try {
    read();
  } catch (const Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "%s: a reader let through an exception that is not a chipless::Error: %s\n",
                 harness, e.what());
    std::abort();
  }
}

/// A folder of this process's own for readers that take a path: $TMPDIR (or /tmp) /
/// chipless-fuzz-PID, created on first use and removed at exit.
const std::string& scratchDir();

/// Writes `bytes` to scratchDir()/name (replacing it) and returns the path.
std::string writeScratch(const std::string& name, std::string_view bytes);

/// Removes every file of scratchDir() (between two program directories).
void clearScratch();

/// A program directory as one fuzz input: each file starts with a line "@@file NAME" and
/// runs to the next such line (the newline before it belongs to the marker). Text before
/// the first marker is ignored; a file whose name is empty, "." or "..", or holds anything
/// but letters, digits, '.', '_' and '-', is dropped.
std::map<std::string, std::string> splitDirectory(std::string_view input);

/// The inverse, for making seeds: the files joined with their markers.
std::string joinDirectory(const std::map<std::string, std::string>& files);

} // namespace chipless::fuzz
