//! PSEUDO_DMA_TRIGGER 0xC1 (spec 003 §5): `{header, events, dma_queue_name[32], use_raw_count,
//! union{block_id | count}, reserved[16]}`. With the 8-byte events the name is at +0x0C and the
//! rest shifts by +4 (spec 003 §5 GOTCHA, proven by §7.2 and reference §4.4).

use crate::layout::{Field, FieldKind, Layout, Show, view};

view! {
    /// A PSEUDO_DMA_TRIGGER slot (spec 003 §5).
    DmaTrigger / DmaTriggerMut = DMA_TRIGGER "PSEUDO_DMA_TRIGGER" {
        /// `dma_queue_name[32]` at +0x0C, resolved through def.json `dma_queue` (spec 003 §4).
        queue_name: name(32) @ 0x0C, Positional;
        /// `use_raw_count` at +0x2C: when non-zero, +0x30 is a raw count, not a block id.
        use_raw_count: u32 @ 0x2C, NonZero;
        /// `block_id` (or `count`) at +0x30: the descriptor block of the engine JSON `dma[]`.
        block_id: u32 @ 0x30, Always;
    }
}

/// The shipped legacy layout with 4-byte events (spec 003 §5 struct): name at +0x08, use_raw_count
/// at +0x28, block_id at +0x2C. Used by the text form in [`Dialect::Legacy4`](crate::Dialect).
pub static DMA_TRIGGER_LEGACY: Layout = Layout {
    name: "PSEUDO_DMA_TRIGGER (legacy 4-byte events)",
    fields: &[
        Field {
            name: "queue_name",
            key: "queue_name",
            offset: 0x08,
            kind: FieldKind::Name(32),
            show: Show::Positional,
        },
        Field {
            name: "use_raw_count",
            key: "use_raw_count",
            offset: 0x28,
            kind: FieldKind::U32,
            show: Show::NonZero,
        },
        Field {
            name: "block_id",
            key: "block_id",
            offset: 0x2C,
            kind: FieldKind::U32,
            show: Show::Always,
        },
    ],
    text_plan: crate::text::PlanCell::new(),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// reference §4.4 trn1 SP.bin slot 2: queue "qSPIO0", block id 1 at +0x30.
    #[test]
    fn trn1_sp_slot2_reads_queue_and_block() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0xc1, 0x10]);
        b[0x0C..0x12].copy_from_slice(b"qSPIO0");
        b[0x30] = 1;
        let t = DmaTrigger::new(Slot::new(&b)).expect("0xC1 is a DMA trigger");
        assert_eq!(t.queue_name(), b"qSPIO0");
        assert_eq!(t.block_id(), 1);
        assert_eq!(t.use_raw_count(), 0);
    }
}
