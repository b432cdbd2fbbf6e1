//! PSEUDO_DMA_TRIGGER (0xC1) and PSEUDO_DMA_REARM (0xC2): the queue name resolved through
//! def.json `dma_queue` and the engine JSONs' blocks to a ring, then one WRITE of the ring's
//! tail pointer (spec 003 §4 "replaced by Write"; decision D54).
//!
//! Slot layout in the 8-byte-events dialect (spec 003 §5 GOTCHA, reference §4.4): +0x04 events,
//! +0x0C dma_queue_name[32], +0x2C use_raw_count, +0x30 block_id | count.

use std::borrow::Cow;

use neff_isa::SLOT_BYTES;
use neff_isa::builder::{EventsFields, add_wr32};

use super::context::LowerContext;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::resources::LowerQueue;
use super::slot_field::u32_at;

/// Where the queue name starts (spec 003 §5, shifted by the 8-byte events).
const NAME: std::ops::Range<usize> = 0x0C..0x2C;

/// The queue's register bank, the ring and the tail increment a trigger resolves to.
struct Target {
    queue: usize,
    ring: usize,
    count: u32,
}

/// The NUL-terminated queue name bytes of a trigger slot.
fn name_bytes(slot: &[u8]) -> &[u8] {
    let raw = &slot[NAME];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    &raw[..end]
}

/// The NUL-terminated queue name of a trigger slot as text, borrowed from the slot when it is
/// UTF-8 (no allocation per trigger, decision D338).
pub(super) fn queue_name(slot: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(name_bytes(slot))
}

/// The queue a trigger names, with its index. The kbin's names are UTF-8, so the first queue whose
/// name has the slot's bytes is the first one [`queue_name`]'s text finds: a hit needs neither
/// UTF-8 checking nor the text (one trigger in ten slots of a large stream, decision D338); only a
/// miss takes the text, which then finds or words the error exactly as before.
fn named_queue<'r>(
    ctx: &LowerContext<'r>,
    slot: &[u8],
) -> Result<(usize, &'r LowerQueue), LowerErrorKind> {
    let resources = ctx.resources;
    let raw = name_bytes(slot);
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
fn resolve(ctx: &LowerContext<'_>, slot: &[u8]) -> Result<Target, LowerErrorKind> {
    let (queue, q) = named_queue(ctx, slot)?;
    let use_raw_count = u32_at(slot, 0x2C) != 0;
    let id = u32_at(slot, 0x30);
    if use_raw_count {
        return Ok(Target {
            queue,
            ring: 0,
            count: id,
        });
    }
    if q.blocks.is_empty() {
        let ring = id as usize % q.rings.max(1);
        return Ok(Target {
            queue,
            ring,
            count: 1,
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
    out: &mut BlockWriter<'_>,
) -> Result<(), LowerErrorKind> {
    let t = resolve(ctx, slot)?;
    let addr = match register {
        RingRegister::Tail => ctx.device.ring_tail_addr(t.queue, t.ring)?,
        RingRegister::Rearm => ctx.device.ring_rearm_addr(t.queue, t.ring)?,
    };
    let events = EventsFields::read(slot).map(EventsFields::pack);
    let off = out.bytes.len();
    add_wr32(out.bytes, off, addr, t.count, events);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_model::DeviceModel;
    use crate::lower::resources::LowerResources;

    /// A trigger slot naming `name` (raw bytes, NUL-padded).
    fn trigger(name: &[u8]) -> [u8; SLOT_BYTES] {
        let mut s = [0u8; SLOT_BYTES];
        s[NAME.start..NAME.start + name.len()].copy_from_slice(name);
        s
    }

    /// The byte comparison finds what the text did (decision D338): the first queue of that name,
    /// a name only the lossy text matches, and the same errors.
    #[test]
    fn queue_lookup_by_bytes_matches_the_text_lookup() {
        let q = |name: &str| LowerQueue {
            name: name.into(),
            owner: None,
            semaphores: vec![],
            rings: 1,
            blocks: vec![],
        };
        let res = LowerResources {
            queues: vec![q("qA"), q("q\u{FFFD}"), q("qA"), q("")],
            ..LowerResources::default()
        };
        let device = DeviceModel::default();
        let ctx = LowerContext::new(&res, &device, "sg00");
        let index = |name: &[u8]| named_queue(&ctx, &trigger(name)).map(|(i, _)| i);
        assert_eq!(index(b"qA"), Ok(0));
        assert_eq!(index(b"q\xFF"), Ok(1));
        assert_eq!(index(b""), Err(LowerErrorKind::EmptyQueueName));
        let unknown = LowerErrorKind::UnknownQueue {
            queue: "q\u{FFFD}B".into(),
        };
        assert_eq!(index(b"q\xFFB"), Err(unknown));
    }
}
