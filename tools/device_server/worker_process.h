#pragma once
/// A device's worker process: chipless-device-server started again as
/// `chipless-device-server --worker KIND INDEX`, holding the emulated device (or, as
/// `--worker ici ARCH`, the systems the collectives run on)
/// (runtime/remote/device_service.h), connected to the server by a socket pair on its fd 3.
#include "support/arch_files.h"

#include <string>
#include <sys/types.h>

namespace chipless::server {

struct WorkerProcess {
  pid_t pid = -1;
  int fd = -1; ///< the server's end of the socket pair
};

/// Starts a worker for device `index` of `kind` from the executable `self`; errors name the
/// device.
WorkerProcess spawnWorker(const std::string& self, ChipKind kind, int index);
/// Starts the ICI worker, which runs the collectives of `tpu_dist` on TPU systems of the
/// architecture `arch` (a bundled name or a file; "" for the default).
WorkerProcess spawnIciWorker(const std::string& self, const std::string& arch);
/// How a worker that ended did ("exit status 1", "signal 9"), after waiting for it.
std::string reapWorker(pid_t pid);

/// The worker's side: runs the device loop on fd 3 (main's `--worker` mode): `kind` and
/// `index` name a device, or `kind` is "ici" and `index` the ICI worker's architecture.
int workerMain(const std::string& kind, const std::string& index);

} // namespace chipless::server
