//! TENSOR_TENSOR_ARITH_OP 0x41 and its BITVEC twin 0x51 (`S3S3D3_TT`, reference §4.6, verified on
//! trn1 bytes in §4.4): dtype pair +12, out dtype +13, op +14, active channels +15, src0 / src1 /
//! dst TENSOR3D at +16 / +32 / +48.

use crate::alu_op::AluOp;
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A TENSOR_TENSOR_ARITH_OP / _BITVEC_OP slot (`S3S3D3_TT`).
    TensorTensor / TensorTensorMut = TENSOR_TENSOR "S3S3D3_TT" {
        /// +0x0E the operation.
        op: enum(AluOp) @ 0x0E, Always;
        /// +0x10 src0 TENSOR3D with its dtype (+0x0C low nibble).
        src0: tensor(3, Lo @ 0x0C) @ 0x10, Always;
        /// +0x20 src1 TENSOR3D with its dtype (+0x0C high nibble).
        src1: tensor(3, Hi @ 0x0C) @ 0x20, Always;
        /// +0x30 dst TENSOR3D with its dtype (+0x0D).
        dst: tensor(3, Byte @ 0x0D) @ 0x30, Always;
        /// +0x0F active partitions.
        channels: u8 @ 0x0F, Always;
        /// +0x0C low nibble: src0 dtype.
        in0_dtype: lo(Dtype) @ 0x0C, Joined;
        /// +0x0C high nibble: src1 dtype.
        in1_dtype: hi(Dtype) @ 0x0C, Joined;
        /// +0x0D output dtype.
        out_dtype: enum(Dtype) @ 0x0D, Joined;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::slot::Slot;

    /// reference §4.4 trn1 DVE.bin slot 1, verbatim.
    pub(crate) const DVE_SLOT1: [u8; 64] = [
        0x41, 0x10, 0, 0, 0x05, 0x09, 0x13, 0x06, 0x10, 0, 0, 0, 0xaa, 0x0a, 0x04, 0x80, //
        0x80, 0xc1, 0x02, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0xe8, 0x03, 0x01, 0, 0x01, 0, //
        0xc0, 0xe0, 0x02, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0xe8, 0x03, 0x01, 0, 0x01, 0, //
        0x00, 0x40, 0, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0xe8, 0x03, 0x01, 0, 0x01, 0,
    ];

    #[test]
    fn trn1_dve_add_decodes() {
        let t = TensorTensor::new(Slot::new(&DVE_SLOT1)).expect("0x41");
        assert_eq!(
            (t.in0_dtype(), t.in1_dtype()),
            (Ok(Dtype::Float32), Ok(Dtype::Float32))
        );
        assert_eq!(t.out_dtype(), Ok(Dtype::Float32));
        assert_eq!(t.op(), Ok(AluOp::Add));
        assert_eq!(t.channels(), 128);
        assert_eq!(t.src0().start_addr, 180_608);
        assert_eq!(t.src0().num[..3], [1000, 1, 1]);
        assert_eq!(t.src1().start_addr, 188_608);
        assert_eq!(t.dst().start_addr, 16_384);
    }
}
