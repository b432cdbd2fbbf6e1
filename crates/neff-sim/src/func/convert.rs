//! Element conversion, in one place: every dtype an operand or a tensor can have, read to an
//! `f64` and written back with the hardware's rounding as far as the evidence tells (docs/run.md;
//! decision D483): floats round to nearest, ties to even (IEEE, the `half` crate for fp16 and
//! bf16, the same rule by hand for the fp8 forms); integers round to nearest and saturate.

use half::{bf16, f16};
use neff_isa::Dtype;
use neff_kelf::KbinDtype;

/// Bytes per element of `d` (`None` for `Invalid`).
#[inline]
pub fn size(d: Dtype) -> Option<usize> {
    d.size().map(|s| s as usize)
}

/// The neff-isa dtype of a kbin / manifest dtype (the same element types, two code tables).
pub fn from_kbin(d: KbinDtype) -> Dtype {
    match d {
        KbinDtype::Float8E3 => Dtype::Fp8E3,
        KbinDtype::Float8E4 => Dtype::Fp8E4,
        KbinDtype::Float8E5 => Dtype::Fp8E5,
        KbinDtype::Float16 => Dtype::Float16,
        KbinDtype::Float32 => Dtype::Float32,
        KbinDtype::Float32R => Dtype::Float32R,
        KbinDtype::Bfloat16 => Dtype::Bfloat16,
        KbinDtype::Uint8 => Dtype::Uint8,
        KbinDtype::Uint16 => Dtype::Uint16,
        KbinDtype::Uint32 => Dtype::Uint32,
        KbinDtype::Uint64 => Dtype::Uint64,
        KbinDtype::Int8 => Dtype::Int8,
        KbinDtype::Int16 => Dtype::Int16,
        KbinDtype::Int32 => Dtype::Int32,
        KbinDtype::Int64 => Dtype::Int64,
    }
}

/// The manifest name of `d` (`float16`), as neff.json and tensor_map.json spell it.
pub fn manifest_name(d: Dtype) -> &'static str {
    match d {
        Dtype::Invalid => "invalid",
        Dtype::Uint64 => "uint64",
        Dtype::Int8 => "int8",
        Dtype::Uint8 => "uint8",
        Dtype::Int16 => "int16",
        Dtype::Uint16 => "uint16",
        Dtype::Bfloat16 => "bfloat16",
        Dtype::Float16 => "float16",
        Dtype::Int32 => "int32",
        Dtype::Uint32 => "uint32",
        Dtype::Float32 => "float32",
        Dtype::Float32R => "float32r",
        Dtype::Int64 => "int64",
        Dtype::Fp8E3 => "float8e3",
        Dtype::Fp8E4 => "float8e4",
        Dtype::Fp8E5 => "float8e5",
    }
}

/// Whether `d` is a floating-point type.
pub fn is_float(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::Bfloat16
            | Dtype::Float16
            | Dtype::Float32
            | Dtype::Float32R
            | Dtype::Fp8E3
            | Dtype::Fp8E4
            | Dtype::Fp8E5
    )
}

/// An fp8 format: exponent and mantissa bits, and whether the all-ones exponent is inf / NaN
/// (IEEE-like e5m2) or an ordinary binade (OCP e4m3 keeps only S.1111.111 as NaN; e3m4 likewise).
#[derive(Debug, Clone, Copy)]
struct Mini {
    exp: u32,
    man: u32,
    ieee: bool,
}

fn mini(d: Dtype) -> Option<Mini> {
    Some(match d {
        Dtype::Fp8E3 => Mini {
            exp: 3,
            man: 4,
            ieee: false,
        },
        Dtype::Fp8E4 => Mini {
            exp: 4,
            man: 3,
            ieee: false,
        },
        Dtype::Fp8E5 => Mini {
            exp: 5,
            man: 2,
            ieee: true,
        },
        _ => return None,
    })
}

impl Mini {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }

    fn decode(self, b: u8) -> f64 {
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = i32::from(b >> self.man) & ((1 << self.exp) - 1);
        let m = f64::from(u32::from(b) & ((1 << self.man) - 1));
        let top = (1 << self.exp) - 1;
        let scale = f64::from(1u32 << self.man);
        if self.ieee && e == top {
            return if m == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if !self.ieee && e == top && m == scale - 1.0 {
            return f64::NAN;
        }
        if e == 0 {
            sign * m / scale * 2f64.powi(1 - self.bias())
        } else {
            sign * (1.0 + m / scale) * 2f64.powi(e - self.bias())
        }
    }

    /// The largest finite value.
    fn max(self) -> f64 {
        let top = (1 << self.exp) - 1;
        let scale = f64::from(1u32 << self.man);
        if self.ieee {
            (2.0 - 1.0 / scale) * 2f64.powi(top - 1 - self.bias())
        } else {
            (2.0 - 2.0 / scale) * 2f64.powi(top - self.bias())
        }
    }

    /// Round to nearest even, saturating to the largest finite value (def.json
    /// `fp8_conversion_config.ocp_sat: true` in the corpus).
    fn encode(self, v: f64) -> u8 {
        let sign = if v.is_sign_negative() { 0x80u8 } else { 0 };
        if v.is_nan() {
            return if self.ieee { 0x7f } else { sign | 0x7f };
        }
        let a = v.abs().min(self.max());
        // Quantum of the binade of `a` (subnormals share the smallest binade's quantum).
        let min_exp = 1 - self.bias();
        let e = if a == 0.0 {
            min_exp
        } else {
            (a.log2().floor() as i32).max(min_exp)
        };
        let q = 2f64.powi(e - self.man as i32);
        let r = (a / q).round_ties_even() * q;
        let r = r.min(self.max());
        // Encode r exactly.
        if r == 0.0 {
            return sign;
        }
        let scale = f64::from(1u32 << self.man);
        let e = (r.log2().floor() as i32).max(min_exp);
        let (be, m) = if r < 2f64.powi(min_exp) {
            (0, (r / 2f64.powi(min_exp) * scale).round() as u32)
        } else {
            let m = ((r / 2f64.powi(e) - 1.0) * scale).round() as u32;
            ((e + self.bias()) as u32, m)
        };
        sign | ((be << self.man) | m) as u8
    }
}

