#include "tools/device_server/worker_process.h"

#include "runtime/remote/device_service.h"
#include "runtime/remote/ici_collectives.h"
#include "runtime/remote/ring_collectives.h"
#include "runtime/remote/worker_loop.h"
#include "support/any_arch.h"
#include "support/error.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace chipless::server {

namespace {
/// The fd the worker's end of the socket pair has in the worker.
constexpr int kWorkerFd = 3;
} // namespace

namespace {

/// Starts `self --worker FIRST SECOND` with its end of a new socket pair on fd 3.
WorkerProcess spawn(const std::string& self, std::string first, std::string second,
                    const std::string& name) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw Error(name + ": cannot create the worker's socket pair: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 onto fd 3 clears close-on-exec there.
  posix_spawn_file_actions_adddup2(&actions, fds[1], kWorkerFd);
  // Nothing else of the server's reaches the worker: a client's connection inherited by a
  // worker would stay open after the server closed it, and that client would never see the end.
  posix_spawn_file_actions_addclosefrom_np(&actions, kWorkerFd + 1);
  std::vector<char*> argv{const_cast<char*>(self.c_str()), const_cast<char*>("--worker"),
                          first.data(), second.data(), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw Error(name + ": cannot start the worker process " + self + ": " + std::strerror(rc));
  }
  return {pid, fds[0]};
}

} // namespace

WorkerProcess spawnWorker(const std::string& self, ChipKind kind, int index) {
  return spawn(self, chipKindName(kind), std::to_string(index),
               std::string(chipKindName(kind)) + ":" + std::to_string(index));
}

WorkerProcess spawnNetworkWorker(const std::string& self,
                                 runtime::remote::CollectiveNetwork network,
                                 const std::string& arch) {
  const bool ring = network == runtime::remote::CollectiveNetwork::Ring;
  return spawn(self, ring ? "ring" : "ici", arch, ring ? "the ring worker" : "the ICI worker");
}

std::string reapWorker(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return "ended";
  runtime::remote::WorkDirectory::removeLeftOf(pid);
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with exit status " + std::to_string(WEXITSTATUS(status));
}

int workerMain(const std::string& kind, const std::string& index) {
  // A worker never outlives its server.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() == 1) return 1;
  ::unsetenv("CHIPLESS_DEVICE_SERVER");
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  ::signal(SIGINT, SIG_IGN); // a Ctrl-C reaches the server, which stops its workers
  runtime::remote::WorkDirectory::removeAllOnTermination();
  try {
    if (kind == "ici" || kind == "ring") {
      const bool ring = kind == "ring";
      ArchDescription arch = loadArch(ring ? ChipKind::Spyre : ChipKind::Tpu, index, {});
      runtime::remote::WorkDirectory work(kind);
      // The network's devices take numbers from 1000 up, apart from the server's devices.
      std::unique_ptr<runtime::remote::CollectiveService> service;
      if (ring)
        service = std::make_unique<runtime::remote::RingCollectives>(arch, 1000, work.path());
      else
        service = std::make_unique<runtime::remote::IciCollectives>(arch, 1000, work.path());
      return runtime::remote::serveCollectives(kWorkerFd, *service,
                                               ring ? "ring worker" : "ICI worker");
    }
    return runtime::remote::serveDevice(kWorkerFd, parseChipKind(kind, "--worker"),
                                        std::stoi(index));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-device-server worker: %s\n", e.what());
    return 1;
  }
}

} // namespace chipless::server
