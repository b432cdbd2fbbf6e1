//! COPY 0x46, CAST 0x47 and RECIPROCAL 0x48 (the `S4D4` layout, reference §4.5): element `i`
//! of the source pattern goes to element `i` of the destination pattern, partition by partition.
//! A COPY between equal dtypes moves the bytes (bit-exact: matmul_small moves fp16 pairs as i32);
//! otherwise the value is converted with the destination's rounding ([`super::convert`]).
//! RECIPROCAL computes `1 / x` in fp32.

use neff_isa::Opcode;
use neff_isa::payload::CopyCast;

use super::access::Access;
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
        return dst
            .write_raw(&mut core.chip, &b)
            .map_err(|b| format!("dst: {}", b.0));
    }
    let mut v = src.read(&core.chip).map_err(|b| format!("src: {}", b.0))?;
    if op == Opcode::RECIPROCAL {
        for x in &mut v {
            *x = f64::from(1.0f32 / (*x as f32));
        }
    }
    dst.write(&mut core.chip, &v)
        .map_err(|b| format!("dst: {}", b.0))
}
