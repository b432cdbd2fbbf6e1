"""neffkit.bir.read: the program and the verifier's problems, as `neff bir check` gives them."""

import json

import pytest

import neffkit
import neffkit.bir
from conftest import ROOT, run_cli

KLR = ROOT / "crates" / "neff-bir" / "tests" / "fixtures" / "klr_tensor_scalar.json"


def test_sound_program_has_no_problems():
    p = neffkit.bir.read(KLR)
    assert p.problems == []
    assert (p.functions, p.instructions, p.edges) == (1, 1, 0)  # README: `neff bir check`
    assert p.stats() == json.loads(run_cli("bir", "stats", KLR, "--json").stdout)


def test_problems_are_the_check_json(tmp_path):
    doc = json.loads(KLR.read_text())
    block = doc["functions"][0]["blocks"][0]
    block["instructions"].append(block["instructions"][0])  # one name twice
    bad = tmp_path / "twice.json"
    bad.write_text(json.dumps(doc))
    problems = neffkit.bir.read(bad).problems
    out = run_cli("bir", "check", bad, "--json")
    assert out.returncode == 1
    assert problems == json.loads(out.stdout)["problems"]
    assert "DuplicateName" in {p["kind"] for p in problems}


def test_not_bir_json_raises_the_cli_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"functions": 3}')
    with pytest.raises(neffkit.BirError) as err:
        neffkit.bir.read(bad)
    out = run_cli("bir", "check", bad)
    assert out.returncode == 1
    assert str(err.value) == out.stderr.strip()[len("error: "):]


def test_missing_file_raises_io_error(tmp_path):
    with pytest.raises(neffkit.NeffIOError, match="reading .*missing.json"):
        neffkit.bir.read(tmp_path / "missing.json")
