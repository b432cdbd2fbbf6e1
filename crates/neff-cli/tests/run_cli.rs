//! `neff run`: the signature of matmul_small, a run from .npy files whose output equals the
//! math, and the input errors (missing, mis-shaped, extra) that name the tensor with its
//! expected dtype and shape and exit 1.

mod common;

use common::*;
use neff_sim::func::HostTensor;

fn f16_npy(shape: &[u64], f: impl Fn(u64) -> f32) -> Vec<u8> {
    let n: u64 = shape.iter().product();
    let mut bytes = Vec::with_capacity(2 * n as usize);
    for i in 0..n {
        bytes.extend_from_slice(&half::f16::from_f32(f(i)).to_le_bytes());
    }
    HostTensor {
        dtype: neff_isa::Dtype::Float16,
        shape: shape.to_vec(),
        bytes,
    }
    .to_npy()
}

#[test]
fn signature_lists_inputs_and_outputs() {
    let Some(m) = real_fixture() else { return };
    let v = json(["run", "--signature", "--json", m]);
    assert_eq!(v["inputs"][0]["name"], "x");
    assert_eq!(v["inputs"][0]["dtype"], "float16");
    assert_eq!(v["inputs"][0]["shape"], serde_json::json!([128, 256]));
    assert_eq!(v["inputs"][1]["name"], "y");
    assert_eq!(v["outputs"][0]["name"], "output0");
    assert_eq!(v["outputs"][0]["shape"], serde_json::json!([128, 128]));
}

/// x = all ones except x[i][0] = i / 128 (exact in fp16), y = identity on its first 128 rows:
/// output[i][j] = x[i][j] for j >= 1 and output[i][0] = i / 128 — checkable by hand. Returns
/// the `--input` arguments.
fn hand_inputs(dir: &tempfile::TempDir) -> Vec<String> {
    let x = temp_file(
        dir,
        "x.npy",
        f16_npy(&[128, 256], |k| {
            let (i, j) = (k / 256, k % 256);
            if j == 0 { i as f32 / 128.0 } else { 1.0 }
        }),
    );
    let y = temp_file(
        dir,
        "y.npy",
        f16_npy(&[256, 128], |k| {
            let (i, j) = (k / 128, k % 128);
            if i == j { 1.0 } else { 0.0 }
        }),
    );
    vec![
        "--input".into(),
        format!("x={}", x.display()),
        "--input".into(),
        format!("y={}", y.display()),
    ]
}

#[test]
fn run_writes_the_product() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let out = dir.path().join("out");
    neff()
        .args(["run", m])
        .args(hand_inputs(&dir))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let t = HostTensor::from_npy(&std::fs::read(out.join("output0.npy")).unwrap()).unwrap();
    assert_eq!(t.shape, [128, 128]);
    let v: Vec<f32> = t
        .bytes
        .chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    for i in 0..128 {
        assert_eq!(v[i * 128], i as f32 / 128.0, "row {i} column 0");
        assert_eq!(v[i * 128 + 1], 1.0, "row {i} column 1");
        assert_eq!(v[i * 128 + 127], 1.0, "row {i} column 127");
    }
}

/// `neff run M --json --trace output0` on the hand inputs, outputs under `dir`: the JSON document.
fn traced_run(m: &str, dir: &tempfile::TempDir) -> serde_json::Value {
    json_of(
        neff()
            .args(["run", m, "--json", "--trace", "output0"])
            .args(hand_inputs(dir))
            .arg("-o")
            .arg(dir.path().join("out")),
    )
}

/// The same run's text form (`--trace output0` without `--json`), outputs under `dir/out2`.
fn traced_text(m: &str, dir: &tempfile::TempDir) -> String {
    stdout_of(
        neff()
            .args(["run", m, "--trace", "output0"])
            .args(hand_inputs(dir))
            .arg("-o")
            .arg(dir.path().join("out2")),
    )
}

