"""examples/ray_scan.py on a local Ray instance (``ray.init(num_cpus=2)``) over the real
fixtures, plus the spec sample and a broken file (rows with nulls and errors in the same
Parquet): its rows are the rows ``neff scan`` writes for the same files.

Needs ``ray[data]``: skipped without it, failed without it when NEFFKIT_REQUIRE_RAY=1 (CI)."""

import importlib.util
import json
import os

import pytest

from conftest import REAL, ROOT, SAMPLE, real_fixture, run_cli

if os.environ.get("NEFFKIT_REQUIRE_RAY") != "1":
    pytest.importorskip("ray.data", reason="ray[data] is not installed")
import pyarrow.parquet as pq  # noqa: E402  (ray[data] brings pyarrow)
import ray  # noqa: E402


def load_example():
    spec = importlib.util.spec_from_file_location("ray_scan", ROOT / "examples" / "ray_scan.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ray_scan_rows_are_neff_scan_rows(tmp_path):
    real_fixture("matmul_small.neff")
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "sample.neff").write_bytes(SAMPLE.read_bytes())
    (extra / "cut.neff").write_bytes(SAMPLE.read_bytes()[:600])
    out = run_cli("scan", REAL, extra)
    assert out.returncode == 0, out.stderr
    expected = sorted((json.loads(line) for line in out.stdout.splitlines()), key=lambda r: r["path"])
    assert len(expected) >= 9
    assert any(r["error_stage"] == "header" for r in expected)

    ray_scan = load_example()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ray_scan.scan([str(REAL), str(extra)], str(tmp_path / "rows"))
    finally:
        ray.shutdown()

    rows = sorted(pq.read_table(tmp_path / "rows").to_pylist(), key=lambda r: r["path"])
    assert [r["path"] for r in rows] == [r["path"] for r in expected]
    assert rows == expected
