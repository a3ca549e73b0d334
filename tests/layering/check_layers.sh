#!/bin/sh
# The layers only call downward (docs/architecture.md, DESIGN.md): tools and pybind see the
# runtime only through its Device interface (runtime/device.h), never a sim/ header nor the
# chip-specific runtime headers that include them, and the compilers only through
# driver/Compile.h; the compilers know nothing of the simulator or the runtime; the simulator
# knows nothing of the compilers, the runtime or the tools; support/ includes only support/. Prints every offending include and fails.
#   check_layers.sh SOURCE_DIR
src="${1:?usage: check_layers.sh SOURCE_DIR}"
cd "$src" || exit 2
status=0
check() { # check LAYER_DIRS... -- FORBIDDEN_PREFIXES...
  dirs=""
  while [ "$1" != "--" ]; do [ -d "$1" ] && dirs="$dirs $1"; shift; done
  shift
  [ -z "$dirs" ] && return
  for prefix in "$@"; do
    found=$(grep -rn --include='*.cpp' --include='*.h' --include='*.inc' "#include \"$prefix" $dirs)
    if [ -n "$found" ]; then
      echo "$found" | sed "s|\$|   <- may not include $prefix|"
      status=1
    fi
  done
}
check tools pybind -- sim/ runtime/spyre/ runtime/tpu/ compiler/
# pybind reaches the compilers through their one library interface (driver/Compile.h) only.
check pybind -- dataflow/ frontend/ ktir/ tpuc/ graph/ mlir/
check compiler -- sim/ runtime/ tools/ pybind/
check sim -- compiler/ runtime/ tools/ pybind/
check support -- sim/ runtime/ compiler/ tools/ pybind/
[ $status -eq 0 ] && echo "layers: every include goes downward"
exit $status
