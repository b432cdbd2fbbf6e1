#!/usr/bin/env bash
# Whole-pipeline benchmark (issues 8 and 20): one run, the same generated NEFF, every figure against
# its goal in ONE table, plus the inflate backends side by side.
#
#  1. the inflate floor: `gzip -dc` of the payload, `igzip -dc` when installed (libdeflate-gunzip
#     refuses the zero padding after the member, D26: libdeflate is measured in the harness),
#     and scripts/inflate_backends (zlib-rs / libdeflate / ISA-L in one process, on-CPU MB/s) when
#     nasm + autoreconf are there to build ISA-L (decision D330);
#  2. `neff info`, `neff load` (also pinned to one core), peak RSS;
#  3. `neff disasm FILE.neff > /dev/null` (inflate included), peak RSS against the streams;
#  4. `neff validate` of the same NEFF; `neff kbin` (the load without its lowering: the load's floor,
#     D393); the IP map (example ipmap_rate);
#  5. `neff bir check` vs python3 json.load of the same generated document;
#  6. the real-shaped corpus (issue 34): `neff synth --conv2d-like` (the trn1 conv2d's shape:
#     176 k slots, PE 161 k, thousands of DMA descriptors, many vars, debug info) and the shared
#     real fixtures (../shared/fixtures/real/*.neff), every command against `gzip -dc` of the same
#     payload in MB/s of inflated package and M slots/s, with peak RSS against the package.
#
# Every command runs $RUNS times, interleaved; the table gives medians of wall and of CPU (user + sys)
# time, because the machine is shared (the load average is printed beside the figures). Writes the
# table into docs/performance.md between `<!-- bench.sh:begin -->` / `<!-- bench.sh:end -->`,
# and the real-shaped tables between `<!-- bench.sh:real:begin -->` / `<!-- bench.sh:real:end -->`.
#
# Usage: scripts/bench.sh
# Env:   BENCH_SCALE=issue20 (default: 1 subgraph x 5 engines x 600000 slots, seed 3: 192 MB of streams)
#          | full (4 x 5 x 838861 slots, seed 1: 1 GiB) | small (64 MiB) | tiny (4 MiB)
#        BENCH_RUNS=5   BENCH_BIR_N=100000 (instructions of the BIR document)
#        BENCH_KEEP=DIR (keep the generated files)   BENCH_NO_WRITE=1 (print only)
#        BENCH_NO_BUILD=1 (use the release binaries already in $CARGO_TARGET_DIR)
#        BENCH_CORPUS=all (default) | synthetic (steps 1-5) | real (step 6)
#        BENCH_REAL_RUNS=11 (runs of each command on the real-shaped corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET="${CARGO_TARGET_DIR:-target}"
SCALE="${BENCH_SCALE:-issue20}"
CORPUS="${BENCH_CORPUS:-all}"
REAL_RUNS="${BENCH_REAL_RUNS:-11}"
case "$CORPUS" in all | synthetic | real) ;; *) echo "BENCH_CORPUS must be all, synthetic or real" >&2; exit 2 ;; esac
RUNS="${BENCH_RUNS:-5}"
BIR_N="${BENCH_BIR_N:-100000}"
case "$SCALE" in
  issue20) SUBGRAPHS=1; SLOTS=600000; SEED=3; SYNTH_EXTRA=() ;;
  full) SUBGRAPHS=4; SLOTS=838861; SEED=1; SYNTH_EXTRA=(--functions 4 --target cayman) ;;
  small) SUBGRAPHS=4; SLOTS=52429; SEED=1; SYNTH_EXTRA=(--functions 4 --target cayman) ;;
  tiny) SUBGRAPHS=4; SLOTS=3277; SEED=1; SYNTH_EXTRA=(--functions 4 --target cayman) ;;
  *) echo "BENCH_SCALE must be issue20, full, small or tiny" >&2; exit 2 ;;
esac
if [[ ! -c /dev/null ]]; then
  echo "/dev/null is not a character device (something replaced it with a file): every '> /dev/null'" \
    "below would write to memory. Restore it: rm /dev/null && mknod -m 666 /dev/null c 1 3" >&2
  exit 1
fi
[[ -x /usr/bin/time ]] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  echo "== building (release)" >&2
  cargo build --release -q -p neff-cli --bin neff
  cargo build --release -q -p neff-load --example ipmap_rate
  cargo build --release -q -p neff-bir --example gen_bir
