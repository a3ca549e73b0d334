/// The host call of pybind/torch/host_call.h.
#include "pybind/torch/host_call.h"

#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_copy_from_and_resize.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>
#include <cstddef>
#include <vector>

namespace chipless::torchbackend {

namespace {

bool onDevice(const at::Tensor& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1;
}

bool isScalarType(const c10::Argument& argument) {
  c10::TypePtr type = argument.type();
  if (type->kind() == c10::TypeKind::OptionalType)
    type = type->castRaw<c10::OptionalType>()->getElementType();
  return type->kind() == c10::TypeKind::ScalarTypeType;
}

/// The arguments of one call, moved to the host, and what the move saw.
class HostArguments {
public:
  explicit HostArguments(bool upcastHalf) : upcastHalf_(upcastHalf) {}

  c10::IValue convert(const c10::IValue& v, const c10::Argument& argument) {
    if (v.isTensor()) return toHost(v.toTensor());
    if (v.isTensorList()) {
      c10::List<at::Tensor> out;
      for (const at::Tensor& t : v.toTensorList()) out.push_back(toHost(t));
      return out;
    }
    if (v.isOptionalTensorList()) {
      c10::List<c10::optional<at::Tensor>> out;
      for (const c10::optional<at::Tensor>& t : v.toOptionalTensorList())
        out.push_back(t.has_value() ? c10::optional<at::Tensor>(toHost(*t)) : c10::nullopt);
      return out;
    }
    if (v.isInt() && isScalarType(argument) && v.toInt() == static_cast<int64_t>(at::kFloat))
      namesFloat_ = true; // dtype=torch.float32
    return v;
  }

  /// A result of the host call as the device result it stands for.
  at::Tensor toDevice(const at::Tensor& t) const {
    if (!t.defined()) return t;
    at::Tensor result = t;
    if (upcast_ && !namesFloat_ && result.scalar_type() == at::kFloat)
      result = result.to(at::kHalf);
    return result.to(*device_);
  }

  c10::optional<c10::Device> device() const { return device_; }

private:
  at::Tensor toHost(const at::Tensor& t) {
    if (t.defined() && t.scalar_type() == at::kFloat) namesFloat_ = true;
    if (!onDevice(t)) return t;
    if (!device_) device_ = t.device();
    at::Tensor host = t.cpu();
    if (upcastHalf_ && host.scalar_type() == at::kHalf) {
      upcast_ = true;
      return host.to(at::kFloat);
    }
    return host;
  }

  bool upcastHalf_;
  bool upcast_ = false;     ///< a float16 tensor was given as float32
  bool namesFloat_ = false; ///< float32 was asked for (an argument of that dtype, or dtype=)
  c10::optional<c10::Device> device_;
};

/// Applies `visit` to every tensor among `op`'s arguments on `stack`.
template <typename Visit>
bool anyArgumentTensor(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                       bool optionalListsOnly, Visit visit) {
  const size_t n = op.schema().arguments().size();
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    const c10::IValue& v = stack[i];
    if (v.isOptionalTensorList()) {
      for (const c10::optional<at::Tensor>& t : v.toOptionalTensorList())
        if (t.has_value() && visit(*t)) return true;
    } else if (optionalListsOnly) {
      continue;
    } else if (v.isTensor() && visit(v.toTensor())) {
      return true;
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList())
        if (visit(t)) return true;
    }
  }
  return false;
}

} // namespace

bool needsHostCall(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  return anyArgumentTensor(op, stack, true, onDevice);
}

bool hasHalfDeviceTensor(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  return anyArgumentTensor(op, stack, false, [](const at::Tensor& t) {
    return onDevice(t) && t.scalar_type() == at::kHalf;
  });
}

void hostCall(const c10::OperatorHandle& op, torch::jit::Stack* stack, bool upcastHalf) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t numArguments = schema.arguments().size();
  const std::vector<c10::IValue> arguments(stack->end() - static_cast<ptrdiff_t>(numArguments),
                                           stack->end());
  for (const c10::Argument& r : schema.returns())
    TORCH_CHECK(r.alias_info() == nullptr || r.alias_info()->isWrite(), "chipless: ", schema.name(),
                " is a view operator with no kernel on the emulated devices");

  HostArguments host(upcastHalf);
  std::vector<c10::IValue> hostArguments;
  hostArguments.reserve(numArguments);
  for (size_t i = 0; i < numArguments; ++i)
    hostArguments.push_back(host.convert(arguments[i], schema.arguments()[i]));
  TORCH_CHECK(host.device().has_value(), "chipless: ", schema.name(),
              " reached the emulated devices' fallback with no device tensor");

  torch::jit::drop(*stack, numArguments);
  for (const c10::IValue& v : hostArguments) torch::jit::push(*stack, v);
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);

  // arguments the op writes: the host copy it wrote goes back into the device tensor
  for (size_t i = 0; i < numArguments; ++i) {
    const c10::AliasInfo* alias = schema.arguments()[i].alias_info();
    if (alias == nullptr || !alias->isWrite() || !arguments[i].isTensor()) continue;
    at::Tensor device = arguments[i].toTensor();
    if (onDevice(device)) // resized as the CPU kernel resized it (an out= tensor)
      at::_copy_from_and_resize(hostArguments[i].toTensor().to(device.scalar_type()), device);
  }

  const size_t numReturns = schema.returns().size();
  const size_t first = stack->size() - numReturns;
  for (size_t r = 0; r < numReturns; ++r) {
    c10::IValue& value = (*stack)[first + r];
    const c10::AliasInfo* alias = schema.returns()[r].alias_info();
    if (alias != nullptr) { // returns the argument it wrote (an in-place or out= op)
      for (size_t i = 0; i < numArguments; ++i) {
        const c10::AliasInfo* a = schema.arguments()[i].alias_info();
        if (a != nullptr && a->isWrite() && a->beforeSets() == alias->beforeSets()) {
          value = arguments[i];
          break;
        }
      }
    } else if (value.isTensor()) {
      value = host.toDevice(value.toTensor());
    } else if (value.isTensorList()) {
      c10::List<at::Tensor> out;
      for (const at::Tensor& t : value.toTensorList()) out.push_back(host.toDevice(t));
      value = out;
    }
  }
}

} // namespace chipless::torchbackend
