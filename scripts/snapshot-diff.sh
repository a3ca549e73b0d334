#!/usr/bin/env bash
# Compares two snapshot trees written by scripts/snapshot.py: diff -r, then a one-line
# summary (files compared; files that differ, or exist on one side only).
#
#   scripts/snapshot-diff.sh A B        exit status 0 when identical, 1 when anything differs
set -uo pipefail
if [[ $# -ne 2 || ! -d "$1" || ! -d "$2" ]]; then
  echo "usage: $0 SNAPSHOT_A SNAPSHOT_B (two directories)" >&2
  exit 2
fi
a="$1" b="$2"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
diff -r "$a" "$b" | tee "$log"
status=${PIPESTATUS[0]}
if (( status > 1 )); then echo "snapshot-diff: diff failed" >&2; exit 2; fi
n=$( { (cd "$a" && find . -type f); (cd "$b" && find . -type f); } | sort -u | wc -l)
# One line per differing file: "diff -r A/x B/x" (text), "Binary files ... differ", "Only in".
m=$(grep -cE '^(diff -r |Binary files .* differ$|Only in )' "$log")
echo "snapshot-diff: $n files compared, $m differ"
(( status == 0 )) && exit 0
exit 1
