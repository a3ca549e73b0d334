#!/usr/bin/env bash
# Compile time of every KTIR kernel: the public samples (../shared/ktir-examples, skipped
# when absent) and models/kernels/*.mlir. Each file is compiled REPEAT times with
# spyre-compile (no dumps); the best wall-clock time is reported, then a summary against
# the target of issue 3 (< 0.5 s per kernel). Exit status 1 if a kernel fails to compile.
#
#   bench/ktir_compile_times.sh [BUILD_DIR] [REPEAT]      (defaults: build, 3)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
repeat="${2:-3}"
compiler="$build/bin/spyre-compile"
[[ -x "$compiler" ]] || { echo "no $compiler: build spyre-compile first" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Flags a sample needs (scalars it does not get at launch, or its grid).
flags_for() {
  case "$(basename "$1")" in
    add-with-control-flow.mlir) echo "--grid 32" ;;
    ring_reduce_inner_loop.mlir) echo "--const n_iters=5" ;;
    distributed-view-copy-dynamic.mlir | distributed-view-copy-rowmerge-dynamic.mlir)
      echo "--const s0_in=32" ;;
    *) echo "" ;;
  esac
}

files=()
examples="$here/../shared/ktir-examples"
if [[ -d "$examples" ]]; then
  for f in "$examples"/*.mlir "$examples"/*.ktir; do [[ -e "$f" ]] && files+=("$f"); done
fi
for f in "$here"/models/kernels/*.mlir; do [[ -e "$f" ]] && files+=("$f"); done

printf '%-48s %10s\n' kernel "seconds"
worst=0 worst_name="" failed=0 n=0
for f in "${files[@]}"; do
  best=""
  for ((r = 0; r < repeat; ++r)); do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    if ! "$compiler" "$f" -o "$out/job" $(flags_for "$f") > "$out/log" 2>&1; then
      echo "FAILED: $f" >&2; cat "$out/log" >&2; failed=1; best=""; break
    fi
    t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc -l)
    if [[ -z "$best" ]] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
  done
  [[ -z "$best" ]] && continue
  n=$((n + 1))
  printf '%-48s %10.3f\n' "$(basename "$f")" "$best"
  if (($(echo "$best > $worst" | bc -l))); then worst=$best worst_name=$(basename "$f"); fi
done
printf '%d kernels; slowest %s: %.3f s (target < 0.5 s: %s)\n' "$n" "$worst_name" "$worst" \
  "$(if (($(echo "$worst < 0.5" | bc -l))); then echo met; else echo missed; fi)"
exit "$failed"
