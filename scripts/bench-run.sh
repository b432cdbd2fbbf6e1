#!/usr/bin/env bash
# `neff run` (issue 32): the functional model's rates and peak memory on the shared real NEFFs,
# through the example run_rate (neff_sim::func::run, the code `neff run` calls; a release build of
# neff-sim alone, without neff-cli's dependencies). For each NEFF: random inputs (seed 1, made as
# device bytes inside the timed run), one timed run; matmul GFLOP/s (2*K*M*N per MATMUL), element-wise M elements/s
# (elements written by ACTIVATE / COPY / CAST / TENSOR_* / MEMSET / AFFINE_SELECT; a TENSOR_REDUCE's
# elements are those it folds, D752), DMA MB/s, all
# over the run's wall time and over its CPU time (the machine is shared); peak RSS (/usr/bin/time) against the NEFF's inputs + outputs.
# "element-wise alone" divides the element-wise elements by the wall time spent inside those
# slots (`Work::elementwise_ns`); "per class" the same per op class (`Work::classes`, median over
# the runs). Each NEFF runs $RUNS times with the race detector (the
# default) and once without (`no-races`: its cost); the table gives the median run time. Writes the table into
# docs/performance.md between `<!-- bench-run:begin -->` and `<!-- bench-run:end -->`.
#
# Usage: scripts/bench-run.sh      Env: BENCH_RUNS=3  BENCH_NO_WRITE=1 (print only)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${CARGO_TARGET_DIR:-target}"
RUNS="${BENCH_RUNS:-3}"
REAL="${NEFFKIT_SHARED:-../shared}/fixtures/real"
[ -d "$REAL" ] || REAL=/work/shared/fixtures/real
cargo build -q --release -p neff-sim --example run_rate
BIN="$TARGET/release/examples/run_rate"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
{
  echo "| NEFF | slots | run wall s (median of $RUNS) | run CPU s (median) | CPU s without races | matmul GFLOP | GFLOP/s wall / CPU | element-wise M | M elements/s wall / CPU | element-wise alone M/s | per class M elements/s (median) | DMA MB/s wall | inputs+outputs MB | peak RSS MB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
  for f in "$REAL"/matmul_small.neff "$REAL"/profiled/*.neff "$REAL"/attn_v6.neff "$REAL"/moe_v6b.neff "$REAL"/moe_megakernel.neff; do
    [ -f "$f" ] || continue
    : > "$TMP/lines"
    for _ in $(seq "$RUNS"); do
      /usr/bin/time -f "RSS %M" "$BIN" "$f" 1 >> "$TMP/lines" 2>> "$TMP/lines"
    done
    "$BIN" "$f" 1 no-races > "$TMP/norace" 2>&1
    python3 - "$f" "$TMP/lines" "$TMP/norace" <<'PY'
import re, statistics, sys, os
path, lines, norace = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
runs = re.findall(r"(\d+) slots in ([\d.]+) s \(CPU ([\d.]+) s\); matmul ([\d.]+) GFLOP .*?element-wise ([\d.]+) M .*?DMA ([\d.]+) MB .*?inputs\+outputs ([\d.]+) MB", lines)
rss = [int(x) for x in re.findall(r"RSS (\d+)", lines)]
alone = statistics.median(float(x) for x in re.findall(r"element-wise alone: .*?\(([\d.]+) M elements/s\)", lines))
nr = re.findall(r"\(CPU ([\d.]+) s\)", norace)
per = {}
for name, rate in re.findall(r"^  (\S+) +[\d.]+ M elements in [\d.]+ s \(([\d.]+) M elements/s\)", lines, re.M):
    per.setdefault(name, []).append(float(rate))
classes = ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in per.items())
t = statistics.median(float(r[1]) for r in runs)
c = max(statistics.median(float(r[2]) for r in runs), 0.01)
slots, gf, el, dma, io = runs[0][0], float(runs[0][3]), float(runs[0][4]), float(runs[0][5]), float(runs[0][6])
print(f"| {os.path.basename(path)} | {slots} | {t:.3f} | {c:.2f} | {nr[0] if nr else '?'} | {gf:.3f} | {gf / t:.2f} / {gf / c:.2f} | {el:.2f} | {el / t:.1f} / {el / c:.1f} | {alone:.1f} | {classes} | {dma / t:.0f} | {io:.1f} | {max(rss) / 1024:.0f} |")
PY
  done
  echo
  echo "Machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u +%Y-%m-%d)."
} > "$TMP/table"
cat "$TMP/table"
if [ -z "${BENCH_NO_WRITE:-}" ]; then
  python3 - "$TMP/table" <<'PY'
import re, sys
table = open(sys.argv[1]).read().strip()
p = "docs/performance.md"
s = open(p).read()
begin, end = "<!-- bench-run:begin -->", "<!-- bench-run:end -->"
block = f"{begin}\n{table}\n{end}"
s = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, s, flags=re.S)
open(p, "w").write(s)
PY
fi
