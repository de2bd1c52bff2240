#!/bin/bash
# Compares two builds' speed where wall time drifts: runs A and B at the same time, one per core
# (swapping the cores every round), so both meet the same machine, and prints the median of the
# ratios B/A. Each command prints either `wall: X s` (`cargo bench -p ccarena-core -- FILE`) or
# the JSON of `ccarena run FILE --json` (its engine.wall_s). BENCHMARKS.md, session 29.
#
#   tools/paired.sh 10 "/tmp/b1-old s.toml" "/tmp/b1-new s.toml"
#   tools/paired.sh 6 "old/.venv/bin/ccarena run s.toml --json" ".venv/bin/ccarena run s.toml --json"
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: tools/paired.sh ROUNDS 'COMMAND A' 'COMMAND B'" >&2
  exit 2
fi
rounds=$1 a=$2 b=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wall() {
  if grep -q '^wall: ' "$1"; then
    awk '/^wall: /{print $2}' "$1"
  else
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["engine"]["wall_s"])' "$1"
  fi
}
for i in $(seq "$rounds"); do
  ca=$((i % 2)) cb=$(((i + 1) % 2))
  taskset -c "$ca" $a > "$out/a" & pa=$!
  taskset -c "$cb" $b > "$out/b" & pb=$!
  wait "$pa" "$pb"
  wa=$(wall "$out/a") wb=$(wall "$out/b")
  echo "$wa $wb" | awk '{printf "A %.3f s  B %.3f s  B/A %.4f\n", $1, $2, $2 / $1}'
done | tee "$out/log"
awk '{print $8}' "$out/log" | sort -n | awk '{r[NR] = $1} END {printf "median B/A %.4f over %d rounds (%.4f to %.4f)\n", r[int((NR + 1) / 2)], NR, r[1], r[NR]}'