fi
TGT="$(cd "$TARGET" && pwd)"
NEFF="$TGT/release/neff"

if [[ -n "${BENCH_KEEP:-}" ]]; then WORK="$BENCH_KEEP"; mkdir -p "$WORK"; else
  WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT; fi
TIMES="$WORK/times.txt"; : > "$TIMES"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# timed NAME CMD...: one run, stdout to /dev/null; appends "NAME wall user sys maxrss_kb".
timed() {
  local name=$1; shift
  /usr/bin/time -o "$WORK/t1" -f "%e %U %S %M" "$@" > /dev/null
  echo "$name $(cat "$WORK/t1")" >> "$TIMES"
}
have() { command -v "$1" > /dev/null; }

# Writes $2 into docs/performance.md between the markers `<!-- bench.sh$1:begin/end -->`.
write_section() {
  [[ -n "${BENCH_NO_WRITE:-}" ]] && return 0
  local DOC="$ROOT/docs/performance.md"
  [[ -f "$DOC" ]] || echo "# Performance" > "$DOC"
  MARK="$1" SECTION="$2" DOC="$DOC" python3 - <<'PYEOF'
import os, re
doc, section, mark = os.environ["DOC"], os.environ["SECTION"], re.escape(os.environ["MARK"])
text = open(doc).read()
pat = re.compile(r"<!-- bench\.sh" + mark + r":begin -->.*?<!-- bench\.sh" + mark + r":end -->\n?", re.S)
if pat.search(text):
    text = pat.sub(lambda _: section + "\n", text, count=1)
else:
    text = text.rstrip("\n") + "\n\n" + section
tmp = doc + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, doc)
PYEOF
  echo "wrote $DOC" >&2
}

