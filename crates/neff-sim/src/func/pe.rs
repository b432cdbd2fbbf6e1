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
    core.work.matmul_flops += 2 * (rows * cols * n) as u64;
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

#[cfg(test)]
mod tests {
    use neff_isa::layout::Tensor;
    use neff_isa::payload::{LdWeightsMut, MatmulMut};
    use neff_isa::{Dtype, EngineType, Opcode, SlotBuf};

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, read, run, slot, stream};

    const PSUM: u32 = 0x0200_0000;

    fn pattern(addr: u32, step: i16, n: u16, dtype: Dtype) -> Tensor {
        Tensor {
            start_addr: addr,
            dims: 3,
            step: [step, 0, 0, 0],
            num: [n, 1, 1, 0],
            dtype: Some(dtype as u8),
        }
    }

    /// LDWEIGHTS of the K=2 x M=2 tile at SBUF 0x100, read last first as real slots do (D487).
    fn ldweights(mode: u8, transpose: u8) -> SlotBuf {
        slot(Opcode::LDWEIGHTS, |b| {
            LdWeightsMut(b)
                .src(pattern(0x104, -1, 2, Dtype::Float32))
                .pe_shape([2, 2])
                .fp32_mode(mode)
                .transpose_mode(transpose);
        })
    }

    /// MATMUL of the K=2 x N=3 moving tile at SBUF 0x200 into PSUM 0.
    fn matmul(acc_flags: u8) -> SlotBuf {
        slot(Opcode::MATMUL, |b| {
            MatmulMut(b)
                .src(pattern(0x200, 1, 3, Dtype::Float32))
                .dst(pattern(PSUM, 1, 3, Dtype::Float32))
                .pe_shape([2, 2])
                .acc_flags(acc_flags);
        })
    }

    /// `out[m][n] = sum_k W[k][m] X[k][n]` with W = [[1,2],[3,4]], X = [[1,0,2],[0,1,3]]:
    /// out = [[1,3,11],[2,4,16]] by hand; a second MATMUL with acc_flags 0 adds it again.
    fn product(slots: &[SlotBuf]) -> Vec<f64> {
        let bytes = stream(slots);
        let mut c = core(EngineType::Pe, &bytes, Vec::new());
        fill(&mut c, 0x100, 2, Dtype::Float32, &[1.0, 2.0, 3.0, 4.0]);
        fill(
            &mut c,
            0x200,
            2,
            Dtype::Float32,
            &[1.0, 0.0, 2.0, 0.0, 1.0, 3.0],
        );
        run(&mut c, &mut Hbm::default()).unwrap();
        read(&c, PSUM, 2, 3, Dtype::Float32)
    }

    #[test]
    fn matmul_contracts_over_the_partitions() {
        let want = [1.0, 3.0, 11.0, 2.0, 4.0, 16.0];
        assert_eq!(product(&[ldweights(0, 0), matmul(3)]), want);
    }

    #[test]
    fn acc_flags_zero_accumulates_into_psum() {
        let want = [2.0, 6.0, 22.0, 4.0, 8.0, 32.0];
        assert_eq!(product(&[ldweights(0, 0), matmul(3), matmul(0)]), want);
    }

    /// The fp32 LOW pass (start) and HIGH pass (end) sum to the fp32 product (D488).
    #[test]
    fn fp32_low_and_high_passes_sum_to_the_product() {
        let slots = [ldweights(1, 0), matmul(1), ldweights(2, 0), matmul(2)];
        assert_eq!(product(&slots), [1.0, 3.0, 11.0, 2.0, 4.0, 16.0]);
    }

    #[test]
    fn matmul_without_weights_is_an_error() {
        let bytes = stream(&[matmul(3)]);
        let mut c = core(EngineType::Pe, &bytes, Vec::new());
        let e = run(&mut c, &mut Hbm::default()).unwrap_err().to_string();
        assert!(e.contains("no LDWEIGHTS"), "{e}");
    }
}
