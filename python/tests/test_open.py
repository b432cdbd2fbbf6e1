"""neffkit.open, Neff.header / members / member / kbin, and bad input raising the CLI's message."""

import json

import pytest

import neffkit
from conftest import REAL_NEFFS, SAMPLE, real_fixture, run_cli


def test_sample_header_is_the_info_json_header(sample):
    cli = json.loads(run_cli("info", SAMPLE, "--json").stdout)
    assert sample.header == cli["header"]
    assert sample.header["header_size"] == 0x400


def test_sample_members_are_neff_ls(sample):
    # `neff ls` prints "size  path" per member, in stored order (README tour).
    assert sample.members[:3] == [("kelf-a.json", 90), ("sg00/act.bin", 0), ("sg00/act.json", 46)]
    assert [(p, s) for p, s in sample.members] == [
        (m["path"], m["size"]) for m in json.loads(run_cli("info", SAMPLE, "--json").stdout)["members"]
    ]


def test_member_bytes_are_neff_cat(sample):
    pool = sample.member("sg00/pool.bin")
    assert len(pool) == 192
    assert pool[128:130] == bytes([0xA0, 0x10])  # spec 003 §7.2 slot 2: EVENT_SEMAPHORE
    assert sample.member("./sg00/pool.bin") == pool


def test_missing_member_raises_selection_error(sample):
    with pytest.raises(neffkit.SelectionError, match=r"sample.neff: no member `sg00/nope.bin`"):
        sample.member("sg00/nope.bin")


def test_open_accepts_bytes_and_pathlike():
    data = SAMPLE.read_bytes()
    assert neffkit.open(data).members == neffkit.open(SAMPLE).members
    assert neffkit.open(bytearray(data)).header == neffkit.open(str(SAMPLE)).header


def test_kbin_is_the_kbin_json_document(sample):
    assert sample.kbin() == json.loads(run_cli("kbin", SAMPLE, "--json").stdout)
    engines = sample.kbin("sg00")["subgraphs"][0]["engines"]
    assert [(e["engine"], e["ninstr"]) for e in engines] == [
        ("pe", 1), ("act", 0), ("pool", 3), ("dve", 0), ("sp", 0)
    ]


@pytest.mark.parametrize("name", REAL_NEFFS)
def test_real_fixture_header_members_kbin(name):
    path = real_fixture(name)
    neff = neffkit.open(path)
    info = json.loads(run_cli("info", path, "--json").stdout)
    assert neff.header == info["header"]
    assert len(neff.members) == len(info["members"])
    assert neff.kbin() == json.loads(run_cli("kbin", path, "--json").stdout)


def cli_error(*args) -> str:
    """The CLI's message for a refused input: its stderr without `error: `."""
    out = run_cli(*args)
    assert out.returncode == 1, out
    assert out.stderr.startswith("error: "), out.stderr
    return out.stderr[len("error: "):].strip()


def test_non_neff_raises_with_the_cli_message(tmp_path):
    cut = tmp_path / "cut.neff"
    cut.write_bytes(SAMPLE.read_bytes()[:600])
    with pytest.raises(neffkit.ContainerError) as err:
        neffkit.open(cut)
    assert str(err.value) == cli_error("info", cut)
    assert str(err.value).endswith("truncated header: the file has 600 bytes, a NEFF header needs 1024")


def test_text_file_raises_with_the_cli_message(tmp_path):
    text = tmp_path / "notes.neff"
    text.write_bytes(b"not a neff\n" * 200)
    with pytest.raises(neffkit.ContainerError) as err:
        neffkit.open(text)
    assert str(err.value) == cli_error("info", text)


def test_corrupt_payload_raises_with_the_cli_message(tmp_path):
    data = bytearray(SAMPLE.read_bytes())
    data[0x400 + 40] ^= 0xFF  # inside the gzip stream: the hash no longer matches
    bad = tmp_path / "flipped.neff"
    bad.write_bytes(bytes(data))
    with pytest.raises(neffkit.ContainerError) as err:
        neffkit.open(bad)
    assert str(err.value) == cli_error("ls", bad)
    assert "hash mismatch" in str(err.value)


def test_missing_file_raises_io_error(tmp_path):
    missing = tmp_path / "missing.neff"
    with pytest.raises(neffkit.NeffIOError) as err:
        neffkit.open(missing)
    assert str(err.value) == cli_error("ls", missing)


def test_bytes_input_is_named_bytes():
    with pytest.raises(neffkit.ContainerError, match=r"^<bytes>: truncated header"):
        neffkit.open(b"\0" * 100)


def test_wrong_type_raises_type_error():
    with pytest.raises(TypeError):
        neffkit.open(42)


def test_unknown_subgraph_raises_with_the_cli_message(sample):
    with pytest.raises(neffkit.KelfError) as err:
        sample.kbin("sg07")
    assert str(err.value) == cli_error("kbin", SAMPLE, "--subgraph", "sg07")


def test_every_error_is_a_neff_error():
    for cls in (neffkit.NeffIOError, neffkit.ContainerError, neffkit.KelfError,
                neffkit.SelectionError, neffkit.LoadError, neffkit.IpError, neffkit.BirError):
        assert issubclass(cls, neffkit.NeffError)
