//! The InstructionType tag, the single dispatch key of a BIR instruction (spec 002 §1, +0x58), and
//! the one declarative opcode table: JSON name, pinned numeric value, family parent (spec 002 §6),
//! abstractness, validEngines (spec 002 §7) and the operand rule the verifier applies.

use crate::engine::EngineKind;

/// Which operand kinds an opcode takes (decision D95). Immediates are never outputs, whatever the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandRule {
    /// No per-opcode restriction known.
    Any,
    /// Tensor ops: ins are access patterns or immediates, outs are access patterns.
    Tensor,
    /// Register ops: ins are register accesses or immediates, outs are register accesses.
    Register,
}

/// One row of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode this row describes.
    pub opcode: Opcode,
    /// JSON `"opcode"` string (the constructor name, reference §5.1).
    pub name: &'static str,
    /// The InstructionType value where spec 002 pins it (67, 68-72, 80, 96); `None` otherwise
    /// (decision D91).
    pub number: Option<u16>,
    /// The family parent (spec 002 §6); `None` = directly under `bir::Instruction`.
    pub parent: Option<Opcode>,
    /// An abstract intermediate base, never instantiated (spec 002 §6; the six of decision D92).
    pub is_abstract: bool,
    /// `getValidEngines` where known (decision D94); empty = unknown, any engine accepted.
    pub valid_engines: &'static [EngineKind],
    /// The operand rule the verifier applies (decision D95).
    pub operands: OperandRule,
}