/// `--trace output0 --json`: the two subgraphs' output DMAs each write one column half (64 of
/// 128 fp16 columns of every row): sg00 columns 0..64 (column 0 is i / 128, the rest 1: sum
/// 63.5 + 128 * 63), sg01 columns 64..128 (all 1). The run is race-free.
#[test]
fn trace_lists_each_write_with_its_values() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let v = traced_run(m, &dir);
    assert_eq!(v["races"]["races"], serde_json::json!([]));
    let w = v["trace"]["writes"].as_array().unwrap();
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0]["tensor"], "output0");
    assert_eq!(w[0]["at"]["subgraph"], "sg00");
    assert_eq!(w[0]["at"]["opcode"], "PSEUDO_DMA_DIRECT2D");
    assert_eq!(w[0]["dtype"], "float16");
    assert_eq!(w[0]["elements"], 8192);
    assert_eq!(w[0]["min"], 0.0);
    assert_eq!(w[0]["max"], 1.0);
    assert_eq!(w[0]["mean"], (63.5 + 128.0 * 63.0) / 8192.0);
    assert_eq!(w[0]["first"], serde_json::json!([0.0, 1.0, 1.0, 1.0]));
    assert_eq!(w[1]["at"]["subgraph"], "sg01");
    assert_eq!(w[1]["bytes"], serde_json::json!([128, 32768]));
    assert_eq!(
        (w[1]["min"].clone(), w[1]["max"].clone()),
        (1.0.into(), 1.0.into())
    );
    assert!(w[0]["step"].as_u64() < w[1]["step"].as_u64());
    assert_eq!(v["outputs"][0]["name"], "output0");

    let text = traced_text(m, &dir);
    assert!(
        text.contains("sg00/pool slot 5 (PSEUDO_DMA_DIRECT2D)"),
        "{text}"
    );
    assert!(text.contains("8192 float16 min 0 max 1"), "{text}");
}

/// `--trace`'s times are the writing instruction's in the timing model (D751): each output
/// DMA's `ns` / `end_ns` are the issue and completion of pool slot 5 (the DMA instruction
/// its PSEUDO_DMA_DIRECT2D is lowered to) in `neff sim --trace`'s chrome trace of the same NEFF,
/// sg00 there as pid 0 and sg01 as pid 1; the text line starts with the ns.
#[test]
fn trace_times_are_the_timing_models() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let v = traced_run(m, &dir);
    let chrome = dir.path().join("sim.json");
    neff()
        .args(["sim", m, "--trace"])
        .arg(&chrome)
        .assert()
        .success();
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&chrome).unwrap()).unwrap();
    let events = c["traceEvents"].as_array().unwrap();
    let w = v["trace"]["writes"].as_array().unwrap();
    assert_eq!(w.len(), 2, "{w:?}");
    for (pid, w) in w.iter().enumerate() {
        assert_eq!(w["at"]["engine"], "pool");
        assert_eq!(w["at"]["slot"], 5);
        // The first slice of slot 5 on pool's track of this subgraph.
        let e = events
            .iter()
            .filter(|e| e["pid"] == pid && e["args"]["slot"] == 5 && e["args"]["region"] == "MAIN")
            .find(|e| e["name"].as_str().unwrap().contains("DMAMEMCPY"))
            .expect("pool slot 5 in neff sim's trace");
        let start = e["ts"].as_f64().unwrap() * 1e3;
        let end = start + e["dur"].as_f64().unwrap() * 1e3;
        let ns = w["ns"].as_f64().unwrap();
        let end_ns = w["end_ns"].as_f64().unwrap();
        assert!(
            (ns - start).abs() < 1e-3,
            "sg{pid}: ns {ns}, neff sim {start}"
        );
        assert!(
            (end_ns - end).abs() < 1e-3,
            "sg{pid}: end_ns {end_ns}, neff sim {end}"
        );
        assert!(ns > 0.0 && end_ns > ns);
    }
    let text = traced_text(m, &dir);
    let first = text.lines().next().unwrap();
    let ns = w[0]["ns"].as_f64().unwrap();
    assert!(
        first.trim_start().starts_with(&format!("{ns:.0} ns  step")),
        "{first}"
    );
}

/// A name that is not a DRAM tensor is an error listing the NEFF's tensors (exit 1).
#[test]
fn trace_of_an_unknown_tensor_names_the_known_ones() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let o = neff()
        .args(["run", m, "--trace", "nope"])
        .args(hand_inputs(&dir))
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(
        e.contains("--trace `nope`: not a DRAM tensor of this NEFF (its tensors: identity_82_sg0000, output0, x, y)"),
        "{e}"
    );
}

