#!/usr/bin/env bash
# Whole-pipeline benchmark (issue 8): one run, the same generated NEFFs, every figure side by side.
#
#  1. gzip -dc of the payload alone (the floor) vs `neff info` vs `neff load`, with ratios;
#     `neff load` also pinned to one core (taskset) to show what the second core buys;
#  2. decode+validate (`neff validate`) and disassembly (`neff disasm`) of one engine stream;
#  3. device IP -> NEFF IP: linear walk vs indexed map at 10 / 1k / 100k rows (example ipmap_rate);
#  4. peak RSS of `neff load` (/usr/bin/time -v) relative to the inflated package (tar) size;
#  5. BIR parse+verify (`neff bir check`) vs python3 json.load of the same generated document.
#
# Prints one markdown table and writes it into docs/performance.md between the
# `<!-- bench.sh:begin -->` / `<!-- bench.sh:end -->` markers (other sections are left alone).
#
# Usage: scripts/bench.sh
# Env:   BENCH_SCALE=full (default: a 1 GiB-stream NEFF, 4 x 5 x 838861 slots) | small (64 MiB) | tiny (4 MiB)
#        BENCH_RUNS=3 (best of N wall-clock runs)   BENCH_KEEP=DIR (keep the generated files in DIR)
#        BENCH_NO_WRITE=1 (print only, leave docs/performance.md alone)
#        BENCH_NO_BUILD=1 (use the release binaries already in $CARGO_TARGET_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET="${CARGO_TARGET_DIR:-target}"
SCALE="${BENCH_SCALE:-full}"
RUNS="${BENCH_RUNS:-3}"
case "$SCALE" in
  full) SLOTS=838861; BIR_N=1000000 ;;
  small) SLOTS=52429; BIR_N=200000 ;;
  tiny) SLOTS=3277; BIR_N=20000 ;;
  *) echo "BENCH_SCALE must be full, small or tiny" >&2; exit 2 ;;
esac
SUBGRAPHS=4

if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  echo "== building (release)" >&2
  cargo build --release -q -p neff-cli --bin neff
  cargo build --release -q -p neff-load --example ipmap_rate
  cargo build --release -q -p neff-bir --example gen_bir
fi
NEFF="$TARGET/release/neff"

if [[ -n "${BENCH_KEEP:-}" ]]; then WORK="$BENCH_KEEP"; mkdir -p "$WORK"; else
  WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT; fi

now() { date +%s.%N; }
# best_of CMD...: the smallest wall-clock seconds of $RUNS runs, stdout discarded.
best_of() {
  local best="" t0 t1 t
  for ((i = 0; i < RUNS; i++)); do
    t0=$(now); "$@" >/dev/null; t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l)
    if [[ -z "$best" ]] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  printf '%.4f' "$best"
}
have_cmd() { "$NEFF" "$1" --help >/dev/null 2>&1; }

echo "== generating ($SCALE: $SUBGRAPHS subgraphs x 5 engines x $SLOTS slots)" >&2
BIG="$WORK/big.neff"
t0=$(now)
"$NEFF" synth -o "$BIG" --subgraphs "$SUBGRAPHS" --slots-per-engine "$SLOTS" --functions 4 --seed 1 --target cayman >&2
GEN_S=$(echo "$(now) - $t0" | bc -l)
tail -c +1025 "$BIG" > "$WORK/payload.gz"
FILE_BYTES=$(stat -c %s "$BIG")
TAR_BYTES=$(gzip -dc "$WORK/payload.gz" | wc -c)
STREAM_BYTES=$((SUBGRAPHS * 5 * SLOTS * 64))

echo "== 1. gzip -dc vs neff info vs neff load" >&2
T_GZIP=$(best_of gzip -dc "$WORK/payload.gz")
T_INFO=$(best_of "$NEFF" info "$BIG")
T_LOAD=$(best_of "$NEFF" load "$BIG")
if command -v taskset >/dev/null; then T_LOAD1=$(best_of taskset -c 0 "$NEFF" load "$BIG"); else T_LOAD1=""; fi

