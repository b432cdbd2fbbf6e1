//! PSEUDO_DMA_DIRECT2D (0xD4; spec 001 §1 `translate_one_pseudo_dge_instr_v2`): one DMA
//! descriptor generated from the slot (operands resolved through the dge-table var) into the ring
//! of the queue whose semaphore the slot names, plus the WRITE of that ring's tail pointer
//! (decision D54).
//!
//! Field map (reference §4.5): +0x0D semaphore, +0x0E sem_increment, +0x10 src ADDR8,
//! +0x18 src_step[2] u32, +0x20 src_num[2] u16, +0x24 src_elem_size u16, +0x28 dst ADDR8,
//! +0x30 dst_step[2] u32, +0x38 dst_num[2] u16, +0x3C dst_elem_size u16, +0x3E src dtype,
//! +0x3F dst dtype. ADDR8: +0 immediate u32, +4 var id / table entry u16, +7 mode (0x10 physical
//! var id, 0x20 DGE table entry, 0x28 table entry + offset register; |0x04 and |0x40 are flags).

use neff_isa::Events;
use neff_isa::builder::add_wr32;
use neff_isa::continuation::{
    ADDR8_OFFSET_REG_BIT, DGE_OP, DGE_OP_GATHER_TRANSPOSE, DGE_OP_TRANSPOSE,
};
use neff_isa::{EngineType, Opcode, SLOT_BYTES};

use super::context::LowerContext;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::slot_field::{u16_at, u32_at};
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
    matches!(slot[DGE_OP], DGE_OP_TRANSPOSE | DGE_OP_GATHER_TRANSPOSE)
}

/// Resolves an ADDR8 operand at `at` to its var. Inlined: two per 0xD4, and a load that keeps no
/// descriptor only checks them; returned through memory, the struct was read back with wider loads
/// than it was written with (a store-forwarding stall per end, ~30% of `translate_direct2d`'s
/// samples at `BENCH_SCALE=full`, decision D338).
#[inline(always)]
fn end(
    ctx: &LowerContext<'_>,
    slot: &[u8],
    at: usize,
    operand: &'static str,
    dtype: u8,
) -> Result<DescriptorEnd, LowerErrorKind> {
    let bad = |reason: String| LowerErrorKind::BadAddress { operand, reason };
    let index = u16_at(slot, at + 4);
    let marker = slot[at + 7];
    let mode = marker & !0x44;
    let var_id = match mode {
        0x10 => u32::from(index),
        0x20 | 0x28 => {
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
    let (steps, nums, size) = if operand == "src" {
        (0x18, 0x20, 0x24)
    } else {
        (0x30, 0x38, 0x3C)
    };
    let immediate = u32_at(slot, at);
    let offset_reg = (marker & ADDR8_OFFSET_REG_BIT != 0).then_some(immediate);
    Ok(DescriptorEnd {
        var_id,
        offset: if offset_reg.is_some() { 0 } else { immediate },
        offset_reg,
        steps: [u32_at(slot, steps), u32_at(slot, steps + 4)],
        nums: [u16_at(slot, nums), u16_at(slot, nums + 2)],
        elem_size: u16_at(slot, size),
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
/// continuation after it (decision D155) is consumed by the demux and adds no record.
pub(super) fn translate_direct2d(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    out: &mut BlockWriter<'_>,
) -> Result<(), LowerErrorKind> {
    let semaphore = slot[0x0D];
    // The error (and its engine text) only on failure: one 0xD4 in a few slots of a large
    // stream (decision D338).
    let (queue_idx, ring) =
        queue_of(ctx, engine, semaphore).ok_or_else(|| LowerErrorKind::NoQueueForSemaphore {
            engine: engine.to_string(),
            semaphore,
        })?;
    let tail_addr = ctx.device.ring_tail_addr(queue_idx, ring)?;
    let src = end(ctx, slot, 0x10, "src", slot[0x3E])?;
    let dst = end(ctx, slot, 0x28, "dst", slot[0x3F])?;
    if !ctx.options.skip_descriptors {
        out.block.descriptors.push(GeneratedDescriptor {
            source_slot,
            queue: u32::try_from(queue_idx).unwrap_or(u32::MAX),
            ring: u32::try_from(ring).unwrap_or(u32::MAX),
            tail_addr,
            src,
            dst,
            semaphore,
            sem_increment: slot[0x0E],
        });
    }
    if ctx.device.direct2d() == Direct2dForm::DmaInstruction {
        return dma_instruction(ctx, slot, out);
    }
    let events = Events::read(slot).map(Events::pack);
    let off = out.bytes.len();
    add_wr32(out.bytes, off, tail_addr, 1, events);
    Ok(())
}

/// The ADDR8 operands of a 0xD4 (field map above).
const ADDR8_AT: [usize; 2] = [0x10, 0x28];
/// The ADDR8 mode of a physical var id (the marker without its 0x04 / 0x40 flags).
const ADDR8_PHYSICAL_VAR: u8 = 0x10;

/// Runtime 2.30.51's 0xD4 (decision D461): the slot itself as a DMAMEMCPY (0xB8), every byte
/// kept but the opcode and each physical-var ADDR8, which becomes the u64 device address of byte
/// `immediate` of the var. DGE-table operands (mode 0x20, 0x28) stay as they are: every 0xB8 of
/// the seven shared captures is its 0xD4 with exactly these changes.
fn dma_instruction(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_>,
) -> Result<(), LowerErrorKind> {
    let mut rec = *slot;
    rec[0] = Opcode::DMAMEMCPY.0;
    for at in ADDR8_AT {
        if slot[at + 7] & !0x44 != ADDR8_PHYSICAL_VAR {
            continue;
        }
        let addr = var_address(ctx, u32::from(u16_at(slot, at + 4)), u32_at(slot, at))?;
        rec[at..at + 8].copy_from_slice(&addr.to_le_bytes());
    }
    out.bytes.extend_from_slice(&rec);
    Ok(())
}
