/// The PrivateUse1 device guard: which emulated device is current on this thread (the
/// device new tensors go to when none is named); one default stream per device.
#include "pybind/torch/backend.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

namespace chipless::torchbackend {

namespace {

thread_local c10::DeviceIndex currentIndex = 0;

struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    setDevice(d);
    return old;
  }
  c10::Device getDevice() const override {
    return c10::Device(c10::DeviceType::PrivateUse1, currentIndex);
  }
  void setDevice(c10::Device d) const override { currentIndex = d.index(); }
  void uncheckedSetDevice(c10::Device d) const noexcept override { currentIndex = d.index(); }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(kMaxDevices);
  }
  // Launches complete before they return: events are always reached.
  void record(void**, const c10::Stream&, const c10::DeviceIndex,
              const c10::EventFlag) const override {}
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void*, const c10::DeviceIndex) const noexcept override {}
};

} // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

} // namespace chipless::torchbackend
