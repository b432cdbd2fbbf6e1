//! The datapath's element-wise and reduce ops (vector / gpsimd / scalar engines):
//! TENSOR_TENSOR `dst = src0 op src1`, TENSOR_SCALAR `dst = (src op0 imm0) op1 imm1` with each
//! immediate an fp32 in the instruction or a per-partition SBUF value (`imm_src` PTR),
//! TENSOR_REDUCE along X (the innermost dimension of the source pattern; the remaining
//! dimensions give the destination's elements, in order; `negated` negates the result), and
//! MEMSET (the value's bits in the destination dtype). Semantics per NKI `tensor_tensor`,
//! `tensor_scalar`, `tensor_reduce`, `memset`; arithmetic in fp32 ([`super::alu`]).

use neff_isa::payload::{Memset, TensorReduce, TensorScalar, TensorTensor};
use neff_isa::{AluOp, Dtype, ImmSrc, ReduceDim};

use super::access::Access;
use super::activate::per_partition;
use super::alu;
use super::core::Core;

fn dt(r: Result<Dtype, u8>, what: &str) -> Result<Dtype, String> {
    r.map_err(|b| format!("{what} dtype {b:#04x} is not a dtype"))
}

fn op_of(r: Result<AluOp, u8>) -> Result<AluOp, String> {
    r.map_err(|b| format!("ALU op {b:#04x} has no semantics"))
}

fn no_op(op: AluOp) -> String {
    format!("ALU op {} has no semantics", op.text())
}

/// TENSOR_TENSOR_ARITH_OP.
pub(crate) fn tensor_tensor(core: &mut Core<'_>, t: &TensorTensor<'_>) -> Result<(), String> {
    let op = op_of(t.op())?;
    let ch = usize::from(t.channels());
    let a = Access::new(&t.src0(), ch, dt(t.in0_dtype(), "src0")?);
    let b = Access::new(&t.src1(), ch, dt(t.in1_dtype(), "src1")?);
    let d = Access::new(&t.dst(), ch, dt(t.out_dtype(), "dst")?);
    let n = a.per_partition();
    if b.per_partition() != n || d.per_partition() != n {
        return Err(format!(
            "src0 / src1 / dst have {n} / {} / {} elements per partition",
            b.per_partition(),
            d.per_partition()
        ));
    }
    let f = alu::kernel(op).ok_or_else(|| no_op(op))?;
    let mut x = a
        .read_f32(&core.chip)
        .map_err(|e| format!("src0: {}", e.0))?;
    let y = b
        .read_f32(&core.chip)
        .map_err(|e| format!("src1: {}", e.0))?;
    for (p, &q) in x.iter_mut().zip(&y) {
        *p = f(*p, q);
    }
    core.work.elementwise += x.len() as u64;
    d.write_f32(&mut core.chip, &x)
        .map_err(|e| format!("dst: {}", e.0))
}

/// One TENSOR_SCALAR immediate per partition.
fn immediate(
    core: &Core<'_>,
    src: Result<ImmSrc, u8>,
    bits: u32,
    partition0: usize,
    ch: usize,
) -> Result<Vec<f64>, String> {
    match src {
        Ok(ImmSrc::Instruction) => Ok(vec![f64::from(f32::from_bits(bits)); ch]),
        Ok(ImmSrc::Ptr) => per_partition(core, bits, partition0, ch, Dtype::Float32),
        other => Err(format!("immediate source {other:?} has no semantics")),
    }
}

