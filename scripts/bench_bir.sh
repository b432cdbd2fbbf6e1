#!/usr/bin/env bash
# Parse + verify a generated 1 M-instruction BIR document with `neff bir check` vs Python's plain
# `json.load` of the same file, in one run. Prints MB/s and the ratio (goal: neff >= 5x Python).
# Usage: scripts/bench_bir.sh [INSTRUCTIONS] [pretty|canonical]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000000}"
STYLE="${2:-pretty}"
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p neff-cli --bin neff
cargo build --release -q -p neff-bir --example gen_bir
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DOC="$WORK/bir.json"
"$TARGET/release/examples/gen_bir" "$DOC" "$N" "$STYLE" 1
BYTES=$(stat -c %s "$DOC")
now() { date +%s.%N; }
best() { # best of 3 wall-clock seconds of "$@"
  local b=""
  for _ in 1 2 3; do
    local t0 t1
    t0=$(now); "$@" >/dev/null; t1=$(now)
    b=$(python3 -c "import sys; t=$t1-$t0; b='$b'; print(t if b=='' else min(t, float(b)))")
  done
  echo "$b"
}
PY=$(best python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$DOC")
NEFF=$(best "$TARGET/release/neff" bir check "$DOC")
python3 - "$BYTES" "$PY" "$NEFF" "$N" "$STYLE" <<'PYEOF'
import sys
b, py, neff, n, style = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
mb = b / 1e6
print(f"document: {n} instructions, {style}, {mb:.1f} MB")
print(f"python3 json.load        : {py:7.3f} s  {mb/py:7.1f} MB/s")
print(f"neff bir check (parse+verify): {neff:7.3f} s  {mb/neff:7.1f} MB/s")
print(f"ratio: {py/neff:.2f}x")
PYEOF
