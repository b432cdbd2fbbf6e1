//! One decoded instruction of an engine image, compiled for the run loop: its waits, its
//! updates, what it does, and its cost. Decoded once per image, executed any number of times
//! (loops).

use neff_isa::AluOp;
use neff_load::EngineImage;
use neff_load::image::CodeRange;

use crate::packed::PackedSync;
use crate::registers::Width;
use crate::update::Update;
use crate::wait::Wait;

/// Which region of the image an instruction is in (spec 000 §6: `[PREAMBLE][MAIN][POSTAMBLE]
/// [FUNCTION*]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Region {
    /// The runtime's head (MODEL_SWITCH inside).
    Preamble,
    /// The NEFF's MAIN program.
    Main,
    /// The runtime's tail.
    Postamble,
    /// The NEFF's functions.
    Function,
}

impl Region {
    /// Whether instructions here come from the NEFF (MAIN or a function).
    pub fn is_neff(self) -> bool {
        matches!(self, Self::Main | Self::Function)
    }
}

/// Where an image's regions are (spec 000 §6), to name the region of any byte offset.
#[derive(Debug, Clone, Copy)]
pub struct Regions {
    core: CodeRange,
    functions: CodeRange,
    postamble: CodeRange,
}

impl Regions {
    /// The regions of `image`.
    pub fn new(image: &EngineImage) -> Self {
        Self {
            core: image.eib.core,
            functions: image.functions,
            postamble: image.postamble,
        }
    }

    /// The region image byte `off` is in.
    pub fn of(&self, off: u64) -> Region {
        let within = |r: CodeRange| off >= r.offset && off < r.end();
        if within(self.core) {
            Region::Main
        } else if within(self.functions) {
            Region::Function
        } else if within(self.postamble) {
            Region::Postamble
        } else {
            Region::Preamble
        }
    }
}

/// An ALU or store source: a register or an immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// `$R[r]`.
    Reg(u8),
    /// A constant.
    Imm(u64),
}

/// Where a COMPARE_BRANCH goes (`BR_TARGET_MODE`, spec 001 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Image byte offset (REL_IMM resolved at decode).
    Offset(i64),
    /// Absolute device address in a register (REGISTER).
    Reg(u8),
    /// Byte offset from the branch in a register (RELATIVE_REGISTER).
    RelReg(u8),
}

/// What an instruction does besides waiting, updating and taking time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OpKind {
    /// Computes or moves data inside the core: only time (the cost model).
    Plain,
    /// DRAIN: issues once every earlier instruction of the engine has completed.
    Drain,
    /// HALT: the engine stops.
    Halt,
    /// ALU_OP: `$R[dst] = $R[src0] op src1`.
    Alu {
        /// The operation.
        op: AluOp,
        /// The width.
        width: Width,
        /// Destination register.
        dst: u8,
        /// First source register.
        src0: u8,
        /// Second source.
        src1: Src,
    },
    /// COMPARE_BRANCH.
    Branch {
        /// `BR_CMP_OP` byte.
        cmp: u8,
        /// Compared register.
        reg: u8,
        /// Compared immediate.
        imm: u32,
        /// Where it goes when taken.
        target: Target,
    },
    /// TENSOR_LOAD of a 32-bit word into `$R[reg]`.
    Load {
        /// Destination register.
        reg: u8,
        /// The address: immediate or a register.
        addr: Src,
    },
    /// TENSOR_STORE of a 32-bit word.
    Store {
        /// The value.
        value: Src,
        /// The address: immediate or a register.
        addr: Src,
    },
    /// EVENT_SEMAPHORE_RANGE_CLEAR: `$S[first..=last] = 0`.
    RangeClear {
        /// First semaphore.
        first: u8,
        /// Last semaphore (inclusive).
        last: u8,
    },
    /// A WRITE of a DMA ring's tail pointer: `count` descriptors start (spec 003 §4).
    DmaStart {
        /// Index of the queue in the subgraph's resources.
        queue: u16,
        /// The ring.
        ring: u16,
        /// Descriptors the tail advances by.
        count: u32,
        /// The descriptor a DIRECT2D generated for this trigger (index into the engine's
        /// `descriptors`), when it has one.
        descriptor: Option<u32>,
    },
    /// A WRITE of the collective doorbell: the op list at this index of the engine's
    /// `op_lists` runs (spec 001 §3).
    Collective {
        /// Index into the engine's op lists.
        list: u32,
    },
    /// A WRITE of a semaphore register (the device model's semaphore bank).
    SemWrite {
        /// The semaphore.
        idx: u8,
        /// The value written.
        value: u32,
    },
    /// POLL_SEM of a semaphore register into `$R[reg]`.
    PollSem {
        /// Destination register.
        reg: u8,
        /// The semaphore read.
        idx: u8,
    },
}

