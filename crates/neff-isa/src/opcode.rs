//! The opcode byte (spec 003 §2) and THE opcode table (reference §4.2; decision D1).
//!
//! Every opcode lives in one declarative list, [`for_each_opcode!`]: value, mnemonic, class,
//! generations and payload layout. The decoder, encoder, printer, parser, explainer and validator
//! all read [`OpcodeInfo`] built from it; nothing else names an opcode.

use std::fmt;

use crate::layout::Layout;
use crate::payload;

/// The list of every TPB opcode of NeuronCore v2+ (reference §4.2; names per decision D1), one row
/// `value MNEMONIC Class generations LAYOUT;`. Invoke with the name of a macro that accepts the
/// rows, like wasmparser's `for_each_operator!`.
///
/// Generations: `ALL` = v2..v5, `V3UP`/`V4UP` = from that generation on, `V5` = v5 only,
/// `SUNDA` = v2 only (retired at v3, never reused).
#[macro_export]
macro_rules! for_each_opcode {
    ($m:ident) => {
        $m! {
            // PE (tensor engine)
            0x01 LDWEIGHTS Pe ALL LDWEIGHTS;
            0x02 MATMUL Pe ALL MATMUL;
            0x03 PE_REG_WRITE Pe ALL GENERIC;
            0x04 WEIGHT_MASK Pe ALL GENERIC;
            0x05 WEIGHT_SHIFT Pe ALL GENERIC;
            0x06 LDTAGS Pe V3UP GENERIC;
            0x07 MATMUL_SPARSE Pe V3UP GENERIC;
            0x08 PE_MANAGE_SEED Pe V4UP GENERIC;
            0x09 LDWEIGHTS_MX Pe V4UP GENERIC;
            0x0a MATMUL_MX Pe V4UP GENERIC;
            // ACT (scalar engine)
            0x21 ACTIVATE Act ALL ACTIVATE;
            0x22 ACTIVATE_QUANTIZE Act ALL GENERIC;
            0x23 ACTIVATION_TABLE_LOAD Act ALL ACT_TABLE_LOAD;
            0x24 ACTIVATION_READ_ACCUMULATOR Act ALL GENERIC;
            0x25 ACTIVATE2 Act V4UP GENERIC;
            0x26 ACTIVATE_MULTIPASS Act V5 GENERIC;
            0x30 EXPONENTIAL Act ALL GENERIC;
            // POOL / DVE datapath
            0x41 TENSOR_TENSOR_ARITH_OP Datapath ALL TENSOR_TENSOR;
            0x42 TENSOR_REDUCE_ARITH_OP Datapath ALL TENSOR_REDUCE;
            0x43 TENSOR_SCALAR_ARITH_OP Datapath ALL TENSOR_SCALAR;
            0x44 TENSOR_SCALAR_PTR_ARITH_OP Datapath ALL GENERIC;
            0x45 POOL Datapath ALL GENERIC;
            0x46 COPY Datapath ALL COPY_CAST;
            0x47 CAST Datapath ALL COPY_CAST;
            0x48 RECIPROCAL Datapath ALL COPY_CAST;
            0x49 MEMSET Datapath ALL MEMSET;
            0x4a REG_LOAD Datapath ALL GENERIC;
            0x4b REG_STORE Datapath ALL GENERIC;
            0x4c REG_SHUFFLE Datapath ALL GENERIC;
            0x4d RNG Datapath ALL GENERIC;
            0x4e TENSOR_CUMULATIVE_ARITH_OP Datapath ALL GENERIC;
            0x4f TENSOR_SCALAR_PTR_MULTI_ARITH Datapath ALL GENERIC;
            0x51 TENSOR_TENSOR_BITVEC_OP Datapath ALL TENSOR_TENSOR;
            0x52 TENSOR_REDUCE_BITVEC_OP Datapath ALL TENSOR_REDUCE;
            0x53 TENSOR_SCALAR_BITVEC_OP Datapath ALL TENSOR_SCALAR;
            0x54 TENSOR_SCALAR_PTR_BITVEC_OP Datapath ALL GENERIC;
            0x58 MAX_POOL_SELECT Datapath ALL GENERIC;
            0x5e TENSOR_CUMULATIVE_BITVEC_OP Datapath ALL GENERIC;
            0x5f TENSOR_SCALAR_PTR_MULTI_BITVEC Datapath ALL GENERIC;
            0x60 BATCH_NORM_STATS Datapath ALL GENERIC;
            0x61 BATCH_NORM_STATS2 Datapath ALL GENERIC;
            0x62 BATCH_NORM_AGGREGATE Datapath ALL GENERIC;
            0x63 BATCH_NORM_GRAD_ACCUMULATE Datapath ALL GENERIC;
            0x64 BATCH_NORM_PARAM_LOAD Datapath ALL GENERIC;
            0x65 BATCH_NORM_BACK_PROP Datapath ALL GENERIC;
            0x66 LOAD_PARAMETER_RAM Datapath ALL GENERIC;
            0x67 POOL_BUFFER_LOAD Datapath ALL GENERIC;
            0x68 GATHER Datapath ALL GENERIC;
            0x69 LOAD_MASK_SELECT Datapath ALL GENERIC;
            0x6a STREAM_SHUFFLE Datapath ALL GENERIC;
            0x6b STREAM_TRANSPOSE Datapath ALL GENERIC;
            0x6c MAX8 Datapath ALL GENERIC;
            0x6d MATCH_VALUE_LOAD Datapath ALL GENERIC;
            0x6e FIND_INDEX8 Datapath ALL GENERIC;
            0x6f MATCH_REPLACE8 Datapath ALL GENERIC;
            0x70 TENSOR_SCALAR_IMM_LD_ARITH Datapath ALL GENERIC;
            0x71 TENSOR_SCALAR_IMM_LD_BITVEC Datapath ALL GENERIC;
            0x72 COPY_PREDICATED Datapath ALL GENERIC;
            0x73 ROI_ALIGN Datapath ALL GENERIC;
            0x74 TENSOR_SCALAR_ADDR Datapath ALL GENERIC;
            0x76 RAND Datapath ALL GENERIC;
            0x77 RAND_GET_STATE Datapath ALL GENERIC;
            0x78 RAND_SET_STATE Datapath ALL GENERIC;
            0x79 EMBEDDING_UPDATE Datapath ALL GENERIC;
            0x7a LOAD_POOL_ARGUMENT Datapath ALL GENERIC;
            0x7b TENSOR_DEQUANTIZE Datapath ALL GENERIC;
            0x7c CROSS_LANE_REDUCE_ARITH Datapath ALL GENERIC;
            0x7d CROSS_LANE_REDUCE_BITVEC Datapath ALL GENERIC;
            0x7e IOTA Datapath ALL GENERIC;
            0x7f DROPOUT Datapath ALL GENERIC;
            0x81 JPEG_DECODE Datapath V3UP GENERIC;
            0x82 TRANSPOSE_BATCH_NORM_STATS2 Datapath ALL GENERIC;
            0x83 TRANSPOSE_TENSOR_REDUCE_ARITH_OP Datapath ALL GENERIC;
            0x84 TRANSPOSE_TENSOR_REDUCE_BITVEC_OP Datapath ALL GENERIC;
            0x85 CUSTOM_OP_HEADER Datapath ALL GENERIC;
            0x86 CUSTOM_OP_PAYLOAD Datapath ALL GENERIC;
            0x87 SUNDA_RETIRED_87 Datapath SUNDA GENERIC;
            0x88 SUNDA_RETIRED_88 Datapath SUNDA GENERIC;
            0x8a SUNDA_RETIRED_8A Datapath SUNDA GENERIC;
            0x8b SUNDA_RETIRED_8B Datapath SUNDA GENERIC;
            0x8c SUNDA_RETIRED_8C Datapath SUNDA GENERIC;
            0x8d SUNDA_RETIRED_8D Datapath SUNDA GENERIC;
            0x8e BATCH_NORM_PARAM_LOAD2 Datapath ALL GENERIC;
            0x8f SUNDA_RETIRED_8F Datapath SUNDA GENERIC;
            0x92 TENSOR_SCALAR_AFFINE_SELECT Datapath ALL AFFINE_SELECT;
            0x93 TRANSPOSE_TENSOR_SCALAR_ARITH_OP Datapath ALL GENERIC;
            0x94 BATCH_NORM_GRAD_ACCUMULATE2 Datapath ALL GENERIC;
            0x95 MODIFY_POOL_CONFIG Datapath ALL GENERIC;
            0x96 SORT Datapath ALL GENERIC;
            0x98 TENSOR_SCALAR_SELECT Datapath ALL GENERIC;
            0x99 CAST_PREDICATED Datapath ALL GENERIC;
            0x9a TENSOR_SCALAR_CACHE_REDUCE Datapath ALL GENERIC;
            0x9b DVE_READ_ACCUMULATOR Datapath ALL GENERIC;
            0x9c TENSOR_REDUCE_RANGE_CHECK Datapath ALL GENERIC;
            0x9d SCALAR_TENSOR_TENSOR_ARITH Datapath ALL GENERIC;
            0x9e SCALAR_TENSOR_TENSOR_BITVEC Datapath ALL GENERIC;
            0x9f ENGINE_NOP Datapath ALL GENERIC;
            // Control / sync / DMA (any engine, including SP)
            0xa0 EVENT_SEMAPHORE Control ALL EVENT_SEMAPHORE;
            0xa1 HALT Control ALL GENERIC;
            0xa2 DRAIN Control ALL GENERIC;
            0xa3 INSTRUCTION_FLUSH Control ALL GENERIC;
            0xa4 NOP Control ALL NOP;
            0xa5 WRITE Control ALL WRITE;
            0xa6 NOTIFY Control ALL NOTIFY;
            0xa7 MOVE Control ALL MOVE;
            0xa8 ALU_OP Control ALL ALU_OP;
            0xa9 COMPARE_BRANCH Control ALL COMPARE_BRANCH;
            0xaa TENSOR_LOAD Control ALL MEM_2D;
            0xab TENSOR_STORE Control ALL MEM_2D;
            0xb0 EVENT_SEMAPHORE_RANGE_CLEAR Control ALL RANGE_CLEAR;
            0xb1 SET_ORDERING_MODE Control ALL SET_ORDERING_MODE;
            0xb2 MOVE_SHAPE Control ALL GENERIC;
            0xb3 POLL_SEM Control ALL POLL_SEM;
            0xb4 TEST_EVENT_SEM Control V4UP GENERIC;
            0xb5 BRANCH_PREFETCH_HINT Control ALL BRANCH_HINT;
            0xb6 COMPACT_CONTROL_INST Control V5 GENERIC;
            0xb8 DMAMEMCPY Control ALL GENERIC;
            0xb9 DMA_MEMCPY2 Control V5 GENERIC;
            0xba DMA_IMMEDIATE Control V5 GENERIC;
            0xbb DMA_INDIRECT Control ALL GENERIC;
            0xbc RANGE_SELECT Control V3UP GENERIC;
            0xbd DMA_TRANSPOSE Control V3UP GENERIC;
            0xbe GET_SEQUENCE_BOUNDS Control V3UP GENERIC;
            0xbf SB2SB_COLLECTIVE Control V3UP GENERIC;
            // Pseudo: host-lowered by the runtime, never executed by the hardware (spec 003 §4)
            0xc1 PSEUDO_DMA_TRIGGER Pseudo ALL DMA_TRIGGER;
            0xc2 PSEUDO_DMAREARM Pseudo ALL GENERIC;
            0xc3 PSEUDO_DMABARRIER Pseudo ALL GENERIC;
            0xc4 PSEUDO_DMAMEMCPY_FULL_IND Pseudo ALL GENERIC;
            0xc5 PSEUDO_SEMAPHORE_SET Pseudo ALL GENERIC;
            0xc6 PSEUDO_LOAD_ACT_FUNC_SET Pseudo ALL GENERIC;
            0xc7 PSEUDO_TRIGGER_ALL_REDUCE Pseudo ALL GENERIC;
            0xc8 PSEUDO_TRIGGER_COLLECTIVE Pseudo ALL TRIGGER_COLLECTIVE;
            0xc9 PSEUDO_READ_VAR_ADDR Pseudo ALL GENERIC;
            0xca PSEUDO_EMBEDDING_UPDATE Pseudo ALL GENERIC;
            0xcb PSEUDO_SEND_RECV Pseudo ALL GENERIC;
            0xcc PSEUDO_BRANCH_LABEL Pseudo ALL BRANCH_LABEL;
            0xcd PSEUDO_TENSOR_STORE Pseudo ALL TENSOR_LOAD_PSEUDO;
            0xce PSEUDO_TENSOR_LOAD Pseudo ALL TENSOR_LOAD_PSEUDO;
            0xcf PSEUDO_DMASWAP_QUEUE_SET Pseudo ALL GENERIC;
            0xd0 PSEUDO_SET_RNG_SEED Pseudo ALL GENERIC;
            0xd1 PSEUDO_FUNCTION_BEGIN Pseudo ALL FUNCTION_NAME;
            0xd2 PSEUDO_FUNCTION_RETURN Pseudo ALL FUNCTION_NAME;
            0xd3 PSEUDO_FUNCTION_CALL Pseudo ALL FUNCTION_NAME;
            0xd4 PSEUDO_DMA_DIRECT2D Pseudo ALL DMA_DIRECT2D;
            0xd5 PSEUDO_SYNC_BARRIER Pseudo ALL GENERIC;
            0xd6 PSEUDO_RANGE_CHECK Pseudo ALL GENERIC;
            0xd7 PSEUDO_JPEG_DECODE Pseudo V3UP GENERIC;
            0xd8 PSEUDO_CORE_BARRIER Pseudo ALL GENERIC;
            0xd9 PSEUDO_TRIGGER_COLLECTIVE2 Pseudo ALL GENERIC;
            0xda PSEUDO_EXTENSION Pseudo ALL EXTENSION;
            0xdb PSEUDO_CUR_PROCESSING_RANK_ID Pseudo ALL GENERIC;
            0xdc PSEUDO_GID_LOAD Pseudo ALL GENERIC;
            0xdd PSEUDO_BRANCH_PREFETCH_HINT Pseudo ALL GENERIC;
            0xde PSEUDO_TENSOR_COMPLETION Pseudo ALL GENERIC;
            0xdf PSEUDO_INST Pseudo ALL PSEUDO_INST;
            // High band
            0xe0 SPARSITY_COMPRESS High V4UP GENERIC;
            0xe1 SPARSITY_COMPRESS_TAG High V4UP GENERIC;
            0xe2 RAND2 High V4UP GENERIC;
            0xe3 QUANTIZE_MX High V4UP GENERIC;
            0xe4 CONV_LUT_LOAD High V3UP GENERIC;
            0xe5 TENSOR_TENSOR_SCAN_ARITH High ALL GENERIC;
            0xe6 TENSOR_SCALAR_CACHE_CUMULATIVE High ALL GENERIC;
            0xe7 INDIRECT_COPY High ALL GENERIC;
            0xe8 COPY_PREDICATED_SCALAR High ALL GENERIC;
            0xe9 DVE_READ_INDICES High V3UP GENERIC;
            0xea SELECT_REDUCE High ALL GENERIC;
            0xf0 EXTENDED_INST High ALL GENERIC;
            0xf1 DMA_GATHER_TRANSPOSE High V3UP GENERIC;
            0xf2 NONZERO_WITH_COUNT High V3UP GENERIC;
            0xf3 INT_WIDE_F3 High V5 GENERIC;
            0xf4 INT_WIDE_F4 High V5 GENERIC;
            0xff INVALID Invalid NONE GENERIC;
        }
    };
}

