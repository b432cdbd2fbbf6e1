"""neffkit.scan_one: the row `neff scan` writes for the same file, from a path or from bytes;
a broken file is a row with its error, never an exception."""

import json

import pytest

import neffkit
from conftest import REAL_NEFFS, SAMPLE, real_fixture, run_cli


def cli_rows(*args) -> list:
    out = run_cli("scan", *args)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_sample_row_is_the_neff_scan_line():
    (line,) = cli_rows(SAMPLE)
    assert neffkit.scan_one(SAMPLE) == line
    assert neffkit.scan_one(str(SAMPLE)) == line
    assert line["load_ok"] and line["instr_pool"] == 3  # spec 003 §7: pool.bin holds 3 slots


@pytest.mark.parametrize("name", REAL_NEFFS)
def test_real_rows_from_bytes_are_the_neff_scan_lines(name):
    path = real_fixture(name)
    (line,) = cli_rows(path)
    row = neffkit.scan_one(path.read_bytes(), path=str(path))
    assert row == line
    assert row["target"] == "cayman" and row["compiler_version"] == "2.23.6484.0+3b612583"


def test_sim_span_is_neff_scan_sim():
    (line,) = cli_rows("--sim", SAMPLE)
    row = neffkit.scan_one(SAMPLE, sim=True)
    assert row["sim_span_ns"] == line["sim_span_ns"] and row["sim_span_ns"] > 0


def test_broken_bytes_are_a_row_with_their_error():
    cut = SAMPLE.read_bytes()[:600]
    row = neffkit.scan_one(cut)
    assert row["path"] == "<bytes>" and row["size"] == 600
    assert row["error_stage"] == "header" and "truncated header" in row["error"]
    assert row["load_ok"] is False and row["target"] is None and row["opcodes"] == []


def test_unreadable_path_is_an_io_row_and_a_wrong_type_raises(tmp_path):
    row = neffkit.scan_one(tmp_path / "missing.neff")
    assert row["error_stage"] == "io"
    with pytest.raises(TypeError, match="path .* or the file's bytes"):
        neffkit.scan_one(42)


def test_scan_schema_is_neff_scan_parquet_schema(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "rows.parquet"
    assert run_cli("scan", SAMPLE, "--parquet", out).returncode == 0
    schema = pq.read_schema(pa.BufferReader(neffkit.scan_schema()))
    assert schema.equals(pq.read_schema(out))
    assert schema.names == list(neffkit.scan_one(SAMPLE))
    assert str(schema.field("instr_pe").type) == "uint64"
