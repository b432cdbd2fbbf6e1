//! Decodes each engine image of a loaded subgraph into compiled [`Op`]s, once: waits and
//! updates compiled, control ops resolved (branch targets, the register a WRITE targets: a DMA
//! ring's tail pointer, the collective doorbell, a semaphore), and every instruction priced by
//! the cost model.

use std::collections::HashMap;

use neff_isa::payload::{
    ADDR8_MARKER_ADDR_REG, AluOpInst, CompareBranch, EventSemaphore, Mem2d, PollSem, RangeClear,
    RegWrite,
};
use neff_isa::{BrTargetMode, DataSrc, EngineType, Opcode, SLOT_BYTES, Slot};
use neff_load::device_model::{DeviceModel, StaticTriggerForm};
use neff_load::ipmap::{DeviceAddr, IpCursor};
use neff_load::model::LoadedEngine;
use neff_load::physical_core::PhysicalCore;
use neff_lower::runtime_dma;
use neff_lower::{GeneratedDescriptor, ImageBuf, LowerResources};

use crate::cost::{CostClass, CostModel, Features, features};
use crate::error::SimError;
use crate::glue_ops::GlueOps;
use crate::kept::KeptSlots;
use crate::op::{Extended, NO_SLOT, NO_SPECIAL, Op, OpKind, Region, Regions, Special, Src, Target};
use crate::packed::PackedSync;
use crate::price::{Price, Pricer};
use crate::registers::Width;
use crate::runtime_ops::{self, runtime_slot};
use crate::slot_runs::SlotRuns;
use crate::update::Update;
use crate::wait::Wait;

/// One engine's compiled image.
#[derive(Debug, Clone)]
pub struct EngineProgram {
    /// The engine.
    pub engine: EngineType,
    /// One op per 64-byte slot of the image, in image order.
    pub ops: Vec<Op>,
    /// Per op its NEFF slot (0-based index in the engine's `.bin`), if it has one (see
    /// [`Self::slot`]), as runs of consecutive slots (D835).
    pub neff_slots: SlotRuns,
    /// Per op whether it is glue the load inserted into MAIN (the runtime's own slots among the
    /// NEFF's, e.g. the static queues' broadcast WRITEs, D580): executed, but no NEFF
    /// instruction, so a profile's busy time leaves it out and so does the simulator's (D743).
    pub glue: GlueOps,
    /// What the ops that do more than take time do ([`Op::special`] indexes it).
    pub specials: Vec<Special>,
    /// The `events_extended` waits and updates ([`Special::ext`] indexes it).
    pub extended: Vec<Extended>,
    /// The ops' costs ([`Op::price`] indexes it).
    pub prices: Vec<Price>,
    /// The op at which the engine is done: the POSTAMBLE's last slot, the reset branch back to
    /// the program-start gate (spec 000 §6.2 (C)); it is not executed.
    pub stop: usize,
    /// The op of the program-start gate (`program_start_offset`, spec 000 §6.2 (A)).
    pub start_gate: usize,
    /// Device address of the image's first byte.
    pub base: u64,
    /// Where the image's regions are.
    pub regions: Regions,
    /// The slots an engine can stop at, kept when the image's own bytes are not (D834).
    pub kept: KeptSlots,
}

impl EngineProgram {
    /// The image byte offset of op `i`.
    pub fn offset(&self, i: usize) -> u32 {
        (i * SLOT_BYTES) as u32
    }

    /// The region of op `i`.
    pub fn region(&self, i: usize) -> Region {
        self.regions.of((i * SLOT_BYTES) as u64)
    }

    /// The NEFF slot of op `i`, if the instruction comes from the NEFF.
    pub fn slot(&self, i: usize) -> Option<u32> {
        self.neff_slots.get(i)
    }

    /// What `op` does.
    #[inline]
    pub fn kind(&self, op: &Op) -> OpKind {
        match op.special() {
            None => OpKind::Plain,
            Some(s) => self.specials[s as usize].kind,
        }
    }

