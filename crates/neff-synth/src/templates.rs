//! Real slot bytes used as templates (reference §4.4 trn1 and §4.5 trn2 dumps, spec 003 §7.1),
//! each with the few fields the generator varies: events (semaphores), SBUF/PSUM addresses,
//! queue names and block ids, DGE entries, label ids, function names.
//!
//! Every template keeps byte 1 = 0x10 (`inst_word_len`, reference §4.1) and the events in the
//! 8-byte semaphore dialect at +0x04 (`wait_mode, wait_idx, update_mode, update_idx, value u32`).

use neff_isa::payload::{BranchLabelMut, FunctionNameMut, PseudoInstMut, PseudoInstOp};
use neff_isa::{SLOT_BYTES, SlotBuf, UpdateMode, WaitMode};

/// One 64-byte instruction slot.
pub type Slot = [u8; SLOT_BYTES];

/// Opcode bytes come from neff-isa's one table (`Opcode::MATMUL.0`, ...; reference §4.2).
pub use neff_isa::Opcode;

/// What the generator wants of a slot's events block (+0x04, reference §4.1): an optional
/// `SEM_GE_IMM` wait and an optional `SEM_INC` on completion (`0x13`); a plan, encoded by
/// neff-isa's one [`neff_isa::Events`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventPlan {
    /// Semaphore waited on with SEM_GE_IMM, and the value waited for.
    pub wait: Option<(u8, u32)>,
    /// Semaphore incremented when the instruction completes.
    pub inc: Option<u8>,
}

impl EventPlan {
    /// Writes the block into `slot[4..12]`, as neff-isa encodes it.
    pub fn put(self, slot: &mut Slot) {
        let mut ev = neff_isa::Events::NONE;
        if let Some((sem, value)) = self.wait {
            (ev.wait_mode, ev.wait_idx, ev.semaphore_value) =
                (WaitMode::SemGeImm as u8, sem, value);
        }
        if let Some(sem) = self.inc {
            (ev.update_mode, ev.update_idx) = (UpdateMode::SemIncComplete as u8, sem);
        }
        ev.write(slot);
    }
}

/// Builds a slot from a hex dump (whitespace ignored); panics only on a malformed constant.
const fn from_hex(hex: &[u8]) -> Slot {
    let mut out = [0u8; SLOT_BYTES];
    let (mut i, mut n) = (0, 0);
    while i < hex.len() {
        let c = hex[i];
        i += 1;
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => continue,
        };
        if n % 2 == 0 {
            out[n / 2] = v << 4;
        } else {
            out[n / 2] |= v;
        }
        n += 1;
    }
    assert!(n == 128, "a template is 64 bytes");
    out
}

/// `b1 10` + zeros: SET_ORDERING_MODE, first slot of every real stream (reference §4.1).
pub const SET_ORDERING_MODE: Slot = header_only(Opcode::SET_ORDERING_MODE.0);
/// ACTIVATION_TABLE_LOAD as in matmul_small Activation.bin slot 2 (reference §4.5).
pub const ACTIVATION_TABLE_LOAD: Slot = header_only(Opcode::ACTIVATION_TABLE_LOAD.0);

