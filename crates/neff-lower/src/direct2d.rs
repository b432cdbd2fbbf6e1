//! PSEUDO_DMA_DIRECT2D (0xD4; spec 001 §1 `translate_one_pseudo_dge_instr_v2`): one DMA
//! descriptor generated from the slot (operands resolved through the dge-table var) into the ring
//! of the queue whose semaphore the slot names, plus the WRITE of that ring's tail pointer
//! (decision D54).
//!
//! Every field is read through neff-isa's [`DmaDirect2d`] view (reference §4.5's field map).
//! ADDR8 modes: 0x10 physical var id, 0x20 DGE table entry, 0x28 table entry + offset register;
//! |0x04 and |0x40 are flags.

use neff_isa::builder::add_wr32;
use neff_isa::layout::{ADDR8_FLAGS, ADDR8_OFFSET_REG, ADDR8_TABLE, ADDR8_VAR, Addr8, Pattern};
use neff_isa::payload::{DgeOp, DmaDirect2d, DmaDirect2dMut};
use neff_isa::{EngineType, Events, Opcode, SLOT_BYTES, Slot, SlotBuf};

use super::context::LowerContext;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::var_address::var_address;
use crate::device::Direct2dForm;

/// One side of a generated descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescriptorEnd {
    /// The var the address resolves to (its name: [`super::LowerResources::var`]).
    pub var_id: u32,
    /// Byte offset in the var (the ADDR8 immediate; 0 when an offset register is used).
    pub offset: u32,
    /// The register whose value is the offset at run time, when the marker has the OFFSET_REG
    /// bit (mode 0x28): the ADDR8 immediate names it (moe_v6b: register 31, written by the
    /// ALU_OPs just before; decision D155).
    pub offset_reg: Option<u32>,
    /// Steps of the two dims, in bytes.
    pub steps: [u32; 2],
    /// Element counts of the two dims.
    pub nums: [u16; 2],
    /// Element size in bytes.
    pub elem_size: u16,
    /// DTYPE byte.
    pub dtype: u8,
}

impl DescriptorEnd {
    /// Bytes this end spans: element size times both dims' counts (a u64, so no product of the
    /// record's fields overflows).
    pub fn bytes(&self) -> u64 {
        u64::from(self.elem_size) * u64::from(self.nums[0]) * u64::from(self.nums[1])
    }
}

/// A descriptor lowering placed on a ring. Plain data, no heap: up to one per source slot, so
/// names are indices into the kbin's tables (queue, var), not owned strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedDescriptor {
    /// The DIRECT2D source slot.
    pub source_slot: u64,
    /// The queue: index into [`super::LowerResources::queues`] (its register bank, too).
    pub queue: u32,
    /// The ring instance.
    pub ring: u32,
    /// The tail-pointer register the trigger writes.
    pub tail_addr: u64,
    /// Source.
    pub src: DescriptorEnd,
    /// Destination.
    pub dst: DescriptorEnd,
    /// Semaphore incremented on completion and by how much.
    pub semaphore: u8,
    /// The increment.
    pub sem_increment: u8,
}

/// Whether a 0xD4's `dge_op` is TRANSPOSE or GATHER_TRANSPOSE: the DGE transpose family the v3
/// demux owns (spec 001 §1; decision D288), with no recipe here.
pub(super) fn is_transpose(slot: &[u8; SLOT_BYTES]) -> bool {
    matches!(
        DmaDirect2d(Slot::new(slot)).dge_op(),
        Ok(DgeOp::Transpose | DgeOp::GatherTranspose)
    )
}

/// Resolves an ADDR8 operand at `at` to its var. Inlined: two per 0xD4, and a load that keeps no
/// descriptor only checks them; returned through memory, the struct was read back with wider loads
/// than it was written with (a store-forwarding stall per end, ~30% of `translate_direct2d`'s
/// samples at `BENCH_SCALE=full`, decision D338).
#[inline(always)]
fn end(
    ctx: &LowerContext<'_>,
    operand: &'static str,
    addr: Addr8,
    pattern: Pattern,
    elem_size: u16,
    dtype: u8,
) -> Result<DescriptorEnd, LowerErrorKind> {
    let bad = |reason: String| LowerErrorKind::BadAddress { operand, reason };
    let index = addr.entry;
    let marker = addr.mode;
    let mode = marker & !ADDR8_FLAGS;
    let var_id = match mode {
        ADDR8_VAR => u32::from(index),
        m if m == ADDR8_TABLE || m == ADDR8_TABLE | ADDR8_OFFSET_REG => {
            let table = ctx
                .resources
                .dge_table()
                .ok_or_else(|| bad("mode DGE but def.json has no dge-table var".into()))?;
            let list = table.dge_list.as_deref().unwrap_or(&[]);
            *list.get(usize::from(index)).ok_or_else(|| {
                bad(format!(
                    "DGE entry {index} is outside `{}` ({} entries)",
                    table.name,
                    list.len()
                ))
            })?
        }
        m => return Err(bad(format!("unknown ADDR8 mode {m:#04x}"))),
    };
    if ctx.resources.var(var_id).is_none() {
        return Err(bad(format!("var_id {var_id} is not in def.json var")));
    }
    let immediate = addr.immediate;
    let offset_reg = (marker & ADDR8_OFFSET_REG != 0).then_some(immediate);
    Ok(DescriptorEnd {
        var_id,
        offset: if offset_reg.is_some() { 0 } else { immediate },
        offset_reg,
        steps: [pattern.step[0], pattern.step[1]],
        nums: [pattern.num[0], pattern.num[1]],
        elem_size,
        dtype,
    })
}

