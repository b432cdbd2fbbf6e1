//! PSEUDO_DMA_DIRECT2D 0xD4 (reference §4.5, `NEURON_ISA_TPB_PSEUDO_DMA_DIRECT2D_STRUCT`, every
//! field checked against real trn2 bytes).

use crate::dtype::Dtype;
use crate::field_enum::field_enum;
use crate::layout::view;

field_enum! {
    /// The DGE operation of a PSEUDO_DMA_DIRECT2D (+0x0F; S5 via decision D155; the profiler's
    /// `dge_op=`). 1..3 require a continuation slot.
    DgeOp / DGE_OP {
        /// A 2-D copy (every real slot).
        Direct2d = 0 => "DIRECT2D",
        /// Indirect 1-D (gather / scatter).
        Indirect1d = 1 => "INDIRECT1D",
        /// Transpose.
        Transpose = 2 => "TRANSPOSE",
        /// Gather-transpose.
        GatherTranspose = 3 => "GATHER_TRANSPOSE",
    }
}

view! {
    /// A PSEUDO_DMA_DIRECT2D slot (reference §4.5).
    DmaDirect2d / DmaDirect2dMut = DMA_DIRECT2D "PSEUDO_DMA_DIRECT2D" {
        /// +0x0F the DGE operation (profile `dge_op=DIRECT2D`; S5's field, decisions D132, D155).
        dge_op: enum(DgeOp) @ 0x0F, Always;
        /// +0x0C QoS / flags.
        qos: u8 @ 0x0C, NonZero;
        /// +0x0D completion semaphore.
        semaphore: u8 @ 0x0D, Always;
        /// +0x0E semaphore increment.
        sem_increment: u8 @ 0x0E, Always;
        /// +0x24 source element size in bytes.
        src_elem_size: u16 @ 0x24, Always;
        /// +0x3C destination element size in bytes.
        dst_elem_size: u16 @ 0x3C, Always;
        /// +0x18 source `{u32 step[2]; u16 num[2]}` (`src_pattern=[512,1][128,1]`).
        src_pattern: pattern(2) @ 0x18, Always;
        /// +0x30 destination pattern.
        dst_pattern: pattern(2) @ 0x30, Always;
        /// +0x10 source ADDR8 (`src_var_id= src_var_offset= src_shape_reg=` by mode).
        src: addr8 @ 0x10, Always;
        /// +0x26 source bound check `{bc_reg:6, disable_oob:1, bc_enabled:1}` (S5, D155: 0xbd =
        /// checked against register 61).
        src_bound_check: hex8 @ 0x26, NonZero;
        /// +0x27 destination bound check (as the source's).
        dst_bound_check: hex8 @ 0x27, NonZero;
        /// +0x28 destination ADDR8.
        dst: addr8 @ 0x28, Always;
        /// +0x3E source dtype.
        src_dtype: enum(Dtype) @ 0x3E, Always;
        /// +0x3F destination dtype.
        dst_dtype: enum(Dtype) @ 0x3F, Always;
    }
}

impl DmaDirect2d<'_> {
    /// `src_step[2]` (+0x18), from [`Self::src_pattern`].
    pub fn src_step(&self) -> [u32; 2] {
        let p = self.src_pattern();
        [p.step[0], p.step[1]]
    }

    /// `src_num[2]` (+0x20).
    pub fn src_num(&self) -> [u16; 2] {
        let p = self.src_pattern();
        [p.num[0], p.num[1]]
    }

    /// `dst_step[2]` (+0x30).
    pub fn dst_step(&self) -> [u32; 2] {
        let p = self.dst_pattern();
        [p.step[0], p.step[1]]
    }

    /// `dst_num[2]` (+0x38).
    pub fn dst_num(&self) -> [u16; 2] {
        let p = self.dst_pattern();
        [p.num[0], p.num[1]]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::slot::Slot;

    /// reference §4.5 matmul_small Pool.bin slot @0x80, verbatim.
    pub(crate) const POOL_SLOT2: [u8; 64] = [
        0xd4, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x18, 0x10, 0x00, //
        0, 0, 0, 0, 0, 0, 0, 0x20, 0x00, 0x02, 0, 0, 0x01, 0, 0, 0, //
        0x80, 0, 0x01, 0, 0x00, 0x02, 0, 0, 0x00, 0x7c, 0x03, 0, 0, 0, 0, 0x10, //
        0, 0, 0x04, 0, 0x01, 0, 0, 0, 0x80, 0, 0x01, 0, 0x00, 0x02, 0x07, 0x07,
    ];

    #[test]
    fn matmul_small_pool_direct2d_fields() {
        let d = DmaDirect2d::new(Slot::new(&POOL_SLOT2)).expect("0xD4");
        assert_eq!((d.semaphore(), d.sem_increment()), (24, 16));
        assert_eq!(
            (d.src().immediate, d.src().entry, d.src().mode),
            (0, 0, 0x20)
        );
        assert_eq!(d.src_step(), [0x200, 1]);
        assert_eq!(d.src_num(), [128, 1]);
        assert_eq!(d.src_elem_size(), 0x200);
        assert_eq!((d.dst().immediate, d.dst().mode), (0x37c00, 0x10));
        assert_eq!(d.dst_step(), [0x40000, 1]);
        assert_eq!(
            (d.src_dtype(), d.dst_dtype()),
            (Ok(Dtype::Float16), Ok(Dtype::Float16))
        );
    }
}
