#pragma once
/// The one interface the layers above the runtime (the tools, the Python module, the device
/// server) use to reach an emulated chip: open a device by kind and index, allocate its
/// memory, copy bytes in and out, prepare programs once and launch them many times, and read
/// the statistics of a launch (its trace goes to the TraceWriter a launch is given). The
/// Spyre card (runtime/spyre) and the TPU system (runtime/tpu) implement it; nothing here
/// names a simulator type, so nothing above the runtime includes a sim/ header.
#include "support/arch_files.h"
#include "support/arch_schema.h"
#include "support/dtype.h"
#include "support/npy.h"
#include "support/progformat/plan.h"
#include "support/stats.h"
#include "support/trace.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chipless::runtime {

/// A share of a device: the device has several owners at once (chipless-device-server
/// --share), each on its own cores (Spyre) or TensorCores (TPU, the same ones on every chip)
/// and its own window of device memory, which it sees as the whole device: its programs are
/// compiled for its cores (Device::arch() says how many) and address its window from 0. The
/// shares' launches run in one simulation, so the modelled time shows their contention for
/// the memory and interconnect they share.
struct DeviceShare {
  int cores = 0;            ///< 0: not a share; the device has one owner
  uint64_t memoryBytes = 0; ///< 0: the cores' part of device memory
  /// How long a share's launch waits for the other shares' launches to run with them, in
  /// microseconds (the first share to open the device sets it).
  int64_t windowMicroseconds = 5000;
};

/// What a share of a device was given (Device::shareInfo): where its cores and its window
/// of device memory lie in the whole device, and the architecture keys ("key=value") that
/// make the whole device's description the share's.
struct ShareInfo {
  int firstCore = 0;
  int cores = 0;
  uint64_t memoryBase = 0;
  uint64_t memoryBytes = 0;
  std::vector<std::string> overrides;
};

/// How to open a device.
struct DeviceOptions {
  int index = -1;          ///< device number; -1 picks the first free one
  bool timingOnly = false; ///< skip arithmetic and data (large what-if runs)
  int chips = 1;           ///< TPU: chips joined by ICI (ici.topology); Spyre: 1
  /// Bounds on every launch (0: none): simulated cycles, and seconds of host time; a launch
  /// that passes one stops with a report of where each engine is.
  double maxCycles = 0;
  double timeoutSeconds = 0;
  DeviceShare share = {}; ///< a share of the device rather than the whole of it
};

/// A tensor kept in device memory between launches (a PyTorch device tensor): `bytes` at
/// `address` (an allocation of the device) hold the tensor of `dtype` and `shape` in the
/// device's canonical layout (Device::tensorBytes), which every program compiled from a
/// tensor graph uses for its arguments — so a launch binds it in place, without a host copy.
struct DeviceTensor {
  uint64_t address = 0;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// What a launch binds.
struct LaunchArgs {
  std::map<std::string, NpyArray> inputs; ///< host arrays by argument name
  std::map<std::string, int64_t> scalars; ///< scalar arguments by name
  TraceWriter* trace = nullptr;           ///< timeline of the device steps (optional)
  /// Real scalars (a kernel's `%eps: f16`) by name, rounded to the scalar's type at launch;
  /// a real scalar may also be given as an integer in `scalars`.
  std::map<std::string, double> reals = {};
  /// Device tensors by argument name, bound in place: an input is read where it lies, an
  /// output (or inout) is written there and not copied to the host.
  std::map<std::string, DeviceTensor> resident = {};
  /// Whether the device's statistics of this launch are kept: a plan of several binaries
  /// gathers them after each (LaunchReport::deviceStats), which costs more than a small
  /// kernel's simulation; a caller that never reads them (the PyTorch devices) turns it off.
  bool statistics = true;
};

/// What a launch did, the same for every kind of device.
struct LaunchReport {
  /// Output (and inout) arguments, except those bound to device tensors.
  std::map<std::string, NpyArray> outputs;
  double cycles = 0;      ///< simulated cycles, summed over the plan's device steps
  double hostSeconds = 0; ///< wall-clock time of the simulation
  uint64_t issued = 0;    ///< instructions (Spyre) or bundles (TPU) issued by all engines
  /// Device steps that ran in one simulation with other shares' launches (DeviceShare): their
  /// cycles include the contention.
  uint64_t sharedSteps = 0;
  /// The device's statistics of a plan that runs several binaries (a multi-kernel job),
  /// gathered after each and combined (Stats::sequential); absent for one binary, whose
  /// statistics the device still holds.
  std::optional<Stats> deviceStats;
};

/// A tensor argument of a prepared program, as the layers above see it.
struct ArgumentInfo {
  std::string name;
  progformat::ArgRole role = progformat::ArgRole::Input;
  DType dtype = DType::F32;     ///< on the device
  DType hostDtype = DType::F32; ///< of the host arrays bound to it (hostTypeOf(dtype))
  std::string shape;            ///< as declared, scalar dimensions by name: "(4, N)"
};

/// What a prepared program takes: its kernel, tensor arguments (in launch order) and scalars.
struct ProgramInfo {
  std::string kernel;
  std::vector<ArgumentInfo> arguments;
  std::vector<std::string> scalars;
  /// The argument called `name`, or nullptr.
  const ArgumentInfo* find(const std::string& name) const;
};

/// A program prepared on a device (its binary loaded, its buffers allocated), launched any
/// number of times with Device::launch. It belongs to the device it was prepared on, and
/// gives its device memory back when destroyed.
class Program {
public:
  virtual ~Program() = default;
  virtual const ProgramInfo& info() const = 0;
};

class Device {
public:
  /// Opens device `options.index` of `kind` (the first free one when -1) for this process
  /// alone, on `arch` (read against the chip's schema). A second open of a device, from this
  /// process or another, fails naming the owner. When $CHIPLESS_DEVICE_SERVER names a device
  /// server ("unix:PATH" or "tcp:HOST:PORT"), the device is the server's (a RemoteDevice,
  /// runtime/remote/remote_device.h); otherwise it is simulated in this process. Without a
  /// share in `options`, $CHIPLESS_DEVICE_SHARE ("cores=1,memory=8G") asks for one.
  static std::unique_ptr<Device> open(ChipKind kind, const ArchDescription& arch,
                                      const DeviceOptions& options = {});
  /// Opens a device simulated in this process, whatever $CHIPLESS_DEVICE_SERVER says (the
  /// device server's workers).
  static std::unique_ptr<Device> openLocal(ChipKind kind, const ArchDescription& arch,
                                           const DeviceOptions& options = {});
  /// Opens a device to run the program at `planPath` (DIR/job.plan): on the architecture the
  /// program was compiled for, with `archOption` (a bundled name or a file; "" for none) and
  /// `sets` ("key=value") applied, as support/arch_record.h's runArchitecture says — refused,
  /// listing each key, when a parameter the compiler planned with would differ. A share
  /// (in `options` or $CHIPLESS_DEVICE_SHARE) is of the device `archOption` names (else the
  /// chip's default), and the program must have been compiled for the share.
  static std::unique_ptr<Device> openFor(ChipKind kind, const std::string& planPath,
                                         const std::string& archOption,
                                         const std::vector<std::string>& sets,
                                         const DeviceOptions& options = {});
  virtual ~Device() = default;