/// TENSOR_SCALAR_ARITH_OP.
pub(crate) fn tensor_scalar(core: &mut Core<'_>, t: &TensorScalar<'_>) -> Result<(), String> {
    let (op0, op1) = (op_of(t.op0())?, op_of(t.op1())?);
    let ch = usize::from(t.channels());
    let s = Access::new(&t.src(), ch, dt(t.in_dtype(), "src")?);
    let d = Access::new(&t.dst(), ch, dt(t.out_dtype(), "dst")?);
    let n = s.per_partition();
    if d.per_partition() != n {
        return Err(format!(
            "src has {n} elements per partition, dst {}",
            d.per_partition()
        ));
    }
    let i0 = immediate(core, t.imm0_src(), t.imm0(), s.at.partition, ch)?;
    let i1 = immediate(core, t.imm1_src(), t.imm1(), s.at.partition, ch)?;
    let f0 = alu::kernel(op0).ok_or_else(|| no_op(op0))?;
    let f1 = alu::kernel(op1).ok_or_else(|| no_op(op1))?;
    let mut v = s
        .read_f32(&core.chip)
        .map_err(|e| format!("src: {}", e.0))?;
    for (p, row) in v.chunks_mut(n.max(1)).enumerate() {
        let (a, b) = (i0[p] as f32, i1[p] as f32);
        for x in row {
            *x = f1(f0(*x, a), b);
        }
    }
    core.work.elementwise += v.len() as u64;
    d.write_f32(&mut core.chip, &v)
        .map_err(|e| format!("dst: {}", e.0))
}

/// TENSOR_REDUCE_ARITH_OP.
pub(crate) fn tensor_reduce(core: &mut Core<'_>, t: &TensorReduce<'_>) -> Result<(), String> {
    let op = op_of(t.op())?;
    if t.dim() != Ok(ReduceDim::X) {
        return Err(format!("reduce dim {:?} has no semantics", t.dim()));
    }
    let ch = usize::from(t.channels());
    let s = Access::new(&t.src(), ch, dt(t.in_dtype(), "src")?);
    let d = Access::new(&t.dst(), ch, dt(t.out_dtype(), "dst")?);
    let inner = s.num[0];
    let n = s.per_partition();
    let outs = n / inner.max(1);
    if d.per_partition() != outs {
        return Err(format!(
            "reducing {inner} of {n} elements gives {outs} per partition, dst holds {}",
            d.per_partition()
        ));
    }
    let init = alu::identity(op).ok_or_else(|| no_op(op))? as f32;
    let f = alu::kernel(op).ok_or_else(|| no_op(op))?;
    let v = s
        .read_f32(&core.chip)
        .map_err(|e| format!("src: {}", e.0))?;
    let mut out = Vec::with_capacity(outs * ch);
    for group in v.chunks(inner.max(1)) {
        let acc = group.iter().fold(init, |acc, &x| f(acc, x));
        out.push(if t.negated() != 0 { -acc } else { acc });
    }
    // A reduction's work is the elements it folds, not the few it writes (decision D752).
    core.work.elementwise += v.len() as u64;
    d.write_f32(&mut core.chip, &out)
        .map_err(|e| format!("dst: {}", e.0))
}

/// MEMSET.
pub(crate) fn memset(core: &mut Core<'_>, m: &Memset<'_>) -> Result<(), String> {
    let dtype = dt(m.dtype(), "dst")?;
    let ch = usize::from(m.channels());
    let d = Access::new(&m.dst(), ch, dtype);
    let size = dtype.size().ok_or("dst dtype has no width")? as usize;
    let bits = m.value().to_le_bytes();
    let one = &bits[..size.min(4)];
    if size > 4 {
        return Err(format!("MEMSET of {} has no semantics", dtype.text()));
    }
    core.work.elementwise += (d.per_partition() * ch) as u64;
    d.fill_raw(&mut core.chip, one)
        .map_err(|e| format!("dst: {}", e.0))
}

