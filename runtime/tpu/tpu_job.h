#pragma once
/// A TPU program prepared on a TPU system once and launched many times:
/// PreparedJob<TpuChip> (runtime/prepared_job.h), instantiated in tpu_job.cpp.
#include "runtime/prepared_job.h"
#include "runtime/tpu/tpu_chip.h"
#include "runtime/tpu/tpu_device.h"

namespace chipless::runtime {

extern template class PreparedJob<TpuChip>;

} // namespace chipless::runtime
