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
/// output[i][j] = x[i][j] for j >= 1 and output[i][0] = i / 128 — checkable by hand.
#[test]
fn run_writes_the_product() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let x = temp_file(
        &dir,
        "x.npy",
        f16_npy(&[128, 256], |k| {
            let (i, j) = (k / 256, k % 256);
            if j == 0 { i as f32 / 128.0 } else { 1.0 }
        }),
    );
    let y = temp_file(
        &dir,
        "y.npy",
        f16_npy(&[256, 128], |k| {
            let (i, j) = (k / 128, k % 128);
            if i == j { 1.0 } else { 0.0 }
        }),
    );
    let out = dir.path().join("out");
    neff()
        .args(["run", m, "--input"])
        .arg(format!("x={}", x.display()))
        .arg("--input")
        .arg(format!("y={}", y.display()))
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
