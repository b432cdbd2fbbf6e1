//! The run loop (decision D480): every core's engines step through their NEFF streams in
//! order; a slot issues when its waits hold (every wait mode of [`crate::wait`], the
//! `events_extended` of EVENT_SEMAPHORE too); it then does its work at once — data and
//! semaphores — and its updates apply (the `_READ` ones before, the `_COMPLETE` ones after, a
//! DMA's completion semaphore last). Any order that respects the semaphores gives a race-free
//! program's answer; the loop runs each engine as far as it can, engines in `EngineType` order,
//! until every stream ends (or nothing can move: a deadlock).

use neff_isa::continuation::{self, Pairing};
use neff_isa::payload::DgeOp;
use neff_isa::payload::DmaExtension;
use neff_isa::payload::{
    ActTableLoad, Activate, AffineSelect, AluOpInst, CopyCast, DmaDirect2d, DmaTrigger,
    EventSemaphore, LdWeights, Matmul, Memset, MoveReg, TensorLoadPseudo, TensorReduce,
    TensorScalar, TensorTensor, TriggerCollective,
};
use neff_isa::{Opcode, Slot};

use super::core::Core;
use super::dma;
use super::error::RunError;
use super::hbm::Hbm;
use super::memory::{Touch, Touches};
use super::race::Detector;
use super::trace::Tracer;
use super::{activate, control, copy, elementwise, pe, select};
use crate::sync_state::SyncObject;
use crate::update::Update;
use crate::wait::Wait;

/// The compiled sync of one slot.
struct Sync {
    waits: [Wait; 2],
    updates: [Option<Update>; 2],
}

fn sync_of(core: &Core<'_>, e: usize, pc: usize, slot: &Slot<'_>) -> Result<Sync, RunError> {
    let bad = |what: &str, mode: u8| RunError::Unsupported {
        at: core.at(e, pc),
        reason: format!("{what} mode {mode:#04x} has no semantics"),
    };
    let ev = slot.events();
    let w = Wait::compile(ev.wait_mode, ev.wait_idx, ev.semaphore_value)
        .ok_or_else(|| bad("wait", ev.wait_mode))?;
    let u = Update::compile(ev.update_mode, ev.update_idx, ev.semaphore_value)
        .map_err(|()| bad("update", ev.update_mode))?;
    let (mut w2, mut u2) = (Wait::None, None);
    if let Some(es) = EventSemaphore::new(*slot).map(|v| v.es()) {
        w2 = Wait::compile(es.wait_mode, es.wait_idx, es.sem_wait_value)
            .ok_or_else(|| bad("wait", es.wait_mode))?;
        u2 = Update::compile(es.update_mode, es.update_idx, es.sem_update_value)
            .map_err(|()| bad("update", es.update_mode))?;
    }
    Ok(Sync {
        waits: [w, w2],
        updates: [u, u2],
    })
}

/// What watches a run besides computing it: the race detector and the tracer.
#[derive(Default)]
pub(crate) struct Observers {
    /// The race detector (D680), when races are checked.
    pub(crate) races: Option<Detector>,
    /// The tracer (D682), when tensors are traced.
    pub(crate) trace: Option<Tracer>,
    /// The touches of the slot observed last, their storage reused for the next (D824).
    pub(crate) buffer: Vec<Touch>,
}

impl Observers {
    fn on(&self) -> bool {
        self.races.is_some() || self.trace.is_some()
    }
}

/// A DMA an instruction started: its queue and the semaphore its completion raises.
pub(crate) struct DmaDone {
    /// The queue: `<engine> DIRECT2D` for an engine's descriptor ring, else the trigger's name.
    queue: String,
    /// The semaphore raised and by how much.
    raise: Option<(usize, i64)>,
}

