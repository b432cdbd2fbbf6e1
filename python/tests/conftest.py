"""Shared test support: the spec sample, the real fixtures (skip rule of the project), the
``neff`` CLI to compare with."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample.neff"
REAL = ROOT.parent / "shared" / "fixtures" / "real"
REAL_NEFFS = [
    "matmul_small.neff",
    "attn_v6.neff",
    "moe_v6b.neff",
    "profiled/baseline_attention.neff",
    "profiled/baseline_bf16_s512.neff",
    "profiled/fused_attention.neff",
    "profiled/fused_fp32_s512.neff",
]


def required() -> bool:
    """CI sets NEFFKIT_REQUIRE_FIXTURES=1: a missing fixture or CLI then fails, never skips."""
    return os.environ.get("NEFFKIT_REQUIRE_FIXTURES") == "1"


def real_fixture(name: str) -> Path:
    """The real NEFF `name`, read in place; skipped with a message when absent."""
    path = REAL / name
    if not path.exists():
        if required():
            pytest.fail(f"required fixture {path} is missing (NEFFKIT_REQUIRE_FIXTURES=1)")
        pytest.skip(f"fixture {path} not available")
    return path


def neff_cli() -> str:
    """The `neff` binary: $NEFFKIT_CLI, else the workspace's target/{release,debug}/neff, else PATH."""
    candidates = [os.environ.get("NEFFKIT_CLI")]
    candidates += [str(ROOT / "target" / p / "neff") for p in ("release", "debug")]
    candidates.append(shutil.which("neff"))
    for c in candidates:
        if c and Path(c).is_file():
            return c
    if required():
        pytest.fail("the neff CLI is required to compare with (set NEFFKIT_CLI)")
    pytest.skip("the neff CLI is not built (cargo build -p neff-cli, or set NEFFKIT_CLI)")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """`neff ARGS`, output captured as text."""
    return subprocess.run([neff_cli(), *map(str, args)], capture_output=True, text=True)


@pytest.fixture
def sample():
    import neffkit

    return neffkit.open(SAMPLE)
