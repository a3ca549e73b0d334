#include "runtime/device.h"

#include "runtime/remote/remote_device.h"
#include "runtime/share_option.h"
#include "runtime/spyre/spyre_device.h"
#include "runtime/tpu/tpu_device.h"
#include "support/arch_record.h"
#include "support/error.h"
#include "support/spyrecode/directory.h"
#include "support/tpuprog/directory.h"

namespace chipless::runtime {

const ArgumentInfo* ProgramInfo::find(const std::string& name) const {
  for (const auto& a : arguments)
    if (a.name == name) return &a;
  return nullptr;
}

std::string Device::name() const {
  return std::string(chipKindName(kind())) + ":" + std::to_string(index());
}

double Device::hostLinkSeconds(uint64_t bytes) const {
  return arch().getFloat("host.link_latency_us") * 1e-6 +
         static_cast<double>(bytes) / (arch().getFloat("host.link_gb_s") * 1e9);
}

std::unique_ptr<Device> Device::openLocal(ChipKind kind, const ArchDescription& arch,
                                          const DeviceOptions& options) {
  if (kind == ChipKind::Spyre) return SpyreDevice::open(SpyreArch::fromDescription(arch), options);
  return TpuDevice::open(TpuArch::fromDescription(arch), options);
}

namespace {
/// `options` with the share of $CHIPLESS_DEVICE_SHARE when they ask for none.
DeviceOptions withEnvironmentShare(DeviceOptions options) {
  if (options.share.cores == 0)
    if (auto share = shareFromEnvironment()) options.share = *share;
  return options;
}

/// The architecture of the whole device a share of which runs the program at `planPath`:
/// the program records its share's architecture, so the device's is the one `--arch`
/// names (else the chip's default) with `sets`; its preparation checks that the program
/// fits the share.
template <typename Arch>
Arch shareDeviceArchitecture(const std::string& archOption, const std::vector<std::string>& sets) {
  return Arch::fromDescription(ArchDescription::load(
      archOption.empty() ? Arch::defaultFile() : Arch::resolveFile(archOption), Arch::schema(),
      sets));
}
} // namespace

std::unique_ptr<Device> Device::open(ChipKind kind, const ArchDescription& arch,
                                     const DeviceOptions& options) {
  DeviceOptions o = withEnvironmentShare(options);
  if (auto server = remote::serverFromEnvironment())
    return remote::RemoteDevice::open(*server, kind, arch, o);
  return openLocal(kind, arch, o);
}

std::unique_ptr<Device> Device::openFor(ChipKind kind, const std::string& planPath,
                                        const std::string& archOption,
                                        const std::vector<std::string>& sets,
                                        const DeviceOptions& requested) {
  DeviceOptions options = withEnvironmentShare(requested);
  if (kind == ChipKind::Spyre) {
    spyrecode::Job job = spyrecode::readJob(planPath);
    SpyreArch arch = options.share.cores
                         ? shareDeviceArchitecture<SpyreArch>(archOption, sets)
                         : runArchitecture<SpyreArch>(job.arch, planPath, archOption, sets);
    if (remote::serverFromEnvironment()) return open(kind, arch.description, options);
    return SpyreDevice::open(std::move(arch), options);
  }
  tpuprog::Job job = tpuprog::readJob(planPath);
  TpuArch arch = options.share.cores
                     ? shareDeviceArchitecture<TpuArch>(archOption, sets)
                     : runArchitecture<TpuArch>(job.arch, planPath, archOption, sets);
  if (remote::serverFromEnvironment()) return open(kind, arch.description, options);
  return TpuDevice::open(std::move(arch), options);
}

} // namespace chipless::runtime
