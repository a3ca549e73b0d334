#include "runtime/spyre/spyre_machine.h"

#include "runtime/shared_machine_impl.h"

namespace chipless::runtime {

template class SharedMachine<SpyreMachineTraits>;

} // namespace chipless::runtime
