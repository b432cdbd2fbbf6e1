#!/usr/bin/env bash
# Opens `neff report` pages in a real browser (headless Chromium) and checks what a person would
# see (issue 17): no console message (errors, uncaught exceptions), every section id in the
# rendered DOM (--dump-dom), and a screenshot that is not blank. Prints, per page, its size, the
# time to the load event and to the first frame after it when the dump came late enough to see
# it (the page records both in body[data-load-ms] / [data-frame-ms]) and the wall time of the
# whole browser run (start-up included).
#
# Usage: scripts/browser-check.sh [NEFF[:PROFILE] ...]
#   Without arguments: the spec sample, every real fixture and every profiled fixture (with its
#   profile once `neff report --profile` exists) from ../shared/fixtures/real.
#   Env: NEFF=path/to/neff (else built with cargo), OUT=folder for pages and screenshots (else a
#   temporary one), CHROMIUM=path (else `chromium`, installed with apt-get when missing).
# .ci/run runs it after the tests; a developer can run it by hand. Exit 1 on any failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/fixtures/real"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

# The browser and python3 (to read the screenshot): Debian packages, installed when missing.
need=()
command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || need+=(chromium)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if ((${#need[@]})); then
  echo "== installing ${need[*]} (apt-get)"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
chromium=${CHROMIUM:-chromium}

if [[ -z "${NEFF:-}" ]]; then
  (cd "$root" && cargo build -q -p neff-cli)
  NEFF=${CARGO_TARGET_DIR:-$root/target}/debug/neff
fi

# The pages to check: NEFF or NEFF:PROFILE.
pages=("$@")
if ((${#pages[@]} == 0)); then
  pages=("$root/examples/sample.neff")
  if [[ -d "$shared" ]]; then
    for f in "$shared"/*.neff; do pages+=("$f"); done
    for f in "$shared"/profiled/*.neff; do pages+=("$f:${f%.neff}.profile.json.gz"); done
  elif [[ "${NEFFKIT_REQUIRE_FIXTURES:-}" == 1 ]]; then
    echo "error: $shared is missing (NEFFKIT_REQUIRE_FIXTURES=1)" >&2
    exit 1
  else
    echo "note: $shared not present; checking the sample only"
  fi
fi

sections=(header members engines dma timeline)

# One fresh profile per browser run; every network feature that could reach out is off.
browse() {
  local profile
  profile=$(mktemp -d)
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 --hide-scrollbars "$@"
  local rc=$?
  rm -rf "$profile"
  return $rc
}

# Whether a PNG has more than a handful of colours (a blank page has one).
not_blank() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w, h, depth, ctype = 8, b"", 0, 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * {2: 3, 6: 4}[ctype] * depth // 8 + 1
# A blank page is one row repeated; a page with text, tables and graphics has many different rows.
rows = {raw[i * stride:(i + 1) * stride] for i in range(h)}
print(f"{w}x{h}, {len(rows)} distinct rows")
sys.exit(0 if len(rows) > 20 else 1)
PY
}

failed=0
printf '%-28s %10s %8s %9s %8s  %s\n' page bytes load_ms frame_ms wall_ms result
for spec in "${pages[@]}"; do
  neff=${spec%%:*}
  profile=""
  [[ "$spec" == *:* ]] && profile=${spec#*:}
  name=$(basename "$neff" .neff)
  html="$out/$name.html"
  args=(report "$neff" -o "$html")
  if [[ -n "$profile" ]] && "$NEFF" report --help | grep -q -- '--profile'; then
    args+=(--profile "$profile")
  fi
  if ! "$NEFF" "${args[@]}" >/dev/null 2>"$out/$name.neff-stderr"; then
    echo "FAIL $name: neff ${args[*]}: $(cat "$out/$name.neff-stderr")"
    failed=1
    continue
  fi
  problems=()
  start=$(date +%s%N)
  browse --dump-dom "file://$html" >"$out/$name.dom" 2>"$out/$name.log" || problems+=("browser exit $?")
  wall_ms=$((($(date +%s%N) - start) / 1000000))
  if grep -q ':CONSOLE' "$out/$name.log"; then
    problems+=("console: $(grep ':CONSOLE' "$out/$name.log" | head -3 | tr '\n' ' ')")
  fi
  for id in "${sections[@]}"; do
    grep -q "<section id=\"$id\"" "$out/$name.dom" || problems+=("no #$id in the DOM")
  done
  if [[ -n "$profile" ]] && "$NEFF" report --help | grep -q -- '--profile'; then
    grep -q '<section id="profile-compare"' "$out/$name.dom" || problems+=("no #profile-compare")
    grep -q '<section id="answer"' "$out/$name.dom" || problems+=("no #answer")
  fi
  load=$(grep -o 'data-load-ms="[0-9]*"' "$out/$name.dom" | grep -o '[0-9]*' || true)
  frame=$(grep -o 'data-frame-ms="[0-9]*"' "$out/$name.dom" | grep -o '[0-9]*' || true)
  [[ -n "$load" ]] || problems+=("the script did not run to its end (no data-load-ms)")
  browse --window-size=1280,2000 --screenshot="$out/$name.png" "file://$html" >/dev/null 2>&1 \
    || problems+=("screenshot failed")
  if [[ -s "$out/$name.png" ]]; then
    not_blank "$out/$name.png" >"$out/$name.png.txt" || problems+=("blank screenshot: $(cat "$out/$name.png.txt")")
  else
    problems+=("no screenshot")
  fi
  if ((${#problems[@]})); then
    failed=1
    result="FAIL: ${problems[*]}"
  else
    result=ok
  fi
  printf '%-28s %10s %8s %9s %8s  %s\n' "$name" "$(stat -c %s "$html")" "${load:-?}" "${frame:--}" "$wall_ms" "$result"
done
echo "pages, DOM dumps, logs and screenshots: $out"
exit $failed
