#pragma once
/// SystemC elaborates one module hierarchy per kernel context. A process that runs several
/// models one after another (tests, the Python module, sweeps) makes a fresh context current
/// before elaborating the next one, and deletes it when that model is gone.

namespace sc_core {
class sc_simcontext;
}

namespace chipless::sim {

/// Makes a new SystemC kernel context current, so a new chip model can be elaborated in a
/// process that already ran one. The caller owns nothing: prefer SimContext.
void freshSimContext();

/// Owns a SystemC kernel context for the lifetime of one elaborated model: the constructor
/// makes a new context current; `enter()` makes it current again (to destroy the model's
/// modules in their own context); the destructor deletes it, so repeated models do not leak.
class SimContext {
public:
  SimContext();
  ~SimContext();
  SimContext(const SimContext&) = delete;
  SimContext& operator=(const SimContext&) = delete;

  /// Makes this context current.
  void enter();

private:
  sc_core::sc_simcontext* context_;
};

} // namespace chipless::sim