    /// The `events_extended` wait and update of `op`, if it has them.
    #[inline]
    fn extended(&self, op: &Op) -> Option<&Extended> {
        match op.special() {
            None => None,
            Some(s) => match self.specials[s as usize].ext {
                NO_SPECIAL => None,
                x => Some(&self.extended[x as usize]),
            },
        }
    }

    /// The second wait of `op` (its `events_extended`), else `Wait::None`.
    #[inline]
    pub fn wait2(&self, op: &Op) -> Wait {
        self.extended(op).map_or(Wait::None, |x| x.wait)
    }

    /// Both waits of `op`: the events wait, then the `events_extended` one.
    #[inline]
    pub fn waits(&self, op: &Op) -> [Wait; 2] {
        [op.wait(), self.wait2(op)]
    }

    /// Both updates of `op`: the events update, then the `events_extended` one.
    #[inline]
    pub fn updates(&self, op: &Op) -> [Option<Update>; 2] {
        [op.update(), self.extended(op).and_then(|x| x.update)]
    }

    /// Whether any update of `op` applies at completion.
    #[inline]
    pub fn has_complete_updates(&self, op: &Op) -> bool {
        self.updates(op).iter().flatten().any(|u| u.on_complete)
    }

    /// The ops of the PREAMBLE.
    pub fn preamble_ops(&self) -> impl Iterator<Item = &Op> {
        (self.ops.iter().enumerate())
            .filter(|(i, _)| self.region(*i) == Region::Preamble)
            .map(|(_, op)| op)
    }

    /// The price of `op`: its cost and the units of work priced.
    #[inline]
    pub fn price(&self, op: &Op) -> &Price {
        let i = match op.plain_price() {
            Some(i) => i,
            None => op.special().map_or(0, |s| self.specials[s as usize].price),
        };
        &self.prices[i as usize]
    }

    /// The cost class of `op` (for the reports and the comparison with a profile).
    pub fn class(&self, op: &Op) -> CostClass {
        self.price(op).class
    }
}

/// Where the registers a WRITE may target are, for one subgraph (from the device model the
/// images were built for).
pub struct WriteTargets {
    tails: HashMap<u64, (u16, u16)>,
    rearms: HashMap<u64, ()>,
    doorbells: HashMap<u64, ()>,
    /// Per queue, whether a count written to its broadcast tail-increment register starts its
    /// next blocks: the static queues, when the images use runtime 2.30.51's trigger form (D580).
    broadcast: Vec<bool>,
    device: DeviceModel,
    /// The physical core the subgraph's images were moved to (neff-load's D816): register
    /// addresses are read back in the frame core's windows, where the lowering wrote them.
    core: Option<PhysicalCore>,
}

impl WriteTargets {
    /// The tail and re-arm registers of every ring of every queue, and the doorbells, of a
    /// subgraph whose images run on `core` ([`DeviceModel::core_of`]).
    pub fn new(
        device: &DeviceModel,
        resources: &LowerResources,
        core: Option<PhysicalCore>,
    ) -> Self {
        let mut tails = HashMap::new();
        let mut rearms = HashMap::new();
        for (qi, q) in resources.queues.iter().enumerate() {
            for ring in 0..q.rings.max(1) {
                if let Ok(a) = device.ring_tail_addr(qi, ring) {
                    tails.insert(a, (qi as u16, ring as u16));
                }
                if let Ok(a) = device.ring_rearm_addr(qi, ring) {
                    rearms.insert(a, ());
                }
            }
        }
        let doorbells = (0..EngineType::COUNT)
            .filter_map(|k| device.cc_trigger_addr(k).ok())
            .map(|a| (a, ()))
            .collect();
        let form = device.static_trigger == StaticTriggerForm::Broadcast;
        let broadcast = (resources.queues.iter())
            .map(|q| form && q.is_static())
            .collect();
        Self {
            tails,
            rearms,
            doorbells,
            broadcast,
            device: device.clone(),
            core,
        }
    }

