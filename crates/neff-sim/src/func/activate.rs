//! ACTIVATE 0x21, the scalar engine: `dst = func(src * scale + bias)` per partition (NKI
//! `activation`), the bias a per-partition SBUF value (+0x0C PTR) or an fp32 immediate, the
//! scale an fp32 immediate (or a per-partition SBUF value). The functions are computed with
//! the f32 library functions, not the NEFF's piecewise tables (`exp_and_others_bkt.bin`): within
//! the tolerances of docs/run.md, not bit-exact (decision D489).

use neff_isa::payload::Activate;
use neff_isa::{AccCmd, ActFunc, BiasSrc, Dtype, ImmSrc};

use super::access::Access;
use super::core::Core;
use super::memory::Addr;

/// `func(x)` in fp32, or `None` for a function without semantics here.
#[cfg(test)]
pub(crate) fn function(func: ActFunc, x: f32) -> Option<f32> {
    kernel(func).map(|k| k(x))
}

/// The fp32 function of `func` (chosen once per instruction, applied to every element), or
/// `None` for a function without semantics here.
pub(crate) fn kernel(func: ActFunc) -> Option<fn(f32) -> f32> {
    Some(match func {
        ActFunc::Identity | ActFunc::Copy => |x| x,
        ActFunc::Relu => |x: f32| x.max(0.0),
        ActFunc::Tanh => |x: f32| x.tanh(),
        ActFunc::Exp => |x: f32| x.exp(),
        ActFunc::Ln => |x: f32| x.ln(),
        ActFunc::Sin => |x: f32| x.sin(),
        ActFunc::ReciprocalSqrt => |x: f32| 1.0 / x.sqrt(),
        ActFunc::Square => |x| x * x,
        ActFunc::Sign => |x| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        },
        ActFunc::Abs => |x: f32| x.abs(),
        ActFunc::IsFinite => |x: f32| if x.is_finite() { 1.0 } else { 0.0 },
        ActFunc::Silu => |x: f32| x / (1.0 + (-x).exp()),
        ActFunc::MemsetZero => |_| 0.0,
        _ => return None,
    })
}

/// One fp32 value per partition at SBUF address `addr` (a scalar pointer operand).
pub(crate) fn per_partition(
    core: &Core<'_>,
    addr: u32,
    partition0: usize,
    channels: usize,
    dtype: Dtype,
) -> Result<Vec<f64>, String> {
    let a = Addr::of(addr);
    let t = neff_isa::layout::Tensor {
        start_addr: addr,
        dims: 1,
        step: [1, 0, 0, 0],
        num: [1, 0, 0, 0],
        dtype: None,
    };
    let mut acc = Access::new(&t, channels, dtype);
    // The pointer names partition 0 (or the operand's own first partition): each partition
    // reads its own copy.
    acc.at.partition = a.partition.max(partition0);
    acc.read(&core.chip).map_err(|b| b.0)
}

/// ACTIVATE.
pub(crate) fn activate(core: &mut Core<'_>, a: &Activate<'_>) -> Result<(), String> {
    let func = a
        .func()
        .map_err(|b| format!("activation function {b} has no semantics"))?;
    if a.accumulator_cmd() != Ok(AccCmd::Idle) {
        return Err(format!(
            "accumulator_cmd {:?} has no semantics",
            a.accumulator_cmd()
        ));
    }
    if a.imm() != 0.0 {
        return Err(format!("imm {} has no semantics", a.imm()));
    }
    let dt = |r: Result<Dtype, u8>, what: &str| {
        r.map_err(|b| format!("{what} dtype {b:#04x} is not a dtype"))
    };
    let channels = usize::from(a.channels());
    let src = Access::new(&a.src(), channels, dt(a.in_dtype(), "src")?);
    let dst = Access::new(&a.dst(), channels, dt(a.out_dtype(), "dst")?);
    let n = src.per_partition();
    if dst.per_partition() != n {
        return Err(format!(
            "src has {n} elements per partition, dst {}",
            dst.per_partition()
        ));
    }
    let bias = match a.bias_src() {
        Ok(BiasSrc::Ptr) => {
            let d = dt(a.bias_dtype(), "bias")?;
            per_partition(core, a.bias(), dst.at.partition, channels, d)?
        }
        Ok(BiasSrc::Imm) => vec![f64::from(f32::from_bits(a.bias())); channels],
        Err(b) => return Err(format!("bias source {b} has no semantics")),
    };
    let scale = match a.scale_src() {
        Ok(ImmSrc::Instruction) => vec![f64::from(f32::from_bits(a.scale())); channels],
        Ok(ImmSrc::Ptr) => {
            per_partition(core, a.scale(), dst.at.partition, channels, Dtype::Float32)?
        }
        other => return Err(format!("scale source {other:?} has no semantics")),
    };
    let mut v = src
        .read_f32(&core.chip)
        .map_err(|b| format!("src: {}", b.0))?;
    let f = kernel(func)
        .ok_or_else(|| format!("activation function {} has no semantics", func.text()))?;
    for (p, row) in v.chunks_mut(n.max(1)).enumerate() {
        let (s, b) = (scale[p] as f32, bias[p] as f32);
        for x in row {
            *x = f(*x * s + b);
        }
    }
    core.work.elementwise += v.len() as u64;
    dst.write_f32(&mut core.chip, &v)
        .map_err(|b| format!("dst: {}", b.0))
}

