//! TENSOR_SCALAR_AFFINE_SELECT 0x92 (decision D600): NKI `affine_select` — for partition `c` of
//! the operand and element `(w, z, y, x)` of the pattern, `value = offset + c * channel_multiplier
//! + w * step_w + z * step_z + y * step_y + x * step_x`; where `value cmp 0` holds the output is
//! the source element, else the fill value (an fp32 from the register +0x0F names). attn_v6 builds
//! its identity matrices this way: memset 0, then `i - c != 0 ? 0 : 1.0`.

use neff_isa::payload::AffineSelect;

use super::access::Access;
use super::core::Core;

/// The compare ops with semantics: the one byte the corpus holds (D600).
fn compare(op: u8, value: i64) -> Result<bool, String> {
    match op {
        // D600: 0x03 is "not equal" (the only reading under which both real slots build the
        // identity their BIR names say, `id.float32` / `id.bfloat16`).
        0x03 => Ok(value != 0),
        other => Err(format!("affine compare op {other:#04x} has no semantics")),
    }
}

/// The affine value of each element of one partition, in pattern order (innermost first).
fn affine_values(a: &AffineSelect<'_>, channel: i64) -> Vec<i64> {
    let step = a.step().map(|s| i64::from(s as i16));
    let num = a.num().map(usize::from);
    let base = i64::from(a.offset() as i32) + channel * i64::from(a.channel_multiplier() as i32);
    let mut out = Vec::with_capacity(num.iter().product());
    for w in 0..num[3] as i64 {
        for z in 0..num[2] as i64 {
            for y in 0..num[1] as i64 {
                for x in 0..num[0] as i64 {
                    out.push(base + w * step[3] + z * step[2] + y * step[1] + x * step[0]);
                }
            }
        }
    }
    out
}

/// TENSOR_SCALAR_AFFINE_SELECT on engine `e` (whose registers hold the fill value).
pub(crate) fn affine_select(
    core: &mut Core<'_>,
    e: usize,
    a: &AffineSelect<'_>,
) -> Result<(), String> {
    let dt = |r: Result<neff_isa::Dtype, u8>, what: &str| {
        r.map_err(|b| format!("{what} dtype {b:#04x} is not a dtype"))
    };
    let ch = usize::from(a.channels());
    let s = Access::new(&a.src(), ch, dt(a.in_dtype(), "src")?);
    let d = Access::new(&a.dst(), ch, dt(a.out_dtype(), "dst")?);
    let n = s.per_partition();
    let pattern: usize = a.num().iter().map(|&k| usize::from(k)).product();
    if d.per_partition() != n || pattern != n {
        return Err(format!(
            "src / dst / predicate pattern have {n} / {} / {pattern} elements per partition",
            d.per_partition()
        ));
    }
    let fill = f64::from(f32::from_bits(core.engines[e].regs.get(a.fill_reg()) as u32));
    let mut v = s.read(&core.chip).map_err(|b| format!("src: {}", b.0))?;
    for (c, row) in v.chunks_mut(n.max(1)).enumerate() {
        for (x, value) in row.iter_mut().zip(affine_values(a, c as i64)) {
            if !compare(a.cmp_op(), value)? {
                *x = fill;
            }
        }
    }
    core.work.elementwise += v.len() as u64;
    d.write(&mut core.chip, &v)
        .map_err(|b| format!("dst: {}", b.0))
}

#[cfg(test)]
mod tests {
    use neff_isa::payload::AffineSelectMut;
    use neff_isa::{Dtype, EngineType, Opcode};

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, read, row, run, slot, stream};

    /// One affine select over 4 partitions of 4 fp32 elements, `cmp_op` against
    /// `offset - c + x`, the fill 1.0 in register 61 (as attn_v6's MOVE puts it).
    fn select(cmp_op: u8, offset: i32) -> Result<Vec<f64>, String> {
        let s = slot(Opcode::TENSOR_SCALAR_AFFINE_SELECT, |b| {
            AffineSelectMut(b)
                .src(row(0x100, 4, Dtype::Float32))
                .dst(row(0x200, 4, Dtype::Float32))
                .channels(4)
                .cmp_op(cmp_op)
                .fill_reg(61)
                .offset(offset as u32)
                .step([1, 0, 0, 0])
                .num([4, 1, 1, 1])
                .channel_multiplier(-1i32 as u32);
        });
        let bytes = stream(&[s]);
        let mut c = core(EngineType::Pool, &bytes, Vec::new());
        c.engines[0].regs.set(61, u64::from(1.0f32.to_bits()));
        fill(&mut c, 0x100, 4, Dtype::Float32, &[5.0; 16]);
        run(&mut c, &mut Hbm::default()).map_err(|e| e.to_string())?;
        Ok(read(&c, 0x200, 4, 4, Dtype::Float32))
    }

    /// attn_v6's identity: `x - c != 0` keeps the source, the diagonal takes the fill.
    #[test]
    fn not_equal_builds_the_identity_pattern() {
        #[rustfmt::skip]
        let want = [
            1.0, 5.0, 5.0, 5.0,
            5.0, 1.0, 5.0, 5.0,
            5.0, 5.0, 1.0, 5.0,
            5.0, 5.0, 5.0, 1.0,
        ];
        assert_eq!(select(0x03, 0).unwrap(), want);
    }

    /// The offset shifts the diagonal: `1 - c + x == 0` at `x = c - 1`.
    #[test]
    fn the_offset_shifts_the_selected_diagonal() {
        #[rustfmt::skip]
        let want = [
            5.0, 5.0, 5.0, 5.0,
            1.0, 5.0, 5.0, 5.0,
            5.0, 1.0, 5.0, 5.0,
            5.0, 5.0, 1.0, 5.0,
        ];
        assert_eq!(select(0x03, 1).unwrap(), want);
    }

    #[test]
    fn an_unknown_compare_op_names_itself_and_the_slot() {
        let e = select(0x07, 0).unwrap_err();
        assert!(e.contains("compare op 0x07"), "{e}");
        assert!(e.contains("slot 0"), "{e}");
    }
}