/// A NeuronCore generation (reference §4.2 columns; V1 is the TONGA / Inferentia-1 dialect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Generation {
    /// TONGA (Inferentia 1): opcode = base | engine << 5 (spec 003 §2).
    V1 = 1,
    /// SUNDA (trn1, inf2).
    V2 = 2,
    /// CAYMAN (trn2).
    V3 = 3,
    /// MARIANA.
    V4 = 4,
    /// MAVERICK.
    V5 = 5,
}

impl Generation {
    /// Every generation, oldest first: the one table of generation numbers and names the
    /// workspace reads (the kelf `target`, `neff synth --target`, `neff validate --generation`;
    /// decision D422).
    pub const ALL: [Self; 5] = [Self::V1, Self::V2, Self::V3, Self::V4, Self::V5];

    /// The generation number: `vN`'s N, which is also the runtime's `al_hal_tpb_arch_type`
    /// (spec 004 §2 step 5; decision D30: 2 = sunda, 3 = cayman, 4 = mariana).
    pub const fn number(self) -> u32 {
        self as u32
    }

    /// The code name, as the kelf descriptor's `target` spells it (reference §3: "sunda" on trn1,
    /// "cayman" on trn2).
    pub const fn code_name(self) -> &'static str {
        match self {
            Self::V1 => "tonga",
            Self::V2 => "sunda",
            Self::V3 => "cayman",
            Self::V4 => "mariana",
            Self::V5 => "maverick",
        }
    }

    /// The instance families named for a generation (reference §3: trn1 and inf2 are sunda,
    /// trn2 is cayman); accepted as aliases by [`Generation::from_name`].
    pub const fn products(self) -> &'static [&'static str] {
        match self {
            Self::V2 => &["trn1", "inf2"],
            Self::V3 => &["trn2"],
            _ => &[],
        }
    }

    /// The generation of a number (`1..=5`).
    pub const fn from_number(n: u32) -> Option<Self> {
        match n {
            1 => Some(Self::V1),
            2 => Some(Self::V2),
            3 => Some(Self::V3),
            4 => Some(Self::V4),
            5 => Some(Self::V5),
            _ => None,
        }
    }

    /// The generation of a code name (`tonga` .. `maverick`), case-insensitively.
    pub fn from_code_name(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|g| g.code_name().eq_ignore_ascii_case(s))
    }

    /// Parses `v1`..`v5`, the code names `tonga`, `sunda`, `cayman`, `mariana`, `maverick`
    /// (kelf `target`, reference §3) or a product name (`trn1`, `inf2`, `trn2`),
    /// case-insensitively.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| {
            let number = s
                .strip_prefix(['v', 'V'])
                .is_some_and(|n| n.parse() == Ok(g.number()));
            number
                || g.code_name().eq_ignore_ascii_case(s)
                || g.products().iter().any(|p| p.eq_ignore_ascii_case(s))
        })
    }
}

