"""Neff.slots: the (n, 64) uint8 numpy view of an engine stream, without copying."""

import gc

import pytest

import neffkit
from conftest import SAMPLE, real_fixture

np = pytest.importorskip("numpy")


def test_sample_pool_slots(sample):
    a = sample.slots("sg00", "pool")
    assert a.shape == (3, 64) and a.dtype == np.uint8
    assert a.tobytes() == sample.member("sg00/pool.bin")
    assert list(a[2, :6]) == [0xA0, 0x10, 0, 0, 0x04, 0x0B]  # spec 003 §7.2 slot 2


def test_slots_view_the_neffs_buffer(sample):
    a, b = sample.slots("sg00", "pool"), sample.slots("sg00", "pool")
    assert np.shares_memory(a, b)  # both view the one inflated buffer: nothing was copied
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1


def test_the_array_keeps_the_neff_alive():
    a = neffkit.open(SAMPLE).slots("sg00", "pool")
    gc.collect()
    assert a[0, 0] == 0xC1  # PSEUDO_DMA_TRIGGER, still readable after the Neff went out of scope


def test_slots_agree_with_disasm_on_a_real_fixture():
    neff = neffkit.open(real_fixture("matmul_small.neff"))
    a = neff.slots("sg00", "pe")
    assert a.shape[0] == len(neff.disasm(subgraph="sg00", engine="pe"))
    assert bytes(a[0]) == neff.disasm(subgraph="sg00", engine="pe")[0].bytes


def test_missing_stream_raises(sample):
    with pytest.raises(neffkit.SelectionError):
        sample.slots("sg01", "pool")
