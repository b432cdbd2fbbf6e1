//! PSEUDO_DMA_TRIGGER (0xC1) and PSEUDO_DMA_REARM (0xC2): the queue name resolved through
//! def.json `dma_queue` and the engine JSONs' blocks to a ring, then one WRITE of the ring's
//! tail pointer (spec 003 §4 "replaced by Write"; decision D54).
//!
//! Slot layout in the 8-byte-events dialect (spec 003 §5 GOTCHA, reference §4.4): +0x04 events,
//! +0x0C dma_queue_name[32], +0x2C use_raw_count, +0x30 block_id | count.

use std::borrow::Cow;

use neff_isa::Events;
use neff_isa::builder::add_wr32;
use neff_isa::payload::DmaTrigger;
use neff_isa::{SLOT_BYTES, Slot};

use super::context::LowerContext;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::resources::LowerQueue;
use super::runtime_dma;
use crate::device::StaticTriggerForm;

/// The queue's register bank, the ring and the tail increment a trigger resolves to.
struct Target {
    queue: usize,
    ring: usize,
    count: u32,
    /// Whether the queue is static (def.json `type` not `dynamic`, decision D580).
    fixed: bool,
}

/// The NUL-terminated queue name of a trigger slot as text, borrowed from the slot when it is
/// UTF-8 (no allocation per trigger, decision D338).
fn queue_name<'a>(slot: &DmaTrigger<'a>) -> Cow<'a, str> {
    String::from_utf8_lossy(slot.queue_name())
}

/// The queue a trigger names, with its index. The kbin's names are UTF-8, so the first queue whose
/// name has the slot's bytes is the first one [`queue_name`]'s text finds: a hit needs neither
/// UTF-8 checking nor the text (one trigger in ten slots of a large stream, decision D338); only a
/// miss takes the text, which then finds or words the error exactly as before.
fn named_queue<'r>(
    ctx: &LowerContext<'r>,
    slot: &DmaTrigger<'_>,
) -> Result<(usize, &'r LowerQueue), LowerErrorKind> {
    let resources = ctx.resources;
    let raw = slot.queue_name();
    if raw.is_empty() {
        return Err(LowerErrorKind::EmptyQueueName);
    }
    if let Some(hit) = resources.queue_by_bytes(raw) {
        return Ok(hit);
    }
    let name = queue_name(slot);
    resources
        .queue(&name)
        .ok_or_else(|| LowerErrorKind::UnknownQueue {
            queue: name.into_owned(),
        })
}

/// Resolves (queue name, use_raw_count, block_id | count): a raw count writes that count on
/// ring 0; a block id selects the engine JSON block (its ring, its descriptor count); a queue
/// with no blocks at all (a dynamic queue) takes ring `block_id % rings` and one descriptor.
fn resolve(ctx: &LowerContext<'_>, slot: &DmaTrigger<'_>) -> Result<Target, LowerErrorKind> {
    let (queue, q) = named_queue(ctx, slot)?;
    let use_raw_count = slot.use_raw_count() != 0;
    let id = slot.block_id();
    let fixed = q.is_static();
    if use_raw_count {
        return Ok(Target {
            queue,
            ring: 0,
            count: id,
            fixed,
        });
    }
    if q.blocks.is_empty() {
        let ring = id as usize % q.rings.max(1);
        return Ok(Target {
            queue,
            ring,
            count: 1,
            fixed,
        });
    }
    let b = ctx
        .block(queue, u64::from(id))
        .ok_or_else(|| LowerErrorKind::UnknownBlock {
            queue: queue_name(slot).into_owned(),
            block_id: id,
        })?;
    Ok(Target {
        queue,
        ring: b.ring,
        count: b.ndesc,
        fixed,
    })
}

/// Which register of the resolved ring a DMA pseudo writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RingRegister {
    /// 0xC1: the tail pointer (spec 003 §4 "replaced by Write").
    Tail,
    /// 0xC2: the re-arm register (add_dma_bundle_rearm's WRITE).
    Rearm,
}