    /// `addr` as the lowering wrote it, before the image was moved to its core (D816).
    fn in_frame(&self, addr: u64) -> u64 {
        (self.core)
            .and_then(|c| c.moved(PhysicalCore::FRAME, addr))
            .unwrap_or(addr)
    }

    /// The semaphore whose register is `addr`, in any engine's bank.
    fn semaphore(&self, addr: u64) -> Option<u8> {
        let d = &self.device;
        let off = addr.checked_sub(d.semaphore_base)?;
        let stride = d.semaphore_engine_stride.max(1);
        if off / stride >= EngineType::COUNT as u64 {
            return None;
        }
        let within = off % stride;
        (within.is_multiple_of(4) && within / 4 < 256).then_some((within / 4) as u8)
    }
}

/// The engine's DIRECT2D descriptors by source slot, walked in slot order. A hash map here cost a
/// cache miss per DMA trigger on a large image (the largest single cost of decoding,
/// docs/performance.md `sim_rate`), a search by halves per trigger still 2% (D364); slots are
/// decoded in order, so a cursor finds each in a step or two. Lowering generates the descriptors
/// in slot order, so they are searched in place; only when they are not is an order built (D368:
/// a copy is fresh memory, whose first touch is most of what decoding costs).
struct DescriptorIndex<'a> {
    descriptors: &'a [GeneratedDescriptor],
    /// The descriptors' indices in slot order, when they are not in it already.
    order: Option<Vec<u32>>,
    /// Where the previous lookup ended (see [`Self::get`]).
    cursor: usize,
}

impl<'a> DescriptorIndex<'a> {
    fn new(engine: &'a LoadedEngine) -> Self {
        let descriptors = engine.descriptors.as_slice();
        let order = (!descriptors.is_sorted_by_key(|d| d.source_slot)).then(|| {
            let mut v: Vec<u32> = (0..descriptors.len() as u32).collect();
            // Stable: among descriptors of one slot the last stays last (the one a map built
            // in order keeps).
            v.sort_by_key(|&i| descriptors[i as usize].source_slot);
            v
        });
        Self {
            descriptors,
            order,
            cursor: 0,
        }
    }

    /// The descriptor index at position `k` in slot order.
    fn at(&self, k: usize) -> u32 {
        self.order.as_ref().map_or(k as u32, |o| o[k])
    }

    /// The source slot of the descriptor at position `k` in slot order.
    fn slot_at(&self, k: usize) -> u64 {
        self.descriptors[self.at(k) as usize].source_slot
    }

    /// The last descriptor generated for `slot`. Slots are asked in ascending order, so the
    /// cursor (where the previous answer ended) walks forward a few entries instead of a search
    /// per trigger; a lower slot than the previous one is searched. Same answers as a search.
    fn get(&mut self, slot: u64) -> Option<u32> {
        let n = self.descriptors.len();
        let mut end = self.cursor.min(n);
        if end > 0 && self.slot_at(end - 1) > slot {
            let ds = self.descriptors;
            end = match &self.order {
                Some(o) => o.partition_point(|&i| ds[i as usize].source_slot <= slot),
                None => ds.partition_point(|d| d.source_slot <= slot),
            };
        } else {
            while end < n && self.slot_at(end) <= slot {
                end += 1;
            }
        }
        self.cursor = end;
        let k = end.checked_sub(1)?;
        (self.slot_at(k) == slot).then(|| self.at(k))
    }
}

/// What decoding needs besides the engine.
pub struct DecodeContext<'a> {
    /// The subgraph name (for errors).
    pub subgraph: &'a str,
    /// The registers WRITEs target.
    pub targets: &'a WriteTargets,
    /// The queues (for the bytes of static blocks).
    pub resources: &'a LowerResources,
    /// The cost model.
    pub cost: &'a CostModel,
}

