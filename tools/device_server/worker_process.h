#pragma once
/// A device's worker process: chipless-device-server started again as
/// `chipless-device-server --worker KIND INDEX`, holding the emulated device (or, as
/// `--worker ici ARCH` or `--worker ring ARCH`, what the collectives run on)
/// (runtime/remote/device_service.h), connected to the server by a socket pair on its fd 3.
#include "runtime/remote/collectives.h"
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
/// Starts the worker that runs the collectives carried by `network`: the ICI worker
/// (`tpu_dist`, on TPU systems of the architecture `arch`) or the ring worker (`spyre_dist`,
/// on a Spyre card of `arch`); `arch` is a bundled name or a file, "" for the default.
WorkerProcess spawnNetworkWorker(const std::string& self,
                                 runtime::remote::CollectiveNetwork network,
                                 const std::string& arch);
/// How a worker that ended did ("exit status 1", "signal 9"), after waiting for it; removes
/// the files it left behind.
std::string reapWorker(pid_t pid);

/// The worker's side: runs the device loop on fd 3 (main's `--worker` mode): `kind` and
/// `index` name a device, or `kind` is "ici" or "ring" and `index` the network worker's
/// architecture.
int workerMain(const std::string& kind, const std::string& index);

} // namespace chipless::server