/// Runs every core until all streams end. `max_steps` bounds the slots issued.
pub(crate) fn run_cores(
    cores: &mut [Core<'_>],
    hbm: &mut Hbm,
    max_steps: u64,
    obs: &mut Observers,
) -> Result<u64, RunError> {
    if obs.on() {
        for c in cores.iter_mut() {
            c.chip.touches = Touches::recording();
        }
    }
    let mut steps = 0u64;
    loop {
        let mut moved = false;
        for c in 0..cores.len() {
            for e in 0..cores[c].engines.len() {
                while !cores[c].engines[e].done() {
                    if !issue(cores, c, e, hbm, obs, steps)? {
                        break;
                    }
                    moved = true;
                    steps += 1;
                    if steps > max_steps {
                        return Err(RunError::StepBound { steps: max_steps });
                    }
                }
            }
        }
        if cores.iter().all(|c| c.engines.iter().all(|r| r.done())) {
            return Ok(steps);
        }
        if !moved {
            return Err(deadlock(cores));
        }
    }
}

fn deadlock(cores: &[Core<'_>]) -> RunError {
    let mut parts = Vec::new();
    for c in cores {
        for (e, r) in c.engines.iter().enumerate() {
            if r.done() {
                continue;
            }
            let slot = r.slot(r.pc);
            let waits = sync_of(c, e, r.pc, &slot)
                .map(|s| {
                    s.waits
                        .iter()
                        .filter(|w| !w.holds(&c.sync, &r.regs))
                        .map(|w| {
                            let now = match w.object() {
                                Some(crate::sync_state::SyncObject::Semaphore(i)) => {
                                    format!(" (now {})", c.sync.sems[usize::from(i)])
                                }
                                _ => String::new(),
                            };
                            format!("{}{now}", w.describe(&r.regs))
                        })
                        .collect::<Vec<_>>()
                        .join(" and ")
                })
                .unwrap_or_default();
            parts.push(format!("{} waits for {waits}", c.at(e, r.pc)));
        }
    }
    RunError::Deadlock {
        blocked: parts.join("; "),
    }
}

/// Issues the next slot of engine `e` of core `c` if its waits hold (`step` slots issued
/// before it); `Ok(false)` when they do not.
fn issue(
    cores: &mut [Core<'_>],
    c: usize,
    e: usize,
    hbm: &mut Hbm,
    obs: &mut Observers,
    step: u64,
) -> Result<bool, RunError> {
    let core = &mut cores[c];
    let pc = core.engines[e].pc;
    let slot = core.engines[e].slot(pc);
    let s = sync_of(core, e, pc, &slot)?;
    let regs = &core.engines[e].regs;
    if !s.waits.iter().all(|w| w.holds(&core.sync, regs)) {
        return Ok(false);
    }
    for w in &s.waits {
        w.on_issue(&mut core.sync);
    }
    let mut released = Vec::new();
    for u in s.updates.iter().flatten().filter(|u| !u.on_complete) {
        released.push(u.apply(&mut core.sync));
    }
    let done = execute(core, e, pc, &slot, hbm)?;
    if let Some((sem, n)) = done.as_ref().and_then(|d| d.raise) {
        core.sync.sems[sem.min(255)] += n;
    }
    let mut completed = Vec::new();
    for u in s.updates.iter().flatten().filter(|u| u.on_complete) {
        completed.push(u.apply(&mut core.sync));
    }
    // A 128-byte DIRECT2D record's continuation was read with its head (D155).
    let head = continuation::pairing_at(core.engines[e].slots, pc) == Ok(Pairing::Head);
    core.engines[e].pc += if head { 2 } else { 1 };
    if obs.on() {
        let mut touches = std::mem::take(&mut obs.buffer);
        core.chip.touches.swap_into(&mut touches);
        observe(
            cores,
            (c, e, pc),
            hbm,
            obs,
            step,
            &s,
            (&released, &completed),
            done,
            &touches,
        );
        obs.buffer = touches;
    }
    Ok(true)
}

/// Tells the observers what slot `pc` of engine `e` synchronized on and touched.
#[allow(clippy::too_many_arguments)] // one issued slot, every part named
fn observe(
    cores: &[Core<'_>],
    (c, e, pc): (usize, usize, usize),
    hbm: &Hbm,
    obs: &mut Observers,
    step: u64,
    s: &Sync,
    (released, completed): (&[SyncObject], &[SyncObject]),
    done: Option<DmaDone>,
    touches: &[Touch],
) {
    if let Some(d) = &mut obs.races {
        for obj in s.waits.iter().filter_map(Wait::object) {
            d.acquire(cores, c, e, obj);
        }
        d.tick(cores, c, e);
        for &obj in released {
            d.release(cores, c, e, obj);
        }
        d.tick(cores, c, e);
        match &done {
            Some(dma) => {
                let raise = dma.raise.map(|(s, _)| s.min(255) as u8);
                d.dma_touches(cores, hbm, c, (e, pc), &dma.queue, touches, raise);
            }
            None => d.engine_touches(cores, hbm, c, e, pc, touches),
        }
        for &obj in completed {
            d.release(cores, c, e, obj);
        }
    }
    if let Some(t) = &mut obs.trace {
        t.on_touches(hbm, || cores[c].at(e, pc), step, touches);
    }
}

/// Does what slot `pc` of engine `e` computes or moves.
fn execute(
    core: &mut Core<'_>,
    e: usize,
    pc: usize,
    slot: &Slot<'_>,
    hbm: &mut Hbm,
) -> Result<Option<DmaDone>, RunError> {
    let fail = |core: &Core<'_>, reason: String| RunError::Unsupported {
        at: core.at(e, pc),
        reason,
    };
    let op = slot.opcode();
    let class = super::work::OpClass::of(op);
    let timed = class.map(|c| (c, std::time::Instant::now(), core.work.elementwise));
    let r = match op {
        // Ordering, labels, waits alone: no data (their events were handled by the caller).
        Opcode::SET_ORDERING_MODE
        | Opcode::PSEUDO_BRANCH_LABEL
        | Opcode::NOP
        | Opcode::EVENT_SEMAPHORE => Ok(()),
        Opcode::ACTIVATION_TABLE_LOAD => {
            core.act_table = ActTableLoad::new(*slot).map(|t| t.table_sel());
            Ok(())
        }
        Opcode::PSEUDO_DMA_DIRECT2D => {
            let d = DmaDirect2d::new(*slot).expect("0xD4");
            if d.dge_op() != Ok(DgeOp::Direct2d) {
                return Err(fail(
                    core,
                    format!("dge_op {:?} has no semantics", d.dge_op()),
                ));
            }
            let regs = core.engines[e].regs.clone();
            let (src, dst) = dma::direct2d_ends(core, &regs, &d).map_err(|r| fail(core, r))?;
            if continuation::pairing_at(core.engines[e].slots, pc) == Ok(Pairing::Head) {
                let ext = DmaExtension(core.engines[e].slot(pc + 1));
                dma::check_extension(&ext, &src, &dst).map_err(|r| fail(core, r))?;
            }
            dma::transfer(core, hbm, &src, &dst).map_err(|reason| RunError::OutOfBounds {
                at: core.at(e, pc),
                operand: "descriptor".into(),
                reason,
            })?;
            return Ok(Some(DmaDone {
                queue: format!("{} DIRECT2D", core.engines[e].engine),
                raise: Some((usize::from(d.semaphore()), i64::from(d.sem_increment()))),
            }));
        }
        Opcode::PSEUDO_DMA_TRIGGER => {
            let t = DmaTrigger::new(*slot).expect("0xC1");
            if t.use_raw_count() != 0 {
                return Err(fail(core, "a raw-count trigger has no semantics".into()));
            }
            let queue = String::from_utf8_lossy(t.queue_name()).into_owned();
            let engine = core.engines[e].engine;
            let (ends, raise) = dma::trigger_ends(core, engine, &queue, u64::from(t.block_id()))
                .map_err(|r| fail(core, r))?;
            for (i, (src, dst)) in ends.iter().enumerate() {
                dma::transfer(core, hbm, src, dst).map_err(|reason| RunError::OutOfBounds {
                    at: core.at(e, pc),
                    operand: format!("block {} desc {i}", t.block_id()),
                    reason,
                })?;
            }
            return Ok(Some(DmaDone { queue, raise }));
        }
        Opcode::ALU_OP => control::alu_op(core, e, &AluOpInst::new(*slot).expect("0xA8")),
        Opcode::MOVE => control::move_reg(core, e, &MoveReg::new(*slot).expect("0xA7")),
        Opcode::PSEUDO_TENSOR_LOAD => {
            control::tensor_load(core, e, &TensorLoadPseudo::new(*slot).expect("0xCE"))
        }
        Opcode::LDWEIGHTS => pe::ldweights(core, &LdWeights::new(*slot).expect("0x01")),
        Opcode::MATMUL => pe::matmul(core, &Matmul::new(*slot).expect("0x02")),
        Opcode::COPY | Opcode::CAST | Opcode::RECIPROCAL => {
            copy::copy_cast(core, &CopyCast::new(*slot).expect("S4D4"), op)
        }
        Opcode::ACTIVATE => activate::activate(core, &Activate::new(*slot).expect("0x21")),
        Opcode::TENSOR_TENSOR_ARITH_OP => {
            elementwise::tensor_tensor(core, &TensorTensor::new(*slot).expect("0x41"))
        }
        Opcode::TENSOR_SCALAR_ARITH_OP => {
            elementwise::tensor_scalar(core, &TensorScalar::new(*slot).expect("0x43"))
        }
        Opcode::TENSOR_REDUCE_ARITH_OP => {
            elementwise::tensor_reduce(core, &TensorReduce::new(*slot).expect("0x42"))
        }
        Opcode::MEMSET => elementwise::memset(core, &Memset::new(*slot).expect("0x49")),
        Opcode::PSEUDO_TRIGGER_COLLECTIVE => {
            let c = TriggerCollective::new(*slot).expect("0xC8");
            super::collective::single_rank(core, hbm, &c)
        }
        Opcode::TENSOR_SCALAR_AFFINE_SELECT => {
            select::affine_select(core, e, &AffineSelect::new(*slot).expect("0x92"))
        }
        _ => Err("the functional model has no semantics for this opcode".into()),
    };
    if let Some((class, t, before)) = timed {
        let (elements, ns) = (
            core.work.elementwise - before,
            t.elapsed().as_nanos() as u64,
        );
        core.work.count(class, elements, ns);
    }
    r.map(|()| None).map_err(|reason| fail(core, reason))
}
