#pragma once
/// The device side of the protocol: one emulated device, opened and closed by its clients'
/// requests, served by a worker process of chipless-device-server. Each device runs in a
/// process of its own because a SystemC simulation is one per process: so the server's
/// devices simulate in parallel, and a crash in one takes no other device with it.
#include "runtime/device.h"
#include "runtime/remote/protocol.h"
#include "support/wire.h"

#include <map>
#include <memory>
#include <string>

namespace chipless::runtime::remote {

class DeviceService {
public:
  /// Serves device `index` of `kind` ("tpu:1"); files of prepared programs go under
  /// `workDirectory` (created and removed by the caller).
  DeviceService(ChipKind kind, int index, std::string workDirectory);
  ~DeviceService();

  /// Answers one request: the Reply's payload; what the device throws is the Error.
  std::string answer(const Message& request);
  /// Releases the device, its programs and memory (as a Close does).
  void close();

private:
  std::string open(WireReader& r);
  std::string prepare(WireReader& r);
  std::string launch(WireReader& r);
  Device& device();
  Program& program(uint32_t id);

  ChipKind kind_;
  int index_;
  std::string workDirectory_;
  std::unique_ptr<Device> device_;
  std::map<uint32_t, std::unique_ptr<Program>> programs_;
  std::map<uint32_t, std::string> programDirectories_;
  uint32_t nextProgram_ = 1;
};

/// A worker's loop: takes each session's channel from the server's `control` socket
/// (channel_passing.h) and answers its requests on a thread of its own, with a DeviceService
/// of its own (a share, or the device's one owner), until the server closes `control`.
/// Returns the process's exit status.
int serveDevice(int control, ChipKind kind, int index);

} // namespace chipless::runtime::remote
