#include "sim/common/sim_context.h"

#include <systemc>

namespace chipless::sim {

void freshSimContext() {
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

SimContext::SimContext() : context_(new sc_core::sc_simcontext()) {
  enter();
}

void SimContext::enter() {
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
}

SimContext::~SimContext() {
  sc_core::sc_simcontext* previous = sc_core::sc_curr_simcontext;
  enter();
  delete context_;
  // Another model's context may be current again; never leave a dangling one behind.
  sc_core::sc_simcontext* next = previous == context_ ? nullptr : previous;
  sc_core::sc_curr_simcontext = next;
  sc_core::sc_default_global_context = next;
}

} // namespace chipless::sim
