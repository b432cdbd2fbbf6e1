#!/usr/bin/env bash
# neff diff on two 3 M-slot synthetic NEFFs (issue 33's goal), on one core (taskset -c 0):
# wall time and peak RSS of `neff diff --stat` for (1) a NEFF against itself, (2) two NEFFs of
# different seeds (every slot differs: the worst case of the alignment), each with and without the
# simulated time. Prints a Markdown table for docs/performance.md.
# Usage: scripts/diff_bench.sh [SLOTS_PER_ENGINE (600000 = 3 M slots)] [RUNS (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
PER=${1:-600000}
RUNS=${2:-3}
NEFF=target/release/neff
[ -x "$NEFF" ] || cargo build --release -p neff-cli
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$NEFF" synth -o "$DIR/a.neff" --slots-per-engine "$PER" --seed 1 --target cayman >/dev/null
"$NEFF" synth -o "$DIR/b.neff" --slots-per-engine "$PER" --seed 2 --target cayman >/dev/null
slots=$((PER * 5))
echo "| case (${slots} slots each, one core) | wall s (median of $RUNS) | CPU s (user + sys, median) | peak RSS MB | file MB |"
echo "| --- | --- | --- | --- | --- |"
measure() {
  local label=$1; shift
  local walls=() cpus=() rss=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %U %S %M' -o "$DIR/t" taskset -c 0 "$NEFF" diff --stat "$@" >/dev/null || true
    # time(1) writes "Command exited with non-zero status 1" first when the NEFFs differ.
    read -r w u s m < <(tail -n 1 "$DIR/t")
    walls+=("$w"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"); [ "$m" -gt "$rss" ] && rss=$m
  done
  local med cpu
  med=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  echo "| $label | $med | $cpu | $((rss / 1024)) | $(( $(stat -c %s "$DIR/a.neff") / 1048576 )) |"
}
measure "A vs A, --no-time" --no-time "$DIR/a.neff" "$DIR/a.neff"
measure "A vs B (other seed), --no-time" --no-time "$DIR/a.neff" "$DIR/b.neff"
measure "A vs A, with time (2 simulations)" "$DIR/a.neff" "$DIR/a.neff"
measure "A vs B, with time" "$DIR/a.neff" "$DIR/b.neff"