macro_rules! opcode_table {
    ($( $variant:ident $name:literal $num:expr, $parent:expr, $abs:expr, [$($eng:ident),*], $ops:ident; )*) => {
        /// A known BIR opcode: every name of reference §5.1 plus the ones spec 002 pins by number.
        /// The declaration order is the table order; it is not the InstructionType numbering
        /// (see [`OpcodeInfo::number`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        /// The table, indexed by `Opcode as usize`.
        static TABLE: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                opcode: Opcode::$variant,
                name: $name,
                number: $num,
                parent: $parent,
                is_abstract: $abs,
                valid_engines: &[$(EngineKind::$eng),*],
                operands: OperandRule::$ops,
            },)*
        ];

        impl Opcode {
            /// Looks a JSON opcode name up.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name {
                    $($name => Some(Opcode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

use Opcode as O;
const GEN: Option<Opcode> = Some(O::Generic);
const DMA: Option<Opcode> = Some(O::Dma);
const MM: Option<Opcode> = Some(O::MatmultBase);
const DESC: Option<Opcode> = Some(O::DmaDescriptor);
const COLL: Option<Opcode> = Some(O::Collective);
const TERM: Option<Opcode> = Some(O::Terminator);

opcode_table! {
    // variant                 json name                   number   parent              abstract engines           operands
    Activation                 "Activation"                None,    None,               false, [Activation, Pool], Tensor;
    ReadActivationAccumulator  "ReadActivationAccumulator" None,    None,               false, [Activation],       Tensor;
    LoadActFuncSet             "LoadActFuncSet"            None,    None,               false, [Activation],       Any;
    Memset                     "Memset"                    None,    None,               false, [],                 Tensor;
    GetGlobalRankId            "GetGlobalRankId"           None,    None,               false, [],                 Any;
    NoOp                       "NoOp"                      None,    None,               false, [],                 Any;
    Generic                    "Generic"                   None,    None,               true,  [],                 Any;
    EventSemaphore             "EventSemaphore"            None,    GEN,                false, [],                 Any;
    AbstractCopy               "AbstractCopy"              None,    Some(O::EventSemaphore), false, [],            Any;
    GenericCopy                "GenericCopy"               None,    GEN,                false, [],                 Any;
    GenericRelu                "GenericRelu"               None,    GEN,                false, [],                 Any;
    GroupResetSemaphores       "GroupResetSemaphores"      None,    None,               false, [],                 Any;
    AllEngineBarrier           "AllEngineBarrier"          None,    None,               false, [],                 Any;
    Drain                      "Drain"                     None,    None,               false, [],                 Any;
    Halt                       "Halt"                      None,    None,               false, [],                 Any;
    Pool                       "Pool"                      None,    None,               false, [],                 Tensor;
    Reciprocal                 "Reciprocal"                None,    None,               false, [],                 Tensor;
    Shuffle                    "Shuffle"                   None,    None,               false, [],                 Tensor;
    TensorCopy                 "TensorCopy"                None,    None,               false, [Dve, Activation, Pool], Tensor;
    TensorCopyDynamicSrc       "TensorCopyDynamicSrc"      None,    None,               false, [],                 Any;
    TensorCopyDynamicDst       "TensorCopyDynamicDst"      None,    None,               false, [],                 Any;
    IndirectCopy               "IndirectCopy"              None,    None,               false, [],                 Any;
    TensorReduce               "TensorReduce"              None,    None,               false, [Dve, Pool],        Tensor;
    TensorScalar               "TensorScalar"              None,    None,               false, [Dve, Activation, Pool], Tensor;
    TensorScalarPtr            "TensorScalarPtr"           None,    None,               false, [Dve, Activation, Pool], Tensor;
    TensorTensor               "TensorTensor"              None,    None,               false, [Dve, Pool],        Tensor;
    BnStats                    "BNStats"                   None,    None,               false, [Dve],              Tensor;
    BnStatsAggregate           "BNStatsAggregate"          None,    None,               false, [Dve],              Tensor;
    BnGradients                "BNGradients"               None,    None,               false, [],                 Tensor;
    BnBackprop                 "BNBackprop"                None,    None,               false, [],                 Tensor;
    BnBackprop2                "BNBackprop2"               None,    None,               false, [],                 Tensor;
    StreamShuffle              "StreamShuffle"             None,    None,               false, [],                 Tensor;
    CalcVarAddr                "CalcVarAddr"               None,    None,               false, [],                 Any;
    StreamTranspose            "StreamTranspose"           None,    None,               false, [],                 Tensor;
    Select                     "Select"                    None,    None,               false, [],                 Tensor;
    CopyPredicated             "CopyPredicated"            None,    None,               false, [],                 Tensor;
    CustomOp                   "CustomOp"                  None,    None,               false, [],                 Any;
    BirKernel                  "BIRKernel"                 None,    None,               false, [],                 Any;
    NkiKernel                  "NKIKernel"                 None,    None,               false, [],                 Any;
    GetRandState               "GetRandState"              None,    None,               false, [],                 Any;
    SetRandState               "SetRandState"              None,    None,               false, [],                 Any;
    Rand                       "Rand"                      None,    None,               false, [],                 Any;
    Iota                       "Iota"                      None,    None,               false, [Pool],             Tensor;
    AffineSelect               "AffineSelect"              None,    None,               false, [],                 Tensor;
    TensorScalarAffineSelect   "TensorScalarAffineSelect"  None,    None,               false, [],                 Tensor;
    RangeSelect                "RangeSelect"               None,    None,               false, [],                 Tensor;
    Dropout                    "Dropout"                   None,    None,               false, [],                 Tensor;
    GetCurProcessingRankId     "GetCurProcessingRankID"    None,    None,               false, [],                 Any;
    RegisterAlu                "RegisterAlu"               None,    None,               false, [],                 Register;
    RegisterMove               "RegisterMove"              None,    None,               false, [],                 Register;
    TensorLoad                 "TensorLoad"                None,    None,               false, [],                 Any;
    TensorSave                 "TensorSave"                None,    None,               false, [],                 Any;
    Call                       "Call"                      None,    None,               false, [],                 Any;
    SwitchQueueInstance        "SwitchQueueInstance"       None,    None,               false, [],                 Any;
    CoreBarrier                "CoreBarrier"               None,    None,               false, [],                 Any;
    Max                        "Max"                       None,    None,               false, [Dve],              Tensor;
    MaxIndex                   "MaxIndex"                  None,    None,               false, [Dve],              Tensor;
    MatchReplace               "MatchReplace"              None,    None,               false, [Dve],              Tensor;
    Gather                     "Gather"                    None,    None,               false, [],                 Any;
    InlineAsmBytes             "InlineASMBytes"            None,    None,               false, [],                 Any;
    MatmultBase                "MatmultBase"               None,    None,               true,  [],                 Tensor;
    Matmult                    "Matmult"                   None,    MM,                 false, [Pe],               Tensor;
    MatmultSparse              "MatmultSparse"             None,    MM,                 false, [Pe],               Tensor;
    MatmultMx                  "MatmultMx"                 None,    MM,                 false, [Pe],               Tensor;
    QuantizeMx                 "QuantizeMx"                Some(96), None,              false, [],                 Tensor;
    Dma                        "DMA"                       None,    None,               true,  [],                 Any;
    Load                       "Load"                      None,    DMA,                false, [],                 Any;
    Save                       "Save"                      None,    Some(O::Load),      false, [],                 Any;
    DmaCopy                    "DMACopy"                   None,    DMA,                false, [],                 Any;
    ReadVarAddr                "ReadVarAddr"               None,    None,               false, [],                 Any;
    GenericIndirectLoad        "GenericIndirectLoad"       None,    None,               false, [],                 Any;
    GenericIndirectSave        "GenericIndirectSave"       None,    None,               false, [],                 Any;
    IndirectLoad               "IndirectLoad"              None,    None,               false, [],                 Any;
    IndirectSave               "IndirectSave"              None,    None,               false, [],                 Any;
    IndirectSaveAccumulate     "IndirectSaveAccumulate"    None,    None,               false, [],                 Any;
    DmaTrigger                 "DMATrigger"                Some(67), None,              false, [],                 Any;
    DmaDescriptor              "DMADescriptor"             Some(68), None,              true,  [],                 Any;
    DmaDescriptorCopy          "DMADescriptorCopy"         Some(69), DESC,              false, [],                 Any;
    DmaDescriptorCce           "DMADescriptorCCE"          Some(70), DESC,              false, [],                 Any;
    DmaDescriptorTranspose     "DMADescriptorTranspose"    Some(71), DESC,              false, [],                 Any;
    DmaDescriptorReplicate     "DMADescriptorReplicate"    Some(72), DESC,              false, [],                 Any;
    Collective                 "Collective"                None,    None,               true,  [],                 Any;
    CollectiveCompute          "CollectiveCompute"         None,    COLL,               false, [],                 Any;
    CollectiveSend             "CollectiveSend"            None,    COLL,               false, [],                 Any;
    CollectiveRecv             "CollectiveRecv"            None,    COLL,               false, [],                 Any;
    Terminator                 "Terminator"                None,    None,               true,  [],                 Any;
    CompareAndBranch           "CompareAndBranch"          None,    TERM,               false, [],                 Any;
    UnconditionalBranch        "UnconditionalBranch"       None,    TERM,               false, [],                 Any;
    Return                     "Return"                    None,    TERM,               false, [],                 Any;
    Break                      "Break"                     None,    TERM,               false, [],                 Any;
    BranchHint                 "BranchHint"                Some(80), None,              false, [],                 Any;
    MatmultSymbolic            "MatmultSymbolic"           None,    None,               false, [Pe],               Tensor;
    RangeSelectSymbolic        "RangeSelectSymbolic"       None,    None,               false, [],                 Tensor;
    ShuffleSymbolic            "ShuffleSymbolic"           None,    None,               false, [],                 Tensor;
    StreamShuffleSymbolic      "StreamShuffleSymbolic"     None,    None,               false, [],                 Tensor;
    TensorScalarSymbolic       "TensorScalarSymbolic"      None,    None,               false, [Dve, Activation, Pool], Tensor;
    TongaReduceMacroSymbolic   "TongaReduceMacroSymbolic"  None,    None,               false, [],                 Tensor;
    CalcVarAddrSymbolic        "CalcVarAddrSymbolic"       None,    None,               false, [],                 Any;
    IotaSymbolic               "IotaSymbolic"              None,    None,               false, [Pool],             Tensor;
    TensorScalarAffineSelectSymbolic "TensorScalarAffineSelectSymbolic" None, None,     false, [],                 Tensor;
}

impl Opcode {
    /// Every known opcode, in table order.
    pub fn all() -> impl Iterator<Item = Opcode> {
        TABLE.iter().map(|row| row.opcode)
    }

    /// This opcode's table row.
    pub fn info(self) -> &'static OpcodeInfo {
        &TABLE[self as usize]
    }

    /// The JSON `"opcode"` string.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode with a pinned InstructionType number (spec 002 §4, §6), if any.
    pub fn from_number(number: u16) -> Option<Opcode> {
        TABLE
            .iter()
            .find(|row| row.number == Some(number))
            .map(|row| row.opcode)
    }

    /// The family chain from this opcode up to (not including) `bir::Instruction`, this opcode first:
    /// `Save` gives `[Save, Load, DMA]` (spec 002 §6).
    pub fn family_chain(self) -> Vec<Opcode> {
        let mut chain = vec![self];
        let mut cur = self;
        while let Some(parent) = cur.info().parent {
            chain.push(parent);
            cur = parent;
        }
        chain
    }

    /// Whether `engine` is in this opcode's validEngines (`Unassigned` always is: an instruction
    /// before engine assignment; an unknown table entry accepts every engine). Decision D94.
    pub fn accepts_engine(self, engine: EngineKind) -> bool {
        let valid = self.info().valid_engines;
        engine == EngineKind::Unassigned || valid.is_empty() || valid.contains(&engine)
    }
}

/// The InstructionType of an instruction: a known [`Opcode`] or an opcode name this crate does not
/// know, kept as written and never rejected (issue 7; bytes are the truth).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstructionType {
    /// A row of the opcode table.
    Known(Opcode),
    /// Any other `"opcode"` string.
    Unknown(Box<str>),
}

impl InstructionType {
    /// The JSON factory's lookup (`createFromJsonHelper`, spec 002 §4): opcode string -> type.
    pub fn from_name(name: &str) -> InstructionType {
        match Opcode::from_name(name) {
            Some(op) => InstructionType::Known(op),
            None => InstructionType::Unknown(name.into()),
        }
    }

    /// The JSON `"opcode"` string.
    pub fn name(&self) -> &str {
        match self {
            InstructionType::Known(op) => op.name(),
            InstructionType::Unknown(s) => s,
        }
    }

    /// The known opcode, if any.
    pub fn opcode(&self) -> Option<Opcode> {
        match self {
            InstructionType::Known(op) => Some(*op),
            InstructionType::Unknown(_) => None,
        }
    }
}

impl From<Opcode> for InstructionType {
    fn from(op: Opcode) -> InstructionType {
        InstructionType::Known(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_indexed_by_discriminant() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.opcode as usize, i, "{}", row.name);
            assert_eq!(Opcode::from_name(row.name), Some(row.opcode));
        }
    }

    #[test]
    fn spec_002_pins_these_numbers() {
        assert_eq!(Opcode::from_number(67), Some(Opcode::DmaTrigger));
        let desc: Vec<_> = (68..=72)
            .map(|n| Opcode::from_number(n).map(Opcode::name))
            .collect();
        assert_eq!(
            desc,
            [
                Some("DMADescriptor"),
                Some("DMADescriptorCopy"),
                Some("DMADescriptorCCE"),
                Some("DMADescriptorTranspose"),
                Some("DMADescriptorReplicate")
            ]
        );
        assert_eq!(Opcode::from_number(80), Some(Opcode::BranchHint));
        assert_eq!(Opcode::from_number(96), Some(Opcode::QuantizeMx));
    }

    #[test]
    fn spec_002_section_6_family_chains() {
        assert_eq!(
            Opcode::AbstractCopy.family_chain(),
            [
                Opcode::AbstractCopy,
                Opcode::EventSemaphore,
                Opcode::Generic
            ]
        );
        assert_eq!(
            Opcode::Save.family_chain(),
            [Opcode::Save, Opcode::Load, Opcode::Dma]
        );
        // The descriptor family is not under DMA; QuantizeMx is not under MatmultBase.
        assert_eq!(
            Opcode::DmaDescriptorCopy.family_chain(),
            [Opcode::DmaDescriptorCopy, Opcode::DmaDescriptor]
        );
        assert_eq!(Opcode::QuantizeMx.family_chain(), [Opcode::QuantizeMx]);
        let abstracts: Vec<_> = Opcode::all().filter(|o| o.info().is_abstract).collect();
        assert_eq!(abstracts.len(), 6);
    }

    #[test]
    fn unknown_opcode_names_are_kept() {
        let t = InstructionType::from_name("FancyNewOp");
        assert_eq!(t.name(), "FancyNewOp");
        assert_eq!(t.opcode(), None);
    }
}
