"""Neff.load / LoadedModel (the `neff load --json` report, images, IP maps) and Neff.sim."""

import json
import threading

import pytest

import neffkit
from conftest import REAL_NEFFS, SAMPLE, real_fixture, run_cli


def cli_json(*args):
    out = run_cli(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# The debug-info keys `neff ip` adds to each answer (neff-debug); LoadedModel.ip does not read
# the debug info.
DEBUG_KEYS = ("bir", "hlo", "source")


def cli_ip_lines(*args):
    """`neff ip ARGS`: one JSON object per value (exit 1 when any did not map), without the
    debug-info keys."""
    out = run_cli("ip", *args)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return [{k: v for k, v in line.items() if k not in DEBUG_KEYS} for line in lines]


def test_sample_load_gives_non_empty_engine_images(sample):
    model = sample.load()
    assert [sg.name for sg in model.subgraphs] == ["sg00"]
    engines = model.subgraphs[0].engines
    assert {e.engine for e in engines} == {"pe", "act", "pool", "dve", "sp"}
    for e in engines:
        assert len(e.image) > 0 and len(e.image) % 64 == 0
        assert e.base % 0x8000 == 0  # staged at >= 0x8000 alignment (spec 000 §8)
    pool = next(e for e in engines if e.engine == "pool")
    assert pool.source_slots == 3
    assert pool.regions["main"]["size"] > 0
    assert [e.engine for e in engines] == ["pe", "act", "pool", "dve", "sp"]


def test_sample_report_is_the_load_json(sample):
    assert sample.load().report() == cli_json("load", SAMPLE, "--json")


def test_images_are_the_bytes_load_out_writes(sample, tmp_path):
    assert run_cli("load", SAMPLE, "--out", tmp_path).returncode == 0
    for e in sample.load().subgraphs[0].engines:
        assert e.image == (tmp_path / "sg00" / f"{e.engine}.img").read_bytes(), e.engine


def test_engine_fields_are_its_report_entry(sample):
    for e in sample.load().subgraphs[0].engines:
        r = e.report()
        assert (e.engine, e.eng_type, e.base, e.source_slots) == (
            r["engine"], r["eng_type"], r["base"], r["source_slots"])
        assert e.regions == r["regions"] and e.patches == r["patches"]
        assert len(e.image) == r["image_bytes"]


@pytest.mark.parametrize("name", REAL_NEFFS)
def test_real_fixture_load_matches_the_cli(name):
    path = real_fixture(name)
    neff = neffkit.open(path)
    for model in (None, "spec"):
        flag = [] if model is None else ["--device-model", model]
        assert neff.load(model).report() == cli_json("load", path, "--json", *flag)


def test_ip_both_ways_are_neff_ip_answers(sample):
    model = sample.load()
    hit = model.ip("pe", 0x4000010200)
    assert hit == cli_ip_lines(SAMPLE, "--engine", "pe", "0x4000010200")[0]
    assert hit["neff_ip"] == 1 and hit["text"].startswith("PSEUDO_TRIGGER_COLLECTIVE")
    back = model.ip_reverse("pool", 2)
    assert back == cli_ip_lines(SAMPLE, "--engine", "pool", "--reverse", "2")[0]
    assert back["device_start"] <= model.ip("pool", back["device_start"])["device_ip"]
    assert model.ip("pool", back["device_start"])["neff_ip"] == 2


def test_unmapped_address_raises_the_runtime_message(sample):
    with pytest.raises(neffkit.IpError) as err:
        sample.load().ip("pe", 0x4000010000)
    assert str(err.value) == cli_ip_lines(SAMPLE, "--engine", "pe", "0x4000010000")[0]["error"]


def test_bad_selection_raises(sample):
    model = sample.load()
    with pytest.raises(neffkit.KelfError, match="no subgraph `sg05`"):
        model.ip("pe", 0, subgraph="sg05")
    with pytest.raises(neffkit.SelectionError, match="unknown engine name"):
        model.ip("tensor", 0)
    with pytest.raises(neffkit.SelectionError, match="unknown device model `fast`"):
        sample.load(device_model="fast")


def test_loads_run_in_threads(sample):
    # The GIL is released during the load: threads each get the same model.
    results = [None] * 4

    def work(k):
        results[k] = sample.load().report()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results) and results[0]["subgraphs"]


def test_sim_is_the_sim_json(sample):
    out = run_cli("sim", SAMPLE, "--json")
    assert sample.sim() == json.loads(out.stdout)


@pytest.mark.parametrize("name", ["matmul_small.neff", "profiled/fused_attention.neff"])
def test_real_fixture_sim_matches_the_cli(name):
    path = real_fixture(name)
    out = run_cli("sim", path, "--json")
    assert neffkit.open(path).sim() == json.loads(out.stdout)
