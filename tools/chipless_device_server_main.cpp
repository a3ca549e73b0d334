/// chipless-device-server: emulated Spyre cards and TPU systems as a service for several
/// processes (docs/device-server.md).
///
///   chipless-device-server [--devices spyre:2,tpu-v5e:4] [--listen unix:PATH]
///                          [--listen tcp:HOST:PORT] [--token-file FILE] [--threads N]
///                          [--max-message-bytes N] [--collective-timeout S]
///   chipless-device-server --status [--listen ADDRESS]
///
/// Clients reach it with CHIPLESS_DEVICE_SERVER=unix:PATH (or tcp:HOST:PORT): spyre-sim,
/// tpu-sim, `import chipless` and the PyTorch devices then use its devices unchanged.
#include "support/error.h"
#include "tools/device_server/server.h"
#include "tools/device_server/status.h"
#include "tools/device_server/worker_process.h"

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <unistd.h>

int main(int argc, char** argv) {
  // Large messages (tensors, copies of up to 16 MiB) come again and again: keep their memory in
  // the heap instead of mapping and faulting in fresh pages for each.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A device's worker: the server started this executable again for one device.
  if (argc == 4 && std::strcmp(argv[1], "--worker") == 0)
    return chipless::server::workerMain(argv[2], argv[3]);

  chipless::server::ServerOptions options;
  CLI::App app{"chipless-device-server: emulated devices shared by several processes"};
  app.add_option("--devices", options.devices,
                 "devices to serve: KIND:COUNT,... (spyre, tpu, or a bundled architecture such "
                 "as tpu-v5e)")
      ->capture_default_str();
  app.add_option("--listen", options.listen,
                 "unix:PATH or tcp:HOST:PORT, repeatable (default unix:" +
                     chipless::server::defaultSocketPath() + ")");
  app.add_option("--token-file", options.tokenFile,
                 "file with the token TCP clients must present (needed beyond loopback)");
  app.add_option("--threads", options.threads, "threads serving the sockets")
      ->capture_default_str();
  app.add_option("--max-message-bytes", options.maxMessage,
                 "largest message a client may send (default 4 GiB)");
  app.add_option("--collective-timeout", options.collectiveTimeout,
                 "seconds a tpu_dist rank waits for the other ranks of its group")
      ->capture_default_str();
  app.add_flag("--share", options.share,
               "let several clients use one device, each with a share of its cores and memory "
               "(a client asks with CHIPLESS_DEVICE_SHARE=cores=N[,memory=BYTES])");
  bool status = false;
  app.add_flag("--status", status,
               "print the devices of the server listening at --listen (or the default socket) "
               "and who has each open, then exit");
  CLI11_PARSE(app, argc, argv);
  if (status)
    return chipless::server::printStatus(options.listen.empty()
                                             ? "unix:" + chipless::server::defaultSocketPath()
                                             : options.listen.front());

  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::fprintf(stderr, "chipless-device-server: cannot find its own executable\n");
    return 1;
  }
  options.self.assign(self, static_cast<size_t>(n));
  try {
    chipless::server::Server server(options);
    return server.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-device-server: %s\n", e.what());
    return 1;
  }
}
