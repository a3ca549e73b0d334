#pragma once
/// An ATen op run on the host where ATen's own cpu_fallback cannot run it: float16 device
/// tensors computed in float32 (PyTorch 1.13's CPU has no float16 kernel for most ops, and
/// the emulated chips compute float16 in float32 anyway) and optional tensor lists (the
/// indices of `x[idx]`) moved to the host like every other tensor argument.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace chipless::torchbackend {

/// Whether `op`'s arguments on `stack` hold what cpu_fallback leaves on the device: a device
/// tensor inside an optional tensor list.
bool needsHostCall(const c10::OperatorHandle& op, const torch::jit::Stack& stack);
/// Whether they hold a float16 device tensor.
bool hasHalfDeviceTensor(const c10::OperatorHandle& op, const torch::jit::Stack& stack);

/// Runs `op` on the host with its arguments on `stack`, as cpu_fallback does: device tensors
/// (also in tensor lists and optional tensor lists) copied to the host, with `upcastHalf` the
/// float16 ones as float32; the CPU kernel run; arguments the op writes updated in place;
/// results copied to the device of the first device argument, float32 results rounded back
/// to float16 when only the upcast made them float32. View ops are refused, as cpu_fallback
/// refuses them.
void hostCall(const c10::OperatorHandle& op, torch::jit::Stack* stack, bool upcastHalf);

} // namespace chipless::torchbackend
