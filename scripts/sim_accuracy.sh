#!/usr/bin/env bash
# The simulator against the hardware profiles: the span error of every profiled subgraph and the
# per-class mean duration errors over all of them, as markdown, written into docs/performance.md
# between the `<!-- sim_accuracy.sh:begin -->` / `<!-- sim_accuracy.sh:end -->` markers.
#
# Usage: scripts/sim_accuracy.sh [PROFILE_DIR]   (default ../shared/fixtures/real/profiled)
# Env:   SIM_NO_WRITE=1 (print only)   SIM_NO_BUILD=1 (use the release neff already built)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-../shared/fixtures/real/profiled}"
target="${CARGO_TARGET_DIR:-target}"
[ -n "${SIM_NO_BUILD:-}" ] || cargo build --quiet --release -p neff-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "$dir"/*.profile.json.gz; do
  n=$(basename "$p" .profile.json.gz)
  "$target/release/neff" sim "$dir/$n.neff" --compare "$p" --json 2>/dev/null > "$tmp/$n.json"
done
python3 - "$tmp" > "$tmp/table.md" <<'PY'
import json, os, sys, collections
d = sys.argv[1]
rows, classes = [], collections.defaultdict(lambda: [0, 0.0, 0.0])
for f in sorted(os.listdir(d)):
    if not f.endswith('.json'):
        continue
    c = json.load(open(os.path.join(d, f)))['compare']
    for sg in c['subgraphs']:
        rows.append((f[:-5], sg['name'], sg['measured_span_ns'], sg['predicted_span_ns'], sg['span_error_pct']))
        for k in sg['classes']:
            a = classes[(k['engine'], k['class'])]
            a[0] += k['count']; a[1] += k['measured_mean_ns'] * k['count']; a[2] += k['predicted_mean_ns'] * k['count']
print('| profile | subgraph | measured span | predicted span | error |')
print('| --- | --- | ---: | ---: | ---: |')
for r in rows:
    print(f'| {r[0]} | {r[1]} | {r[2]/1000:.3f} us | {r[3]/1000:.3f} us | {r[4]:+.1f}% |')
print()
print('| engine | class | instructions | measured mean | predicted mean | error |')
print('| --- | --- | ---: | ---: | ---: | ---: |')
for (e, k), (n, m, p) in sorted(classes.items()):
    m, p = m / n, p / n
    err = 100 * (p - m) / m if m else 0.0
    print(f'| {e} | {k} | {n} | {m:.1f} ns | {p:.1f} ns | {err:+.1f}% |')
PY
cat "$tmp/table.md"
[ -z "${SIM_NO_WRITE:-}" ] || exit 0
python3 - "$tmp/table.md" docs/performance.md <<'PY'
import sys
table, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
b, e = '<!-- sim_accuracy.sh:begin -->', '<!-- sim_accuracy.sh:end -->'
i, j = doc.index(b) + len(b), doc.index(e)
open(sys.argv[2], 'w').write(doc[:i] + '\n' + table + doc[j:])
PY
