#!/usr/bin/env bash
# The outputs a refactor must keep byte-identical (issue 29: "show sha256 of outputs"): one line
# per (command, input) with the first 16 hex digits of the sha256 of its stdout and stderr.
# Run it with the binary before and after a change and `diff` the two listings.
#
# Inputs: the shared real NEFFs that exist (../shared/fixtures/real and .../profiled), the
# bundled sample, and the real-shaped conv2d the given binary synthesizes (`neff synth
# --conv2d-like --seed 3`); with the three shared captures, `load --like` and `load --like
# baseline --compare` too.
#
# Usage: scripts/output_hashes.sh BINARY > hashes.txt   (paths printed by the commands are the
# same on every run: the inputs are named relative to the repository root)
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
real=../shared/fixtures/real
# A fixed path: disasm --json, validate and --compare print their input's path.
work="${CARGO_TARGET_DIR:-target}/output-hashes"
mkdir -p "$work"
"$bin" synth --conv2d-like --seed 3 -o "$work/conv2d.neff" > /dev/null

inputs=(examples/sample.neff "$work/conv2d.neff")
for n in matmul_small attn_v6 moe_v6b moe_megakernel profiled/baseline_attention profiled/fused_attention; do
  [ -f "$real/$n.neff" ] && inputs+=("$real/$n.neff")
done
commands=("disasm" "disasm --json" "validate" "lower" "lower --json" "load --json"
  "load --device-model runtime --json" "kbin --json" "sim --json" "info --json")

hash() { "$@" 2>&1 | sha256sum | cut -c1-16 || true; }
for n in "${inputs[@]}"; do
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the command's words split on purpose
    echo "$c $(basename "$n") $(hash "$bin" $c "$n")"
  done
done
teacher="$real/profiled/baseline_attention.ntff.gz"
for s in attn_v6 moe_v6b moe_megakernel; do
  capture="$real/$s.ntff.gz"
  [ -f "$capture" ] && [ -f "$teacher" ] || continue
  echo "load-like $s $(hash "$bin" load "$real/$s.neff" --like "$capture" --json)"
  echo "compare $s $(hash "$bin" load "$real/$s.neff" --like "$teacher" --compare "$capture")"
done
