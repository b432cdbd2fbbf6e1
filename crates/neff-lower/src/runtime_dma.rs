//! Runtime 2.30.51's own forms of two DMA pseudos, read from the seven shared captures
//! (reference-ntff §4; decisions D580, D581): a PSEUDO_DMA_TRIGGER (0xC1) on a static queue
//! becomes two WRITEs to the queue's broadcast tail-increment registers
//! (`add_dma_tail_inc_bcast`, spec 001 §1's demux), and a PSEUDO_DMA_DIRECT2D (0xD4) whose
//! continuation bounds its source gets a MOVE of the bound into the bound-check register first.
//!
//! The WRITE these recipes emit is the runtime's two-word form (every 0xA5 of the captures):
//! +0x04 the events, +0x0C / +0x0D the byte size of each write (4, or 0 for none), +0x10 / +0x18
//! the two register addresses, +0x20 / +0x28 the two data words. It is not the one-word `add_wr32`
//! layout of D52 (+0x10 address, +0x18 value), so it is written here, byte by byte, in one place.

use crate::DATA_QUEUE;
use crate::physical_core::PhysicalCore;
use neff_isa::payload::{DmaDirect2d, DmaExtension, MoveRegMut};
use neff_isa::{DataSrc, Dtype, Opcode, SLOT_BYTES, Slot, SlotBuf};

/// The broadcast register bank every pair's first address is in (D580: `0x8010_020a_0000`, in
/// the frame core's DMA window, D816; the per-DMA-engine banks the PREAMBLE programs are that
/// window's 1 MiB banks).
pub const BCAST_A: u64 = PhysicalCore::FRAME.dma_engines_base() + 0xa_0000;
/// The broadcast bank of every pair's second address (`0x8010_0208_0000`, D580).
pub const BCAST_B: u64 = PhysicalCore::FRAME.dma_engines_base() + 0x8_0000;
/// A queue's register page in a bank: `(queue + 1) << 12` (queue = the def.json `dma_queue`
/// index, the capture's field 7.2: qPoolIO0 1 -> 0x2000, qSPIO0 2 -> 0x3000,
/// qDVESpillReload0 0 -> 0x1000; D580).
pub const QUEUE_PAGE_SHIFT: u32 = 12;
/// The tail-increment register of a queue page (every MAIN WRITE of the captures: `+0x38`).
pub const TAIL_INC: u64 = 0x38;
/// The second WRITE's data word of a trigger is this marker ORed with a count (D580: `in`
/// queues `0xfffe0001` for one descriptor).
pub const SECOND_WORD_MARKER: u32 = 0xfffe_0000;
/// The second word of a `data` queue's trigger: `0xfffe0002` in all 20 of attn_v6 (each block
/// one descriptor). Why 2 and not 1 is open (D580).
pub const DATA_QUEUE_SECOND_WORD: u32 = 0xfffe_0002;

/// The runtime's WRITE byte offsets (module doc).
const WRITE_SIZE: [usize; 2] = [0x0C, 0x0D];
const WRITE_ADDR: [usize; 2] = [0x10, 0x18];
const WRITE_DATA: [usize; 2] = [0x20, 0x28];
/// The size byte of a 32-bit write.
const WORD: u8 = 4;

/// One runtime WRITE: up to two `(address, data)` pairs, the events at +0x04 when given.
pub fn runtime_write(events: Option<&[u8]>, pairs: &[(u64, u32)]) -> [u8; SLOT_BYTES] {
    let mut s = SlotBuf::new(Opcode::WRITE).0;
    if let Some(e) = events {
        s[4..12].copy_from_slice(e);
    }
    for (k, &(addr, data)) in pairs.iter().take(2).enumerate() {
        s[WRITE_SIZE[k]] = WORD;
        s[WRITE_ADDR[k]..WRITE_ADDR[k] + 8].copy_from_slice(&addr.to_le_bytes());
        set_runtime_write_data(&mut s, k, data);
    }
    s
}

/// Sets the data word of write `k` (0 or 1) of a runtime WRITE, every other byte kept (the
/// learned PREAMBLE's WRITEs keep their events: D770).
pub fn set_runtime_write_data(slot: &mut [u8; SLOT_BYTES], k: usize, data: u32) {
    let at = WRITE_DATA[k];
    slot[at..at + 8].copy_from_slice(&u64::from(data).to_le_bytes());
}

