//! The ALU operation byte (`NEURON_ISA_TPB_ALU_OP`, reference §4.7; ADD=0x04, MAX=0x08 spec 003
//! §6) and the ALU source selector (`DATA_SRC`, spec 001 §2).

use crate::field_enum::field_enum;

field_enum! {
    /// An ALU operation (reference §4.7).
    AluOp / ALU_OP {
        /// 0x00.
        Bypass = 0x00 => "BYPASS",
        /// 0x01.
        BitwiseNot = 0x01 => "BITWISE_NOT",
        /// 0x02.
        ArithShiftLeft = 0x02 => "ARITH_SHIFT_LEFT",
        /// 0x03.
        ArithShiftRight = 0x03 => "ARITH_SHIFT_RIGHT",
        /// 0x04 (verified, reference §4.4).
        Add = 0x04 => "ADD",
        /// 0x05.
        Subtract = 0x05 => "SUBTRACT",
        /// 0x06 (`MULTIPLY` as neuron-profile spells it, decision D130).
        Mult = 0x06 => "MULTIPLY",
        /// 0x07.
        Divide = 0x07 => "DIVIDE",
        /// 0x08.
        Max = 0x08 => "MAX",
        /// 0x09.
        Min = 0x09 => "MIN",
        /// 0x0A.
        BitwiseAnd = 0x0A => "BITWISE_AND",
        /// 0x0B.
        BitwiseOr = 0x0B => "BITWISE_OR",
        /// 0x0C.
        BitwiseXor = 0x0C => "BITWISE_XOR",
        /// 0x0D.
        LogicalAnd = 0x0D => "LOGICAL_AND",
        /// 0x0E.
        LogicalOr = 0x0E => "LOGICAL_OR",
        /// 0x0F.
        LogicalXor = 0x0F => "LOGICAL_XOR",
        /// 0x10.
        LogicalShiftLeft = 0x10 => "LOGICAL_SHIFT_LEFT",
        /// 0x11.
        LogicalShiftRight = 0x11 => "LOGICAL_SHIFT_RIGHT",
        /// 0x12.
        IsEq = 0x12 => "IS_EQ",
        /// 0x13.
        IsGt = 0x13 => "IS_GT",
        /// 0x14.
        IsGe = 0x14 => "IS_GE",
        /// 0x15.
        IsLe = 0x15 => "IS_LE",
        /// 0x16.
        IsLt = 0x16 => "IS_LT",
        /// 0x17.
        AbsoluteDiff = 0x17 => "ABSOLUTE_DIFF",
        /// 0x18.
        IsNe = 0x18 => "IS_NE",
        /// 0x19.
        AbsoluteValue = 0x19 => "ABSOLUTE_VALUE",
        /// 0x1A (Pool only).
        Pow = 0x1A => "POW",
        /// 0x1B.
        Mod = 0x1B => "MOD",
        /// 0x1C (Pool only).
        Crc32 = 0x1C => "CRC32",
        /// 0x1D (Pool only).
        Rsqrt = 0x1D => "RSQRT",
        /// 0xC4.
        AddInt = 0xC4 => "ADD_INT",
        /// 0xC5.
        MultInt = 0xC5 => "MULT_INT",
        /// 0xC6.
        SubtractInt = 0xC6 => "SUBTRACT_INT",
        /// 0xC7.
        DivideInt = 0xC7 => "DIVIDE_INT",
        /// 0xC8.
        ModInt = 0xC8 => "MOD_INT",
        /// 0xC9.
        IsEqualInt = 0xC9 => "IS_EQUAL_INT",
        /// 0xCA.
        IsNeInt = 0xCA => "IS_NE_INT",
        /// 0xCB.
        AbsMaxInt = 0xCB => "ABS_MAX_INT",
        /// 0xCC.
        AbsMinInt = 0xCC => "ABS_MIN_INT",
        /// 0xCD.
        AbsDiffInt = 0xCD => "ABS_DIFF_INT",
        /// 0xCE.
        AbsValueInt = 0xCE => "ABS_VALUE_INT",
        /// 0xCF.
        MaxInt = 0xCF => "MAX_INT",
        /// 0xD0.
        MinInt = 0xD0 => "MIN_INT",
        /// 0xD1.
        IsGtInt = 0xD1 => "IS_GT_INT",
        /// 0xD2.
        IsGeInt = 0xD2 => "IS_GE_INT",
        /// 0xD3.
        IsLeInt = 0xD3 => "IS_LE_INT",
        /// 0xD4.
        IsLtInt = 0xD4 => "IS_LT_INT",
        /// 0xD5.
        MaxUint = 0xD5 => "MAX_UINT",
        /// 0xD6.
        MinUint = 0xD6 => "MIN_UINT",
        /// 0xD7.
        IsGtUint = 0xD7 => "IS_GT_UINT",
        /// 0xD8.
        IsGeUint = 0xD8 => "IS_GE_UINT",
        /// 0xD9.
        IsLeUint = 0xD9 => "IS_LE_UINT",
        /// 0xDA.
        IsLtUint = 0xDA => "IS_LT_UINT",
        /// 0xDB.
        MultUint = 0xDB => "MULT_UINT",
        /// 0xDC.
        DivideUint = 0xDC => "DIVIDE_UINT",
        /// 0xDD.
        ModUint = 0xDD => "MOD_UINT",
        /// 0xDE.
        AmaxInt = 0xDE => "AMAX_INT",
        /// 0xDF.
        AminInt = 0xDF => "AMIN_INT",
        /// 0xE0.
        AmaxUint = 0xE0 => "AMAX_UINT",
        /// 0xE1.
        AminUint = 0xE1 => "AMIN_UINT",
    }
}

field_enum! {
    /// The ALU second-source selector at CTRL_AL +0x0E (spec 001 §2: IMMEDIATE 1 / REGISTER 0).
    DataSrc / DATA_SRC {
        /// Source 1 is a register.
        Register = 0 => "REG",
        /// Source 1 is the immediate at +0x18.
        Immediate = 1 => "IMM",
    }
}
