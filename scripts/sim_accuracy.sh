#!/usr/bin/env bash
# The simulator against the hardware: per shared run (a capture, or a report where there is no
# capture) the sg00 span error in-sample (the table fitted on every run) and leave-one-out (fitted
# on every other run), and per (engine, class) the mean durations both ways, as markdown, written
# into docs/performance.md between the `<!-- sim_accuracy.sh:begin -->` / `:end -->` markers.
#
# Usage: scripts/sim_accuracy.sh [DIR...]   (default ../shared/fixtures/real and .../profiled)
# Env:   SIM_NO_WRITE=1 (print only)
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(../shared/fixtures/real ../shared/fixtures/real/profiled)
target="${CARGO_TARGET_DIR:-target}"
cargo build --quiet -p neff-sim --example fit_costs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$target/debug/examples/fit_costs" --report "${dirs[@]}" 2>/dev/null > "$tmp/table.md"
cat "$tmp/table.md"
[ -z "${SIM_NO_WRITE:-}" ] || exit 0
python3 - "$tmp/table.md" docs/performance.md <<'PY'
import sys
table, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
b, e = '<!-- sim_accuracy.sh:begin -->', '<!-- sim_accuracy.sh:end -->'
i, j = doc.index(b) + len(b), doc.index(e)
open(sys.argv[2], 'w').write(doc[:i] + '\n' + table + doc[j:])
PY