#[cfg(test)]
mod tests {
    use neff_isa::layout::Tensor;
    use neff_isa::payload::{MemsetMut, TensorReduceMut, TensorScalarMut, TensorTensorMut};
    use neff_isa::{AluOp, Dtype, EngineType, ImmSrc, Opcode, ReduceDim, SlotBuf};

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, read, row, run, slot, stream};

    const F32: Dtype = Dtype::Float32;

    fn row3(addr: u32, n: u16, dtype: Dtype) -> Tensor {
        Tensor {
            dims: 3,
            ..row(addr, n, dtype)
        }
    }

    /// Runs `s` on the vector engine with SBUF 0x100 holding `values` over 2 partitions (and
    /// 0x300 holding `other`); returns `n` elements per partition at 0x400.
    fn on_dve(s: SlotBuf, values: &[f64], other: &[f64], n: u16) -> Vec<f64> {
        let bytes = stream(&[s]);
        let mut c = core(EngineType::Dve, &bytes, Vec::new());
        fill(&mut c, 0x100, 2, F32, values);
        if !other.is_empty() {
            fill(&mut c, 0x300, 2, F32, other);
        }
        run(&mut c, &mut Hbm::default()).unwrap();
        read(&c, 0x400, 2, n, F32)
    }

    #[test]
    fn tensor_tensor_subtracts_element_by_element() {
        let s = slot(Opcode::TENSOR_TENSOR_ARITH_OP, |b| {
            TensorTensorMut(b)
                .op(AluOp::Subtract as u8)
                .src0(row3(0x100, 2, F32))
                .src1(row3(0x300, 2, F32))
                .dst(row3(0x400, 2, F32))
                .channels(2);
        });
        let got = on_dve(s, &[5.0, 1.0, 2.0, 0.5], &[1.0, 3.0, 0.5, 0.5], 2);
        assert_eq!(got, [4.0, -2.0, 1.5, 0.0]);
    }

    /// `(x * 2) + imm1`, imm1 per partition from SBUF 0x300 (PTR): partition 0 adds 10, 1 adds 20.
    #[test]
    fn tensor_scalar_with_an_instruction_and_a_pointer_immediate() {
        let s = slot(Opcode::TENSOR_SCALAR_ARITH_OP, |b| {
            TensorScalarMut(b)
                .op0(AluOp::Mult as u8)
                .op1(AluOp::Add as u8)
                .imm0_src(ImmSrc::Instruction as u8)
                .imm0(2.0f32.to_bits())
                .imm1_src(ImmSrc::Ptr as u8)
                .imm1(0x300)
                .src(row3(0x100, 2, F32))
                .dst(row3(0x400, 2, F32))
                .channels(2);
        });
        let got = on_dve(s, &[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0], 2);
        assert_eq!(got, [12.0, 14.0, 26.0, 28.0]);
    }

    /// MAX over X of [[1, 7, 3], [-4, -2, -9]] is [7, -2]; negated, [-7, 2].
    #[test]
    fn tensor_reduce_max_along_x_and_negated() {
        let reduce = |negated: u8| {
            slot(Opcode::TENSOR_REDUCE_ARITH_OP, |b| {
                TensorReduceMut(b)
                    .op(AluOp::Max as u8)
                    .dim(ReduceDim::X as u8)
                    .negated(negated)
                    .src(row(0x100, 3, F32))
                    .dst(row(0x400, 1, F32))
                    .channels(2);
            })
        };
        let v = [1.0, 7.0, 3.0, -4.0, -2.0, -9.0];
        assert_eq!(on_dve(reduce(0), &v, &[], 1), [7.0, -2.0]);
        assert_eq!(on_dve(reduce(1), &v, &[], 1), [-7.0, 2.0]);
    }

    /// MEMSET writes the value's bits: fp32 -1e9 is 0xce6e6b28 (attn_v6's mask fill, D136).
    #[test]
    fn memset_writes_the_value_bits() {
        let s = slot(Opcode::MEMSET, |b| {
            MemsetMut(b)
                .value(0xce6e_6b28)
                .dst(row(0x400, 3, F32))
                .channels(2)
                .num_elem(3);
        });
        assert_eq!(on_dve(s, &[0.0; 2], &[], 3), [-1e9; 6]);
    }
}
