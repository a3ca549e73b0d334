// libsystemc.so refers to sc_main, the entry point of classic SystemC programs. chipless
// drives the kernel itself (tools, tests and the Python module have their own main and
// call sc_start per launch), so this definition only satisfies the linker. It stays visible
// from a shared object built with hidden symbols (the Python module), where the dynamic
// loader resolves libsystemc.so's reference.
#include <cstdio>

extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) {
  std::fprintf(stderr, "chipless: sc_main is not an entry point; use spyre-sim\n");
  return 1;
}
