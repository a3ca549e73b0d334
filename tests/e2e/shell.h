#pragma once
/// Running the project's command-line tools from the end-to-end tests: one helper instead
/// of a popen loop in every test file.
#include <string>
#include <sys/types.h>

namespace chipless::test {

/// A finished shell command: its exit status (-1 when it did not exit normally) and its
/// stdout and stderr together.
struct ShellResult {
  int status = 0;
  std::string output;
};

/// Runs `command` through /bin/sh with stderr joined to stdout.
ShellResult sh(const std::string& command);

/// Starts `command` through /bin/sh in a child process and returns its pid at once (a run
/// the test kills or waits for).
pid_t startShell(const std::string& command);

/// The path of a tool built into this build tree's bin/ ("spyre-sim", "tpu-compile", ...).
std::string tool(const char* name);

} // namespace chipless::test
