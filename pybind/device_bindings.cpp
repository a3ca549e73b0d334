/// chipless._native.Device, Program, Launch and Trace: the runtime's Device interface
/// (runtime/device.h) for Python. A Program keeps its Device alive; closing a Device first
/// gives back the memory of the programs prepared on it, which then refuse to launch.
#include "pybind/arrays.h"
#include "pybind/bindings.h"
#include "pybind/device_handle.h"
#include "pybind/errors.h"
#include "runtime/device.h"
#include "runtime/share_option.h"
#include "support/any_arch.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <pybind11/stl.h>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace chipless::python {

/// A program prepared on a device.
struct ProgramHandle {
  std::shared_ptr<DeviceHandle> owner;
  std::unique_ptr<runtime::Program> program;
  runtime::ProgramInfo info; ///< kept after the device is closed

  runtime::Program& get() {
    if (!program) raise(info.kernel + ": its device " + owner->name + " is closed");
    return *program;
  }
  /// Gives the program's device memory back (a simulation may be running on the device).
  ~ProgramHandle() {
    if (!program) return;
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    program.reset();
  }
};

void DeviceHandle::close() {
  if (!device) return;
  const std::lock_guard<std::mutex> simulation(simulationMutex());
  keepLatestStats();
  for (auto& weak : programs)
    if (auto p = weak.lock()) p->program.reset();
  programs.clear();
  device.reset();
}

/// A timeline that launches add to, one after another; written as a Perfetto JSON file.
struct TraceHandle {
  explicit TraceHandle(size_t maxEvents) : writer(maxEvents) {}
  TraceWriter writer;
};

/// What a launch did: the outputs (numpy), cycles, instructions, and the device statistics
/// of that launch. Collecting statistics costs more than a small launch, so they are taken
/// when first asked for, or just before the device's next launch or close if this Launch is
/// still held then: either way they are this launch's, and nobody pays for unread ones.
struct LaunchHandle {
  py::dict outputs;
  double cycles = 0;
  double hostSeconds = 0;
  uint64_t issued = 0;
  uint64_t sharedSteps = 0; ///< device steps run together with other shares' launches
  std::string device;
  uint64_t number = 0;          ///< 1 for the device's first launch
  runtime::LaunchReport report; ///< without its outputs: what Device::stats reads
  std::weak_ptr<DeviceHandle> owner;
  std::optional<Stats> stats;
  bool withoutStatistics = false; ///< launched with statistics=False: none were kept

  const Stats& statistics() {
    if (withoutStatistics)
      raise("launch #" + std::to_string(number) + " on " + device +
            " was made with statistics=False: it kept no statistics");
    if (!stats) {
      py::gil_scoped_release unlocked;
      const std::lock_guard<std::mutex> simulation(simulationMutex());
      auto d = owner.lock();
      if (!stats && d && d->device) stats = d->device->stats(report);
    }
    if (!stats)
      raise("the statistics of launch #" + std::to_string(number) + " on " + device +
            " are gone with the device");
    return *stats;
  }
};

void DeviceHandle::keepLatestStats() {
  if (auto l = latest.lock(); l && !l->stats && !l->withoutStatistics && device)
    l->stats = device->stats(l->report);
}