/// A set of generations, one bit per [`Generation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Generations(pub u8);

impl Generations {
    /// No generation (the `INVALID` marker 0xFF).
    pub const NONE: Self = Self(0);
    /// Every v2+ generation.
    pub const ALL: Self = Self(0b11_1100);
    /// v3 and later.
    pub const V3UP: Self = Self(0b11_1000);
    /// v4 and later.
    pub const V4UP: Self = Self(0b11_0000);
    /// v5 only.
    pub const V5: Self = Self(0b10_0000);
    /// SUNDA (v2) only: retired at v3, never reused.
    pub const SUNDA: Self = Self(0b00_0100);

    /// Whether `g` is in the set.
    #[inline]
    pub const fn contains(self, g: Generation) -> bool {
        self.0 & (1 << g as u8) != 0
    }
}

/// The class of an opcode (reference §4.2 bands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// PE (tensor engine) 0x01..0x0A.
    Pe,
    /// ACT (scalar engine) 0x21..0x30.
    Act,
    /// POOL / DVE datapath 0x41..0x9F.
    Datapath,
    /// Control / sync / DMA 0xA0..0xBF, legal on any engine.
    Control,
    /// Host-lowered pseudo 0xC1..0xDF (spec 003 §4, spec 001 §1).
    Pseudo,
    /// High band 0xE0..0xF4.
    High,
    /// The INVALID marker 0xFF.
    Invalid,
}