/// Compiles `engine`'s image from its own bytes ([`neff_load::EngineImage::bytes`]).
pub fn decode_engine(
    cx: &DecodeContext<'_>,
    engine: &LoadedEngine,
) -> Result<EngineProgram, SimError> {
    let bytes = &engine.image.bytes;
    decode_records(
        cx,
        engine,
        bytes.len(),
        bytes.chunks_exact(SLOT_BYTES),
        Keep::None,
    )
}

/// Which records of an image a program keeps for after the image is gone ([`KeptSlots`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// None: the image keeps its bytes.
    None,
    /// The records of the ops with a wait: the only ones a deadlock report shows (D834).
    Waits,
    /// Every record: the trace's slices show each instruction's disassembly.
    All,
}

/// Compiles `engine`'s image from `view`, the image as a viewing load handed it over
/// ([`neff_load::model::load_kbins_viewing`]): the same program as [`decode_engine`] of the flat
/// image, plus the records `keep` says ([`KeptSlots`]), since the view is dropped before the run
/// (D834).
pub fn decode_engine_view(
    cx: &DecodeContext<'_>,
    engine: &LoadedEngine,
    view: &ImageBuf<'_>,
    keep: Keep,
) -> Result<EngineProgram, SimError> {
    // Parts start and end on record boundaries (D830), so their records are the image's.
    let records = view.parts().flat_map(|p| p.chunks_exact(SLOT_BYTES));
    decode_records(cx, engine, view.len(), records, keep)
}

/// Compiles the image of `len` bytes whose 64-byte records `records` yields in order, keeping
/// the records `keep` says ([`KeptSlots`]).
fn decode_records<'r>(
    cx: &DecodeContext<'_>,
    engine: &LoadedEngine,
    len: usize,
    records: impl Iterator<Item = &'r [u8]>,
    keep: Keep,
) -> Result<EngineProgram, SimError> {
    let img = &engine.image;
    let slots = len / SLOT_BYTES;
    if slots == 0 && engine.block.inst_len > 0 {
        return Err(SimError::NoImage {
            subgraph: cx.subgraph.to_string(),
            engine: engine.engine,
        });
    }
    let mut descriptors = DescriptorIndex::new(engine);
    let regions = Regions::new(img);
    let mut ops = Vec::with_capacity(slots);
    let mut neff_slots = SlotRuns::default();
    let mut glue = GlueOps::default();
    let (mut specials, mut extended) = (Vec::new(), Vec::new());
    let mut pricer = Pricer::new(cx.cost, engine.engine);
    let mut ip_cursor = IpCursor::default();
    let mut kept = KeptSlots::default();
    for (i, record) in records.take(slots).enumerate() {
        let off = i * SLOT_BYTES;
        let Some(slot) = Slot::from_slice(record) else {
            // `records` yields whole records: nothing to decode past one that is not.
            break;
        };
        let region = regions.of(off as u64);
        let mut inserted = false;
        let neff_slot = if region.is_neff() {
            let device_ip = DeviceAddr(engine.ib_addrs.base + off as u64);
            match engine.ipmap.neff_ip_next(&mut ip_cursor, device_ip) {
                Ok(hit) if !hit.inserted => hit.neff_ip.slot().map_or(NO_SLOT, |s| s.0),
                Ok(_) => {
                    inserted = true;
                    NO_SLOT
                }
                _ => NO_SLOT,
            }
        } else {
            NO_SLOT
        };
        let (mut op, kind, ext) = match runtime_slot(img, i) {
            Some(rs) => runtime_op(&mut pricer, rs, i),
            None => decode_slot(
                cx,
                &mut pricer,
                engine,
                &slot,
                off,
                neff_slot,
                &mut descriptors,
            )?,
        };
        let waits = op.wait() != Wait::None || ext.is_some_and(|x| x.wait != Wait::None);
        if keep == Keep::All || (keep == Keep::Waits && waits) {
            kept.push(i, record);
        }
        if !matches!(kind, OpKind::Plain) || ext.is_some() {
            let price = op.plain_price().unwrap_or(0);
            op = op
                .with_special(specials.len())
                .ok_or_else(|| SimError::TooLarge {
                    subgraph: cx.subgraph.to_string(),
                    engine: engine.engine,
                })?;
            let ext = ext.map_or(NO_SPECIAL, |x| {
                extended.push(x);
                (extended.len() - 1) as u32
            });
            specials.push(Special { kind, ext, price });
        }
        ops.push(op);
        neff_slots.push(neff_slot);
        glue.push(inserted);
    }
    let post = img.postamble;
    let stop = if post.size as usize >= SLOT_BYTES {
        (post.end() as usize / SLOT_BYTES) - 1
    } else {
        (img.eib.core.end() as usize / SLOT_BYTES).min(slots)
    };
    Ok(EngineProgram {
        engine: engine.engine,
        ops,
        neff_slots,
        glue,
        specials,
        extended,
        prices: pricer.finish(),
        stop,
        start_gate: img.program_start / SLOT_BYTES,
        base: engine.ib_addrs.base,
        regions,
        kept,
    })
}

