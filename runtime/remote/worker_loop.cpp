#include "runtime/remote/worker_loop.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <pthread.h>
#include <set>
#include <thread>
#include <unistd.h>

namespace chipless::runtime::remote {

namespace fs = std::filesystem;

namespace {
/// The work directories alive in this process, for removeAllOnTermination.
std::mutex liveMutex;
std::set<std::string>& live() {
  static std::set<std::string> paths;
  return paths;
}
} // namespace

WorkDirectory::WorkDirectory(const std::string& name) {
  std::error_code ec;
  fs::path p =
      fs::temp_directory_path(ec) / ("chipless-" + name + "-" + std::to_string(::getpid()));
  fs::create_directories(p, ec);
  path_ = p.string();
  std::lock_guard<std::mutex> lock(liveMutex);
  live().insert(path_);
}

WorkDirectory::~WorkDirectory() {
  // Removed under the lock, so that a termination under way waits for it to be gone.
  std::lock_guard<std::mutex> lock(liveMutex);
  live().erase(path_);
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

void WorkDirectory::removeLeftOf(int pid) {
  std::error_code ec;
  const std::string suffix = "-" + std::to_string(pid);
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(ec), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("chipless-", 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        entry.is_directory(ec))
      fs::remove_all(entry.path(), ec);
  }
}

void WorkDirectory::removeAllOnTermination() {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  std::thread([term] {
    int signal = 0;
    while (sigwait(&term, &signal) != 0) {
    }
    {
      std::lock_guard<std::mutex> lock(liveMutex);
      for (const std::string& path : live()) {
        std::error_code ignored;
        fs::remove_all(path, ignored);
      }
    }
    ::_exit(0);
  }).detach();
}

int answerUntilClosed(int fd, const std::string& name,
                      const std::function<std::string(const Message&)>& answer) {
  FrameStream stream(fd, "device server");
  try {
    for (;;) {
      bool eof = false;
      const Message& request = stream.receive(&eof);
      if (eof) return 0;
      Message reply{Opcode::Reply, ""};
      try {
        reply.payload = answer(request);
      } catch (const std::exception& e) {
        reply = {Opcode::Error, e.what()};
      }
      stream.send(reply.opcode, reply.payload);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-device-server %s: %s\n", name.c_str(), e.what());
    return 1;
  }
}

} // namespace chipless::runtime::remote