#[test]
fn input_errors_name_the_tensor() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let small = temp_file(&dir, "x.npy", f16_npy(&[128, 255], |_| 0.0));
    let y = temp_file(&dir, "y.npy", f16_npy(&[256, 128], |_| 0.0));
    let out = dir.path().join("out");
    let run = |args: &[String]| {
        let o = neff()
            .arg("run")
            .arg(m)
            .args(args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        String::from_utf8(o.stderr).unwrap()
    };
    let yarg = format!("y={}", y.display());
    let e = run(&["--input".into(), yarg.clone()]);
    assert!(
        e.contains("input `x` is missing (expected float16 of shape [128, 256])"),
        "{e}"
    );
    let e = run(&[
        "--input".into(),
        format!("x={}", small.display()),
        "--input".into(),
        yarg.clone(),
    ]);
    assert!(
        e.contains(
            "input `x`: expected float16 of shape [128, 256], got float16 of shape [128, 255]"
        ),
        "{e}"
    );
    let e = run(&[
        "--input".into(),
        format!("z={}", y.display()),
        "--input".into(),
        yarg,
    ]);
    assert!(
        e.contains("input `z` is not an input of this NEFF (its inputs: x, y)"),
        "{e}"
    );
    assert!(!out.exists(), "no output folder after a failed run");
}

/// The spec sample (no neff.json, no tensor maps): its def.json `input` / `output` vars are the
/// signature, as bytes (D855); its pool copies `input` to `gradient_in`, PE's single-rank
/// ALL_REDUCE `gradient_in` to `gradient_out`, pool `gradient_out` to `output` — so the output is
/// the input, byte for byte.
#[test]
fn the_sample_runs_its_single_rank_all_reduce_to_its_input() {
    let dir = temp_dir();
    let sig = json(["run", "--signature", "--json", SAMPLE]);
    assert_eq!(sig["inputs"][0]["dtype"], "uint8");
    assert_eq!(sig["outputs"][0]["shape"], serde_json::json!([128]));
    let bytes: Vec<u8> = (0..128u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let input = HostTensor {
        dtype: neff_isa::Dtype::Uint8,
        shape: vec![128],
        bytes: bytes.clone(),
    };
    let path = temp_file(&dir, "in.npy", input.to_npy());
    let out = dir.path().join("out");
    neff()
        .args(["run", SAMPLE, "--input"])
        .arg(format!("input={}", path.display()))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let t = HostTensor::from_npy(&std::fs::read(out.join("output.npy")).unwrap()).unwrap();
    assert_eq!(t.bytes, bytes);
}

/// A collective over more than one rank stops the run naming its kind, group and ranks (D855):
/// the sample with `replica_groups` `[[0, 1]]` (extracted, edited, packed again).
#[test]
fn a_collective_over_two_ranks_is_refused_naming_it() {
    let dir = temp_dir();
    let tree = dir.path().join("tree");
    neff()
        .args(["extract", SAMPLE, "-C"])
        .arg(&tree)
        .assert()
        .success();
    let def = tree.join("sg00/def.json");
    let text = std::fs::read_to_string(&def).unwrap();
    assert!(text.contains("\"replica_groups\":[[]]"), "{text}");
    std::fs::write(
        &def,
        text.replace("\"replica_groups\":[[]]", "\"replica_groups\":[[0,1]]"),
    )
    .unwrap();
    let two = dir.path().join("two.neff");
    neff()
        .arg("pack")
        .arg(&tree)
        .arg("-o")
        .arg(&two)
        .assert()
        .success();
    let out = neff()
        .arg("run")
        .arg(&two)
        .args(["--random-inputs", "1", "-o"])
        .arg(dir.path().join("out"))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("pe slot 0 (PSEUDO_TRIGGER_COLLECTIVE)"),
        "{err}"
    );
    assert!(
        err.contains("ALL_REDUCE over replica group 0 of 2 ranks"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists(), "no output is written");
}

/// `--small-pages` (D825's opt-out) changes where SBUF and PSUM live, not what is computed: the
/// same outputs byte for byte.
#[test]
fn small_pages_give_the_same_outputs() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let outputs = |flag: Option<&str>, name: &str| {
        let out = dir.path().join(name);
        neff()
            .args(["run", m, "--random-inputs", "3", "-o"])
            .arg(&out)
            .args(flag)
            .assert()
            .success();
        std::fs::read(out.join("output0.npy")).unwrap()
    };
    assert_eq!(
        outputs(None, "huge"),
        outputs(Some("--small-pages"), "small")
    );
}
