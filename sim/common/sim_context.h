#pragma once
/// SystemC elaborates one module hierarchy per kernel context. A process that runs several
/// models one after another (tests, the Python module, sweeps) makes a fresh context current
/// before elaborating the next one.

namespace chipless::sim {

/// Makes a new SystemC kernel context current, so a new chip model can be elaborated in a
/// process that already ran one.
void freshSimContext();

} // namespace chipless::sim
