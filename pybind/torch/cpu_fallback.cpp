/// Every ATen op with no chipless kernel runs on the CPU (ATen's cpu_fallback: the device
/// inputs copied to the host, the results copied back), counted per op so that a user sees
/// what did not run on the device; in strict mode such an op is an error instead. Autograd
/// passes through to the device kernels (PyTorch 1.13 needs this said for AutogradPrivateUse1).
/// What cpu_fallback cannot run (a device tensor in an optional tensor list; a float16 op the
/// CPU has no float16 kernel for) runs as a host call (pybind/torch/host_call.h).
#include "pybind/torch/backend.h"
#include "pybind/torch/fallback_counts.h"
#include "pybind/torch/host_call.h"

#include <ATen/native/CPUFallback.h>
#include <atomic>
#include <mutex>
#include <string>
#include <torch/library.h>
#include <vector>

namespace chipless::torchbackend {

namespace {

std::atomic<bool> strictMode{false};
std::mutex countsMutex;
std::map<std::string, int64_t> counts;

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::OperatorName& name = op.schema().operator_name();
  const std::string full = name.name + (name.overload_name.empty() ? "" : "." + name.overload_name);
  TORCH_CHECK(!strictMode, "chipless: ", full,
              " has no kernel on the emulated devices, and strict mode does not let it run on "
              "the CPU (chipless.torch.set_strict(False) allows the fallback)");
  {
    const std::lock_guard<std::mutex> lock(countsMutex);
    ++counts[full];
  }
  flushDeferred();
  if (needsHostCall(op, *stack)) {
    hostCall(op, stack, hasHalfDeviceTensor(op, *stack));
    return;
  }
  if (!hasHalfDeviceTensor(op, *stack)) {
    at::native::cpu_fallback(op, stack);
    return;
  }
  // float16: the CPU's own float16 kernel where it has one, else computed in float32
  const size_t numArguments = op.schema().arguments().size();
  const size_t below = stack->size() - numArguments;
  const std::vector<c10::IValue> arguments(stack->begin() + static_cast<ptrdiff_t>(below),
                                           stack->end());
  try {
    at::native::cpu_fallback(op, stack);
  } catch (const c10::Error& e) {
    if (std::string(e.what()).find("not implemented for 'Half'") == std::string::npos) throw;
    stack->resize(below);
    stack->insert(stack->end(), arguments.begin(), arguments.end());
    hostCall(op, stack, true);
  }
}

} // namespace

void setStrict(bool strict) {
  strictMode = strict;
}
bool strict() {
  return strictMode;
}

std::map<std::string, int64_t> fallbackCounts() {
  const std::lock_guard<std::mutex> lock(countsMutex);
  return counts;
}

void resetFallbackCounts() {
  const std::lock_guard<std::mutex> lock(countsMutex);
  counts.clear();
}

} // namespace chipless::torchbackend

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&chipless::torchbackend::fallback>());
}

TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFallthrough());
}
