//! The sequencer's registers and the control ops that read and write them: ALU_OP (CTRL_AL,
//! spec 001 §2), COMPARE_BRANCH conditions (CTRL_BR, spec 001 §2), and the 32-bit register
//! loads and stores (TENSOR_LOAD / TENSOR_STORE, decision D52). Executing them is what makes a
//! loop take the path the hardware takes.

use std::collections::HashMap;

use neff_isa::{AluOp, BrCmpOp};

/// Registers per engine: the ALU register fields are one byte wide (spec 001 §2 `src0_lo`,
/// `dst_lo`).
pub(crate) const REGISTERS: usize = 256;

/// One engine's registers.
#[derive(Debug, Clone)]
pub struct Registers([u64; REGISTERS]);

impl Default for Registers {
    fn default() -> Self {
        Self([0; REGISTERS])
    }
}

impl Registers {
    /// `$R[r]`.
    #[inline]
    pub fn get(&self, r: u8) -> u64 {
        self.0[usize::from(r)]
    }

    /// `$R[r] = v`.
    #[inline]
    pub fn set(&mut self, r: u8, v: u64) {
        self.0[usize::from(r)] = v;
    }
}

/// ALU width: the 32-bit dtypes (INT32 8, UINT32 9; spec 001 §2 `add_add32_imm` stamps INT32)
/// wrap at 32 bits, anything else at 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// 32-bit signed.
    I32,
    /// 32-bit unsigned.
    U32,
    /// 64-bit.
    W64,
}

impl Width {
    /// The width of a DTYPE byte.
    pub fn of_dtype(dtype: u8) -> Self {
        match dtype {
            8 => Self::I32,
            9 => Self::U32,
            _ => Self::W64,
        }
    }

    fn wrap(self, v: u64) -> u64 {
        match self {
            Self::I32 | Self::U32 => v & 0xffff_ffff,
            Self::W64 => v,
        }
    }

    fn signed(self, v: u64) -> i64 {
        match self {
            Self::I32 => v as u32 as i32 as i64,
            Self::U32 => v as u32 as i64,
            Self::W64 => v as i64,
        }
    }
}

/// `a op b` for one ALU operation (reference §4.7 names); `None` for an op the register ALU
/// does not define (the tensor-only ops), which leaves the destination unchanged.
pub(crate) fn alu(op: AluOp, w: Width, a: u64, b: u64) -> Option<u64> {
    let (sa, sb) = (w.signed(a), w.signed(b));
    let (ua, ub) = (w.wrap(a), w.wrap(b));
    let flag = |c: bool| u64::from(c);
    let v = match op {
        AluOp::Bypass => b,
        AluOp::BitwiseNot => !a,
        AluOp::ArithShiftLeft | AluOp::LogicalShiftLeft => ua.checked_shl(ub as u32).unwrap_or(0),
        AluOp::ArithShiftRight => sa.checked_shr(ub as u32).unwrap_or(sa >> 63) as u64,
        AluOp::LogicalShiftRight => ua.checked_shr(ub as u32).unwrap_or(0),
        AluOp::Add | AluOp::AddInt => a.wrapping_add(b),
        AluOp::Subtract | AluOp::SubtractInt => a.wrapping_sub(b),
        AluOp::Mult | AluOp::MultInt => sa.wrapping_mul(sb) as u64,
        AluOp::MultUint => ua.wrapping_mul(ub),
        AluOp::Divide | AluOp::DivideInt => sa.checked_div(sb).unwrap_or(0) as u64,
        AluOp::DivideUint => ua.checked_div(ub).unwrap_or(0),
        AluOp::Mod | AluOp::ModInt => sa.checked_rem(sb).unwrap_or(0) as u64,
        AluOp::ModUint => ua.checked_rem(ub).unwrap_or(0),
        AluOp::Max | AluOp::MaxInt => sa.max(sb) as u64,
        AluOp::Min | AluOp::MinInt => sa.min(sb) as u64,
        AluOp::MaxUint => ua.max(ub),
        AluOp::MinUint => ua.min(ub),
        AluOp::BitwiseAnd => a & b,
        AluOp::BitwiseOr => a | b,
        AluOp::BitwiseXor => a ^ b,
        AluOp::LogicalAnd => flag(ua != 0 && ub != 0),
        AluOp::LogicalOr => flag(ua != 0 || ub != 0),
        AluOp::LogicalXor => flag((ua != 0) != (ub != 0)),
        AluOp::IsEq | AluOp::IsEqualInt => flag(ua == ub),
        AluOp::IsNe | AluOp::IsNeInt => flag(ua != ub),
        AluOp::IsGt | AluOp::IsGtInt => flag(sa > sb),
        AluOp::IsGe | AluOp::IsGeInt => flag(sa >= sb),
        AluOp::IsLe | AluOp::IsLeInt => flag(sa <= sb),
        AluOp::IsLt | AluOp::IsLtInt => flag(sa < sb),
        AluOp::IsGtUint => flag(ua > ub),
        AluOp::IsGeUint => flag(ua >= ub),
        AluOp::IsLeUint => flag(ua <= ub),
        AluOp::IsLtUint => flag(ua < ub),
        AluOp::AbsoluteDiff | AluOp::AbsDiffInt => sa.wrapping_sub(sb).unsigned_abs(),
        AluOp::AbsoluteValue | AluOp::AbsValueInt => sa.unsigned_abs(),
        _ => return None,
    };
    Some(w.wrap(v))
}

