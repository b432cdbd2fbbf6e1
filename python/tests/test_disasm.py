"""Neff.disasm: the text is exactly the CLI's line, slot by slot; typed fields; bytes."""

import pytest

import neffkit
from conftest import REAL_NEFFS, SAMPLE, real_fixture, run_cli


def cli_lines(*args):
    """`neff disasm ARGS` as (member, slot, text) triples: the `# member` headings name the
    stream, each line is `N: text`."""
    out = run_cli("disasm", *args)
    assert out.returncode == 0, out.stderr
    member, rows = None, []
    for line in out.stdout.splitlines():
        if line.startswith("# "):
            member = line[2:]
        elif line.strip():
            n, text = line.split(": ", 1)
            rows.append((member, int(n), text))
    return rows


def py_lines(neff, **kw):
    return [(i.member, i.slot, i.text) for i in neff.disasm(**kw)]


def test_sample_pool_is_spec_003_7_2(sample):
    pool = sample.disasm(engine="pool")
    assert [i.text for i in pool] == [
        "PSEUDO_DMA_TRIGGER q_gradient_in block_id=0",
        "PSEUDO_DMA_TRIGGER $S[22]>0 q_gradient_out block_id=0",
        "EVENT_SEMAPHORE $S[11]>0 setter=0",
    ]
    assert [i.mnemonic for i in pool] == ["PSEUDO_DMA_TRIGGER"] * 2 + ["EVENT_SEMAPHORE"]
    assert [i.slot for i in pool] == [0, 1, 2]
    assert pool[1].fields["queue_name"] == "q_gradient_out"
    assert pool[1].fields["block_id"] == 0
    assert pool[2].bytes[:6] == bytes([0xA0, 0x10, 0, 0, 0x04, 0x0B])
    assert pool[0].pseudo and not pool[2].pseudo


def test_sample_pool_equals_the_cli_line_for_line(sample):
    assert py_lines(sample, engine="pool") == cli_lines(SAMPLE, "--engine", "pool")


def test_sample_whole_disasm_equals_the_cli(sample):
    assert py_lines(sample) == cli_lines(SAMPLE)


@pytest.mark.parametrize("name", REAL_NEFFS)
def test_real_fixture_disasm_equals_the_cli(name):
    path = real_fixture(name)
    assert py_lines(neffkit.open(path)) == cli_lines(path)


def test_engine_spellings_select_the_same_stream(sample):
    assert py_lines(sample, engine="POOL") == py_lines(sample, engine="pool")


def test_unknown_engine_raises(sample):
    with pytest.raises(neffkit.SelectionError, match="unknown engine name `gpsimd`"):
        sample.disasm(engine="gpsimd")


def test_empty_selection_raises_with_the_cli_message(sample):
    with pytest.raises(neffkit.SelectionError) as err:
        sample.disasm(subgraph="sg09")
    out = run_cli("disasm", SAMPLE, "--subgraph", "sg09")
    assert out.returncode == 1
    assert str(err.value) == out.stderr.strip()[len("error: "):]


def test_direct2d_with_continuation_is_one_128_byte_instruction():
    # moe_v6b: every 0xD4 whose source mode byte (+0x17) is 0x28 is followed by its 0xDA
    # continuation, printed on the same line (decision D155).
    neff = neffkit.open(real_fixture("moe_v6b.neff"))
    pairs = [i for i in neff.disasm(engine="pool") if len(i.bytes) == 128]
    assert pairs, "moe_v6b has 128-byte DIRECT2D records"
    for i in pairs:
        assert i.opcode == 0xD4 and i.bytes[64] == 0xDA and i.bytes[0x17] == 0x28
        assert " | PSEUDO_EXTENSION" in i.text


def cli_fields(path):
    """`neff disasm --json PATH` as {(member, slot index): fields} (fields null -> {})."""
    import json

    out = run_cli("disasm", "--json", path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    return {
        (s["member"], slot["index"]): slot["fields"] or {}
        for s in doc["streams"]
        for slot in s["slots"]
    }


@pytest.mark.parametrize("name", ["sample.neff"] + REAL_NEFFS)
def test_fields_equal_the_cli_json_for_every_slot(name):
    """Instruction.fields and `disasm --json` "fields" come from one typed struct (decision
    D423): for every instruction the Python objects equal the CLI's JSON, key order included."""
    path = SAMPLE if name == "sample.neff" else real_fixture(name)
    cli = cli_fields(path)
    instructions = neffkit.open(path).disasm()
    assert instructions
    for i in instructions:
        want = cli[(i.member, i.slot)]
        assert i.fields == want, (i.member, i.slot, i.text)
        assert list(i.fields) == list(want)