/// An op, what it does, and its `events_extended` wait and update.
type Decoded = (Op, OpKind, Option<Extended>);

/// A slot of the runtime model's PREAMBLE or POSTAMBLE, compiled from what the model says it
/// is (its image bytes are placeholders).
fn runtime_op(
    pricer: &mut Pricer<'_>,
    slot: neff_load::runtime_model::RuntimeSlot,
    i: usize,
) -> Decoded {
    let c = runtime_ops::compile(slot, i);
    let op = Op::plain(
        PackedSync::new(c.wait, c.update),
        pricer.price(&Features {
            elements: c.work,
            ..Features::of_class(c.class)
        }),
    );
    (op, c.kind, None)
}

fn decode_slot(
    cx: &DecodeContext<'_>,
    pricer: &mut Pricer<'_>,
    engine: &LoadedEngine,
    slot: &Slot<'_>,
    off: usize,
    neff_slot: u32,
    descriptors: &mut DescriptorIndex<'_>,
) -> Result<Decoded, SimError> {
    let mode_err = |what, mode| SimError::UnknownMode {
        subgraph: cx.subgraph.to_string(),
        engine: engine.engine,
        offset: off as u64,
        what,
        mode,
    };
    let ev = slot.events();
    let wait = Wait::compile(ev.wait_mode, ev.wait_idx, ev.semaphore_value)
        .ok_or_else(|| mode_err("wait", ev.wait_mode))?;
    let update = Update::compile(ev.update_mode, ev.update_idx, ev.semaphore_value)
        .map_err(|()| mode_err("update", ev.update_mode))?;
    let mut ext = None;
    if let Some(es) = EventSemaphore::new(*slot).map(|v| v.es()) {
        let x = Extended {
            wait: Wait::compile(es.wait_mode, es.wait_idx, es.sem_wait_value)
                .ok_or_else(|| mode_err("wait", es.wait_mode))?,
            update: Update::compile(es.update_mode, es.update_idx, es.sem_update_value)
                .map_err(|()| mode_err("update", es.update_mode))?,
        };
        ext = (x.wait != Wait::None || x.update.is_some()).then_some(x);
    }
    let (kind, feats) = kind_of(cx, engine, slot, off, neff_slot, descriptors);
    let op = Op::plain(PackedSync::new(wait, update), pricer.price(&feats));
    Ok((op, kind, ext))
}

