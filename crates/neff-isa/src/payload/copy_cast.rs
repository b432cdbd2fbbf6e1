//! COPY 0x46 / CAST 0x47 / RECIPROCAL 0x48 (`S4D4`, reference §4.5, offsets verified on trn1 and
//! trn2 and on the profile pairs, decisions D134 and D289 — not spec 003 §1.3's carried layout): src TENSOR4D +0x0C, in dtype +0x20, out dtype
//! +0x21, active channels +0x22, dst TENSOR4D +0x2C. Printed as the profiler prints them:
//! `src=fp32@0x2000000[1,1,1,1][512,1,1,1] dst=fp32@0x4000[1,1,1,1][512,1,1,1] channels=128`.

use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A COPY / CAST / RECIPROCAL slot (`S4D4`).
    CopyCast / CopyCastMut = COPY_CAST "S4D4" {
        /// +0x0C source TENSOR4D with its dtype (+0x20).
        src: tensor(4, Byte @ 0x20) @ 0x0C, Always;
        /// +0x2C destination TENSOR4D with its dtype (+0x21).
        dst: tensor(4, Byte @ 0x21) @ 0x2C, Always;
        /// +0x22 active partitions.
        channels: u8 @ 0x22, Always;
        /// +0x20 input dtype.
        in_dtype: enum(Dtype) @ 0x20, Joined;
        /// +0x21 output dtype.
        out_dtype: enum(Dtype) @ 0x21, Joined;
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
        assert!(c.src().is_psum());
        assert_eq!(c.src().num, [128, 1, 1, 1]);
        assert_eq!(c.src().step, [1, 1, 1, 1]);
        assert_eq!(c.channels(), 128);
        assert_eq!(c.dst().start_addr, 0x4000);
        assert_eq!(
            (c.in_dtype(), c.out_dtype()),
            (Ok(Dtype::Int32), Ok(Dtype::Int32))
        );
        assert_eq!(c.src().dtype, Some(0x08));
    }
}
