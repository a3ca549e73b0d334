#pragma once
/// A SpyreCode job prepared on a Spyre card once and launched many times:
/// PreparedJob<SpyreChip> (runtime/prepared_job.h), instantiated in spyre_job.cpp.
#include "runtime/prepared_job.h"
#include "runtime/spyre/spyre_chip.h"
#include "runtime/spyre/spyre_device.h"

namespace chipless::runtime {

extern template class PreparedJob<SpyreChip>;

} // namespace chipless::runtime
