"""neffkit.run: the functional model from Python, against numpy's math and the `neff run` CLI."""

import pytest

import neffkit

from conftest import real_fixture, run_cli

np = pytest.importorskip("numpy")


def test_matmul_small_is_x_times_y():
    matmul_small = str(real_fixture("matmul_small.neff"))
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    y = rng.uniform(-1, 1, (256, 128)).astype(np.float16)
    out = neffkit.run(matmul_small, {"x": x, "y": y})
    assert list(out) == ["output0"]
    got = out["output0"]
    assert got.dtype == np.float16 and got.shape == (128, 128)
    want = x.astype(np.float64) @ y.astype(np.float64)
    scale = np.maximum(np.abs(want), 1e-2 * np.abs(want).max())
    assert np.max(np.abs(got.astype(np.float64) - want) / scale) <= 2e-2


def test_same_outputs_as_the_cli(tmp_path):
    matmul_small = str(real_fixture("matmul_small.neff"))
    out = neffkit.run(matmul_small, random_seed=5)
    cli = run_cli("run", matmul_small, "--random-inputs", "5", "-o", tmp_path)
    assert cli.returncode == 0, cli.stderr
    assert np.array_equal(out["output0"], np.load(tmp_path / "output0.npy"))


def test_a_misshaped_input_names_the_tensor():
    matmul_small = str(real_fixture("matmul_small.neff"))
    x = np.zeros((128, 255), np.float16)
    y = np.zeros((256, 128), np.float16)
    with pytest.raises(neffkit.RunError, match=r"input `x`: expected float16 of shape \[128, 256\]"):
        neffkit.run(matmul_small, {"x": x, "y": y})
