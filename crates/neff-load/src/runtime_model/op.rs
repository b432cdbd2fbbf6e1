//! The instructions the hardware traces show in the runtime's own regions (decision D172), each
//! with the semantics a simulator needs and its text in the profiler's vocabulary.
//!
//! Values the runtime resolves at load time (the addresses a TENSOR_LOAD reads, the registers a
//! WRITE hits, the data PE writes) differ between subgraphs and runs; they are not modelled and
//! print as `<runtime>`.

use neff_isa::SLOT_BYTES;
use std::fmt;

/// How a value the runtime resolves at load time prints.
pub const RUNTIME_VALUE: &str = "<runtime>";

/// The runtime semaphore the engines' barrier counts on (`$S[2]` in every trace).
pub const BARRIER_SEMAPHORE: u8 = 2;
/// The runtime semaphore PE takes once per start (`$S[1]>=1 $S[1]--`).
pub const PE_START_SEMAPHORE: u8 = 1;

/// One runtime instruction whose meaning the traces show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeOp {
    /// `SET_ORDERING_MODE ordering_mode=strict`: the first two slots of the program start.
    SetOrderingStrict,
    /// `TENSOR_LOAD addr=uint32@<runtime>[0,0][1,1] data=$R[0]`: the subgraph's run word.
    LoadRunWord,
    /// `DRAIN`: wait until the engine's queue is empty.
    Drain,
    /// `COMPARE_BRANCH cmp_op=EQ dtype=int32 cmp0=$R[0] cmp1=0`: skip the MODEL_SWITCH region to
    /// image slot `to` when the run word is zero.
    SkipIfRunWordZero {
        /// Target image slot.
        to: usize,
    },
    /// `NOTIFY hint=H notification=EXPLICIT trace=START`: 2 before MAIN, 3 after it.
    Notify {
        /// The hint (2 start, 3 done).
        hint: u8,
    },
    /// `EVENT_SEMAPHORE $S[2]==turn $S[2]++@complete`: an engine's turn in the barrier chain.
    BarrierTurn {
        /// The value the semaphore must hold.
        turn: u32,
    },
    /// PE: `EVENT_SEMAPHORE $S[2]+=1@complete`: opens the barrier chain.
    BarrierOpen,
    /// PE: `EVENT_SEMAPHORE $S[2]==count $S[2]=0@complete`: closes it once every turn is taken.
    BarrierClose {
        /// The value the last turn leaves.
        count: u32,
    },
    /// `TENSOR_LOAD addr=uint32@<runtime>[1,0][2,1] data=$R[130],$R[131]`: two runtime words
    /// (subgraphs with a DGE table).
    LoadDgeRegisters,
    /// PE: `WRITE` of two words to two runtime registers.
    PeWritePair,
    /// PE: `NOP $E[e]==1-`: wait for event `e` and consume it.
    WaitEvent {
        /// The event.
        event: u8,
    },
    /// PE: `NOP $E[e]+@complete`: raise event `e`.
    RaiseEvent {
        /// The event.
        event: u8,
    },
    /// PE: `WRITE data=0x1 size=4` to one runtime register.
    PeWriteOne,
    /// PE: `EVENT_SEMAPHORE $S[1]>=1 $S[1]--@complete`.
    TakeStartSemaphore,
    /// `EVENT_SEMAPHORE_RANGE_CLEAR mode=SEMAPHORE_ZERO first=F last=L`.
    ClearSemaphores {
        /// First semaphore cleared.
        first: u32,
        /// Last semaphore cleared (inclusive).
        last: u32,
    },
    /// `COMPARE_BRANCH cmp_op=ALWAYS`: back to the program start at image slot `to`.
    BranchToStart {
        /// Target image slot.
        to: usize,
    },
}