/// One row of the opcode table.
#[derive(Debug, Clone, Copy)]
pub struct OpcodeInfo {
    /// The opcode byte.
    pub value: u8,
    /// The mnemonic printed and parsed (decision D1).
    pub mnemonic: &'static str,
    /// The band.
    pub class: OpClass,
    /// The generations it exists in.
    pub generations: Generations,
    /// The payload layout that drives typed decode, text and the byte explainer.
    pub layout: &'static Layout,
}

impl OpcodeInfo {
    /// Whether the opcode is a host-lowered pseudo (spec 003 §4: "never executed by the H/W").
    #[inline]
    pub const fn is_pseudo(&self) -> bool {
        matches!(self.class, OpClass::Pseudo)
    }
}

macro_rules! define_table {
    ($($value:literal $name:ident $class:ident $gens:ident $layout:ident;)*) => {
        /// Every opcode row of [`for_each_opcode!`], in value order.
        pub static OPCODES: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                value: $value,
                mnemonic: stringify!($name),
                class: OpClass::$class,
                generations: Generations::$gens,
                layout: &payload::$layout,
            },)*
        ];

        /// Named constants for every opcode byte.
        impl Opcode {
            $(
                #[doc = concat!("`", stringify!($name), "` (reference §4.2).")]
                pub const $name: Opcode = Opcode($value);
            )*
        }
    };
}