namespace {

runtime::DeviceOptions deviceOptions(int index, bool timingOnly, int chips, double maxCycles,
                                     double timeout, const std::string& share) {
  runtime::DeviceOptions o;
  o.index = index;
  o.timingOnly = timingOnly;
  o.chips = chips;
  o.maxCycles = maxCycles;
  o.timeoutSeconds = timeout;
  if (!share.empty()) o.share = runtime::parseDeviceShare(share, "share");
  return o;
}

/// A share's place in its device as a dict; None for a device with one owner.
py::object shareInfo(DeviceHandle& d) {
  std::optional<runtime::ShareInfo> info = d.get().shareInfo();
  if (!info) return py::none();
  py::dict out;
  out["first_core"] = info->firstCore;
  out["cores"] = info->cores;
  out["memory_base"] = info->memoryBase;
  out["memory_bytes"] = info->memoryBytes;
  out["overrides"] = info->overrides;
  return out;
}

std::shared_ptr<DeviceHandle> adopt(std::unique_ptr<runtime::Device> device) {
  auto h = std::make_shared<DeviceHandle>();
  h->name = device->name();
  h->device = std::move(device);
  return h;
}

py::dict argumentDict(const runtime::ArgumentInfo& a) {
  py::dict d;
  d["name"] = a.name;
  d["role"] = progformat::argRoleName(a.role);
  d["dtype"] = dtypeName(a.dtype);
  d["host_dtype"] = numpyDtypeOf(a.hostDtype);
  d["shape"] = a.shape;
  return d;
}

/// A device tensor from Python: (address, dtype name, shape).
using TensorTuple = std::tuple<uint64_t, std::string, std::vector<int64_t>>;

runtime::DeviceTensor deviceTensor(const TensorTuple& t, const std::string& what) {
  const auto& [address, dtype, shape] = t;
  auto type = parseDType(dtype);
  if (!type) raise(what + ": unknown dtype '" + dtype + "' (f32, bf16, f16, i32 or i8)");
  return {address, *type, shape};
}

std::shared_ptr<LaunchHandle> launch(const std::shared_ptr<DeviceHandle>& shared, ProgramHandle& p,
                                     const py::dict& inputs, std::map<std::string, int64_t> scalars,
                                     std::map<std::string, double> reals, TraceHandle* trace,
                                     const std::map<std::string, TensorTuple>& resident,
                                     bool statistics) {
  DeviceHandle& d = *shared;
  if (p.owner.get() != &d)
    raise(d.name + ": " + p.info.kernel + " was prepared on another device (" + p.owner->name +
          ")");
  runtime::LaunchArgs args;
  for (const auto& [key, value] : inputs) {
    const std::string name = py::str(key).cast<std::string>();
    const std::string what = "input '" + name + "'";
    if (!py::isinstance<py::array>(value))
      raise(what + ": expected a numpy array, got " +
            py::str(py::type::of(value).attr("__name__")).cast<std::string>());
    args.inputs.emplace(name, npyFromNumpy(py::reinterpret_borrow<py::array>(value), what));
  }
  args.scalars = std::move(scalars);
  args.reals = std::move(reals);
  args.statistics = statistics;
  for (const auto& [name, t] : resident)
    args.resident.emplace(name, deviceTensor(t, "device tensor '" + name + "'"));
  auto out = std::make_shared<LaunchHandle>();
  runtime::LaunchReport report;
  {
    py::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    runtime::Program& program = p.get();
    runtime::Device& device = d.get();
    if (trace) {
      if (trace->writer.size() > 0) trace->writer.continueAfterLatest();
      args.trace = &trace->writer;
    }
    d.keepLatestStats();
    report = device.launch(program, args);
    out->number = ++d.launches;
    d.latest = out;
  }
  out->withoutStatistics = !statistics;
  out->cycles = report.cycles;
  out->hostSeconds = report.hostSeconds;
  out->issued = report.issued;
  out->sharedSteps = report.sharedSteps;
  out->device = d.name;
  for (auto& [name, array] : report.outputs)
    out->outputs[py::str(name)] = numpyFromNpy(std::move(array));
  report.outputs.clear();
  out->report = std::move(report);
  out->owner = shared;
  return out;
}

} // namespace

