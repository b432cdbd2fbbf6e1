//! PSEUDO_EXTENSION 0xDA, the mandatory companion slot after PSEUDO_TRIGGER_COLLECTIVE2 0xD9
//! (spec 001 §3: the translator asserts `buf+64` is 0xDA and reads the 3-bit DMA priority class
//! from byte 41 on cayman+). 0xD9's own fields are not pinned by the spec pages: it is decoded
//! generically (decision D11).

use crate::layout::view;

view! {
    /// A PSEUDO_EXTENSION (PTC2E) slot.
    Extension / ExtensionMut = EXTENSION "PSEUDO_EXTENSION" {
        /// +41 DMA priority class (low 3 bits used, spec 001 §3).
        priority: u8 @ 41, NonZero;
    }
}

impl Extension<'_> {
    /// +0x0C the packed 26-bit SBUF partition offset of the 0xD9 before it (decision D55; spec 001
    /// §3 asserts bits 25..31 clear). Not in the field list, so the disassembly is unchanged
    /// (decision D421).
    #[inline]
    pub fn partition_offset(&self) -> u32 {
        self.0.u32_at(0x0C)
    }
}