/// The `(address, data)` pairs of a WRITE in the runtime's two-word form (module doc), read by
/// the layout [`runtime_write`] writes; `None` for another WRITE (the one-word `add_wr32` form of
/// D52 has byte +0x0C zero).
pub fn read_runtime_write(slot: &[u8; SLOT_BYTES]) -> Option<[Option<(u64, u32)>; 2]> {
    if slot[0] != Opcode::WRITE.0 || slot[WRITE_SIZE[0]] != WORD {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(slot[at..at + 8].try_into().expect("8 bytes"));
    Some([0, 1].map(|k| {
        (slot[WRITE_SIZE[k]] == WORD).then(|| (word(WRITE_ADDR[k]), word(WRITE_DATA[k]) as u32))
    }))
}

/// The def.json `dma_queue` index whose bank-B tail-increment register is `addr`: the register
/// every static trigger writes its count to (an `in` queue both banks, a `data` queue bank B
/// only; D580), so a count written there starts that queue's next descriptors.
pub fn triggered_queue(addr: u64) -> Option<usize> {
    let off = addr.checked_sub(BCAST_B)?;
    let page = off >> QUEUE_PAGE_SHIFT;
    let in_page = off & ((1 << QUEUE_PAGE_SHIFT) - 1);
    // Bank B's pages end where bank A begins (0x2_0000 above: 32 pages), far more than a
    // core's queues; a bank-A register is no bank-B page.
    let pages = (BCAST_A - BCAST_B) >> QUEUE_PAGE_SHIFT;
    (in_page == TAIL_INC && (1..pages).contains(&page)).then(|| page as usize - 1)
}

/// Whether a broadcast data word is a tail increment (a descriptor count), not the trigger's
/// second word (`0xfffe0000 | count`, or a `data` queue's 0xfffe0002: meaning open, D580).
pub fn is_tail_increment(data: u32) -> bool {
    data & 0xffff_0000 != SECOND_WORD_MARKER
}

/// A static queue's tail-increment register in `bank`.
pub fn tail_inc(bank: u64, queue: usize) -> u64 {
    bank + (((queue as u64) + 1) << QUEUE_PAGE_SHIFT) + TAIL_INC
}

/// 0xC1 on a static queue (D580): an `in` (any non-`data`) queue writes `count` to both banks'
/// tail increments with the trigger's events, then `0xfffe0000 | count` to both; a `data` queue
/// writes only the second bank, `count` then `0xfffe0002` (its first bank is armed with every
/// block by the PREAMBLE).
pub fn static_trigger(events: &[u8], queue: usize, ty: &str, count: u32) -> [[u8; SLOT_BYTES]; 2] {
    let (a, b) = (tail_inc(BCAST_A, queue), tail_inc(BCAST_B, queue));
    if ty == DATA_QUEUE {
        return [
            runtime_write(Some(events), &[(b, count)]),
            runtime_write(None, &[(b, DATA_QUEUE_SECOND_WORD)]),
        ];
    }
    let second = SECOND_WORD_MARKER | (count & 0xffff);
    [
        runtime_write(Some(events), &[(a, count), (b, count)]),
        runtime_write(None, &[(a, second), (b, second)]),
    ]
}

/// The bound-check byte's register bits (`{bc_reg:6, disable_oob:1, bc_enabled:1}`, D155).
const BOUND_REG_MASK: u8 = 0x3F;
/// The bound-check byte's enable bit.
const BOUND_ENABLED: u8 = 0x80;
/// The MOVE's byte +0x0C (1 in every runtime MOVE; not decoded, D136).
const MOVE_FLAG_AT: usize = 0x0C;

/// The last byte a 0xD4's source pattern reaches, plus one: `sum (num_i - 1) * step_i +
/// elem_size` (steps in bytes; D581).
fn source_extent(d: &DmaDirect2d<'_>) -> u64 {
    let (step, num) = (d.src_step(), d.src_num());
    let strided: u64 = (0..2)
        .map(|i| u64::from(num[i].saturating_sub(1)) * u64::from(step[i]))
        .sum();
    strided + u64::from(d.src_elem_size())
}

/// The MOVE runtime 2.30.51 puts before a 0xD4 whose source bound check is enabled (D581): the
/// bound-check register gets `src_bound_size_bytes - extent`, the largest source offset that
/// stays inside the var (moe_v6b 0x10000000 - 0x20000 = 0xffe0000 in all 144; moe_megakernel
/// 0xffe0300 and 0x7f80f00 in all 768). `None` without an enabled source bound check or a
/// continuation.
pub fn bound_check_move(
    head: &[u8; SLOT_BYTES],
    continuation: Option<&[u8]>,
) -> Option<[u8; SLOT_BYTES]> {
    let d = DmaDirect2d::new(Slot::new(head))?;
    let bc = head[0x26];
    if bc & BOUND_ENABLED == 0 {
        return None;
    }
    let ext: &[u8; SLOT_BYTES] = continuation?.try_into().ok()?;
    let bound = u64::from(DmaExtension(Slot::new(ext)).src_bound_size_bytes());
    let imm = bound.saturating_sub(source_extent(&d));
    let mut s = SlotBuf::new(Opcode::MOVE);
    MoveRegMut(&mut s)
        .dtype(Dtype::Uint32)
        .src(DataSrc::Immediate)
        .reg(bc & BOUND_REG_MASK)
        .imm(u32::try_from(imm).unwrap_or(u32::MAX));
    s.0[MOVE_FLAG_AT] = 1;
    Some(s.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hex of 8-byte words, as the captures' dumps read.
    fn words(s: &[u8; SLOT_BYTES]) -> Vec<String> {
        s.chunks(8)
            .map(|w| w.iter().map(|b| format!("{b:02x}")).collect())
            .collect()
    }

    /// A slot from the dumps' hex (spaces ignored).
    fn slot(hex: &str) -> [u8; SLOT_BYTES] {
        let h: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        let mut out = [0u8; SLOT_BYTES];
        for (i, pair) in h.chunks(2).enumerate() {
            out[i] = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        out
    }

    #[test]
    fn an_in_queue_trigger_is_the_captured_pair() {
        // moe_v6b sg00 SP slots 64-65 (qSPIO0, queue 2, wait $S[6] >= 1).
        let events = [0x05, 0x06, 0, 0, 1, 0, 0, 0];
        let [first, second] = static_trigger(&events, 2, "in", 1);
        let mut want = [0u8; SLOT_BYTES];
        want[..16].copy_from_slice(&[0xa5, 0x10, 0, 0, 5, 6, 0, 0, 1, 0, 0, 0, 4, 4, 0, 0]);
        want[0x10..0x18].copy_from_slice(&0x8010_020a_3038u64.to_le_bytes());
        want[0x18..0x20].copy_from_slice(&0x8010_0208_3038u64.to_le_bytes());
        want[0x20] = 1;
        want[0x28] = 1;
        assert_eq!(words(&first), words(&want));
        want[4..12].fill(0);
        want[0x20..0x24].copy_from_slice(&0xfffe_0001u32.to_le_bytes());
        want[0x28..0x2C].copy_from_slice(&0xfffe_0001u32.to_le_bytes());
        assert_eq!(words(&second), words(&want));
    }

    #[test]
    fn a_trigger_reads_back_as_its_queue_and_count() {
        for (ty, queue) in [("in", 2), (DATA_QUEUE, 0)] {
            let [first, second] = static_trigger(&[0; 8], queue, ty, 1);
            let starts = |s: &[u8; SLOT_BYTES]| -> Vec<(usize, u32)> {
                (read_runtime_write(s).unwrap().into_iter().flatten())
                    .filter(|&(a, d)| is_tail_increment(d) && triggered_queue(a).is_some())
                    .map(|(a, d)| (triggered_queue(a).unwrap(), d))
                    .collect()
            };
            assert_eq!(starts(&first), vec![(queue, 1)], "{ty}");
            assert_eq!(starts(&second), vec![], "{ty}");
        }
        // Bank A and the one-word form are not triggers.
        assert_eq!(triggered_queue(tail_inc(BCAST_A, 2)), None);
        let mut one_word = SlotBuf::new(Opcode::WRITE).0;
        one_word[0x0D] = 9;
        assert_eq!(read_runtime_write(&one_word), None);
    }

    #[test]
    fn a_data_queue_trigger_writes_one_bank() {
        // attn_v6 sg00 DVE slots 149-150 (qDVESpillReload0, queue 0).
        let [first, second] = static_trigger(&[0; 8], 0, DATA_QUEUE, 1);
        assert_eq!(&first[0x0C..0x0E], &[4, 0]);
        assert_eq!(first[0x10..0x18], 0x8010_0208_1038u64.to_le_bytes());
        assert_eq!(first[0x20], 1);
        assert_eq!(second[0x20..0x24], 0xfffe_0002u32.to_le_bytes());
    }

    #[test]
    fn the_bound_move_is_the_captured_one() {
        // moe_v6b sg00 Pool source slots 9-10 -> capture slot 83.
        let head = slot(
            "d410000000000000 00000000000c1000 1f00000001000028 0004000001000000 \
             800001000004bd00 0040000000000010 0000040001000000 8000010000040606",
        );
        let mut ext = [0u8; SLOT_BYTES];
        ext[0] = 0xda;
        ext[12..16].copy_from_slice(&0x1000_0000u32.to_le_bytes());
        let m = bound_check_move(&head, Some(&ext)).unwrap();
        let want = slot(
            "a710000000000000 0000000001090100 0000000000000000 3d00000000000000 \
             0000fe0f00000000 0000000000000000 0000000000000000 0000000000000000",
        );
        assert_eq!(words(&m), words(&want));
        assert_eq!(bound_check_move(&head, None), None);
    }
}
