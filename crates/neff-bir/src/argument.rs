//! Operands (`bir::Argument`, spec 002 §1 operand sentinels) with the argument kinds of reference
//! §5.1. The common fields are typed; every other key is kept in order in `extras`.

use serde_json::{Map, Value};

/// The `"kind"` of an argument (reference §5.1), or an unknown kind kept as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// `physical_ap` {ap, dtype, offset, memsetref, memref}.
    PhysicalAp,
    /// `symbolic_ap` {ap, dtype, addrs, access_shape, memsetref}.
    SymbolicAp,
    /// `register_ap` {ap, dtype, memsetref, reg_ap_offset, regref}.
    RegisterAp,
    /// `register_access` {dtype, regref}.
    RegisterAccess,
    /// `imm_value` {dtype, value}.
    ImmValue,
    /// `imm_array` {dtype, value_array}.
    ImmArray,
    /// `symbolic_imm_value` {dtype, value_list, expr}.
    SymbolicImmValue,
    /// Any other kind string, preserved.
    Unknown(Box<str>),
}

impl ArgKind {
    /// The seven kinds of reference §5.1.
    pub const KNOWN: [ArgKind; 7] = [
        ArgKind::PhysicalAp,
        ArgKind::SymbolicAp,
        ArgKind::RegisterAp,
        ArgKind::RegisterAccess,
        ArgKind::ImmValue,
        ArgKind::ImmArray,
        ArgKind::SymbolicImmValue,
    ];

    /// Parses a kind string; unknown kinds are kept.
    pub fn from_name(name: &str) -> ArgKind {
        match name {
            "physical_ap" => ArgKind::PhysicalAp,
            "symbolic_ap" => ArgKind::SymbolicAp,
            "register_ap" => ArgKind::RegisterAp,
            "register_access" => ArgKind::RegisterAccess,
            "imm_value" => ArgKind::ImmValue,
            "imm_array" => ArgKind::ImmArray,
            "symbolic_imm_value" => ArgKind::SymbolicImmValue,
            other => ArgKind::Unknown(other.into()),
        }
    }

    /// The JSON kind string.
    pub fn name(&self) -> &str {
        match self {
            ArgKind::PhysicalAp => "physical_ap",
            ArgKind::SymbolicAp => "symbolic_ap",
            ArgKind::RegisterAp => "register_ap",
            ArgKind::RegisterAccess => "register_access",
            ArgKind::ImmValue => "imm_value",
            ArgKind::ImmArray => "imm_array",
            ArgKind::SymbolicImmValue => "symbolic_imm_value",
            ArgKind::Unknown(s) => s,
        }
    }

    /// The keys of this kind in reference §5.1's order: the canonical order the writer uses after
    /// `"kind"` (decision D96).
    pub fn key_order(&self) -> &'static [&'static str] {
        match self {
            ArgKind::PhysicalAp => &["ap", "dtype", "offset", "memsetref", "memref"],
            ArgKind::SymbolicAp => &["ap", "dtype", "addrs", "access_shape", "memsetref"],
            ArgKind::RegisterAp => &["ap", "dtype", "memsetref", "reg_ap_offset", "regref"],
            ArgKind::RegisterAccess => &["dtype", "regref"],
            ArgKind::ImmValue => &["dtype", "value"],
            ArgKind::ImmArray => &["dtype", "value_array"],
            ArgKind::SymbolicImmValue => &["dtype", "value_list", "expr"],
            ArgKind::Unknown(_) => &[],
        }
    }

    /// An access pattern (may be read or written as a tensor).
    pub fn is_access_pattern(&self) -> bool {
        matches!(
            self,
            ArgKind::PhysicalAp | ArgKind::SymbolicAp | ArgKind::RegisterAp
        )
    }

    /// An immediate (never an output).
    pub fn is_immediate(&self) -> bool {
        matches!(
            self,
            ArgKind::ImmValue | ArgKind::ImmArray | ArgKind::SymbolicImmValue
        )
    }
}

/// One `[step, num]` pair of an access pattern (reference §5.1: KLR's full 2-D tensor is
/// `[[free_size, num_partitions], [1, free_size]]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ApDim {
    /// Element stride.
    pub step: i64,
    /// Number of elements.
    pub num: i64,
}

/// An operand: the kind, the typed common fields of reference §5.1 and every other key in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    /// `"kind"`.
    pub kind: ArgKind,
    /// `"ap"`: the access pattern.
    pub ap: Option<Vec<ApDim>>,
    /// `"dtype"` (reference §5.1 dtype names, kept as strings).
    pub dtype: Option<String>,
    /// `"offset"` (physical_ap).
    pub offset: Option<i64>,
    /// `"memsetref"`: the allocation set (`<tensor>_set`).
    pub memsetref: Option<String>,
    /// `"memref"`: the tensor name.
    pub memref: Option<String>,
    /// `"regref"`: the register (register_ap, register_access).
    pub regref: Option<String>,
    /// Every other key (`value`, `addrs`, `expr`, unknown keys, ...) in the order read.
    pub extras: Map<String, Value>,
}

impl Argument {
    /// An argument of `kind` with no fields.
    pub fn new(kind: ArgKind) -> Argument {
        Argument {
            kind,
            ap: None,
            dtype: None,
            offset: None,
            memsetref: None,
            memref: None,
            regref: None,
            extras: Map::new(),
        }
    }

    /// A `physical_ap` as KLR generates for a full 2-D tensor `tensor` of `partitions` x `free`
    /// elements (reference §5.1): `ap = [[free, partitions], [1, free]]`, memsetref `<tensor>_set`.
    pub fn physical_2d(tensor: &str, dtype: &str, partitions: i64, free: i64) -> Argument {
        let mut arg = Argument::new(ArgKind::PhysicalAp);
        arg.ap = Some(vec![
            ApDim {
                step: free,
                num: partitions,
            },
            ApDim { step: 1, num: free },
        ]);
        arg.dtype = Some(dtype.to_owned());
        arg.offset = Some(0);
        arg.memsetref = Some(format!("{tensor}_set"));
        arg.memref = Some(tensor.to_owned());
        arg
    }

    /// An `imm_value` of `dtype`.
    pub fn imm(dtype: &str, value: Value) -> Argument {
        let mut arg = Argument::new(ArgKind::ImmValue);
        arg.dtype = Some(dtype.to_owned());
        arg.extras.insert("value".to_owned(), value);
        arg
    }
}

/// Which of the three operand lists (spec 002 §1: `InstructionArgumentType` 0 ins, 1
/// indirection_ins, 2 outs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandList {
    /// 0: `ins` (+0xA0).
    Ins,
    /// 1: `indirection_ins` (+0xB0).
    IndirectionIns,
    /// 2: `outs` (+0xC0).
    Outs,
}

impl OperandList {
    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            OperandList::Ins => "ins",
            OperandList::IndirectionIns => "indirection_ins",
            OperandList::Outs => "outs",
        }
    }
}
