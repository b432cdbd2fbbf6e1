//! The continuation slot of a 128-byte PSEUDO_DMA_DIRECT2D record: S5's
//! `PSEUDO_DMA_EXT_STRUCT`, a 0xDA right after a 0xD4 (decision D155; the pairing rule is
//! [`crate::continuation`]). It has no header and no events: byte 0 is the opcode and every other
//! byte is a field, so its reader must not take byte 1 for `inst_word_len` or bytes 4..12 for
//! events. Offsets are S5's probe-confirmed layout; moe_v6b pins `src_bound_size_bytes` (+12): in
//! all 144 real continuations it is the size of the var the 0xD4's DGE-table source names
//! (`input3` 268435456 in 128 of them, `input2` 134217728 in 16), every other byte zero.
//!
//! The 0xDA after a 0xD9 is a different struct (spec 001 §3: PTC2E, [`super::Extension`]).

use crate::layout::view;

view! {
    /// A PSEUDO_DMA_DIRECT2D continuation (`PSEUDO_DMA_EXT_STRUCT`). Build it with
    /// `DmaExtension(slot)`: the opcode table's 0xDA row is the 0xD9 extension, so
    /// `DmaExtension::new` never matches; which struct a 0xDA is depends on the slot before it.
    DmaExtension / DmaExtensionMut = DMA_EXTENSION "PSEUDO_DMA_EXT" {
        /// +1 `DMA_INDIRECT_FLAGS` (indirect mode, index bound is error, non-unique dst index,
        /// gather / scatter dims).
        flags: u8 @ 1, NonZero;
        /// +2 index-generation channels (INDIRECT1D: 128).
        idx_num_active_channels: u8 @ 2, NonZero;
        /// +3 `DGE_COMPUTE_OP` (0 NONE, 1 ADD, 2 MULTIPLY, 3 MAX, 4 MIN).
        compute_op: u8 @ 3, NonZero;
        /// +4 gather index tensor (ADDR4).
        src_idx_start_addr: hex32 @ 4, NonZero;
        /// +8 scatter index tensor (ADDR4).
        dst_idx_start_addr: hex32 @ 8, NonZero;
        /// +12 source bound in bytes (low 32 bits).
        src_bound_size_bytes: u32 @ 12, NonZero;
        /// +16 destination bound in bytes (low 32 bits).
        dst_bound_size_bytes: u32 @ 16, NonZero;
        /// +20 transpose tile row step (int32).
        tile_src_row_step: u32 @ 20, NonZero;
        /// +24 transpose tile rows (16 or 0).
        tile_src_rows: u8 @ 24, NonZero;
        /// +25 transpose tile columns (128 or 0).
        tile_src_cols: u8 @ 25, NonZero;
        /// +56 source bound, high 32 bits.
        src_bound_size_bytes_upper: u32 @ 56, NonZero;
        /// +60 destination bound, high 32 bits.
        dst_bound_size_bytes_upper: u32 @ 60, NonZero;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuation::tests::MOE_POOL_SLOT10;
    use crate::slot::Slot;

    #[test]
    fn moe_continuation_carries_the_source_var_size() {
        let e = DmaExtension(Slot::new(&MOE_POOL_SLOT10));
        assert_eq!(e.src_bound_size_bytes(), 268_435_456);
        assert_eq!((e.flags(), e.dst_bound_size_bytes()), (0, 0));
        assert!(DmaExtension::new(Slot::new(&MOE_POOL_SLOT10)).is_none());
    }
}
