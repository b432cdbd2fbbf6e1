//! COPY 0x46, CAST 0x47 and RECIPROCAL 0x48 (the `S4D4` layout, reference §4.5): element `i`
//! of the source pattern goes to element `i` of the destination pattern, partition by partition.
//! A COPY between equal dtypes moves the bytes (bit-exact: matmul_small moves fp16 pairs as i32);
//! otherwise the value is converted with the destination's rounding ([`super::convert`]).
//! RECIPROCAL computes `1 / x` in fp32.

use neff_isa::Opcode;
use neff_isa::payload::CopyCast;

use super::access::Access;
use super::convert;
use super::core::Core;

/// COPY / CAST / RECIPROCAL.
pub(crate) fn copy_cast(core: &mut Core<'_>, c: &CopyCast<'_>, op: Opcode) -> Result<(), String> {
    let dt = |r: Result<neff_isa::Dtype, u8>, what: &str| {
        r.map_err(|b| format!("{what} dtype byte {b:#04x} is not a dtype"))
    };
    let channels = usize::from(c.channels());
    let src = Access::new(&c.src(), channels, dt(c.in_dtype(), "src")?);
    let dst = Access::new(&c.dst(), channels, dt(c.out_dtype(), "dst")?);
    if src.per_partition() != dst.per_partition() {
        return Err(format!(
            "src has {} elements per partition, dst {}",
            src.per_partition(),
            dst.per_partition()
        ));
    }
    if op == Opcode::COPY && src.dtype == dst.dtype {
        let b = src
            .read_raw(&core.chip)
            .map_err(|b| format!("src: {}", b.0))?;
        core.work.elementwise += (b.len() / src.dtype.size().unwrap_or(1) as usize) as u64;
        return dst
            .write_raw(&mut core.chip, &b)
            .map_err(|b| format!("dst: {}", b.0));
    }
    // RECIPROCAL computes in fp32; a CAST between float types moves values every fp32 holds
    // exactly: both take the fp32 path. Any other CAST converts through f64 (an int64 does not
    // fit an fp32).
    if op == Opcode::RECIPROCAL || (convert::is_float(src.dtype) && convert::is_float(dst.dtype)) {
        let mut v = src
            .read_f32(&core.chip)
            .map_err(|b| format!("src: {}", b.0))?;
        if op == Opcode::RECIPROCAL {
            for x in &mut v {
                *x = 1.0 / *x;
            }
        }
        core.work.elementwise += v.len() as u64;
        return dst
            .write_f32(&mut core.chip, &v)
            .map_err(|b| format!("dst: {}", b.0));
    }
    let v = src.read(&core.chip).map_err(|b| format!("src: {}", b.0))?;
    core.work.elementwise += v.len() as u64;
    dst.write(&mut core.chip, &v)
        .map_err(|b| format!("dst: {}", b.0))
}

#[cfg(test)]
mod tests {
    use neff_isa::payload::CopyCastMut;
    use neff_isa::{Dtype, EngineType, Opcode};

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, read, row, run, slot, stream};

    fn one(op: Opcode, from: Dtype, to: Dtype, values: &[f64]) -> Vec<f64> {
        let n = values.len() as u16 / 2;
        let s = slot(op, |b| {
            CopyCastMut(b)
                .src(row(0x100, n, from))
                .dst(row(0x400, n, to))
                .channels(2);
        });
        let bytes = stream(&[s]);
        let mut c = core(EngineType::Act, &bytes, Vec::new());
        fill(&mut c, 0x100, 2, from, values);
        run(&mut c, &mut Hbm::default()).unwrap();
        read(&c, 0x400, 2, n, to)
    }

    #[test]
    fn copy_moves_values_per_partition() {
        let v = [1.5, -2.0, 3.25, 0.0];
        assert_eq!(one(Opcode::COPY, Dtype::Float32, Dtype::Float32, &v), v);
    }

    /// fp32 -> bf16 rounds to nearest even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (even: 1),
    /// 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
    #[test]
    fn cast_rounds_to_nearest_even() {
        let v = [1.0 + 2f64.powi(-8), 1.0 + 3.0 * 2f64.powi(-8)];
        let want = [1.0, 1.0 + 2f64.powi(-6)];
        assert_eq!(one(Opcode::CAST, Dtype::Float32, Dtype::Bfloat16, &v), want);
    }

    #[test]
    fn reciprocal_is_one_over_x() {
        let v = [4.0, -0.5];
        assert_eq!(
            one(Opcode::RECIPROCAL, Dtype::Float32, Dtype::Float32, &v),
            [0.25, -2.0]
        );
    }
}
