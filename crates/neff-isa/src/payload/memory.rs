//! TENSOR_LOAD 0xAA / TENSOR_STORE 0xAB: S5's `NEURON_ISA_TPB_MEM_2D_STRUCT` (decision D156,
//! amending D52): the sequencer's gather of up to 32 scalars from a 2-D pattern into registers, and
//! its mirror store. dtype +0x0C, `src_datasrc` +0x0D (register, or immediates for a store),
//! `num_elem[2]` (u8) +0x0E, `start_addr` ADDR8 +0x10 (a u64 immediate address when its marker
//! byte +0x17 is 0; 0x80 = address in registers), `step_elem[2]` (int32, elements) +0x18, and
//! `data` +0x20: 32 register numbers used first to last (or the stored immediates). Evidence: S5's
//! compile-verified header layout; the 144 real PSEUDO_TENSOR_LOAD slots of moe_v6b, whose bytes
//! fill exactly these fields (dtype u32, register source, one element, register 60/61 in data[0]);
//! and the profiles' runtime TENSOR_LOADs, printed `addr=uint32@0x8005c035e000[0,0][1,1]
//! data=$R[0]`: dtype, address, two steps, two counts, registers. The micro-op builders
//! (`add_ldr32_addr`, `add_str32_*`, spec 001 §3) write one-element accesses of this form.

use crate::alu_op::DataSrc;
use crate::dtype::Dtype;
use crate::layout::view;

/// `start_addr` marker (its top byte, +0x17): the address is in registers (S5 `MARKER_ADDR_REG`).
pub const ADDR8_MARKER_ADDR_REG: u64 = 0x80 << 56;

view! {
    /// A TENSOR_LOAD / TENSOR_STORE slot (`MEM_2D`, decision D156).
    Mem2d / Mem2dMut = MEM_2D "MEM_2D" {
        /// +0x0C the element dtype (loads widen to 32 bits).
        dtype: enum(Dtype) @ 0x0C, Always;
        /// +0x0D `src_datasrc`: REG (the registers of `data`) or IMM (a store's immediates).
        datasrc: enum(DataSrc) @ 0x0D, Always;
        /// +0x0E `num_elem[0]`, elements along the inner dimension.
        num_elem0: u8 @ 0x0E, Always;
        /// +0x0F `num_elem[1]`, elements along the outer dimension (n0 * n1 <= 32).
        num_elem1: u8 @ 0x0F, Always;
        /// +0x10 `start_addr` (ADDR8): the u64 address when the marker byte +0x17 is 0.
        addr: hex64 @ 0x10, NonZero;
        /// +0x18 `step_elem[2]`, int32 strides in elements.
        step_elem: u32s(2) @ 0x18, NonZero;
        /// +0x20 `data` word 0: `registers[0..4]` (a one-element access names its register in
        /// the low byte) or a store's first u32 immediate; bytes +0x24.. print as overlays.
        data: u32 @ 0x20, NonZero;
    }
}

/// Words of a TENSOR_STORE's immediates at +0x20 (`data`: S5's 32 register bytes, as 8 u32).
pub const MEM_2D_DATA_WORDS: usize = 8;

impl Mem2dMut<'_> {
    /// All of a store's immediates: `data` (+0x20) and the seven words after it (+0x24..+0x40,
    /// which the layout prints as overlays of `data`).
    pub fn data_words(&mut self, words: [u32; MEM_2D_DATA_WORDS]) -> &mut Self {
        for (k, w) in words.into_iter().enumerate() {
            self.0.put_u32(0x20 + 4 * k, w);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// moe_v6b Pool slot 11 (PSEUDO_TENSOR_LOAD) with its var reference replaced by an address:
    /// the real load it lowers to (decision D157) reads as MEM_2D.
    #[test]
    fn lowered_moe_load_reads_as_mem_2d() {
        let mut b = [0u8; 64];
        b[..4].copy_from_slice(&[0xaa, 0x10, 0, 0]);
        b[0x0c..0x10].copy_from_slice(&[9, 0, 1, 1]);
        b[0x10..0x18].copy_from_slice(&0x8020_0001_7300u64.to_le_bytes());
        b[0x18] = 1;
        b[0x1c] = 8;
        b[0x20] = 0x3d;
        let m = Mem2d::new(Slot::new(&b)).expect("0xAA");
        assert_eq!(
            (m.dtype(), m.datasrc()),
            (Ok(Dtype::Uint32), Ok(DataSrc::Register))
        );
        assert_eq!(
            (m.num_elem0(), m.num_elem1(), m.addr()),
            (1, 1, 0x8020_0001_7300)
        );
        assert_eq!((m.step_elem(), m.data()), ([1, 8], 61));
    }
}