/// Whether a COMPARE_BRANCH with `op` jumps, comparing `$R[cmp_reg]` (32-bit signed, the
/// builders' INT32) with the immediate (spec 001 §2: EQIMM 3, GTIMM 6; decision D52: NE, LT).
/// `None` for a compare op neff-isa does not name.
pub(crate) fn branch_taken(op: u8, reg: u64, imm: u32) -> Option<bool> {
    let (a, b) = (reg as u32 as i32, imm as i32);
    Some(match BrCmpOp::from_u8(op)? {
        BrCmpOp::Always => true,
        BrCmpOp::EqImm => a == b,
        BrCmpOp::NeImm => a != b,
        BrCmpOp::LtImm => a < b,
        BrCmpOp::GtImm => a > b,
    })
}

/// Device words the program stored and loads back (TENSOR_STORE / TENSOR_LOAD); a word never
/// stored reads as 0 — the rank-id buffer of a single-rank model, the bound-check counter of a
/// clean run.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordMemory(HashMap<u64, u32>);

impl WordMemory {
    /// The word at `addr`.
    pub(crate) fn load(&self, addr: u64) -> u32 {
        self.0.get(&addr).copied().unwrap_or(0)
    }

    /// Stores `v` at `addr`.
    pub(crate) fn store(&mut self, addr: u64, v: u32) {
        self.0.insert(addr, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add32_wraps_and_compares_signed() {
        assert_eq!(alu(AluOp::Add, Width::I32, 0xffff_ffff, 1), Some(0));
        assert_eq!(alu(AluOp::Subtract, Width::I32, 0, 1), Some(0xffff_ffff));
        assert_eq!(alu(AluOp::Bypass, Width::I32, 9, 40), Some(40));
        assert_eq!(alu(AluOp::IsLt, Width::I32, 0xffff_ffff, 0), Some(1));
        assert_eq!(alu(AluOp::IsLtUint, Width::U32, 0xffff_ffff, 0), Some(0));
        assert_eq!(alu(AluOp::Divide, Width::I32, 7, 0), Some(0));
        assert_eq!(alu(AluOp::Pow, Width::I32, 2, 2), None);
    }

    #[test]
    fn branch_conditions() {
        assert_eq!(branch_taken(0, 5, 9), Some(true));
        assert_eq!(branch_taken(3, 0, 0), Some(true));
        assert_eq!(branch_taken(3, 1, 0), Some(false));
        assert_eq!(branch_taken(4, 1, 0), Some(true));
        assert_eq!(branch_taken(5, 0xffff_ffff, 0), Some(true), "-1 < 0");
        assert_eq!(branch_taken(6, 3, 2), Some(true));
        assert_eq!(branch_taken(1, 0, 0), None);
    }

    #[test]
    fn words_read_zero_until_stored() {
        let mut m = WordMemory::default();
        assert_eq!(m.load(0x1000), 0);
        m.store(0x1000, 7);
        assert_eq!(m.load(0x1000), 7);
    }
}
