#!/usr/bin/env bash
# CLI hot paths on generated NEFFs (docs/performance.md "Optimisations"): `gzip -dc` of the payload vs
# `neff info`, and `neff validate` / `neff disasm` of one 838,861-slot PE stream. For each: best-of-N wall
# time and, when `perf` works, on-CPU time of all threads (task-clock) and of the busiest thread (the
# critical path on an idle 2-core machine; from `perf record` samples), so figures stay comparable on a
# loaded machine.
#
# Usage: scripts/bench_cli.sh [NEFF_BINARY...]   (default: $CARGO_TARGET_DIR/release/neff; give two to compare
#        a before/after pair, e.g. a binary built from an older commit)
# Env:   SLOTS=209716 (slots per engine of the 4-subgraph NEFF)  RUNS=5  WORK=DIR (keep inputs there)
set -euo pipefail
cd "$(dirname "$0")/.."
SLOTS="${SLOTS:-209716}"; RUNS="${RUNS:-5}"
BINS=("$@"); [[ ${#BINS[@]} -gt 0 ]] || BINS=("${CARGO_TARGET_DIR:-target}/release/neff")
WORK="${WORK:-$(mktemp -d)}"; mkdir -p "$WORK"
NEFF="${BINS[-1]}"
[[ -f "$WORK/big.neff" ]] || "$NEFF" synth -o "$WORK/big.neff" --target cayman --subgraphs 4 \
  --slots-per-engine "$SLOTS" --functions 4 --seed 1 >&2
[[ -f "$WORK/payload.gz" ]] || tail -c +1025 "$WORK/big.neff" > "$WORK/payload.gz"
if [[ ! -f "$WORK/pe.bin" ]]; then
  "$NEFF" synth -o "$WORK/pe.neff" --target cayman --subgraphs 1 --slots-per-engine 838861 --seed 1 >&2
  "$NEFF" cat "$WORK/pe.neff" sg00/PE.bin > "$WORK/pe.bin"
fi
PERF=""; perf stat -e task-clock true >/dev/null 2>&1 && PERF=1

# measure LABEL CMD...: best wall, best task-clock, best busiest-thread CPU (ms).
measure() {
  local label=$1; shift
  local wall=999999 cpu=999999 crit=999999 t0 t1 ms c s
  for ((i = 0; i < RUNS; i++)); do
    t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 )); (( ms < wall )) && wall=$ms
    if [[ -n "$PERF" ]]; then
      c=$(perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1); c=${c%.*}
      (( c < cpu )) && cpu=$c
      perf record -q -F 999 -o "$WORK/p.data" "$@" >/dev/null 2>&1 || true
      # cpu-clock sample periods are nanoseconds: the largest per-thread sum is the busiest thread.
      s=$(perf report -i "$WORK/p.data" --stdio --sort pid -F period 2>/dev/null | grep -v '^#' | awk 'NF{print $1}' | sort -n | tail -1)
      s=$(( ${s:-0} / 1000000 )); (( s < crit )) && crit=$s
    fi
  done
  [[ -n "$PERF" ]] || { cpu="-"; crit="-"; }
  printf '| %s | %s | %s | %s |\n' "$label" "$wall" "$cpu" "$crit"
}

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1 /proc/loadavg); $(date -u +%FT%RZ)"
echo "NEFF: $(stat -c %s "$WORK/big.neff") bytes, tar $(gzip -dc "$WORK/payload.gz" | wc -c) bytes; pe.bin $(( $(stat -c %s "$WORK/pe.bin") / 64 )) slots"
echo
echo "| command | best wall ms | best on-CPU ms (all threads) | best busiest-thread ms |"
echo "| --- | ---: | ---: | ---: |"
measure "gzip -dc payload" gzip -dc "$WORK/payload.gz"
for b in "${BINS[@]}"; do
  measure "$b info" "$b" info "$WORK/big.neff"
  measure "$b validate pe.bin" "$b" validate "$WORK/pe.bin"
  measure "$b disasm pe.bin" "$b" disasm "$WORK/pe.bin"
done