echo "== 2. validate / disasm of one engine stream" >&2
"$NEFF" cat "$BIG" sg00/PE.bin > "$WORK/pe.bin"
PE_SLOTS=$(( $(stat -c %s "$WORK/pe.bin") / 64 ))
T_VALIDATE=""; T_DISASM=""; DISASM_BYTES=""
if have_cmd validate; then T_VALIDATE=$(best_of "$NEFF" validate "$WORK/pe.bin"); fi
if have_cmd disasm; then
  T_DISASM=$(best_of "$NEFF" disasm "$WORK/pe.bin")
  DISASM_BYTES=$("$NEFF" disasm "$WORK/pe.bin" | wc -c)
fi

echo "== 3. IP map" >&2
IPMAP_OUT=$("$TARGET/release/examples/ipmap_rate" 500)

echo "== 4. peak RSS of neff load" >&2
RSS_NOTE="/usr/bin/time -v"
if [[ -x /usr/bin/time ]]; then
  RSS_KB=$( { /usr/bin/time -v "$NEFF" load "$BIG" >/dev/null; } 2>&1 | awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}')
else
  # No GNU time: read VmHWM from /proc while the process runs (sampled at exit).
  RSS_NOTE="VmHWM from /proc (no /usr/bin/time)"
  "$NEFF" load "$BIG" >/dev/null & pid=$!; RSS_KB=0
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0); [[ -n "$v" && "$v" -gt "$RSS_KB" ]] && RSS_KB=$v; sleep 0.05
  done; wait "$pid"
fi

