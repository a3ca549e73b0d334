#!/usr/bin/env bash
# Host time of functional runs against timing-only runs of the same programs, through the
# tools as a user runs them (issue 9: a functional run should cost no more than 3x the
# timing-only one on DRAM-bound kernels). For each kernel: spyre-as / spyre-compile once,
# inputs from scripts/random_inputs.py, then REPEAT runs of `spyre-sim run` in each mode;
# the best of each is reported: the simulation's own host seconds (the summary's "host
# seconds"), the whole process's wall-clock seconds (functional runs read the inputs and
# write every output and stats.json), and their functional/timing-only ratios.
# The compile's wall-clock seconds are reported too (best of REPEAT).
#
#   bench/functional_vs_timing.sh [BUILD_DIR] [REPEAT]      (defaults: build, 3)
#
# Machine load changes the numbers (2 cores); so does the virtual machine's memory: the
# first touch of fresh memory costs 4-16 us per 4 KB page on the CI's VMs, more in a
# process that runs first after others freed memory. Run `uptime` alongside.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
repeat="${2:-3}"
for tool in spyre-as spyre-compile spyre-sim; do
  [[ -x "$build/bin/$tool" ]] || { echo "no $build/bin/$tool: build it first" >&2; exit 1; }
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

# name | source | scalars (for the assembler's programs)
kernels=(
  "add-64MB|models/kernels/add.s|N=1048576"
  "matmul-1024|models/kernels/matmul.s|M=1024 K=1024 N=1024"
  "softmax-4096x1024.s|models/kernels/softmax.s|R=4096 N=1024"
  "softmax-4096x1024.mlir|bench/kernels/softmax_4096x1024.mlir|"
  "rope-40x4096x128.mlir|bench/kernels/rope_heads.mlir|"
)

# best VALUES...: the smallest number.
best() { printf '%s\n' "$@" | sort -g | head -1; }
# wall CMD...: runs CMD, prints "WALL HOST" (HOST from the summary, 0 if none).
wall() {
  local t0 t1 log
  t0=$(date +%s.%N)
  log=$("$@" 2>&1) || { echo "$* failed:" >&2; echo "$log" >&2; exit 1; }
  t1=$(date +%s.%N)
  local host
  host=$(echo "$log" | awk '/host seconds/ {print $3}')
  echo "$(echo "$t1 - $t0" | bc -l) ${host:-0}"
}

printf '%-24s %9s %9s %9s %7s | %9s %9s %7s\n' kernel compile_s timing_s functional_s ratio \
  timing_wall functional_wall ratio
for k in "${kernels[@]}"; do
  IFS='|' read -r name src scalars <<<"$k"
  dir="$out/$name"
  compile=()
  for ((r = 0; r < repeat; ++r)); do
    rm -rf "$dir/prog"
    if [[ "$src" == *.s ]]; then
      read -r w _ < <(wall "$build/bin/spyre-as" "$here/$src" -o "$dir/prog")
    else
      read -r w _ < <(wall "$build/bin/spyre-compile" "$here/$src" -o "$dir/prog")
    fi
    compile+=("$w")
  done
  sflags=()
  for s in $scalars; do sflags+=(--scalar "$s"); done
  /usr/bin/python3 "$here/scripts/random_inputs.py" "$dir/prog/job.plan" "${sflags[@]}" \
    -o "$dir/in" >"$dir/inputs.txt"
  iflags=()
  for f in "$dir"/in/*.npy; do iflags+=(--input "$(basename "$f" .npy)=$f"); done
  oflags=()
  for o in $(/usr/bin/python3 -c 'import json, sys
for a in json.load(open(sys.argv[1]))["arguments"]:
    if a["role"] == "output": print(a["name"])' "$dir/prog/job.plan"); do
    oflags+=(--output "$o=$dir/out/$o.npy")
  done
  tw=() th=() fw=() fh=()
  for ((r = 0; r < repeat; ++r)); do
    read -r w h < <(wall "$build/bin/spyre-sim" run "$dir/prog/job.plan" "${sflags[@]}" \
      --timing-only)
    tw+=("$w") th+=("$h")
    read -r w h < <(wall "$build/bin/spyre-sim" run "$dir/prog/job.plan" "${sflags[@]}" \
      "${iflags[@]}" "${oflags[@]}" --stats "$dir/out/stats.json")
    fw+=("$w") fh+=("$h")
  done
  bt=$(best "${th[@]}") bf=$(best "${fh[@]}") btw=$(best "${tw[@]}") bfw=$(best "${fw[@]}")
  printf '%-24s %9.3f %9.3f %9.3f %7.1f | %9.3f %9.3f %7.1f\n' "$name" "$(best "${compile[@]}")" \
    "$bt" "$bf" "$(echo "$bf / $bt" | bc -l)" "$btw" "$bfw" "$(echo "$bfw / $btw" | bc -l)"
done
