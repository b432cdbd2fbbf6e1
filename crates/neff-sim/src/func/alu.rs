//! The element-wise ALU operations of the datapath engines (TENSOR_TENSOR, TENSOR_SCALAR,
//! TENSOR_REDUCE; the op byte of reference §4.7), in fp32: each result is rounded to fp32
//! (docs/run.md). Comparisons give 1.0 or 0.0. An op the model has no semantics for is `None`.

use neff_isa::AluOp;

/// `a op b` in fp32, or `None` for an op without semantics here.
#[cfg(test)]
pub(crate) fn apply(op: AluOp, a: f64, b: f64) -> Option<f64> {
    kernel(op).map(|k| f64::from(k(a as f32, b as f32)))
}

/// The fp32 function of `op` (chosen once per instruction, applied to every element), or `None`
/// for an op without semantics here.
pub(crate) fn kernel(op: AluOp) -> Option<fn(f32, f32) -> f32> {
    fn t(c: bool) -> f32 {
        if c { 1.0 } else { 0.0 }
    }
    Some(match op {
        AluOp::Bypass => |x, _| x,
        AluOp::Add => |x, y| x + y,
        AluOp::Subtract => |x, y| x - y,
        AluOp::Mult => |x, y| x * y,
        AluOp::Divide => |x, y| x / y,
        AluOp::Max => |x: f32, y| x.max(y),
        AluOp::Min => |x: f32, y| x.min(y),
        AluOp::IsEq => |x, y| t(x == y),
        AluOp::IsNe => |x, y| t(x != y),
        AluOp::IsGt => |x, y| t(x > y),
        AluOp::IsGe => |x, y| t(x >= y),
        AluOp::IsLe => |x, y| t(x <= y),
        AluOp::IsLt => |x, y| t(x < y),
        AluOp::AbsoluteDiff => |x: f32, y| (x - y).abs(),
        AluOp::AbsoluteValue => |x: f32, _| x.abs(),
        AluOp::Pow => |x: f32, y| x.powf(y),
        AluOp::Mod => |x, y| x % y,
        AluOp::Rsqrt => |x: f32, _| 1.0 / x.sqrt(),
        AluOp::LogicalAnd => |x, y| t(x != 0.0 && y != 0.0),
        AluOp::LogicalOr => |x, y| t(x != 0.0 || y != 0.0),
        AluOp::LogicalXor => |x, y| t((x != 0.0) != (y != 0.0)),
        _ => return None,
    })
}

/// The identity of a reduction with `op` (the value a reduction of nothing gives).
pub(crate) fn identity(op: AluOp) -> Option<f64> {
    Some(match op {
        AluOp::Add | AluOp::Subtract | AluOp::LogicalOr | AluOp::LogicalXor => 0.0,
        AluOp::Mult | AluOp::LogicalAnd => 1.0,
        AluOp::Max => f64::NEG_INFINITY,
        AluOp::Min => f64::INFINITY,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_values() {
        assert_eq!(apply(AluOp::Add, 1.5, 2.25), Some(3.75));
        assert_eq!(apply(AluOp::Subtract, 1.0, 3.0), Some(-2.0));
        assert_eq!(apply(AluOp::Mult, -2.0, 0.5), Some(-1.0));
        assert_eq!(apply(AluOp::Divide, 1.0, 4.0), Some(0.25));
        assert_eq!(apply(AluOp::Max, -1.0, -3.0), Some(-1.0));
        assert_eq!(apply(AluOp::IsGe, 2.0, 2.0), Some(1.0));
        assert_eq!(apply(AluOp::IsLt, 2.0, 2.0), Some(0.0));
        assert_eq!(apply(AluOp::Bypass, 7.0, 9.0), Some(7.0));
        // fp32 rounding: 1 + 2^-30 is 1 in fp32.
        assert_eq!(apply(AluOp::Add, 1.0, 2f64.powi(-30)), Some(1.0));
        assert_eq!(apply(AluOp::Crc32, 1.0, 1.0), None);
        assert_eq!(identity(AluOp::Max), Some(f64::NEG_INFINITY));
    }
}