#[cfg(test)]
mod tests {
    use neff_isa::layout::Tensor;
    use neff_isa::payload::ActivateMut;
    use neff_isa::{EngineType, Opcode, SlotBuf};

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, read, row, run, slot, stream};
    use super::*;

    const F32: Dtype = Dtype::Float32;

    fn row3(addr: u32, n: u16) -> Tensor {
        Tensor {
            dims: 3,
            ..row(addr, n, F32)
        }
    }

    /// An ACTIVATE of 2 elements on 2 partitions, SBUF 0x100 -> 0x400: `func(x * 0.5 +
    /// bias[p])`, the bias an fp32 per partition at 0x300 (the attention kernels' shape: a
    /// PTR bias, an instruction scale).
    fn activate_slot(func: ActFunc) -> SlotBuf {
        slot(Opcode::ACTIVATE, |b| {
            ActivateMut(b)
                .func(func as u8)
                .src(row3(0x100, 2))
                .dst(row3(0x400, 2))
                .bias_dtype(F32 as u8)
                .channels(2)
                .bias_src(BiasSrc::Ptr as u8)
                .bias(0x300)
                .scale_src(ImmSrc::Instruction as u8)
                .scale(0.5f32.to_bits());
        })
    }

    /// Runs one ACTIVATE slot on the scalar engine over `x` (2 x 2) with `bias` (one per
    /// partition); returns the 2 x 2 result.
    fn on_act(s: SlotBuf, x: &[f64], bias: &[f64]) -> Vec<f64> {
        let bytes = stream(&[s]);
        let mut c = core(EngineType::Act, &bytes, Vec::new());
        fill(&mut c, 0x100, 2, F32, x);
        fill(&mut c, 0x300, 2, F32, bias);
        run(&mut c, &mut Hbm::default()).unwrap();
        read(&c, 0x400, 2, 2, F32)
    }

    /// Hand-computed: partition 0 is [1, 2] * 0.5 + 10, partition 1 is [3, 4] * 0.5 - 1.
    #[test]
    fn activate_slot_scales_then_adds_each_partitions_bias() {
        let got = on_act(
            activate_slot(ActFunc::Identity),
            &[1.0, 2.0, 3.0, 4.0],
            &[10.0, -1.0],
        );
        assert_eq!(got, [10.5, 11.0, 0.5, 1.0]);
    }

    /// exp(0 * 0.5 + 0) = 1, exp(2 * 0.5 + 0) = e, exp(0 - 1) = 1/e, exp(2 * 0.5 - 1) = 1.
    #[test]
    fn activate_slot_applies_its_function_after_the_affine_step() {
        let got = on_act(
            activate_slot(ActFunc::Exp),
            &[0.0, 2.0, 0.0, 2.0],
            &[0.0, -1.0],
        );
        let e = std::f64::consts::E;
        for (g, w) in got.iter().zip([1.0, e, 1.0 / e, 1.0]) {
            assert!((g - w).abs() <= 1e-6 * w, "{got:?}");
        }
    }

    #[test]
    fn an_accumulating_activate_stops_with_its_reason() {
        let mut s = activate_slot(ActFunc::Identity);
        ActivateMut(&mut s).accumulator_cmd(AccCmd::Reduce as u8);
        let bytes = stream(&[s]);
        let mut c = core(EngineType::Act, &bytes, Vec::new());
        let e = run(&mut c, &mut Hbm::default()).unwrap_err().to_string();
        assert!(e.contains("accumulator_cmd"), "{e}");
    }

    #[test]
    fn functions_from_hand_computed_values() {
        assert_eq!(function(ActFunc::Exp, 0.0), Some(1.0));
        assert_eq!(function(ActFunc::Relu, -2.0), Some(0.0));
        assert_eq!(function(ActFunc::Square, -3.0), Some(9.0));
        assert_eq!(function(ActFunc::Sign, -0.5), Some(-1.0));
        assert_eq!(function(ActFunc::Identity, 1.25), Some(1.25));
        assert_eq!(function(ActFunc::IsFinite, f32::INFINITY), Some(0.0));
        assert!((function(ActFunc::Exp, 1.0).unwrap() - std::f32::consts::E).abs() < 1e-6);
        assert_eq!(function(ActFunc::Silu, 0.0), Some(0.0));
    }
}