/// What the instruction does and its cost features.
fn kind_of(
    cx: &DecodeContext<'_>,
    engine: &LoadedEngine,
    slot: &Slot<'_>,
    off: usize,
    neff_slot: u32,
    descriptors: &mut DescriptorIndex<'_>,
) -> (OpKind, Features) {
    let f = features(slot);
    let kind = match slot.opcode() {
        Opcode::DRAIN => OpKind::Drain,
        Opcode::HALT => OpKind::Halt,
        Opcode::ALU_OP => match AluOpInst::new(*slot) {
            Some(a) => alu_kind(&a),
            None => OpKind::Plain,
        },
        Opcode::COMPARE_BRANCH => match CompareBranch::new(*slot) {
            Some(b) => branch_kind(&b, off),
            None => OpKind::Plain,
        },
        Opcode::TENSOR_LOAD | Opcode::TENSOR_STORE => match Mem2d::new(*slot) {
            Some(m) => mem_kind(&m, slot.opcode() == Opcode::TENSOR_LOAD),
            None => OpKind::Plain,
        },
        Opcode::EVENT_SEMAPHORE_RANGE_CLEAR => match RangeClear::new(*slot) {
            Some(r) => OpKind::RangeClear {
                first: r.first().min(255) as u8,
                last: r.last().min(255) as u8,
            },
            None => OpKind::Plain,
        },
        Opcode::POLL_SEM => match PollSem::new(*slot).and_then(|p| {
            let idx = cx.targets.semaphore(p.addr())?;
            Some(OpKind::PollSem { reg: p.reg(), idx })
        }) {
            Some(k) => k,
            None => OpKind::Plain,
        },
        Opcode::WRITE => {
            if let Some(k) = broadcast_trigger(cx, slot) {
                return k;
            }
            match RegWrite::new(*slot) {
                Some(w) => return write_kind(cx, engine, &w, neff_slot, descriptors),
                None => OpKind::Plain,
            }
        }
        Opcode::DMAMEMCPY => return dma_instruction(engine, neff_slot, descriptors, f),
        _ => OpKind::Plain,
    };
    (kind, f)
}

/// Runtime 2.30.51's DMA instruction (0xB8, the 0xD4 it was loaded from; D461): it hands the
/// descriptor lowering generated for that NEFF slot to the descriptor's ring, as the D54 form's
/// tail-pointer WRITE does (same queue, ring, semaphore and increment). Without a descriptor
/// (one not generated, an instruction not from the NEFF) it only takes time.
fn dma_instruction(
    engine: &LoadedEngine,
    neff_slot: u32,
    descriptors: &mut DescriptorIndex<'_>,
    plain: Features,
) -> (OpKind, Features) {
    let found = (neff_slot != NO_SLOT)
        .then(|| descriptors.get(u64::from(neff_slot)))
        .flatten();
    let Some(i) = found else {
        return (OpKind::Plain, plain);
    };
    let d = &engine.descriptors[i as usize];
    let mut f = Features::of_class(CostClass::DmaDynamic);
    f.bytes = d.dst.bytes();
    let kind = OpKind::DmaStart {
        queue: u16::try_from(d.queue).unwrap_or(u16::MAX),
        ring: u16::try_from(d.ring).unwrap_or(u16::MAX),
        count: 1,
        descriptor: Some(i),
    };
    (kind, f)
}

/// A static queue's trigger in runtime 2.30.51's form (D580): a two-word WRITE whose count goes
/// to a static queue's bank-B tail-increment register starts that many descriptors of the
/// queue's (single) ring; the pair's second WRITE (the `0xfffe` words) and bank A are not
/// triggers. `None` for any other WRITE.
fn broadcast_trigger(cx: &DecodeContext<'_>, slot: &Slot<'_>) -> Option<(OpKind, Features)> {
    let pairs = runtime_dma::read_runtime_write(slot.bytes())?;
    let (queue, count) = pairs.into_iter().flatten().find_map(|(addr, data)| {
        let q = runtime_dma::triggered_queue(cx.targets.in_frame(addr))?;
        let on = *cx.targets.broadcast.get(q)? && runtime_dma::is_tail_increment(data);
        on.then_some((q, data))
    })?;
    let kind = OpKind::DmaStart {
        queue: u16::try_from(queue).ok()?,
        ring: 0,
        count,
        descriptor: None,
    };
    Some((kind, Features::of_class(CostClass::DmaStatic)))
}

