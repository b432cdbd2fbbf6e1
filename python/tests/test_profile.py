"""neffkit.open_profile: a raw capture or a JSON report, its events as numpy structured arrays
holding the numbers `neff profile --jsonl` prints for the same file, row by row."""

import gzip
import json

import numpy as np
import pytest

import neffkit
from conftest import real_fixture, run_cli

CAPTURE = "profiled/baseline_attention.ntff.gz"
REPORT = "profiled/baseline_attention.profile.json.gz"

# The attribute of each `--jsonl` kind.
KIND_OF = {"instruction": "instructions", "dma": "dma", "semaphore": "semaphores",
           "throttle": "throttle"}


def cli_rows(path) -> dict:
    out = run_cli("profile", "--jsonl", path)
    assert out.returncode == 0, out.stderr
    rows = {k: [] for k in KIND_OF.values()}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        rows[KIND_OF[row.pop("kind")]].append(row)
    return rows


def cli_summary(path) -> dict:
    out = run_cli("profile", "--json", path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def as_rows(p: neffkit.Profile, kind: str) -> list:
    """The structured array of `kind` as `--jsonl` dicts (codes to text, -1 to None)."""
    table = p.tables[kind]
    out = []
    for rec in table.tolist():
        row = {}
        for name, v in zip(table.dtype.names, rec):
            if name in neffkit.profile.CODED:
                v = None if v < 0 else p.names[name][v]
            elif name in neffkit.profile.NULLABLE and v == -1:
                v = None
            row[name] = v
        out.append(row)
    return out


@pytest.mark.parametrize("name", [CAPTURE, REPORT])
def test_events_are_the_jsonl_rows(name):
    path = real_fixture(name)
    p = neffkit.open_profile(path)
    want = cli_rows(path)
    assert p.kind == ("capture" if name == CAPTURE else "report")
    for kind, rows in want.items():
        assert len(p.tables[kind]) == len(rows), kind
        got = as_rows(p, kind)
        fields = p.tables[kind].dtype.names
        # Every field the array has, as --jsonl prints it (label is the report's queue label).
        assert got == [{f: r.get(f) for f in fields} for r in rows], kind
    assert len(p.instructions) > 0 and len(p.dma) > 0
    assert p.instructions.dtype["timestamp"] == np.dtype("<u8")


def test_facts_and_summary_are_neff_profile_json():
    path = real_fixture(CAPTURE)
    p = neffkit.open_profile(str(path))
    want = cli_summary(path)
    assert p.facts == want["capture"]
    assert p.summary == want["subgraphs"]
    assert p.facts["runtime"] == "2.30.51" and p.facts["format"] == 6
    # Vectorised questions work on the arrays alone: the busiest engine's instruction count.
    engines = p.text("engine", p.instructions["engine"])
    per_engine = {e: int((engines == e).sum()) for e in p.names["engine"]}
    counted = {e["engine"]: 0 for sg in p.summary for e in sg["engines"]}
    for sg in p.summary:
        for e in sg["engines"]:
            counted[e["engine"]] += e["instructions"]
    assert {e: n for e, n in per_engine.items() if n} == counted


def test_bytes_read_the_same_as_the_path():
    path = real_fixture(CAPTURE)
    a = neffkit.open_profile(path)
    b = neffkit.open_profile(gzip.decompress(path.read_bytes()))
    for kind in neffkit.profile.KINDS:
        assert np.array_equal(a.tables[kind], b.tables[kind]), kind


def test_a_broken_capture_raises_profile_error_naming_where():
    with pytest.raises(neffkit.ProfileError, match="format version 9"):
        neffkit.open_profile(bytes([9]) + bytes(200))
    with pytest.raises(neffkit.ProfileError, match="runs past the end"):
        neffkit.open_profile(bytes([6, 0, 0, 0, 0x80]) + bytes(200))
    with pytest.raises(TypeError):
        neffkit.open_profile(3)


def test_to_arrow_is_the_array_with_text_and_nulls():
    pa = pytest.importorskip("pyarrow")
    path = real_fixture(CAPTURE)
    p = neffkit.open_profile(path)
    t = p.to_arrow("instructions")
    assert t.num_rows == len(p.instructions)
    assert pa.types.is_dictionary(t.schema.field("opcode").type)
    rows = as_rows(p, "instructions")
    assert t.column("opcode").to_pylist() == [r["opcode"] for r in rows]
    assert t.column("neff_slot").to_pylist() == [r["neff_slot"] for r in rows]
    assert t.column("neff_slot").null_count == sum(r["neff_slot"] is None for r in rows) > 0
    assert p.to_arrow("dma").num_rows == len(p.dma)
