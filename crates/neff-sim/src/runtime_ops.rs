//! The runtime device model's PREAMBLE and POSTAMBLE, executed as the model says (decisions
//! D170-D174): its image bytes are placeholders, what each slot does is a
//! [`RuntimeSlot`] of neff-load's `runtime_model`. Each traced op becomes the wait, update and
//! kind the profiler's operand text names; an opaque slot — content never traced — only takes
//! time.

use neff_isa::SLOT_BYTES;
use neff_load::image::EngineImage;
use neff_load::runtime_model::op::{BARRIER_SEMAPHORE, PE_START_SEMAPHORE};
use neff_load::runtime_model::{RuntimeOp, RuntimeSlot};

use crate::cost::CostClass;
use crate::op::{OpKind, Src, Target};
use crate::update::{Effect, Update};
use crate::wait::{Cmp, Operand, Wait};

/// The runtime slot at image slot `i`, when the image was built under the runtime model and `i`
/// is in its PREAMBLE or POSTAMBLE.
pub(crate) fn runtime_slot(img: &EngineImage, i: usize) -> Option<RuntimeSlot> {
    let r = img.runtime.as_ref()?;
    let post = img.postamble.offset as usize / SLOT_BYTES;
    if i < r.preamble.len() {
        r.preamble.get(i).copied()
    } else if i >= post {
        r.postamble.get(i - post).copied()
    } else {
        None
    }
}

/// What one runtime slot does: its wait, its update, its kind and its cost class.
pub(crate) struct Compiled {
    pub(crate) wait: Wait,
    pub(crate) update: Option<Update>,
    pub(crate) kind: OpKind,
    pub(crate) class: CostClass,
    /// Its unit of work (registers a runtime load fills; 0 for the others).
    pub(crate) work: u64,
}

fn sem_wait(idx: u8, cmp: Cmp, v: u32) -> Wait {
    Wait::Sem {
        idx,
        cmp,
        rhs: Operand::Imm(v),
    }
}

fn complete(idx: u8, effect: Effect) -> Option<Update> {
    Some(Update {
        idx,
        effect,
        on_complete: true,
    })
}

/// Compiles the runtime slot at image slot `at` (the profiler's operand text of each op, as
/// neff-load's `RuntimeOp::operands` prints it, is what is executed).
pub(crate) fn compile(slot: RuntimeSlot, at: usize) -> Compiled {
    let plain = |class| Compiled {
        wait: Wait::None,
        update: None,
        kind: OpKind::Plain,
        class,
        work: 0,
    };
    let RuntimeSlot::Traced(op) = slot else {
        return plain(CostClass::RuntimeOpaque);
    };
    let s = BARRIER_SEMAPHORE;
    let branch = |cmp: u8, to: usize| OpKind::Branch {
        cmp,
        reg: 0,
        imm: 0,
        target: Target::Offset((to * SLOT_BYTES) as i64),
    };
    let _ = at;
    match op {
        RuntimeOp::SetOrderingStrict => plain(CostClass::Ordering),
        RuntimeOp::Notify { .. } => plain(CostClass::Notify),
        RuntimeOp::PeWritePair | RuntimeOp::PeWriteOne => plain(CostClass::Control),
        // `data=$R[0]` and `data=$R[130],$R[131]`: one and two registers (D741).
        RuntimeOp::LoadRunWord => Compiled {
            kind: OpKind::Load {
                reg: 0,
                addr: Src::Imm(0),
            },
            work: 1,
            ..plain(CostClass::RuntimeLoad)
        },
        RuntimeOp::LoadDgeRegisters => Compiled {
            kind: OpKind::Load {
                reg: 130,
                addr: Src::Imm(0),
            },
            work: 2,
            ..plain(CostClass::RuntimeLoad)
        },
        RuntimeOp::Drain => Compiled {
            kind: OpKind::Drain,
            ..plain(CostClass::Drain)
        },
        // `cmp_op=EQ cmp0=$R[0] cmp1=0` (BR_CMP_OP EQ_IMM = 3) and `cmp_op=ALWAYS` (0).
        RuntimeOp::SkipIfRunWordZero { to } => Compiled {
            kind: branch(3, to),
            ..plain(CostClass::Control)
        },
        RuntimeOp::BranchToStart { to } => Compiled {
            kind: branch(0, to),
            ..plain(CostClass::Control)
        },
        RuntimeOp::BarrierTurn { turn } => Compiled {
            wait: sem_wait(s, Cmp::Eq, turn),
            update: complete(s, Effect::SemAdd(1)),
            ..plain(CostClass::Barrier)
        },
        RuntimeOp::BarrierOpen => Compiled {
            update: complete(s, Effect::SemAdd(1)),
            ..plain(CostClass::Barrier)
        },
        RuntimeOp::BarrierClose { count } => Compiled {
            wait: sem_wait(s, Cmp::Eq, count),
            update: complete(s, Effect::SemWrite(0)),
            ..plain(CostClass::Barrier)
        },
        // `$E[e]==1-`: wait for the event, consume it.
        RuntimeOp::WaitEvent { event } => Compiled {
            wait: Wait::Event {
                idx: event,
                set: true,
                flip: true,
            },
            ..plain(CostClass::Sync)
        },
        RuntimeOp::RaiseEvent { event } => Compiled {
            update: complete(event, Effect::EventSet),
            ..plain(CostClass::Sync)
        },
        RuntimeOp::TakeStartSemaphore => Compiled {
            wait: sem_wait(PE_START_SEMAPHORE, Cmp::Ge, 1),
            update: complete(PE_START_SEMAPHORE, Effect::SemSub(1)),
            ..plain(CostClass::Sync)
        },
        RuntimeOp::ClearSemaphores { first, last } => Compiled {
            kind: OpKind::RangeClear {
                first: first.min(255) as u8,
                last: last.min(255) as u8,
            },
            ..plain(CostClass::Control)
        },
    }
}