/// LDWEIGHTS, matmul_small PE.bin slot 3 (reference §4.5): TENSOR3D at +0x10, dtype FP16 +0x20.
pub const LDWEIGHTS: Slot = from_hex(
    b"0110 0000 0508 0000 1000 0000 0000 0000 fe7c 0300 ffff 0000 e0ff 2000 0100 0400
      0700 0100 0000 8080 0000 0000 0f0f 0000 0000 0000 0000 0000 0000 0000 0000 0000",
);
/// MATMUL, matmul_small PE.bin slot 4 (reference §4.5): moving data +0x10, PSUM pattern +0x30.
pub const MATMUL: Slot = from_hex(
    b"0210 0000 0000 1305 0000 0000 0000 0000 007b 0300 0100 0000 0000 8000 0100 0100
      0700 0100 0000 8080 0000 0003 0f0f 0000 0008 0002 0100 0000 0000 8000 0100 0100",
);
/// ACTIVATE, trn1 ACT slot (reference §4.7): src TENSOR3D +16 {0x2DC06, [9,1,1], [128,3,1]},
/// `a7 07 80 80` +32, scale 1.0f +36, dst TENSOR3D +48.
pub const ACTIVATE: Slot = from_hex(
    b"2110 0000 0508 1304 1000 0000 0100 0001 06dc 0200 0900 0100 0100 8000 0300 0100
      a707 8080 0000 803f 0000 0000 0000 0000 0040 0000 0100 0100 0100 8001 0100 0100",
);
/// COPY (S4D4), matmul_small Activation.bin slot 4 (reference §4.5): src TENSOR4D +12 (PSUM),
/// dtypes +32/+33, channels +34, dst TENSOR4D +44.
pub const COPY: Slot = from_hex(
    b"4610 0000 0505 1304 0200 0000 0008 0002 0100 0100 0100 0100 8000 0100 0100 0100
      0808 8000 0000 0000 0000 0000 0040 0000 0100 0100 0100 0100 8000 0100 0100 0100",
);
/// TENSOR_TENSOR_ARITH_OP (S3S3D3_TT), asst4 DVE.bin slot 1 (reference §4.4): dtypes +12/+13,
/// op ADD +14, 128 channels +15, src0 +16, src1 +32, dst +48.
pub const TENSOR_TENSOR: Slot = from_hex(
    b"4110 0000 0509 1306 1000 0000 aa0a 0480 80c1 0200 0100 0100 0100 e803 0100 0100
      c0e0 0200 0100 0100 0100 e803 0100 0100 0040 0000 0100 0100 0100 e803 0100 0100",
);
/// EVENT_SEMAPHORE, matmul_small PE.bin slot 2 (reference §4.5): wait sem 24 >= 16.
pub const EVENT_SEMAPHORE: Slot = from_hex(
    b"a010 0000 0518 0000 1000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000",
);
/// PSEUDO_DMA_TRIGGER, asst4 SP.bin slot 2 (reference §4.4): queue name +0x0C, block id +0x30.
pub const DMA_TRIGGER: Slot = from_hex(
    b"c110 0000 0000 0000 0000 0000 7153 5049 4f30 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000 0100 0000 0000 0000 0000 0000 0000 0000",
);
/// PSEUDO_DMA_DIRECT2D, matmul_small Pool.bin slot 3 (reference §4.5): semaphore +0x0D,
/// increment 16 +0x0E, src ADDR8 +0x10 (DGE entry +0x14), dst ADDR8 +0x28 (SB), dtypes +0x3E.
pub const DIRECT2D: Slot = from_hex(
    b"d410 0000 0000 0000 0000 0000 0018 1000 0000 0000 0000 0020 0002 0000 0100 0000
      8000 0100 0002 0000 007c 0300 0000 0010 0000 0400 0100 0000 8000 0100 0002 0707",
);
/// PSEUDO_TRIGGER_COLLECTIVE, spec 003 §7.1 pe.bin: wait `$S[10]>0`, `$S[22]++` on complete,
/// op ADD, FP32, input/output tensor ids +0x10/+0x14, 32 elements +0x18, ALL_REDUCE +0x20.
pub const TRIGGER_COLLECTIVE: Slot = from_hex(
    b"c810 0000 040a 1316 0000 0000 040a 0000 0300 0000 0400 0000 2000 0000 0000 0000
      0100 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000",
);
/// COMPARE_BRANCH (CTRL_BR, spec 001 §2 `add_cmpgt_imm_br_rel`): descriptor 0x30806 at +0x0C
/// = {GTIMM, INT32, REL_IMM}; the label id goes in br_immediate +0x30 (decision D53).
pub const COMPARE_BRANCH: Slot = from_hex(
    b"a910 0000 0000 0000 0000 0000 0608 0300 0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000",
);