void bindDevice(py::module_& m) {
  py::class_<DeviceHandle, std::shared_ptr<DeviceHandle>>(
      m, "Device", "An emulated Spyre card or TPU system opened by this process.")
      .def(py::init([](const std::string& kind, const std::string& arch,
                       const std::vector<std::string>& sets, int index, bool timingOnly, int chips,
                       double maxCycles, double timeout, const std::string& share) {
             const ChipKind k = parseChipKind(kind, "device kind");
             ArchDescription description = loadArch(k, arch, sets);
             const auto options =
                 deviceOptions(index, timingOnly, chips, maxCycles, timeout, share);
             py::gil_scoped_release unlocked;
             const std::lock_guard<std::mutex> simulation(simulationMutex());
             return adopt(runtime::Device::open(k, description, options));
           }),
           py::arg("kind"), py::kw_only(), py::arg("arch") = "",
           py::arg("sets") = std::vector<std::string>{}, py::arg("index") = -1,
           py::arg("timing_only") = false, py::arg("chips") = 1, py::arg("max_cycles") = 0.0,
           py::arg("timeout") = 0.0, py::arg("share") = "")
      .def_static(
          "open_for",
          [](const std::string& kind, const std::string& plan, const std::string& arch,
             const std::vector<std::string>& sets, int index, bool timingOnly, int chips,
             double maxCycles, double timeout, const std::string& share) {
            const ChipKind k = parseChipKind(kind, "device kind");
            const auto options = deviceOptions(index, timingOnly, chips, maxCycles, timeout, share);
            py::gil_scoped_release unlocked;
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            return adopt(runtime::Device::openFor(k, plan, arch, sets, options));
          },
          py::arg("kind"), py::arg("plan"), py::kw_only(), py::arg("arch") = "",
          py::arg("sets") = std::vector<std::string>{}, py::arg("index") = -1,
          py::arg("timing_only") = false, py::arg("chips") = 1, py::arg("max_cycles") = 0.0,
          py::arg("timeout") = 0.0, py::arg("share") = "",
          "Opens a device to run the program `plan` (DIR/job.plan) on the architecture it was "
          "compiled for, with `arch` and `sets` applied as spyre-sim / tpu-sim run do.")
      .def_property_readonly("name", [](const DeviceHandle& d) { return d.name; })
      .def_property_readonly("closed", [](const DeviceHandle& d) { return !d.device; })
      .def_property_readonly(
          "kind", [](DeviceHandle& d) { return std::string(chipKindName(d.get().kind())); })
      .def_property_readonly("index", [](DeviceHandle& d) { return d.get().index(); })
      .def_property_readonly("chips", [](DeviceHandle& d) { return d.get().chips(); })
      .def_property_readonly("timing_only", [](DeviceHandle& d) { return d.get().timingOnly(); })
      .def_property_readonly("arch_yaml", [](DeviceHandle& d) { return d.get().arch().toYaml(); })
      .def_property_readonly("share", &shareInfo,
                             "A share's cores and memory window in its device, and the "
                             "architecture keys its programs are compiled with; None when whole.")
      .def_property_readonly("arch_fingerprint",
                             [](DeviceHandle& d) { return d.get().arch().fingerprint(); })
      .def("_tensor_memory", &tensorMemoryCapsule,
           "A capsule for the PyTorch backend (chipless._torch): the device's tensor memory.")
      .def("close", &DeviceHandle::close,
           "Gives the device back (and the memory of every program prepared on it).")
      .def(
          "allocate",
          [](DeviceHandle& d, uint64_t bytes, const std::string& name) {
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            return d.get().allocate(bytes, name);
          },
          py::arg("nbytes"), py::arg("name") = "python", "Allocates device memory; its address.")
      .def(
          "release",
          [](DeviceHandle& d, uint64_t address) {
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            d.get().release(address);
          },
          py::arg("address"))
      .def(
          "copy_in",
          [](DeviceHandle& d, uint64_t address, const py::buffer& data, int chip) {
            py::array dense = py::array::ensure(data, py::array::c_style);
            if (!dense) throw py::error_already_set();
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            d.get().copyIn(address, dense.data(), static_cast<uint64_t>(dense.nbytes()), chip);
          },
          py::arg("address"), py::arg("data"), py::arg("chip") = -1,
          "Copies the bytes of `data` (any buffer) to device memory at `address` (on a TPU "
          "system: to chip `chip`, or every chip when -1).")
      .def(
          "copy_out",
          [](DeviceHandle& d, uint64_t address, uint64_t bytes, int chip) {
            NpyArray out = makeNpy(DType::I8, {static_cast<int64_t>(bytes)});
            {
              const std::lock_guard<std::mutex> simulation(simulationMutex());
              d.get().copyOut(address, out.data.data(), bytes, chip);
            }
            return numpyFromNpy(std::move(out)).attr("view")("uint8");
          },
          py::arg("address"), py::arg("nbytes"), py::arg("chip") = 0,
          "`nbytes` bytes of device memory at `address` (of chip `chip`) as a uint8 array.")
      .def(
          "prepare",
          [](const std::shared_ptr<DeviceHandle>& d, const std::string& plan) {
            auto p = std::make_shared<ProgramHandle>();
            p->owner = d;
            {
              py::gil_scoped_release unlocked;
              const std::lock_guard<std::mutex> simulation(simulationMutex());
              p->program = d->get().prepare(plan);
            }
            p->info = p->program->info();
            auto& programs = d->programs; // those already gone need no giving back at close
            programs.erase(std::remove_if(programs.begin(), programs.end(),
                                          [](const auto& w) { return w.expired(); }),
                           programs.end());
            programs.push_back(p);
            return p;
          },
          py::arg("plan"), "Reads the program directory `plan` (DIR/job.plan) and prepares it.")
      .def("launch", &launch, py::arg("program"), py::arg("inputs") = py::dict(),
           py::arg("scalars") = std::map<std::string, int64_t>{},
           py::arg("reals") = std::map<std::string, double>{}, py::arg("trace") = nullptr,
           py::arg("resident") = std::map<std::string, TensorTuple>{}, py::arg("statistics") = true,
           "Runs a prepared program once; the outputs, cycles and statistics of the launch. "
           "`resident` binds arguments to device tensors (address, dtype, shape) in place; "
           "statistics=False keeps none (cheaper for a program of several kernels).")
      .def(
          "tensor_bytes",
          [](DeviceHandle& d, const std::string& dtype, const std::vector<int64_t>& shape) {
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            return d.get().tensorBytes(deviceTensor({0, dtype, shape}, "tensor_bytes").dtype,
                                       shape);
          },
          py::arg("dtype"), py::arg("shape"),
          "Bytes of a tensor of `dtype` and `shape` in the device's canonical layout.")
      .def(
          "write_tensor",
          [](DeviceHandle& d, const TensorTuple& tensor, const py::array& host) {
            runtime::DeviceTensor t = deviceTensor(tensor, "write_tensor");
            NpyArray array = npyFromNumpy(host, "write_tensor");
            py::gil_scoped_release unlocked;
            const std::lock_guard<std::mutex> simulation(simulationMutex());
            return d.get().writeTensor(t, array, "write_tensor");
          },
          py::arg("tensor"), py::arg("array"),
          "Writes `array` into the device tensor (address, dtype, shape) in the canonical "
          "layout; the modelled seconds of the transfer.")
      .def(
          "read_tensor",
          [](DeviceHandle& d, const TensorTuple& tensor) {
            runtime::DeviceTensor t = deviceTensor(tensor, "read_tensor");
            double seconds = 0;
            NpyArray out;
            {
              py::gil_scoped_release unlocked;
              const std::lock_guard<std::mutex> simulation(simulationMutex());
              out = d.get().readTensor(t, seconds);
            }
            return py::make_tuple(numpyFromNpy(std::move(out)), seconds);
          },
          py::arg("tensor"),
          "The device tensor (address, dtype, shape) as a numpy array, and the modelled "
          "seconds of the transfer.");

  py::class_<ProgramHandle, std::shared_ptr<ProgramHandle>>(m, "Program",
                                                            "A program prepared on a device.")
      .def_property_readonly("kernel", [](const ProgramHandle& p) { return p.info.kernel; })
      .def_property_readonly("arguments",
                             [](const ProgramHandle& p) {
                               py::list l;
                               for (const auto& a : p.info.arguments) l.append(argumentDict(a));
                               return l;
                             })
      .def_property_readonly("scalars", [](const ProgramHandle& p) { return p.info.scalars; })
      .def_property_readonly("device", [](const ProgramHandle& p) { return p.owner; })
      .def_property_readonly("released", [](const ProgramHandle& p) { return !p.program; });

  py::class_<LaunchHandle, std::shared_ptr<LaunchHandle>>(m, "Launch", "What one launch did.")
      .def_readonly("outputs", &LaunchHandle::outputs)
      .def_readonly("cycles", &LaunchHandle::cycles)
      .def_readonly("host_seconds", &LaunchHandle::hostSeconds)
      .def_readonly("issued", &LaunchHandle::issued)
      .def_readonly("shared_steps", &LaunchHandle::sharedSteps)
      .def_readonly("device", &LaunchHandle::device)
      .def_readonly("number", &LaunchHandle::number)
      .def(
          "stats_json", [](LaunchHandle& l) { return l.statistics().jsonText(); },
          "The launch's statistics as stats.json text (as spyre-sim --stats writes them).")
      .def(
          "stats_flat", [](LaunchHandle& l) { return l.statistics().flatten(); },
          "Every statistic as (path, value), in tree order.");

  py::class_<TraceHandle, std::shared_ptr<TraceHandle>>(
      m, "Trace", "A timeline of launches, written as a Perfetto / Chrome JSON file.")
      .def(py::init<size_t>(), py::arg("max_events") = 2'000'000)
      .def(
          "write", [](const TraceHandle& t, const std::string& path) { t.writer.write(path); },
          py::arg("path"))
      .def_property_readonly("events", [](const TraceHandle& t) { return t.writer.size(); })
      .def_property_readonly("dropped", [](const TraceHandle& t) { return t.writer.dropped(); });
}

} // namespace chipless::python