/// 0xC1 / 0xC2: one WRITE of `count` to the ring's `register`, keeping the slot's events.
pub(super) fn translate_dma_write(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    register: RingRegister,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    // 0xC2 (REARM) carries the 0xC1 fields (spec 003 §5; the disassembler prints it generically).
    let t = resolve(ctx, &DmaTrigger(Slot::new(slot)))?;
    if register == RingRegister::Tail
        && t.fixed
        && ctx.device.static_trigger() == StaticTriggerForm::Broadcast
    {
        let ty = ctx
            .resources
            .queues
            .get(t.queue)
            .map_or("", |q| q.ty.as_str());
        for rec in runtime_dma::static_trigger(&slot[4..12], t.queue, ty, t.count) {
            out.bytes().extend_from_slice(&rec);
        }
        return Ok(());
    }
    let addr = match register {
        RingRegister::Tail => ctx.device.ring_tail_addr(t.queue, t.ring)?,
        RingRegister::Rearm => ctx.device.ring_rearm_addr(t.queue, t.ring)?,
    };
    let events = Events::read(slot).map(Events::pack);
    let off = out.bytes().len();
    add_wr32(out.bytes(), off, addr, t.count, events);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceModelError, Direct2dForm, LowerDevice};
    use crate::resources::LowerResources;

    use neff_isa::payload::DmaTriggerMut;
    use neff_isa::{Opcode, SlotBuf};

    /// A trigger slot naming `name` (raw bytes, NUL-padded), written through neff-isa's writer.
    fn trigger(name: &[u8]) -> SlotBuf {
        let mut s = SlotBuf::new(Opcode::PSEUDO_DMA_TRIGGER);
        DmaTriggerMut(&mut s).queue_name(name);
        s
    }

    /// A device the queue lookup never asks an address of.
    #[derive(Debug)]
    struct NoAddresses;

    impl LowerDevice for NoAddresses {
        fn ring_tail_addr(&self, _: usize, _: usize) -> Result<u64, DeviceModelError> {
            Err(DeviceModelError::AddressOverflow { what: "test" })
        }
        fn ring_rearm_addr(&self, _: usize, _: usize) -> Result<u64, DeviceModelError> {
            Err(DeviceModelError::AddressOverflow { what: "test" })
        }
        fn cc_trigger_addr(&self, _: usize) -> Result<u64, DeviceModelError> {
            Err(DeviceModelError::AddressOverflow { what: "test" })
        }
        fn rank_id_addr(&self) -> u64 {
            0
        }
        fn global_device_id(&self) -> u32 {
            0
        }
        fn state_buffer_base(&self) -> u64 {
            0
        }
        fn tensor_base(&self) -> u64 {
            0
        }
        fn virtual_base(&self) -> Option<u64> {
            None
        }
        fn arch(&self) -> Option<neff_kelf::Target> {
            None
        }
        fn direct2d(&self) -> Direct2dForm {
            Direct2dForm::TailWrite
        }
        fn static_trigger(&self) -> StaticTriggerForm {
            StaticTriggerForm::TailWrite
        }
    }

    /// The byte comparison finds what the text did (decision D338): the first queue of that name,
    /// a name only the lossy text matches, and the same errors.
    #[test]
    fn queue_lookup_by_bytes_matches_the_text_lookup() {
        let q = |name: &str| LowerQueue {
            name: name.into(),
            owner: None,
            ty: crate::DYNAMIC_QUEUE.into(),
            semaphores: vec![],
            rings: 1,
            blocks: vec![],
        };
        let res = LowerResources {
            queues: vec![q("qA"), q("q\u{FFFD}"), q("qA"), q("")],
            ..LowerResources::default()
        };
        let device = NoAddresses;
        let ctx = LowerContext::new(&res, &device, "sg00");
        let index = |name: &[u8]| {
            named_queue(&ctx, &DmaTrigger(Slot::new(&trigger(name).0))).map(|(i, _)| i)
        };
        assert_eq!(index(b"qA"), Ok(0));
        assert_eq!(index(b"q\xFF"), Ok(1));
        assert_eq!(index(b""), Err(LowerErrorKind::EmptyQueueName));
        let unknown = LowerErrorKind::UnknownQueue {
            queue: "q\u{FFFD}B".into(),
        };
        assert_eq!(index(b"q\xFFB"), Err(unknown));
    }
}