# 6. The real-shaped corpus (issue 34): one table for `neff synth --conv2d-like`, one for the
# shared real fixtures, each command against `gzip -dc` of the same payload.
real_corpus() {
  local RT="$WORK/real-times.txt"; : > "$RT"
  local REAL="$WORK/conv2d.neff"
  "$NEFF" synth -o "$REAL" --conv2d-like --seed 3 >&2
  local files=("$REAL")
  local f
  for f in "$ROOT"/../shared/fixtures/real/*.neff; do [[ -f "$f" ]] && files+=("$f"); done
  local cmds=(info ls validate disasm kbin load lower sim scan)
  echo "== 6. real-shaped corpus: ${#files[@]} file(s) x ${#cmds[@]} commands x $REAL_RUNS runs" >&2
  local i c n=0 sizes="$WORK/real-sizes.txt"; : > "$sizes"
  for f in "${files[@]}"; do
    tail -c +1025 "$f" > "$WORK/real$n.gz"
    local slots
    slots=$("$NEFF" ls "$f" | awk '$2 ~ /\.bin$/ && $2 ~ /\/(PE|Activation|Pool|DVE|SP)\.bin$/ {s += $1} END {print int(s / 64)}')
    echo "$n $(basename "$f") $(stat -c %s "$f") $(gzip -dc "$WORK/real$n.gz" | wc -c) $slots" >> "$sizes"
    for ((i = 0; i < REAL_RUNS; i++)); do
      (TIMES="$RT"; timed "$n:gzip" gzip -dc "$WORK/real$n.gz")
      for c in "${cmds[@]}"; do
        (TIMES="$RT"; timed "$n:$c" "$NEFF" "$c" "$f")
      done
    done
    n=$((n + 1))
  done
  export RT SIZES="$sizes" REAL_RUNS
  export NPROC=$(nproc) DATE=$(date -u +%Y-%m-%dT%H:%MZ) REV=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
  export LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
  REAL_TABLE=$(python3 - <<'PYEOF'
import os, statistics
e = os.environ
runs = {}
for line in open(e["RT"]):
    name, wall, user, sys_, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(user) + float(sys_), int(rss) * 1024))
files = [l.split() for l in open(e["SIZES"])]
cmds = ["info", "ls", "validate", "disasm", "kbin", "load", "lower", "sim", "scan"]
med = lambda n, k: statistics.median(r[k] for r in runs[n])
# /usr/bin/time counts in 10 ms steps: a 0.00 s reads as half a step.
wall = lambda n: max(med(n, 0), 0.005)
cpu = lambda n: max(med(n, 1), 0.005)
rss = lambda n: max(r[2] for r in runs[n])
out = [f"Machine: {e['NPROC']} cores; {e['DATE']}; commit {e['REV']}; load average {e['LOADAVG']} after. "
       f"Medians of {e['REAL_RUNS']} interleaved runs (wall; CPU = user + sys, what a loaded machine inflates "
       f"least); MB/s and M slots/s are of the inflated package (the tar) and of the engine-stream slots; "
       f"RSS is the peak of all runs against the tar. The goal column judges wall time."]
def table(title, rows_of):
    out.append("")
    out.append(title)
    out.append("")
    for idx, name, fbytes, tar, slots in rows_of:
        tar, slots = int(tar), int(slots)
        gz = wall(f"{idx}:gzip")
        out.append(f"**{name}**: {int(fbytes)/1e6:.2f} MB file, {tar/1e6:.2f} MB inflated, {slots:,} slots; "
                   f"`gzip -dc` {gz:.3f} s ({tar/1e6/gz:,.0f} MB/s)")
        out.append("")
        out.append("| command | wall | MB/s | M slots/s | x gzip -dc | CPU | MB/s (CPU) | peak RSS | RSS / tar | goal >= 100 MB/s, RSS <= 2x |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for c in cmds:
            n = f"{idx}:{c}"
            if n not in runs:
                continue
            w, r = wall(n), rss(n)
            ok = tar / 1e6 / w >= 100 and r <= 2 * tar
            out.append(f"| `neff {c}` | {w:.3f} s | {tar/1e6/w:,.0f} | {slots/w/1e6:,.2f} | {gz/w:.2f} | "
                       f"{cpu(n):.3f} s | {tar/1e6/cpu(n):,.0f} | {r/1e6:,.0f} MB | {r/tar:.2f} | {'**met**' if ok else '**missed**'} |")
        out.append("")
table("### Real-shaped: `neff synth --conv2d-like --seed 3` (issue 34's trn1 conv2d)", files[:1])
table("### The shared real fixtures (../shared/fixtures/real; small: process start dominates)", files[1:])
print("\n".join(out).rstrip("\n"))
PYEOF
)
  echo
  echo "$REAL_TABLE"
  write_section ":real" "$(printf '%s\n\n%s\n\n%s\n' "<!-- bench.sh:real:begin -->" \
    "## Real-shaped corpus (scripts/bench.sh, issue 34)

Rerun: \`BENCH_CORPUS=real scripts/bench.sh\`. Generated by the script; edits here are overwritten.
What the figures mean and where the time went: \"Performance III\" below.

$REAL_TABLE" "<!-- bench.sh:real:end -->")"
}

if [[ "$CORPUS" == real ]]; then
  real_corpus
  exit 0
fi

echo "== generating ($SUBGRAPHS subgraph(s) x 5 engines x $SLOTS slots, seed $SEED)" >&2
BIG="$WORK/big.neff"
"$NEFF" synth -o "$BIG" --subgraphs "$SUBGRAPHS" --slots-per-engine "$SLOTS" --seed "$SEED" \
  "${SYNTH_EXTRA[@]}" >&2
tail -c +1025 "$BIG" > "$WORK/payload.gz"
FILE_BYTES=$(stat -c %s "$BIG")
TAR_BYTES=$(gzip -dc "$WORK/payload.gz" | wc -c)
STREAM_BYTES=$((SUBGRAPHS * 5 * SLOTS * 64))

echo "== 1-4. $RUNS interleaved rounds" >&2
for ((i = 0; i < RUNS; i++)); do
  timed gzip gzip -dc "$WORK/payload.gz"
  if have igzip; then timed igzip igzip -dc "$WORK/payload.gz"; fi
  timed info "$NEFF" info "$BIG"
  timed load "$NEFF" load "$BIG"
  if have taskset; then timed load1 taskset -c 0 "$NEFF" load "$BIG"; fi
  timed disasm "$NEFF" disasm "$BIG"
  timed validate "$NEFF" validate "$BIG"
  timed kbin "$NEFF" kbin "$BIG"
done
DISASM_BYTES=$("$NEFF" disasm "$BIG" | wc -c)
IPMAP_OUT=$("$TGT/release/examples/ipmap_rate" 500)

echo "== inflate backends (scripts/inflate_backends)" >&2
BACKENDS=""
if have nasm && have autoreconf && have libtoolize; then
  if (cd scripts/inflate_backends && CARGO_TARGET_DIR="$TGT/inflate_backends" \
      cargo build --release -q); then
    BACKENDS=$("$TGT/inflate_backends/release/inflate-backends" "$WORK/payload.gz" "$RUNS") ||
      BACKENDS="(scripts/inflate_backends failed on this payload)"
  else
    BACKENDS="(scripts/inflate_backends did not build here)"
  fi
else
  BACKENDS="(not run: building ISA-L needs nasm, autoconf, automake and libtool; \`apt-get install nasm autoconf automake libtool\`)"
fi

echo "== BIR parse+verify vs python json.load ($BIR_N instructions)" >&2
"$TGT/release/examples/gen_bir" "$WORK/bir.json" "$BIR_N" pretty 1
BIR_BYTES=$(stat -c %s "$WORK/bir.json")
for ((i = 0; i < 3; i++)); do
  timed bir "$NEFF" bir check "$WORK/bir.json"
  timed python python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/bir.json"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

CPU=$(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
export SCALE SLOTS SUBGRAPHS SEED FILE_BYTES TAR_BYTES STREAM_BYTES DISASM_BYTES IPMAP_OUT BIR_N \
  BIR_BYTES CPU RUNS TIMES BACKENDS LOAD_BEFORE LOAD_AFTER
export NPROC=$(nproc) DATE=$(date -u +%Y-%m-%dT%H:%MZ) REV=$(git rev-parse --short HEAD 2>/dev/null || echo "?")

TABLE=$(python3 - <<'PYEOF'
import os, statistics
e = os.environ
runs = {}
for line in open(e["TIMES"]):
    name, wall, user, sys_, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(user) + float(sys_), int(rss) * 1024))
med = lambda name, k: statistics.median(r[k] for r in runs[name]) if name in runs else None
# /usr/bin/time counts in 10 ms steps: a tiny input's 0.00 s reads as half a step.
wall = lambda n: max(med(n, 0), 0.005)
cpu = lambda n: max(med(n, 1), 0.005)
rss = lambda n: max(r[2] for r in runs[n])
mb = lambda b: b / 1e6
tar, stream = int(e["TAR_BYTES"]), int(e["STREAM_BYTES"])
payload = int(e["FILE_BYTES"]) - 1024
slots = stream // 64
verdict = lambda ok: "**met**" if ok else "**missed**"
rows = []
def row(what, value, goal="", status=""):
    rows.append(f"| {what} | {value} | {goal} | {status} |")
out = []
out.append(f"Machine: {e['NPROC']} cores, {e['CPU']}; {e['DATE']}; commit {e['REV']}; load average "
           f"{e['LOAD_BEFORE']} before, {e['LOAD_AFTER']} after (1/5/15 min: other engineers' builds share "
           f"the 2 cores). Medians of {e['RUNS']} interleaved runs; wall = elapsed, CPU = user + sys.")
out.append("")
out.append(f"Input: `neff synth --subgraphs {e['SUBGRAPHS']} --slots-per-engine {e['SLOTS']} --seed {e['SEED']}` "
           f"(scale `{e['SCALE']}`): {slots:,} slots, {mb(stream):,.1f} MB of streams, {mb(tar):,.1f} MB tar, "
           f"{mb(payload):,.1f} MB gzip payload.")
out.append("")
out.append("| measure | result (wall; CPU) | goal | status |")
out.append("| --- | --- | --- | --- |")
gz_w, gz_c = wall("gzip"), cpu("gzip")
row("`gzip -dc` payload", f"{gz_w:.3f} s ({mb(tar)/gz_w:,.0f} MB/s); CPU {gz_c:.3f} s")
for name, label in (("igzip", "`igzip -dc` (ISA-L)"),):
    if name in runs:
        row(label, f"{wall(name):.3f} s ({mb(tar)/wall(name):,.0f} MB/s); CPU {cpu(name):.3f} s "
            f"({gz_w/wall(name):.2f}x gzip)", "reference")
row("`neff info` (read, MD5, streaming inflate, tar walk)", f"{wall('info'):.3f} s; CPU {cpu('info'):.3f} s "
    f"({gz_w/wall('info'):.2f}x gzip)")
lw, lc = wall("load"), cpu("load")
row("`neff load`", f"{lw:.3f} s = **{gz_w/lw:.2f}x** gzip; CPU {lc:.3f} s ({gz_c/lc:.2f}x gzip's CPU)",
    ">= 4x gzip -dc", verdict(gz_w / lw >= 4))
if "load1" in runs:
    row("`neff load` on one core (taskset -c 0)", f"{wall('load1'):.3f} s ({gz_w/wall('load1'):.2f}x gzip); "
        f"second core buys {wall('load1')/lw:.2f}x")
# The floors (D393): no schedule on the 2 cores beats half the CPU a command uses; and the load
# cannot beat `neff kbin`, which is the same read, kelf and kbins without the lowering.
kw = wall("kbin")
row("`neff load` floor", f"half its CPU {lc/2:.3f} s ({gz_w/(lc/2):.2f}x); `neff kbin` (the load without "
    f"lowering) {kw:.3f} s ({gz_w/kw:.2f}x)", "", "")
row("peak RSS of `neff load`", f"{mb(rss('load')):,.0f} MB = {rss('load')/tar:.2f}x the tar", "<= 2x tar",
    verdict(rss("load") / tar <= 2))
dw, dc = wall("disasm"), cpu("disasm")
row(f"`neff disasm FILE.neff > /dev/null` ({mb(int(e['DISASM_BYTES'])):,.0f} MB of text)",
    f"{dw:.3f} s = **{slots/dw/1e6:,.2f} M slots/s**; CPU {dc:.3f} s ({slots/dc/1e6:,.2f} M slots per CPU-s)",
    ">= 10 M slots/s", verdict(slots / dw >= 10e6))
row("`neff disasm` floor", f"half its CPU {dc/2:.3f} s = {slots/(dc/2)/1e6:,.2f} M slots/s", "", "")
row("peak RSS of `neff disasm`", f"{mb(rss('disasm')):,.0f} MB = **{rss('disasm')/stream:.2f}x** the streams",
    "<= 1.25x streams", verdict(rss("disasm") / stream <= 1.25))
vw = wall("validate")
row("`neff validate FILE.neff` (inflate included)", f"{vw:.3f} s, {slots/vw/1e6:,.1f} M slots/s; CPU {cpu('validate'):.3f} s")
for line in e["IPMAP_OUT"].splitlines():
    kv = dict(p.split("=") for p in line.split())
    big = kv["rows"] == "100000"
    ok = float(kv["ratio"]) >= 100 and float(kv["indexed_per_s"]) >= 10e6
    row(f"IP map, {int(kv['rows']):,} rows: walk vs indexed",
        f"{float(kv['walk_per_s'])/1e6:,.3f} M vs **{float(kv['indexed_per_s'])/1e6:,.1f} M lookups/s** "
        f"({float(kv['ratio']):,.0f}x)", ">= 100x, >= 10 M/s" if big else "", verdict(ok) if big else "")
bb, bw, pw = int(e["BIR_BYTES"]), wall("bir"), wall("python")
row(f"BIR {int(e['BIR_N']):,} instructions ({mb(bb):,.0f} MB pretty JSON): `neff bir check` vs json.load",
    f"{mb(bb)/bw:,.0f} vs {mb(bb)/pw:,.0f} MB/s = **{pw/bw:.2f}x**; CPU {cpu('python')/cpu('bir'):.2f}x",
    ">= 5x", verdict(pw / bw >= 5))
out += rows
out.append("")
out.append("Inflate backends on the same payload (scripts/inflate_backends, on-CPU time of the inflating thread):")
out.append("")
out.append(e["BACKENDS"])
print("\n".join(out))
PYEOF
)

echo
echo "$TABLE"

write_section "" "$(printf '%s\n\n%s\n\n%s\n' "<!-- bench.sh:begin -->" \
  "## Whole pipeline (scripts/bench.sh)

Rerun: \`scripts/bench.sh\` (\`BENCH_SCALE=full\` for 1 GiB of streams, \`BENCH_SCALE=tiny\` for a quick
run). Generated by the script; edits here are overwritten. What the figures mean and where the time goes:
docs/perf-log/performance-history.md \"Performance II\" and \"Third round\".

$TABLE" "<!-- bench.sh:end -->")"

if [[ "$CORPUS" == all ]]; then
  real_corpus
fi