/// Reads one element of `d` from `b` (at least `size(d)` bytes, little-endian). Inlined: the
/// row walks of func/access.rs call it with a constant `d` (decision D750), and always (D821:
/// left to the compiler it stayed a call, the dtype matched per element, in `read_f32`).
#[inline(always)]
pub fn read(d: Dtype, b: &[u8]) -> f64 {
    let a2 = |b: &[u8]| [b[0], b[1]];
    let a4 = |b: &[u8]| [b[0], b[1], b[2], b[3]];
    let a8 = |b: &[u8]| [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    match d {
        Dtype::Float32 | Dtype::Float32R => f64::from(f32::from_le_bytes(a4(b))),
        Dtype::Bfloat16 => f64::from(bf16::from_le_bytes(a2(b)).to_f32()),
        Dtype::Float16 => f64::from(f16::from_le_bytes(a2(b)).to_f32()),
        Dtype::Int8 => f64::from(b[0] as i8),
        Dtype::Uint8 => f64::from(b[0]),
        Dtype::Int16 => f64::from(i16::from_le_bytes(a2(b))),
        Dtype::Uint16 => f64::from(u16::from_le_bytes(a2(b))),
        Dtype::Int32 => f64::from(i32::from_le_bytes(a4(b))),
        Dtype::Uint32 => f64::from(u32::from_le_bytes(a4(b))),
        Dtype::Int64 => i64::from_le_bytes(a8(b)) as f64,
        Dtype::Uint64 => u64::from_le_bytes(a8(b)) as f64,
        Dtype::Fp8E3 | Dtype::Fp8E4 | Dtype::Fp8E5 => mini(d).map_or(0.0, |m| m.decode(b[0])),
        Dtype::Invalid => 0.0,
    }
}

/// Writes `v` as one element of `d` into `b` (at least `size(d)` bytes), rounding as the
/// module documentation says. Inlined as [`read`] is.
#[inline(always)]
pub fn write(d: Dtype, v: f64, b: &mut [u8]) {
    fn int<T: Copy>(v: f64, lo: f64, hi: f64, f: impl Fn(f64) -> T) -> T {
        let r = if v.is_nan() {
            0.0
        } else {
            v.round_ties_even().clamp(lo, hi)
        };
        f(r)
    }
    match d {
        Dtype::Float32 | Dtype::Float32R => b[..4].copy_from_slice(&(v as f32).to_le_bytes()),
        // Through an fp32 rounded to odd, never `half`'s `from_f64` (decision D683).
        Dtype::Bfloat16 => b[..2].copy_from_slice(&bf16::from_f32(to_f32_odd(v)).to_le_bytes()),
        Dtype::Float16 => b[..2].copy_from_slice(&f16::from_f32(to_f32_odd(v)).to_le_bytes()),
        Dtype::Int8 => b[0] = int(v, -128.0, 127.0, |r| r as i8) as u8,
        Dtype::Uint8 => b[0] = int(v, 0.0, 255.0, |r| r as u8),
        Dtype::Int16 => {
            let x = int(v, -32768.0, 32767.0, |r| r as i16);
            b[..2].copy_from_slice(&x.to_le_bytes());
        }
        Dtype::Uint16 => {
            let x = int(v, 0.0, 65535.0, |r| r as u16);
            b[..2].copy_from_slice(&x.to_le_bytes());
        }
        Dtype::Int32 => {
            let x = int(v, -2147483648.0, 2147483647.0, |r| r as i32);
            b[..4].copy_from_slice(&x.to_le_bytes());
        }
        Dtype::Uint32 => {
            let x = int(v, 0.0, 4294967295.0, |r| r as u32);
            b[..4].copy_from_slice(&x.to_le_bytes());
        }
        Dtype::Int64 => b[..8].copy_from_slice(
            &(int(v, i64::MIN as f64, i64::MAX as f64, |r| r as i64)).to_le_bytes(),
        ),
        Dtype::Uint64 => {
            b[..8].copy_from_slice(&(int(v, 0.0, u64::MAX as f64, |r| r as u64)).to_le_bytes())
        }
        Dtype::Fp8E3 | Dtype::Fp8E4 | Dtype::Fp8E5 => {
            if let Some(m) = mini(d) {
                b[0] = m.encode(v);
            }
        }
        Dtype::Invalid => {}
    }
}

/// `v` rounded to what `d` can hold (write then read).
pub fn round(d: Dtype, v: f64) -> f64 {
    let mut b = [0u8; 8];
    write(d, v, &mut b);
    read(d, &b)
}

/// `v` as an fp32 rounded to odd: exact when it is one, else the fp32 toward zero with its
/// lowest bit set. Rounding that to nearest even in bf16 or fp16 (8 and 11 bits, at least two
/// fewer than fp32's 24) is the correctly rounded `v` (the classic round-to-odd argument):
/// `half`'s `from_f64` drops the low 32 bits of the f64 before it rounds, so a value just above
/// a tie (1 + 2^-8 + 2^-23 for bf16) came out as the tie, rounded down (decision D683).
#[inline]
fn to_f32_odd(v: f64) -> f32 {
    let f = v as f32;
    if !f.is_finite() || f64::from(f) == v {
        return f;
    }
    let mut bits = f.to_bits();
    if f64::from(f).abs() > v.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 + 2^-8 + 2^-23 is just above the bf16 tie between 1 and 1 + 2^-7: it rounds up
    /// (`half::bf16::from_f64` gave 1.0); 1 + 2^-11 + 2^-23 likewise for fp16. A value with bits
    /// below fp32's (1 + 2^-8 + 2^-40) too, and negative ones.
    #[test]
    fn just_above_a_tie_rounds_up() {
        let up = 1.0 + 2f64.powi(-7);
        assert_eq!(
            round(Dtype::Bfloat16, 1.0 + 2f64.powi(-8) + 2f64.powi(-23)),
            up
        );
        assert_eq!(
            round(Dtype::Bfloat16, 1.0 + 2f64.powi(-8) + 2f64.powi(-40)),
            up
        );
        assert_eq!(
            round(Dtype::Bfloat16, -(1.0 + 2f64.powi(-8) + 2f64.powi(-40))),
            -up
        );
        assert_eq!(round(Dtype::Bfloat16, 1.0 + 2f64.powi(-8)), 1.0);
        let up16 = 1.0 + 2f64.powi(-10);
        assert_eq!(
            round(Dtype::Float16, 1.0 + 2f64.powi(-11) + 2f64.powi(-23)),
            up16
        );
        assert_eq!(
            round(Dtype::Float16, 1.0 + 2f64.powi(-11) + 2f64.powi(-45)),
            up16
        );
    }

    #[test]
    fn fp16_and_bf16_round_to_nearest_even() {
        // 1 + 2^-11 is halfway between fp16 1.0 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(round(Dtype::Float16, 1.0 + 2f64.powi(-11)), 1.0);
        // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: to even (1 + 2^-9).
        assert_eq!(
            round(Dtype::Float16, 1.0 + 3.0 * 2f64.powi(-11)),
            1.0 + 2f64.powi(-9)
        );
        // bf16 keeps 8 mantissa bits: 1 + 2^-8 ties to 1.0, 1 + 3 * 2^-9 to 1 + 2^-7.
        assert_eq!(round(Dtype::Bfloat16, 1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(
            round(Dtype::Bfloat16, 1.0 + 3.0 * 2f64.powi(-9)),
            1.0 + 2f64.powi(-7)
        );
        assert_eq!(round(Dtype::Float16, 65520.0), f64::INFINITY);
    }

    #[test]
    fn fp8_formats() {
        // e4m3 (OCP): max 448, saturating; 1.0 = 0x38.
        let mut b = [0u8; 1];
        write(Dtype::Fp8E4, 1.0, &mut b);
        assert_eq!(b[0], 0x38);
        assert_eq!(round(Dtype::Fp8E4, 1000.0), 448.0);
        assert_eq!(round(Dtype::Fp8E4, -1000.0), -448.0);
        // e5m2: max 57344; 1.0 = 0x3C; 1.125 is halfway between 1.0 and 1.25 -> 1.0.
        write(Dtype::Fp8E5, 1.0, &mut b);
        assert_eq!(b[0], 0x3c);
        assert_eq!(round(Dtype::Fp8E5, 1.125), 1.0);
        assert_eq!(round(Dtype::Fp8E5, 1e6), 57344.0);
        // Subnormal: e4m3's smallest is 2^-9.
        assert_eq!(round(Dtype::Fp8E4, 2f64.powi(-9)), 2f64.powi(-9));
        assert_eq!(read(Dtype::Fp8E4, &[0x01]), 2f64.powi(-9));
    }

    #[test]
    fn integers_round_and_saturate() {
        assert_eq!(round(Dtype::Int8, 2.5), 2.0);
        assert_eq!(round(Dtype::Int8, 300.0), 127.0);
        assert_eq!(round(Dtype::Uint8, -3.0), 0.0);
        assert_eq!(round(Dtype::Int32, -7.5), -8.0);
    }
}
