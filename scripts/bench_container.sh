#!/usr/bin/env bash
# Container read benchmark: `gzip -dc` of a large NEFF's payload to /dev/null versus
# `neff info` (header + MD5 verify + inflate + tar index) on the same file, best of N runs.
# Usage: scripts/bench_container.sh [MB=200] [RUNS=5]
# Env: CARGO_TARGET_DIR (default target), SKIP_BUILD=1 to use already-built release binaries.
# Figures are recorded in docs/performance.md ("Container read").
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-200}
RUNS=${2:-5}
TARGET=${CARGO_TARGET_DIR:-target}
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    cargo build --release -q -p neff-cli
    cargo build --release -q -p neff-container --example make_large
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$TARGET/release/examples/make_large" "$WORK/large.neff" "$MB"
tail -c +1025 "$WORK/large.neff" > "$WORK/payload.gz"

# Best wall time in seconds of "$@" over RUNS runs (gzip exits 2 on the zero padding: a warning).
best() {
    local best=""
    for _ in $(seq "$RUNS"); do
        local t0 t1 rc
        t0=$(date +%s.%N)
        set +e
        "$@" > /dev/null 2>&1
        rc=$?
        set -e
        t1=$(date +%s.%N)
        if [[ $rc -ne 0 && $rc -ne 2 ]]; then echo "failed: $* (exit $rc)" >&2; exit 1; fi
        best=$(awk -v a="$t0" -v b="$t1" -v c="$best" 'BEGIN { d = b - a; if (c == "" || d < c) print d; else print c }')
    done
    echo "$best"
}

INFLATED=$("$TARGET/release/neff" info --json "$WORK/large.neff" | awk '/"size":/ { gsub(/[^0-9]/, "", $2); s += $2 } END { print s }')
GZ=$(best gzip -dc "$WORK/payload.gz")
NEFF=$(best "$TARGET/release/neff" info "$WORK/large.neff")
awk -v g="$GZ" -v n="$NEFF" -v mb="$MB" -v bytes="$INFLATED" -v file="$(stat -c %s "$WORK/large.neff")" 'BEGIN {
    printf "file %d bytes, members %d bytes (%d MB requested)\n", file, bytes, mb
    printf "gzip -dc payload : %.3f s  %.0f MB/s\n", g, bytes / g / 1e6
    printf "neff info        : %.3f s  %.0f MB/s\n", n, bytes / n / 1e6
    printf "ratio gzip/neff  : %.2fx\n", g / n
}'