const fn header_only(opcode: u8) -> Slot {
    let mut s = [0u8; SLOT_BYTES];
    s[0] = opcode;
    s[1] = 0x10;
    s
}

/// A slot with a name at +0x0C (0xD1 / 0xD2 / 0xD3, decision D70's function markers), written
/// through neff-isa's `FunctionNameMut` (at most 31 bytes: the name stays NUL-terminated).
pub fn named(opcode: u8, name: &str) -> Slot {
    let mut b = SlotBuf(header_only(opcode));
    let bytes = name.as_bytes();
    FunctionNameMut(&mut b).name(&bytes[..bytes.len().min(31)]);
    b.0
}

/// PSEUDO_BRANCH_LABEL with its id at +0x0C (decision D53; real files' first label is id 0).
pub fn label(id: u32) -> Slot {
    let mut b = SlotBuf(header_only(Opcode::PSEUDO_BRANCH_LABEL.0));
    BranchLabelMut(&mut b).label(id);
    b.0
}

/// PSEUDO_INST sub-op 1 = EXIT_EXECUTION (reference §4.2; spec 000 §6.3 `buf[O+12] == 1`).
pub fn exit() -> Slot {
    let mut b = SlotBuf(header_only(Opcode::PSEUDO_INST.0));
    PseudoInstMut(&mut b).sub_op(PseudoInstOp::ExitExecution);
    b.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_a_64_byte_word_of_its_opcode() {
        let all = [
            (LDWEIGHTS, Opcode::LDWEIGHTS.0),
            (MATMUL, Opcode::MATMUL.0),
            (ACTIVATE, Opcode::ACTIVATE.0),
            (COPY, Opcode::COPY.0),
            (TENSOR_TENSOR, Opcode::TENSOR_TENSOR_ARITH_OP.0),
            (EVENT_SEMAPHORE, Opcode::EVENT_SEMAPHORE.0),
            (DMA_TRIGGER, Opcode::PSEUDO_DMA_TRIGGER.0),
            (DIRECT2D, Opcode::PSEUDO_DMA_DIRECT2D.0),
            (TRIGGER_COLLECTIVE, Opcode::PSEUDO_TRIGGER_COLLECTIVE.0),
            (COMPARE_BRANCH, Opcode::COMPARE_BRANCH.0),
            (SET_ORDERING_MODE, Opcode::SET_ORDERING_MODE.0),
        ];
        for (slot, opcode) in all {
            assert_eq!((slot[0], slot[1]), (opcode, 0x10));
        }
    }

    /// reference §4.4: the asst4 DVE add waits sem 9 >= 16 and increments sem 6; src0 180608.
    #[test]
    fn tensor_tensor_template_is_the_real_add() {
        assert_eq!(&TENSOR_TENSOR[4..12], &[5, 9, 0x13, 6, 16, 0, 0, 0]);
        assert_eq!(
            u32::from_le_bytes([
                TENSOR_TENSOR[16],
                TENSOR_TENSOR[17],
                TENSOR_TENSOR[18],
                TENSOR_TENSOR[19]
            ]),
            180_608
        );
        assert_eq!(TENSOR_TENSOR[14], 0x04);
    }

    #[test]
    fn events_pack_like_real_bytes() {
        let mut s = EVENT_SEMAPHORE;
        EventPlan {
            wait: Some((24, 16)),
            inc: None,
        }
        .put(&mut s);
        assert_eq!(s, EVENT_SEMAPHORE);
        EventPlan {
            wait: None,
            inc: Some(5),
        }
        .put(&mut s);
        assert_eq!(&s[4..12], &[0, 0, 0x13, 5, 0, 0, 0, 0]);
    }

    #[test]
    fn named_and_label_slots() {
        let s = named(Opcode::PSEUDO_FUNCTION_CALL.0, "fn_001");
        assert_eq!(&s[0x0C..0x13], b"fn_001\0");
        assert_eq!(&label(7)[0x0C..0x10], &[7, 0, 0, 0]);
        assert_eq!(exit()[0x0C], 1);
    }
}
