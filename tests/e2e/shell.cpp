// Part of chipless's end-to-end tests. See shell.h.
#include "tests/e2e/shell.h"

#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

namespace chipless::test {

ShellResult sh(const std::string& command) {
  ShellResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed for: " + command};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

pid_t startShell(const std::string& command) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

std::string tool(const char* name) {
  return std::string(CHIPLESS_BINARY_DIR) + "/bin/" + name;
}

} // namespace chipless::test
