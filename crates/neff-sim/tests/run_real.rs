//! `neff_sim::func::run` on the shared real NEFFs against each kernel's own math, computed here
//! in f64 from the very inputs the run was given (docs/run.md): matmul_small is `x @ y` (fp16),
//! the profiled attention kernels `softmax(q.T @ k) @ v.T`.

use std::collections::BTreeMap;

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_sim::func::{self, HostTensor, RunOptions};

/// Each input's elements, by name.
type Values = BTreeMap<String, Vec<f64>>;
/// Each output's shape and elements, by name.
type Outputs = BTreeMap<String, (Vec<u64>, Vec<f64>)>;

fn values(t: &HostTensor) -> Vec<f64> {
    let size = t.dtype.size().unwrap() as usize;
    t.bytes
        .chunks_exact(size)
        .map(|c| func::convert::read(t.dtype, c))
        .collect()
}

/// Every element within `rel` of the reference, relative to `max(|ref|, 1% of the largest
/// |ref|)` (a near-zero element of a sum is judged against the sum's scale).
fn assert_close(name: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{name}: element count");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())) * 1e-2;
    let mut worst = (0.0, 0);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let e = (g - w).abs() / w.abs().max(scale);
        if e > worst.0 || e.is_nan() {
            worst = (e, i);
        }
    }
    assert!(
        worst.0 <= rel,
        "{name}: element {} is {} against {} (relative error {:e} > {rel:e})",
        worst.1,
        got[worst.1],
        want[worst.1],
        worst.0
    );
}

/// Every shared NEFF is race-free: its semaphores and events order every pair of accesses of
/// the same bytes (D680; the detector finds the races when waits do not acquire, see the func
/// race unit tests).
fn race_free(path: &str, out: &func::RunOutput) {
    let text: Vec<String> = out.races.races.iter().map(ToString::to_string).collect();
    assert!(text.is_empty() && out.races.more == 0, "{path}: {text:#?}");
    assert!(
        out.races.shadow_runs > 0,
        "{path}: the detector saw no access"
    );
}

fn run(path: &str, seed: u64) -> Option<(Values, Outputs)> {
    let bytes = neff_fixtures::read(path)?;
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let sig = func::signature(&neff, &kelf).unwrap();
    let inputs = func::random_inputs(&sig, seed);
    let out = func::run(&neff, &kelf, &inputs, &RunOptions::default()).unwrap();
    race_free(path, &out);
    let ins = inputs.iter().map(|(k, t)| (k.clone(), values(t))).collect();
    let outs = out
        .outputs
        .iter()
        .map(|(k, t)| (k.clone(), (t.shape.clone(), values(t))))
        .collect();
    Some((ins, outs))
}

/// `a [m, k] @ b [k, n]`, f64.
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
            }
        }
    }
    c
}

#[test]
fn matmul_small_is_x_times_y() {
    let Some((ins, outs)) = run(neff_fixtures::MATMUL_SMALL, 7) else {
        return;
    };
    let (shape, got) = &outs["output0"];
    assert_eq!(shape, &[128, 128]);
    let want = matmul(&ins["x"], &ins["y"], 128, 256, 128);
    // The output is fp16: its rounding alone is 2^-11 relative.
    assert_close("output0", got, &want, 2e-2);
    assert!(got.iter().any(|v| *v != 0.0), "not all zero");
}

/// `softmax(q.T @ k) @ v.T` for q, k, v of shape (d, s): row-wise max-shifted softmax, out (s, d).
fn attention(q: &[f64], k: &[f64], v: &[f64], d: usize, s: usize) -> Vec<f64> {
    let t = |a: &[f64]| {
        let mut o = vec![0.0; d * s];
        for i in 0..d {
            for j in 0..s {
                o[j * d + i] = a[i * s + j];
            }
        }
        o
    };
    let scores = matmul(&t(q), k, s, d, s);
    let mut p = vec![0.0; s * s];
    for i in 0..s {
        let row = &scores[i * s..(i + 1) * s];
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let e: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
        let z: f64 = e.iter().sum();
        for j in 0..s {
            p[i * s + j] = e[j] / z;
        }
    }
    matmul(&p, &t(v), s, s, d)
}

fn check_attention(name: &str, rel: f64) {
    let path = format!("{}/{name}.neff", neff_fixtures::PROFILED_DIR);
    let Some((ins, outs)) = run(&path, 11) else {
        return;
    };
    let (q, k, v) = (&ins["q_ref"], &ins["k_ref"], &ins["v_ref"]);
    let s = q.len() / 128;
    let (shape, got) = outs.values().next().expect("one output");
    assert_eq!(shape, &[s as u64, 128]);
    let want = attention(q, k, v, 128, s);
    assert_close(name, got, &want, rel);
}

#[test]
fn baseline_attention_is_softmax_attention() {
    check_attention("baseline_attention", 1e-4);
}

#[test]
fn fused_attention_is_softmax_attention() {
    check_attention("fused_attention", 1e-4);
}

#[test]
fn fused_fp32_s512_is_softmax_attention() {
    check_attention("fused_fp32_s512", 1e-4);
}

#[test]
fn baseline_bf16_s512_is_softmax_attention() {
    check_attention("baseline_bf16_s512", 2e-2);
}

/// attn_v6 (an NKI attention token-generation kernel: KV caches `[1, 4, 640, 128]`, weights
/// `[512, 2048]` / `[1024, 2048]`, bf16) runs to completion: TENSOR_SCALAR_AFFINE_SELECT builds
/// its identity matrices (D600). Its math is not known here (the kernel's source is not among
/// the fixtures), so the check is that every output element is a finite, not-all-zero value.
#[test]
fn attn_v6_runs_to_completion() {
    let Some((_, outs)) = run(neff_fixtures::ATTN_V6, 5) else {
        return;
    };
    let (shape, got) = &outs["output0"];
    assert_eq!(shape, &[1, 1, 1024]);
    assert!(got.iter().all(|v| v.is_finite()), "a non-finite output");
    assert!(got.iter().any(|v| *v != 0.0), "all zero");
}