fn alu_kind(a: &AluOpInst<'_>) -> OpKind {
    let Ok(op) = a.op() else {
        return OpKind::Plain;
    };
    let src1 = match a.src1() {
        Ok(DataSrc::Register) => Src::Reg(a.imm() as u8),
        _ => Src::Imm(a.imm()),
    };
    OpKind::Alu {
        op,
        width: Width::of_dtype(a.dtype().map_or_else(|raw| raw, |d| d as u8)),
        dst: a.dst(),
        src0: a.src0(),
        src1,
    }
}

fn branch_kind(b: &CompareBranch<'_>, off: usize) -> OpKind {
    let rel = b.br_imm() as u32 as i32 as i64;
    let target = match b.target_mode() {
        Ok(BrTargetMode::Register) => Target::Reg(b.br_imm() as u8),
        Ok(BrTargetMode::RelativeRegister) => Target::RelReg(b.br_imm() as u8),
        _ => Target::Offset(off as i64 + rel),
    };
    OpKind::Branch {
        cmp: b.cmp_op().map_or_else(|raw| raw, |c| c as u8),
        reg: b.cmp_reg(),
        imm: b.cmp_imm(),
        target,
    }
}

fn mem_kind(m: &Mem2d<'_>, load: bool) -> OpKind {
    // MEM_2D (decision D156): start_addr's top byte is the marker (0x80 = address register, in
    // the low byte); data word 0 is the register, or a store's immediate.
    let a = m.addr();
    let addr = if a & ADDR8_MARKER_ADDR_REG != 0 {
        Src::Reg(a as u8)
    } else {
        Src::Imm(a)
    };
    let data = m.data();
    if load {
        OpKind::Load {
            reg: data as u8,
            addr,
        }
    } else {
        let value = match m.datasrc() {
            Ok(DataSrc::Register) => Src::Reg(data as u8),
            _ => Src::Imm(u64::from(data)),
        };
        OpKind::Store { value, addr }
    }
}

/// A WRITE: a DMA trigger, a collective doorbell, a semaphore register, or a plain register.
fn write_kind(
    cx: &DecodeContext<'_>,
    engine: &LoadedEngine,
    w: &RegWrite<'_>,
    neff_slot: u32,
    descriptors: &mut DescriptorIndex<'_>,
) -> (OpKind, Features) {
    let addr = w.addr();
    if let Some(&(queue, ring)) = cx.targets.tails.get(&addr) {
        let descriptor = (neff_slot != NO_SLOT)
            .then(|| descriptors.get(u64::from(neff_slot)))
            .flatten()
            .filter(|&i| engine.descriptors[i as usize].tail_addr == addr);
        let mut f = Features::of_class(match descriptor {
            Some(_) => CostClass::DmaDynamic,
            None => CostClass::DmaStatic,
        });
        f.bytes = match descriptor {
            Some(i) => engine.descriptors[i as usize].dst.bytes(),
            None => 0,
        };
        let kind = OpKind::DmaStart {
            queue,
            ring,
            count: w.value(),
            descriptor,
        };
        return (kind, f);
    }
    if cx.targets.doorbells.contains_key(&addr) {
        let list = engine
            .op_lists
            .iter()
            .position(|l| l.trigger_addr == addr && l.source_slot == u64::from(w.value()));
        if let Some(list) = list {
            let mut f = Features::of_class(CostClass::Collective);
            f.bytes = engine.op_lists[list]
                .ops
                .iter()
                .map(|o| o.input_elements * u64::from(o.elem_size))
                .sum();
            return (OpKind::Collective { list: list as u32 }, f);
        }
    }
    let control = Features::of_class(CostClass::Control);
    if cx.targets.rearms.contains_key(&addr) {
        return (OpKind::Plain, control);
    }
    if let Some(idx) = cx.targets.semaphore(addr) {
        return (
            OpKind::SemWrite {
                idx,
                value: w.value(),
            },
            control,
        );
    }
    let _ = cx.resources;
    (OpKind::Plain, control)
}
