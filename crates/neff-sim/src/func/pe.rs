//! The tensor engine: LDWEIGHTS loads the stationary tile, MATMUL streams the moving tile
//! through it into PSUM (NKI `nc_matmul`: `out[M, N] = stationary[K, M].T @ moving[K, N]`, the
//! contraction over the K partitions).
//!
//! * The weights pattern lists a partition's M columns **last first**: every real LDWEIGHTS
//!   starts at the tile's last element with step -1 (`[-1,0,-32][32,1,4]` from +0xFE;
//!   reference-compute-bytes: +0x14/+0x15 = 0xFFFF in every slot), and only reading element `i`
//!   as column `M-1-i` makes matmul_small's identity transposes and its product right
//!   (decision D487).
//! * `acc_flags` +0x2B: bit 0 starts an accumulation group (PSUM is overwritten), bit 1 ends it
//!   (no data effect); 0 accumulates (matmul_small: 3 for a single K tile, 1 then 2 for K=256).
//! * `transpose_mode` ENABLED: the pass-through path. The result is written in the weights'
//!   dtype (matmul_small's fp16 transposes occupy 2 bytes per element of PSUM: the ACT COPY after
//!   them moves both 256-byte halves as 128 i32), and `fp32_mode` does not split it.
//! * `fp32_mode` LOW / HIGH on LDWEIGHTS: the fp32 weights go through the array in two passes
//!   (fused_fp32: LOW with `acc_flags=1`, HIGH with `acc_flags=2`). Which bits each pass keeps is
//!   not public; the model splits `w = hi + lo` with `hi` the upper 16 bits of `w` and `lo = w -
//!   hi` (exact in fp32), so the two passes sum to the fp32 product (decision D488).
//!
//! Products and the sum over K are formed in f64 and rounded once to fp32 per MATMUL; the
//! accumulation into PSUM is an fp32 add (docs/run.md).

use neff_isa::payload::{LdWeights, Matmul};
use neff_isa::{Dtype, Fp32Mode, TransposeMode};

use super::access::Access;
use super::core::Core;
use super::memory::Space;

/// The loaded stationary tile.
#[derive(Debug, Clone)]
pub(crate) struct Weights {
    /// K (rows: partitions of the weights and of the moving tile).
    pub(crate) rows: usize,
    /// M (columns: output partitions).
    pub(crate) cols: usize,
    /// `w[k * cols + m]`.
    pub(crate) w: Vec<f64>,
    /// The weights' dtype.
    pub(crate) dtype: Dtype,
    /// Loaded for the transpose path.
    pub(crate) transpose: bool,
}

fn hi16(v: f64) -> f64 {
    f64::from(f32::from_bits((v as f32).to_bits() & 0xFFFF_0000))
}

/// LDWEIGHTS.
pub(crate) fn ldweights(core: &mut Core<'_>, l: &LdWeights<'_>) -> Result<(), String> {
    let [rows, cols] = l.pe_shape().map(usize::from);
    let dtype = l
        .in_dtype()
        .map_err(|b| format!("weights dtype byte {b:#04x} is not a dtype"))?;
    let transpose = l.transpose_mode() == Ok(TransposeMode::Enabled);
    let mode = l
        .fp32_mode()
        .map_err(|b| format!("fp32_mode byte {b:#04x} has no semantics"))?;
    let a = Access::new(&l.src(), rows, dtype);
    if a.per_partition() != cols {
        return Err(format!(
            "weights: {} elements per partition for {cols} PE columns",
            a.per_partition()
        ));
    }
    let v = a
        .read(&core.chip)
        .map_err(|b| format!("weights: {}", b.0))?;
    let mut w = vec![0.0; rows * cols];
    for k in 0..rows {
        for i in 0..cols {
            let x = v[k * cols + i];
            let x = match (transpose, mode) {
                (true, _) | (false, Fp32Mode::None | Fp32Mode::LowHigh) => x,
                (false, Fp32Mode::High) => hi16(x),
                (false, Fp32Mode::Low) => x - hi16(x),
            };
            w[k * cols + (cols - 1 - i)] = x;
        }
    }
    core.weights = Some(Weights {
        rows,
        cols,
        w,
        dtype,
        transpose,
    });
    Ok(())
}

/// MATMUL.
pub(crate) fn matmul(core: &mut Core<'_>, m: &Matmul<'_>) -> Result<(), String> {
    let w = core
        .weights
        .as_ref()
        .ok_or("no LDWEIGHTS before this MATMUL")?;
    let [rows, cols] = m.pe_shape().map(usize::from);
    if (rows, cols) != (w.rows, w.cols) {
        return Err(format!(
            "PE shape {rows}*{cols} but the loaded weights are {}*{}",
            w.rows, w.cols
        ));
    }
    let dtype = m
        .in_dtype()
        .map_err(|b| format!("moving dtype byte {b:#04x} is not a dtype"))?;
    let mv = Access::new(&m.src(), rows, dtype);
    let n = mv.per_partition();
    let x = mv.read(&core.chip).map_err(|b| format!("src: {}", b.0))?;
    let out_dtype = if w.transpose { w.dtype } else { Dtype::Float32 };
    let dst = Access::new(&m.dst(), cols, out_dtype);
    if dst.at.space != Space::Psum {
        return Err("dst is not in PSUM".into());
    }
    if dst.per_partition() != n {
        return Err(format!(
            "dst holds {} elements per partition for {n} moving columns",
            dst.per_partition()
        ));
    }
    let mut out = vec![0.0f64; cols * n];
    for k in 0..rows {
        let xr = &x[k * n..(k + 1) * n];
        let wr = &w.w[k * cols..(k + 1) * cols];
        for (mcol, &wv) in wr.iter().enumerate() {
            if wv == 0.0 {
                continue;
            }
            let o = &mut out[mcol * n..(mcol + 1) * n];
            for (acc, &xv) in o.iter_mut().zip(xr) {
                *acc += wv * xv;
            }
        }
    }
    let start = m.acc_flags() & 1 != 0;
    if !start && !w.transpose {
        let old = dst.read(&core.chip).map_err(|b| format!("dst: {}", b.0))?;
        for (o, p) in out.iter_mut().zip(old) {
            *o = f64::from((*o as f32) + (p as f32));
        }
    }
    dst.write(&mut core.chip, &out)
        .map_err(|b| format!("dst: {}", b.0))
}
