//! COPY 0x46 / CAST 0x47 (`S4D4`, reference §4.5, offsets verified on trn1 and trn2): src
//! TENSOR4D +12, in dtype +32, out dtype +33, active channels +34, dst TENSOR4D +44 — not spec 003
//! §1.3's carried layout (decision D289).

use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A COPY / CAST slot (`S4D4`).
    CopyCast / CopyCastMut = COPY_CAST "S4D4" {
        /// +0x20 input dtype.
        in_dtype: enum(Dtype) @ 0x20, Always;
        /// +0x21 output dtype.
        out_dtype: enum(Dtype) @ 0x21, Always;
        /// +0x22 active partitions.
        num_active_channels: u8 @ 0x22, Always;
        /// +0x0C source TENSOR4D.
        src: tensor(4) @ 0x0C, Always;
        /// +0x2C destination TENSOR4D.
        dst: tensor(4) @ 0x2C, Always;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// reference §4.5 matmul_small Activation.bin slot 3 (COPY from PSUM), verbatim.
    #[test]
    fn trn2_act_copy_decodes() {
        let b: [u8; 64] = [
            0x46, 0x10, 0, 0, 0x05, 0x05, 0x13, 0x04, 0x02, 0, 0, 0, 0x00, 0x08, 0x00,
            0x02, //
            0x01, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0x80, 0, 0x01, 0, 0x01, 0, 0x01, 0, //
            0x08, 0x08, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x40, 0, 0, //
            0x01, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0x80, 0, 0x01, 0, 0x01, 0, 0x01, 0,
        ];
        let c = CopyCast::new(Slot::new(&b)).expect("0x46");
        assert_eq!(c.src().start_addr, 0x0200_0800);
        assert_eq!(c.src().num, [128, 1, 1, 1]);
        assert_eq!(c.src().step, [1, 1, 1, 1]);
        assert_eq!(c.num_active_channels(), 128);
        assert_eq!(c.dst().start_addr, 0x4000);
        assert_eq!(
            (c.in_dtype(), c.out_dtype()),
            (Ok(Dtype::Int32), Ok(Dtype::Int32))
        );
    }
}
