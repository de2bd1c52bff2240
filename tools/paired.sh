#!/bin/bash
# Compares two builds' speed where wall time drifts, and prints the median of the ratios B/A and
# how many rounds B won, with the sign test's two-sided p-value (ties left out): on a noisy host
# a count of wins says more than a median (BENCHMARKS.md, sessions 29 and 36).
#
# By default each round runs A and B at the same time, one per core (swapping the cores every
# round), so both meet the same machine. With --sequential they run one after the other on one
# core, in alternating order, which shared hosts disturb less (neither run competes with the
# other for the caches and memory bandwidth they share).
#
# Each command prints either `wall: X s` (`cargo bench -p ccarena-core -- FILE`) or the JSON of
# `ccarena run FILE --json` (its engine.wall_s).
#
#   tools/paired.sh 10 "/tmp/b1-old s.toml" "/tmp/b1-new s.toml"
#   tools/paired.sh --sequential 20 "/tmp/b1-old s.toml" "/tmp/b1-new s.toml"
#   tools/paired.sh 6 "old/.venv/bin/ccarena run s.toml --json" ".venv/bin/ccarena run s.toml --json"
set -euo pipefail
sequential=0
if [ "${1:-}" = --sequential ]; then
  sequential=1
  shift
fi
if [ $# -ne 3 ]; then
  echo "usage: tools/paired.sh [--sequential] ROUNDS 'COMMAND A' 'COMMAND B'" >&2
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
  if [ "$sequential" = 1 ]; then
    if [ $((i % 2)) = 1 ]; then
      taskset -c 0 $a > "$out/a"
      taskset -c 0 $b > "$out/b"
    else
      taskset -c 0 $b > "$out/b"
      taskset -c 0 $a > "$out/a"
    fi
  else
    ca=$((i % 2)) cb=$(((i + 1) % 2))
    taskset -c "$ca" $a > "$out/a" & pa=$!
    taskset -c "$cb" $b > "$out/b" & pb=$!
    wait "$pa" "$pb"
  fi
  wa=$(wall "$out/a") wb=$(wall "$out/b")
  echo "$wa $wb" | awk '{printf "A %.3f s  B %.3f s  B/A %.4f\n", $1, $2, $2 / $1}'
done | tee "$out/log"
# The sign test: under "neither build is faster" B wins each untied round with probability 1/2,
# so p = P(a count at least this far from n/2) = min(1, 2 * P(X <= min(wins, losses))).
awk '{print $8}' "$out/log" | sort -n | awk '
  { r[NR] = $1; if ($1 < 1) wins++; else if ($1 > 1) losses++ }
  END {
    n = wins + losses; k = (wins < losses) ? wins : losses
    term = 1; tail = 0
    for (i = 0; i <= k; i++) { tail += term; term = term * (n - i) / (i + 1) }
    p = (n > 0) ? 2 * tail / 2 ^ n : 1
    if (p > 1) p = 1
    printf "median B/A %.4f over %d rounds (%.4f to %.4f); B faster in %d of %d (sign test p = %.3g)\n", r[int((NR + 1) / 2)], NR, r[1], r[NR], wins, NR, p
  }'