/// Sentinel for "no NEFF slot".
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// Sentinel for "no `events_extended` wait or update" ([`Special::ext`]).
pub(crate) const NO_SPECIAL: u32 = u32::MAX;

/// The bit of [`Op::code`] that makes it a [`Special`]'s index rather than a price's.
const SPECIAL_BIT: u32 = 1 << 31;

/// One compiled instruction. Its image offset and region follow from its index
/// ([`crate::decode::EngineProgram::offset`], [`crate::decode::EngineProgram::region`]) and its cost
/// class from its price ([`crate::price::Price::class`]): the run loop streams the ops, so each
/// byte left out is memory traffic saved (D363). What an op does besides taking time (its
/// [`OpKind`]: a DMA trigger, an ALU op, a branch...) and the second wait and update of an
/// EVENT_SEMAPHORE live beside the ops, in the [`crate::decode::EngineProgram`]'s `specials`
/// and `extended`, as does the NEFF slot (only the reports read it): most ops only compute, and
/// each op is written once to fresh memory, whose first touch was most of the decoding time
/// (D365). Such an op's price is in its [`Special`] too, so an op is 16 bytes (D835: the ops are
/// decoded while the package is held, at `neff sim`'s peak).
#[derive(Debug, Clone, Copy)]
pub struct Op {
    /// The events wait (+4) and update, packed ([`Self::wait`], [`Self::update`]; D369).
    pub sync: PackedSync,
    /// An index into the engine's [`crate::decode::EngineProgram::prices`] (its cost and the
    /// units of work priced), or, with bit 31 set, into its
    /// [`crate::decode::EngineProgram::specials`] for an op that does more than take time or has
    /// an `events_extended` wait or update ([`Self::special`]).
    code: u32,
}

// The run loop streams the ops: keep them from growing back unnoticed (D362, D363, D365, D369,
// D835).
const _: () = assert!(std::mem::size_of::<Op>() <= 16);

impl Op {
    /// An op that only takes time: its sync and its price index.
    pub(crate) fn plain(sync: PackedSync, price: u32) -> Self {
        Self { sync, code: price }
    }

    /// The op made special: what else it does is `specials[index]`, which holds its price.
    /// `None` past 2^31 specials (the image would be 128 GiB).
    pub(crate) fn with_special(self, index: usize) -> Option<Self> {
        let i = u32::try_from(index).ok().filter(|&i| i < SPECIAL_BIT)?;
        Some(Self {
            sync: self.sync,
            code: i | SPECIAL_BIT,
        })
    }

    /// The index of what else it does in the engine's
    /// [`crate::decode::EngineProgram::specials`], or `None` for an [`OpKind::Plain`]
    /// instruction with no `events_extended` wait or update.
    #[inline]
    pub fn special(&self) -> Option<u32> {
        (self.code & SPECIAL_BIT != 0).then_some(self.code & !SPECIAL_BIT)
    }

    /// Its price index, when it is not special (a special's is in its [`Special`]).
    #[inline]
    pub(crate) fn plain_price(&self) -> Option<u32> {
        (self.code & SPECIAL_BIT == 0).then_some(self.code)
    }

    /// The events wait (+4).
    #[inline]
    pub fn wait(&self) -> Wait {
        self.sync.wait()
    }

    /// The events update.
    #[inline]
    pub fn update(&self) -> Option<Update> {
        self.sync.update()
    }
}

/// What an op does besides its wait, its update and its time: its kind, and the index of its
/// `events_extended` wait and update.
#[derive(Debug, Clone, Copy)]
pub struct Special {
    /// What it does.
    pub kind: OpKind,
    /// Its price: an index into the engine's [`crate::decode::EngineProgram::prices`].
    pub price: u32,
    /// The index of its `events_extended` wait and update (+0x20) in the engine's
    /// [`crate::decode::EngineProgram::extended`], or `u32::MAX` when it has none.
    pub ext: u32,
}

/// The second wait and update of an EVENT_SEMAPHORE (its `events_extended`, +0x20).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extended {
    /// The wait, or `Wait::None`.
    pub wait: Wait,
    /// The update.
    pub update: Option<Update>,
}
