#!/usr/bin/env bash
# `neff scan` throughput (issue 19, docs/scale.md): builds three corpora in WORKDIR — the real
# fixtures copied 150 times (1050 small NEFFs), 20 synthetic 2 MB NEFFs, 2 synthetic 20 MB NEFFs —
# then prints, per corpus, the per-stage time on one core (examples/scan_stages.rs) and `neff scan`
# at -j 1 and -j 2 (wall, CPU, peak RSS; each run twice). A benchmark, not a test: short, and noisy
# on a shared machine (read the CPU seconds, not only the wall time).
#
# Usage: scripts/scan_scale.sh [WORKDIR]   (needs ../shared/fixtures/real; env NEFF= skips the build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --release -q -p neff-cli -p neff-scan --bin neff --example scan_stages
NEFF=${NEFF:-$target/release/neff}
STAGES=$target/release/examples/scan_stages
real=$root/../shared/fixtures/real

mkdir -p "$work/real" "$work/synth" "$work/big"
if [[ ! -e "$work/real/c150" ]]; then
  for i in $(seq -w 1 150); do
    mkdir -p "$work/real/c$i"
    cp "$real"/*.neff "$real"/profiled/*.neff "$work/real/c$i/"
  done
fi
for i in $(seq 1 20); do
  [[ -e "$work/synth/s$i.neff" ]] || "$NEFF" synth -o "$work/synth/s$i.neff" --subgraphs 2 \
    --slots-per-engine 20000 --functions 2 --target cayman --seed "$i" >/dev/null
done
for i in 1 2; do
  [[ -e "$work/big/b$i.neff" ]] || "$NEFF" synth -o "$work/big/b$i.neff" --subgraphs 2 \
    --slots-per-engine 200000 --functions 2 --target cayman --seed "$i" >/dev/null
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for corpus in real synth big; do
  echo "== $corpus: stages on one core"
  "$STAGES" "$work/$corpus"
  for j in 1 2; do
    for rep in 1 2; do
      /usr/bin/time -f "$corpus -j$j: %e s wall, %U+%S s CPU, %M KB peak RSS" \
        "$NEFF" scan -j "$j" "$work/$corpus" --jsonl "$work/rows.jsonl" 2>&1 | grep -v '^scanned'
    done
  done
done