for_each_opcode!(define_table);

/// `OPCODES` index by byte (`u8::MAX` = no row), built at compile time.
static INDEX: [u8; 256] = build_index();

const fn build_index() -> [u8; 256] {
    let mut idx = [u8::MAX; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        idx[OPCODES[i].value as usize] = i as u8;
        i += 1;
    }
    idx
}

/// The V1 (TONGA) names that differ from the v2+ table (reference §4.2 "V1 TONGA"; spec 003
/// §2.1: RT base 0x08 was PSEUDO_READ_VAR_ADDR before it became PSEUDO_TRIGGER_COLLECTIVE).
pub static V1_OPCODES: &[(u8, &str)] = &[
    (0x41, "TENSOR_TENSOR_ARITH_OP"),
    (0x46, "COPY"),
    (0x47, "CAST"),
    (0x61, "EVENT_WAIT"),
    (0x62, "EVENT_SET"),
    (0x63, "EVENT_CLEAR"),
    (0x65, "SEMAPHORE_TEST_AND_SET"),
    (0x68, "NOP"),
    (0x69, "WRITE"),
    (0x6a, "NOTIFY"),
    (0xc1, "PSEUDO_DMA_TRIGGER"),
    (0xc8, "PSEUDO_READ_VAR_ADDR"),
    (0xeb, "SIM_EB"),
    (0xec, "SIM_EC"),
    (0xed, "SIM_ED"),
    (0xee, "SIM_EE"),
    (0xef, "SIM_EF"),
];