/// The queue (index, ring) owning `semaphore`: first among queues owned by `engine`, then
/// any queue; the ring is the semaphore's position in the set (one semaphore per ring).
fn queue_of(ctx: &LowerContext<'_>, engine: EngineType, semaphore: u8) -> Option<(usize, usize)> {
    let queues = &ctx.resources.queues;
    let find = |owned: bool| {
        queues.iter().enumerate().find_map(|(i, q)| {
            if owned && q.owner != Some(engine) {
                return None;
            }
            let pos = q
                .semaphores
                .iter()
                .position(|&s| s == u32::from(semaphore))?;
            Some((i, pos % q.rings.max(1)))
        })
    };
    find(true).or_else(|| find(false))
}

/// 0xD4: the descriptor plus one tail-pointer WRITE of 1 carrying the slot's events. A
/// continuation after it (decision D155, `continuation`) is consumed by the demux and adds no
/// record; runtime 2.30.51's form reads its source bound (D581).
pub(super) fn translate_direct2d(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    slot: &[u8; SLOT_BYTES],
    continuation: Option<&[u8]>,
    source_slot: u64,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let d = DmaDirect2d(Slot::new(slot)); // the demux hands over 0xD4 slots only
    let semaphore = d.semaphore();
    // The error (and its engine text) only on failure: one 0xD4 in a few slots of a large
    // stream (decision D338).
    let (queue_idx, ring) =
        queue_of(ctx, engine, semaphore).ok_or_else(|| LowerErrorKind::NoQueueForSemaphore {
            engine: engine.to_string(),
            semaphore,
        })?;
    let tail_addr = ctx.device.ring_tail_addr(queue_idx, ring)?;
    let (src_dtype, dst_dtype) = (raw(d.src_dtype()), raw(d.dst_dtype()));
    let src = end(
        ctx,
        "src",
        d.src(),
        d.src_pattern(),
        d.src_elem_size(),
        src_dtype,
    )?;
    let dst = end(
        ctx,
        "dst",
        d.dst(),
        d.dst_pattern(),
        d.dst_elem_size(),
        dst_dtype,
    )?;
    if !ctx.options.skip_descriptors {
        out.block.descriptors.push(GeneratedDescriptor {
            source_slot,
            queue: u32::try_from(queue_idx).unwrap_or(u32::MAX),
            ring: u32::try_from(ring).unwrap_or(u32::MAX),
            tail_addr,
            src,
            dst,
            semaphore,
            sem_increment: d.sem_increment(),
        });
    }
    if ctx.device.direct2d() == Direct2dForm::DmaInstruction {
        // D581: the runtime loads a bounded source's limit into the bound-check register first.
        if let Some(mv) = super::runtime_dma::bound_check_move(slot, continuation) {
            out.bytes().extend_from_slice(&mv);
        }
        return dma_instruction(ctx, slot, out);
    }
    let events = Events::read(slot).map(Events::pack);
    let off = out.bytes().len();
    add_wr32(out.bytes(), off, tail_addr, 1, events);
    Ok(())
}

/// A dtype byte as written, known to neff-isa's table or not (the descriptor keeps the byte).
fn raw(dtype: Result<neff_isa::Dtype, u8>) -> u8 {
    dtype.map_or_else(|b| b, |d| d as u8)
}

/// Runtime 2.30.51's 0xD4 (decision D461): the slot itself as a DMAMEMCPY (0xB8), every byte
/// kept but the opcode and each physical-var ADDR8, which becomes the u64 device address of byte
/// `immediate` of the var. DGE-table operands (mode 0x20, 0x28) stay as they are: every 0xB8 of
/// the seven shared captures is its 0xD4 with exactly these changes.
fn dma_instruction(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let d = DmaDirect2d(Slot::new(slot));
    let mut rec = SlotBuf::from(*slot);
    rec.set_opcode(Opcode::DMAMEMCPY);
    if let Some(src) = resolved(ctx, d.src())? {
        DmaDirect2dMut(&mut rec).src(src);
    }
    if let Some(dst) = resolved(ctx, d.dst())? {
        DmaDirect2dMut(&mut rec).dst(dst);
    }
    out.bytes().extend_from_slice(rec.bytes());
    Ok(())
}

/// A physical-var ADDR8 as the device address of byte `immediate` of its var, in the ADDR8's
/// 8 bytes (D461); `None` for a DGE-table operand, which the 0xB8 keeps as written.
fn resolved(ctx: &LowerContext<'_>, a: Addr8) -> Result<Option<Addr8>, LowerErrorKind> {
    if a.mode & !ADDR8_FLAGS != ADDR8_VAR {
        return Ok(None);
    }
    let addr = var_address(ctx, u32::from(a.entry), a.immediate)?;
    Ok(Some(Addr8::from_device_addr(addr)))
}