impl RuntimeOp {
    /// The profiler's mnemonic.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            Self::SetOrderingStrict => "SET_ORDERING_MODE",
            Self::LoadRunWord | Self::LoadDgeRegisters => "TENSOR_LOAD",
            Self::Drain => "DRAIN",
            Self::SkipIfRunWordZero { .. } | Self::BranchToStart { .. } => "COMPARE_BRANCH",
            Self::Notify { .. } => "NOTIFY",
            Self::BarrierTurn { .. }
            | Self::BarrierOpen
            | Self::BarrierClose { .. }
            | Self::TakeStartSemaphore => "EVENT_SEMAPHORE",
            Self::PeWritePair | Self::PeWriteOne => "WRITE",
            Self::WaitEvent { .. } | Self::RaiseEvent { .. } => "NOP",
            Self::ClearSemaphores { .. } => "EVENT_SEMAPHORE_RANGE_CLEAR",
        }
    }

    /// A branch's target, relative to the branch's own slot, as the profiler prints it:
    /// `label_id` = the distance in bytes as an unsigned 32-bit number (a branch back 43 slots is
    /// 4294964544).
    fn label_id(from: usize, to: usize) -> u32 {
        ((to as i64 - from as i64) * SLOT_BYTES as i64) as i32 as u32
    }

    /// The operand text in the profiler's words, for this op at image slot `at`.
    pub fn operands(&self, at: usize) -> String {
        let s = BARRIER_SEMAPHORE;
        match *self {
            Self::SetOrderingStrict => "ordering_mode=strict".into(),
            Self::LoadRunWord => "addr=uint32@<runtime>[0,0][1,1] data=$R[0]".into(),
            Self::Drain => String::new(),
            Self::SkipIfRunWordZero { to } => format!(
                "cmp_op=EQ dtype=int32 cmp0=$R[0] cmp1=0 label_id={}",
                Self::label_id(at, to)
            ),
            Self::Notify { hint } => format!("hint={hint} notification=EXPLICIT trace=START"),
            Self::BarrierTurn { turn } => format!("$S[{s}]=={turn} $S[{s}]++@complete"),
            Self::BarrierOpen => format!("$S[{s}]+=1@complete"),
            Self::BarrierClose { count } => format!("$S[{s}]=={count} $S[{s}]=0@complete"),
            Self::LoadDgeRegisters => "addr=uint32@<runtime>[1,0][2,1] data=$R[130],$R[131]".into(),
            Self::PeWritePair => "data=<runtime>,<runtime> size=4,4 dst=<runtime>,<runtime>".into(),
            Self::WaitEvent { event } => format!("$E[{event}]==1- cycle=1"),
            Self::RaiseEvent { event } => format!("$E[{event}]+@complete cycle=1"),
            Self::PeWriteOne => "data=0x1 size=4 dst=<runtime>".into(),
            Self::TakeStartSemaphore => {
                let t = PE_START_SEMAPHORE;
                format!("$S[{t}]>=1 $S[{t}]--@complete")
            }
            Self::ClearSemaphores { first, last } => {
                format!("mode=SEMAPHORE_ZERO first={first} last={last}")
            }
            Self::BranchToStart { to } => {
                format!("cmp_op=ALWAYS label_id={}", Self::label_id(at, to))
            }
        }
    }
}

/// One slot of a runtime region: what the traces show there, or nothing known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeSlot {
    /// An instruction the hardware traces show at this position.
    Traced(RuntimeOp),
    /// A slot the runtime has there but no trace shows: its content is unknown.
    Opaque,
}

impl RuntimeSlot {
    /// The traced instruction, if any.
    pub fn op(&self) -> Option<RuntimeOp> {
        match self {
            Self::Traced(op) => Some(*op),
            Self::Opaque => None,
        }
    }
}

/// `RuntimeSlot` at an image slot, printed the way the profiler would (`DRAIN`,
/// `NOTIFY hint=2 ...`) or `(opaque runtime slot)`.
#[derive(Debug, Clone, Copy)]
pub struct SlotText {
    /// The slot.
    pub slot: RuntimeSlot,
    /// Its image slot index.
    pub at: usize,
}

impl fmt::Display for SlotText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.slot {
            RuntimeSlot::Opaque => f.write_str("(opaque runtime slot)"),
            RuntimeSlot::Traced(op) => {
                let ops = op.operands(self.at);
                if ops.is_empty() {
                    f.write_str(op.mnemonic())
                } else {
                    write!(f, "{} {ops}", op.mnemonic())
                }
            }
        }
    }
}