/// The TONGA engine class in opcode bits 7:5 (spec 003 §2 `TONGA_ISA_TPB_ENGINE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum V1Engine {
    /// PE = 0.
    Pe,
    /// ACT = 1.
    Act,
    /// POOL = 2.
    Pool,
    /// ALL = 3.
    All,
    /// Class 4: not a TONGA engine.
    Class4,
    /// Class 5: the SEQ/SP control band of the newer dialect (spec 003 §2.2).
    Class5,
    /// RT = 6: runtime-patched pseudos.
    Rt,
    /// SIM = 7.
    Sim,
}

/// One opcode byte (spec 003 §2). Names come from [`OPCODES`]; unknown values are kept as is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Opcode(pub u8);

impl Opcode {
    /// The table row, or `None` for a byte the table does not know.
    #[inline]
    pub fn info(self) -> Option<&'static OpcodeInfo> {
        let i = INDEX[self.0 as usize];
        OPCODES.get(i as usize)
    }

    /// The v2+ mnemonic (decision D1), or `None` if unknown.
    #[inline]
    pub fn mnemonic(self) -> Option<&'static str> {
        self.info().map(|i| i.mnemonic)
    }

    /// Whether the opcode is a host-lowered pseudo (0xC1..0xDF, spec 003 §4).
    #[inline]
    pub fn is_pseudo(self) -> bool {
        self.info().is_some_and(OpcodeInfo::is_pseudo)
    }

    /// Whether the opcode exists in generation `g` (V1 uses [`V1_OPCODES`]).
    pub fn known_in(self, g: Generation) -> bool {
        match g {
            Generation::V1 => self.v1_name().is_some(),
            _ => self.info().is_some_and(|i| i.generations.contains(g)),
        }
    }

    /// The TONGA (V1) name, if the byte had one (decision D1).
    pub fn v1_name(self) -> Option<&'static str> {
        V1_OPCODES
            .iter()
            .find(|(v, _)| *v == self.0)
            .map(|(_, n)| *n)
    }

    /// The V1 base, `opcode & 0x1f` (spec 003 §2).
    #[inline]
    pub const fn v1_base(self) -> u8 {
        self.0 & 0x1f
    }

    /// The V1 engine class, `opcode >> 5` (spec 003 §2).
    #[inline]
    pub const fn v1_engine(self) -> V1Engine {
        match self.0 >> 5 {
            0 => V1Engine::Pe,
            1 => V1Engine::Act,
            2 => V1Engine::Pool,
            3 => V1Engine::All,
            4 => V1Engine::Class4,
            5 => V1Engine::Class5,
            6 => V1Engine::Rt,
            _ => V1Engine::Sim,
        }
    }

    /// Looks a mnemonic up: the v2+ names, then the aliases of decision D1 (reference spelling
    /// `PSEUDO_DMATRIGGER`), then the unambiguous V1 names. neuron-profile's names map in
    /// `neff_profile::mnemonic` (decision D176). Case-sensitive, like the printer.
    pub fn from_mnemonic(name: &str) -> Option<Self> {
        if let Some(i) = OPCODES.iter().find(|i| i.mnemonic == name) {
            return Some(Opcode(i.value));
        }
        match name {
            "PSEUDO_DMATRIGGER" => return Some(Opcode(0xc1)),
            "EVENT_WAIT" | "EVENT_SET" | "EVENT_CLEAR" | "SEMAPHORE_TEST_AND_SET" => {}
            _ => return None,
        }
        V1_OPCODES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| Opcode(*v))
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mnemonic() {
            Some(m) => write!(f, "Opcode({:#04x} {m})", self.0),
            None => write!(f, "Opcode({:#04x})", self.0),
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mnemonic() {
            Some(m) => f.write_str(m),
            None => write!(f, "{:#04x}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §3's target strings and product names, and the `vN` numbers, name one
    /// generation each; the code name reads back (decision D422).
    #[test]
    fn generation_names_come_from_one_table() {
        for (name, g) in [
            ("sunda", Generation::V2),
            ("TRN1", Generation::V2),
            ("inf2", Generation::V2),
            ("cayman", Generation::V3),
            ("trn2", Generation::V3),
            ("v4", Generation::V4),
            ("Maverick", Generation::V5),
            ("tonga", Generation::V1),
        ] {
            assert_eq!(Generation::from_name(name), Some(g), "{name}");
        }
        for g in Generation::ALL {
            assert_eq!(Generation::from_code_name(g.code_name()), Some(g));
            assert_eq!(Generation::from_number(g.number()), Some(g));
        }
        assert_eq!(Generation::from_name("trn3"), None);
        assert_eq!(Generation::from_code_name("trn1"), None);
    }

    #[test]
    fn table_is_sorted_unique_and_indexed() {
        for w in OPCODES.windows(2) {
            assert!(
                w[0].value < w[1].value,
                "{} !< {}",
                w[0].mnemonic,
                w[1].mnemonic
            );
        }
        for i in OPCODES {
            assert_eq!(Opcode(i.value).info().map(|r| r.mnemonic), Some(i.mnemonic));
            assert_eq!(Opcode::from_mnemonic(i.mnemonic), Some(Opcode(i.value)));
        }
    }

    /// spec 003 §2: 0x41 = 0x01 | POOL<<5, 0xC1 = 0x01 | RT<<5.
    #[test]
    fn v1_decomposition() {
        assert_eq!(
            (Opcode(0x41).v1_base(), Opcode(0x41).v1_engine()),
            (1, V1Engine::Pool)
        );
        assert_eq!(
            (Opcode(0xC1).v1_base(), Opcode(0xC1).v1_engine()),
            (1, V1Engine::Rt)
        );
        assert_eq!(Opcode(0xA0).v1_engine(), V1Engine::Class5);
        assert_eq!(Opcode(0xC8).v1_name(), Some("PSEUDO_READ_VAR_ADDR"));
    }

    #[test]
    fn pseudo_band_and_generations() {
        assert!(Opcode::PSEUDO_DMA_TRIGGER.is_pseudo());
        assert!(Opcode::PSEUDO_INST.is_pseudo());
        assert!(!Opcode::COMPARE_BRANCH.is_pseudo());
        assert!(Opcode::LDTAGS.known_in(Generation::V3));
        assert!(!Opcode::LDTAGS.known_in(Generation::V2));
        assert!(Opcode(0x87).known_in(Generation::V2) && !Opcode(0x87).known_in(Generation::V3));
        assert_eq!(Opcode(0x50).info().map(|i| i.mnemonic), None);
        assert_eq!(
            Opcode::from_mnemonic("PSEUDO_DMATRIGGER"),
            Some(Opcode(0xc1))
        );
        assert_eq!(Opcode::from_mnemonic("EVENT_WAIT"), Some(Opcode(0x61)));
    }
}