echo "== 5. BIR parse+verify vs python json.load" >&2
"$TARGET/release/examples/gen_bir" "$WORK/bir.json" "$BIR_N" pretty 1
BIR_BYTES=$(stat -c %s "$WORK/bir.json")
T_BIR=$(best_of "$NEFF" bir check "$WORK/bir.json")
T_PY=$(best_of python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/bir.json")

CPU=$(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
export SCALE SLOTS SUBGRAPHS GEN_S FILE_BYTES TAR_BYTES STREAM_BYTES T_GZIP T_INFO T_LOAD T_LOAD1 \
  PE_SLOTS T_VALIDATE T_DISASM DISASM_BYTES IPMAP_OUT RSS_KB RSS_NOTE BIR_N BIR_BYTES T_BIR T_PY CPU RUNS
export NPROC=$(nproc) DATE=$(date -u +%Y-%m-%dT%H:%MZ) REV=$(git rev-parse --short HEAD 2>/dev/null || echo "?")

TABLE=$(python3 - <<'PYEOF'
import os
e = os.environ
f = lambda k: float(e[k]) if e.get(k) else None
mb = lambda b: b / 1e6
tar, stream, payload = int(e["TAR_BYTES"]), int(e["STREAM_BYTES"]), int(e["FILE_BYTES"]) - 1024
gz, info, load, load1 = f("T_GZIP"), f("T_INFO"), f("T_LOAD"), f("T_LOAD1")
rows = []
def row(what, value, goal=""):
    rows.append(f"| {what} | {value} | {goal} |")
rows.append(f"Machine: {e['NPROC']} cores, {e['CPU']}; {e['DATE']}; commit {e['REV']}; scale `{e['SCALE']}` "
            f"(best of {e['RUNS']} wall-clock runs).")
rows.append("")
rows.append(f"Input: `neff synth --target cayman --subgraphs {e['SUBGRAPHS']} --slots-per-engine {e['SLOTS']} "
            f"--functions 4 --seed 1`: {stream/64:,.0f} slots, {mb(stream):,.1f} MB of streams, "
            f"{mb(tar):,.1f} MB tar, {mb(payload):,.1f} MB gzip payload (generated in {float(e['GEN_S']):.1f} s).")
rows.append("")
rows.append("| measure | result | goal |")
rows.append("| --- | --- | --- |")
row("`gzip -dc` payload (floor)", f"{gz:.3f} s, {mb(tar)/gz:,.0f} MB/s inflated")
row("`neff info`", f"{info:.3f} s ({gz/info:.2f}x gzip)")
row("`neff load` (whole pipeline)", f"{load:.3f} s, {mb(tar)/load:,.0f} MB/s; gzip/load = **{gz/load:.2f}x**", ">= 4x")
if load1:
    row("`neff load` pinned to 1 core", f"{load1:.3f} s ({gz/load1:.2f}x gzip); 2-core vs 1-core speedup {load1/load:.2f}x")
rss = int(e["RSS_KB"]) * 1024
row(f"peak RSS of `neff load` ({e['RSS_NOTE']})", f"{mb(rss):,.0f} MB = **{rss/tar:.2f}x** inflated size", "<= 2x")
n = int(e["PE_SLOTS"])
if e.get("T_VALIDATE"):
    v = f("T_VALIDATE")
    row(f"`neff validate` PE.bin ({n:,} slots, incl. process start + read)", f"{v:.3f} s, **{n/v/1e6:,.1f} M slots/s**", ">= 100 M slots/s")
else:
    row("`neff validate`", "n/a (subcommand missing)", ">= 100 M slots/s")
if e.get("T_DISASM"):
    d = f("T_DISASM"); tb = int(e["DISASM_BYTES"])
    row(f"`neff disasm` PE.bin ({n:,} slots)", f"{d:.3f} s, **{n/d/1e6:,.2f} M slots/s**, {mb(tb)/d:,.0f} MB/s of text", ">= 10 M slots/s")
else:
    row("`neff disasm`", "n/a (subcommand missing)", ">= 10 M slots/s")
for line in e["IPMAP_OUT"].splitlines():
    kv = dict(p.split("=") for p in line.split())
    goal = ">= 100x, >= 10 M/s" if kv["rows"] == "100000" else ""
    row(f"IP map, {int(kv['rows']):,} rows: walk vs indexed",
        f"{float(kv['walk_per_s'])/1e6:,.3f} M vs **{float(kv['indexed_per_s'])/1e6:,.1f} M lookups/s** ({float(kv['ratio']):,.0f}x)", goal)
bb, tb, tp = int(e["BIR_BYTES"]), f("T_BIR"), f("T_PY")
row(f"BIR {int(e['BIR_N']):,} instructions ({mb(bb):,.0f} MB pretty JSON): `neff bir check` vs python json.load",
    f"{mb(bb)/tb:,.0f} MB/s vs {mb(bb)/tp:,.0f} MB/s (**{tp/tb:.1f}x**)")
print("\n".join(rows))
PYEOF
)

echo
echo "$TABLE"

if [[ -z "${BENCH_NO_WRITE:-}" ]]; then
  DOC="$ROOT/docs/performance.md"
  [[ -f "$DOC" ]] || echo "# Performance" > "$DOC"
  SECTION=$(printf '%s\n\n%s\n\n%s\n' "<!-- bench.sh:begin -->" \
    "## Whole pipeline (scripts/bench.sh)

Rerun: \`scripts/bench.sh\` (\`BENCH_SCALE=small\` for a quick run). Generated by the script; edits here are overwritten.

$TABLE" "<!-- bench.sh:end -->")
  export SECTION DOC
  python3 - <<'PYEOF'
import os, re
doc, section = os.environ["DOC"], os.environ["SECTION"]
text = open(doc).read()
pat = re.compile(r"<!-- bench\.sh:begin -->.*?<!-- bench\.sh:end -->\n?", re.S)
if pat.search(text):
    text = pat.sub(lambda _: section, text, count=1)
else:
    text = text.rstrip("\n") + "\n\n" + section
tmp = doc + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, doc)
PYEOF
  echo "wrote $DOC" >&2
fi
