#include "sim/common/sim_context.h"

#include <systemc>

namespace chipless::sim {

void freshSimContext() {
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

} // namespace chipless::sim
