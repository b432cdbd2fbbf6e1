#!/usr/bin/env bash
# Hostile-input benchmark (issue 9 "Limits and resources"): builds ~100 MB hostile NEFFs and times
# `neff ls` / `neff kbin` on each, with the default limits and with lowered ones. Expected: every
# input is rejected (exit 1) in seconds, never a panic (exit 3) or an out-of-memory kill. A
# benchmark, not a test: it prints one table row per run for docs/robustness.md.
#
# Usage: scripts/hostile.sh [WORKDIR]   (env NEFF=path/to/neff to skip the build)
# Each run is capped at MEM_CAP_KB of virtual memory (default 8 GiB) so a failure cannot take
# the machine down; an allocation refused by that cap shows as exit 134 (abort).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
mem_cap_kb=${MEM_CAP_KB:-8388608}
if [[ -z "${NEFF:-}" ]]; then
  CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} cargo build --release -q -p neff-cli
  NEFF=${CARGO_TARGET_DIR:-$root/target}/release/neff
fi

# Inputs already built in WORKDIR are reused.
[[ -e "$work/isize_lie.neff" ]] || python3 - "$root/examples/sample.neff" "$work" <<'PY'
import gzip, hashlib, io, json, struct, sys, tarfile, zlib

sample, work = sys.argv[1], sys.argv[2]
header = bytearray(open(sample, "rb").read()[:1024])

def neff(payload, name):
    """The sample's header around `payload`, with data_size and the MD5 (word-swapped) fixed."""
    h = bytearray(header)
    h[0x10:0x18] = struct.pack("<Q", len(payload))
    d = hashlib.md5(payload).digest()
    h[0xAC:0xCC] = b"".join(d[i:i + 4][::-1] for i in range(0, 16, 4)) + bytes(16)
    with open(f"{work}/{name}.neff", "wb") as f:
        f.write(h)
        f.write(payload)

def gz(data, level=9):
    return gzip.compress(data, compresslevel=level, mtime=0)

target = 100 << 20

# 1. A gzip bomb: ~100 MB of concatenated gzip members, each 64 MiB of zeros (~100 GiB inflated).
member = gz(bytes(64 << 20))
neff(member * (target // len(member)), "gzip_bomb")

# 2. A tar bomb whose first member declares 8 GiB, then zeros: looks legitimate to a streaming
#    reader until the end (~100 GiB inflated from ~100 MB).
head = tarfile.TarInfo("sg00/pe.bin"); head.size = (8 << 30) - 1  # the ustar maximum
first = gz(head.tobuf(format=tarfile.USTAR_FORMAT) + bytes((64 << 20) - 512))
neff(first + member * ((target - len(first)) // len(member)), "tar_huge_member")

# 3. A member-count bomb: 1.2 million empty members (600 MB of tar headers, a few MB of gzip).
tmpl = bytearray(tarfile.TarInfo("m/0000000").tobuf(format=tarfile.USTAR_FORMAT))
tmpl[148:156] = b"        "
base = sum(tmpl) - sum(b"m/0000000")
chunks = []
for i in range(1_200_000):
    name = b"m/%07d" % i
    h = bytearray(tmpl)
    h[0:9] = name
    h[148:156] = b"%06o\0 " % (base + sum(name))
    chunks.append(bytes(h))
neff(gz(b"".join(chunks) + bytes(1024), 1), "member_count_bomb")

# 4. 100 MB of JSON nested 50 million arrays deep, as kelf-a.json of an otherwise valid package.
deep = b"[" * (target // 2) + b"]" * (target // 2)
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    ti = tarfile.TarInfo("kelf-a.json"); ti.size = len(deep); t.addfile(ti, io.BytesIO(deep))
neff(gz(buf.getvalue(), 1), "deep_json")

# 5. A gzip trailer whose ISIZE claims 4 GiB in a ~4 MB payload of incompressible bytes.
import os
noise = gz(os.urandom(4 << 20), 1)
noise = noise[:-4] + struct.pack("<I", 0xFFFFFFF0)
neff(noise, "isize_lie")
PY

printf '| input | size | command | limits | exit | seconds | peak RSS (MB) | message |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
run() { # name, limit flags..., --, command...
  local name=$1; shift
  local limits=()
  while [[ $1 != -- ]]; do limits+=("$1"); shift; done; shift
  local file="$work/$name.neff" code
  set +e
  (ulimit -v "$mem_cap_kb"; exec /usr/bin/time -f '%e %M' -o "$work/time" \
    "$NEFF" "$@" "$file" "${limits[@]}" >/dev/null 2>"$work/err")
  code=$?
  set -e
  read -r secs rss < <(grep -E '^[0-9.]+ [0-9]+$' "$work/time" | tail -n 1)
  printf '| %s | %s MB | neff %s | %s | %s | %s | %s | %s |\n' "$name" \
    "$(( $(stat -c %s "$file") / 1048576 ))" "$*" "${limits[*]:-defaults}" "$code" "$secs" \
    "$(( rss / 1024 ))" "$(head -c 150 "$work/err" | tr '\n|' '  ')"
}
run gzip_bomb -- ls
run gzip_bomb --max-total-size 1G -- ls
run tar_huge_member -- ls
run tar_huge_member --max-member-size 1G -- ls
run member_count_bomb -- ls
run member_count_bomb --max-members 100000 -- ls
run deep_json -- kbin
run isize_lie -- ls
