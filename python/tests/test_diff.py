"""neffkit.diff: the dict of `neff diff --json` (the same document, from the same code), a NEFF
against itself, a damaged side named, a real pair whose counts add up."""

import json
import subprocess

import pytest

import neffkit
from conftest import SAMPLE, neff_cli, real_fixture


def test_sample_against_itself_is_the_same():
    d = neffkit.diff(SAMPLE, SAMPLE.read_bytes())
    assert d["same"] is True
    assert d["members"]["changes"] == []
    assert d["time"]["a_ns"] == d["time"]["b_ns"] > 0


def test_damaged_side_b_raises_naming_it():
    data = SAMPLE.read_bytes()
    with pytest.raises(neffkit.ContainerError, match=r"^side B \(<bytes>\): "):
        neffkit.diff(SAMPLE, data[:-40])


def test_real_pair_matches_the_cli_and_counts_add_up():
    a = real_fixture("profiled/baseline_bf16_s512.neff")
    b = real_fixture("profiled/fused_fp32_s512.neff")
    d = neffkit.diff(str(a), str(b), time=False)
    assert d["same"] is False
    for e in d["engines"]:
        assert e["unchanged"] + e["removed"] + e["changed"] == e["slots_a"]
        assert e["unchanged"] + e["added"] + e["changed"] == e["slots_b"]
    out = subprocess.run(
        [neff_cli(), "diff", "--json", "--no-time", str(a), str(b)],
        capture_output=True,
        check=False,
    )
    assert out.returncode == 1
    assert json.loads(out.stdout) == d
