#!/usr/bin/env bash
# Debug-info coverage of each real fixture: how many slots get a BIR instruction, a source line and
# an HLO op from `neff disasm --json` (docs/debug-info.md). Run from the repository root.
set -euo pipefail
neff=${NEFF:-target/release/neff}
[ -x "$neff" ] || cargo build --release -q -p neff-cli
for f in ../shared/fixtures/real/*.neff ../shared/fixtures/real/profiled/*.neff; do
  "$neff" disasm "$f" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
slots = [x for s in d["streams"] for x in s["slots"]]
n = len(slots)
c = {k: sum(x[k] is not None for x in slots) for k in ("bir", "source", "hlo")}
print("| %s | %d | %d | %d | %d |" % (sys.argv[1], n, c["bir"], c["source"], c["hlo"]))
' "$(basename "$f")"
done
