#pragma once
/// A program compiled by one of the project's compilers for a benchmark: run as users run it
/// (the tool next to the benchmark's executable in build/bin), into a fresh temporary
/// directory that is removed with the object. Shared by spyre_sim_bench and tpu_sim_bench.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace chipless::bench {

/// A compiled program's directory (removed with this object) and how long the compile took.
struct Compiled {
  std::string dir;
  double seconds = 0;
  std::string error; ///< the compiler's messages when it failed
  Compiled() = default;
  Compiled(const Compiled&) = delete;
  ~Compiled() {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
};

/// `tool source -o <a fresh temporary directory> flags...`, timed from process start to exit.
inline std::unique_ptr<Compiled> compileWith(const std::string& tool, const std::string& source,
                                             const std::vector<std::string>& flags = {}) {
  namespace fs = std::filesystem;
  static int counter = 0;
  auto c = std::make_unique<Compiled>();
  c->dir = (fs::temp_directory_path() /
            ("chipless-bench-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
             fs::path(source).stem().string()))
               .string();
  fs::remove_all(c->dir);
  const std::string path = (fs::read_symlink("/proc/self/exe").parent_path() / tool).string();
  std::string cmd = "'" + path + "' '" + source + "' -o '" + c->dir + "'";
  for (const std::string& f : flags) cmd += " '" + f + "'";
  const auto start = std::chrono::steady_clock::now();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string log;
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  const int raw = p ? pclose(p) : -1;
  c->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (raw == -1 || !WIFEXITED(raw) || WEXITSTATUS(raw) != 0) c->error = cmd + " failed:\n" + log;
  return c;
}

} // namespace chipless::bench
