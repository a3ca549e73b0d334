#include "runtime/tpu/tpu_machine.h"

#include "runtime/shared_machine_impl.h"

namespace chipless::runtime {

template class SharedMachine<TpuMachineTraits>;

} // namespace chipless::runtime