  virtual ChipKind kind() const = 0;
  virtual int index() const = 0;
  /// "spyre:0", "tpu:1".
  std::string name() const;
  /// The resolved description the device models.
  virtual const ArchDescription& arch() const = 0;
  virtual bool timingOnly() const = 0;
  /// Chips of the system (TPU); 1 for a Spyre card.
  virtual int chips() const { return 1; }
  /// A share's place in its device (DeviceShare); nothing for a device with one owner.
  virtual std::optional<ShareInfo> shareInfo() const { return std::nullopt; }

  /// Allocates `bytes` of device memory for tensors (on a TPU system at the same address on
  /// every chip); throws chipless::Error naming `name` when it does not fit.
  virtual uint64_t allocate(uint64_t bytes, const std::string& name) = 0;
  /// Frees an allocation.
  virtual void release(uint64_t address) = 0;
  /// Copies host bytes into device memory: on a TPU system to chip `chip`, or to every chip
  /// when -1. The range must lie in one allocation. A timing-only device holds no bytes: the
  /// range is checked and nothing is stored.
  virtual void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) = 0;
  /// Copies device memory (of chip `chip`) to the host; zeros on a timing-only device.
  virtual void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const = 0;

  /// Bytes of a tensor of `dtype` and `shape` in the device's canonical layout (Spyre: the
  /// stick layout; TPU: row-major with the last dimension padded to vpu.lanes).
  virtual uint64_t tensorBytes(DType dtype, const std::vector<int64_t>& shape) const = 0;
  /// Converts `host` (of `tensor`'s shape; float data for float tensors, integers for
  /// integer ones) into `tensor`'s canonical layout on the device (on every chip of a TPU
  /// system). Returns the modelled time of the transfer over the host link, in seconds.
  /// Errors name `what`.
  virtual double writeTensor(const DeviceTensor& tensor, const NpyArray& host,
                             const std::string& what) = 0;
  /// The host array of `tensor` (bf16 and f16 device data come back as their host dtype,
  /// hostTypeOf), and in `seconds` the modelled time of the transfer.
  virtual NpyArray readTensor(const DeviceTensor& tensor, double& seconds) = 0;
  /// The modelled time of moving `bytes` over the host link (host.link_gb_s,
  /// host.link_latency_us of the architecture), in seconds.
  double hostLinkSeconds(uint64_t bytes) const;

  /// Reads the program directory `planPath` (DIR/job.plan) and prepares it on this device.
  /// Refused when the program was compiled for another chip than the device models.
  virtual std::unique_ptr<Program> prepare(const std::string& planPath) = 0;
  /// Runs `program` (prepared on this device) once: binds `args`, runs the execution plan,
  /// returns the outputs. Every error names the argument, step or field at fault; nothing
  /// is returned on failure.
  virtual LaunchReport launch(Program& program, const LaunchArgs& args) = 0;
  /// The statistics of `last`, this device's latest launch (hierarchical, with units; host
  /// wall-clock time left out so two runs give byte-identical statistics).
  virtual Stats stats(const LaunchReport& last) const = 0;
};

} // namespace chipless::runtime
