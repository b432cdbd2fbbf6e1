//! The PREAMBLE and POSTAMBLE slots runtime 2.30.51 writes for a static DMA queue an engine owns
//! (decision D582), built for a NEFF whose learned capture had no such queue on that engine; an
//! engine owning several gets one block per queue, one after the other in def.json order
//! (decision D857).
//!
//! Read from the captures (moe_v6b / moe_megakernel Pool `qPoolIO0` and SP `qSPIO0`, both `in`;
//! attn_v6 DVE `qDVESpillReload0`, `data`), with `P = (queue + 1) << 12` the queue's page
//! ([`neff_lower::runtime_dma`]): the PREAMBLE block starts at slot 2 and is
//! - a WRITE pair of 0x100 to `A + P + 0x64` and `B + P + 0xb0` (A, B the broadcast banks);
//! - for each group `g` of four DMA engines (16 engines at `0x8010_0200_0000 + e << 20`, the frame
//!   core's banks, D816), three
//!   TENSOR_STOREs of 2 x 4 u32 words: the ring base addresses (u64) of the four engines' first
//!   side at `+ P + 0x28`, of their second side at `+ 0x20000 + P + 0x28`, and the size word
//!   `0x00fffff0` of both sides at `+ P + 0x30`;
//! - a `data` queue only: two single WRITEs to `A + P + 0x38`, the queue's block count, then
//!   `0xfffe0000 |` that count (attn_v6: 20 blocks, 0x14 and 0xfffe0014).
//!
//! The POSTAMBLE block (before NOTIFY DONE) is the WRITE pair again and, for a `data` queue, the
//! two single WRITEs again. The ring base addresses are the runtime allocator's (one of them 0 in
//! each capture, open); the model places them in the learned window ([`ring_address`]), so a
//! comparison counts them as relocated (D465).

use std::ops::Range;

use neff_isa::payload::{MEM_2D_DATA_WORDS, Mem2d, Mem2dMut};
use neff_isa::{DataSrc, Dtype, Opcode, SLOT_BYTES, Slot, SlotBuf};

use neff_lower::runtime_dma::{
    BCAST_A, BCAST_B, QUEUE_PAGE_SHIFT, SECOND_WORD_MARKER, TAIL_INC, read_runtime_write,
    runtime_write,
};

use crate::physical_core::PhysicalCore;

/// One static queue of an engine, as the blocks need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StaticQueue {
    /// The def.json `dma_queue` index.
    pub index: u8,
    /// Whether its `type` is `data`.
    pub data: bool,
    /// Its blocks (engine JSON `dma[]` entries on it).
    pub blocks: u16,
}

/// Queue pages of a DMA engine's bank: queue `i`'s page is `(i + 1) << 12` inside the bank's
/// 64 KiB (the table queue, 14, at `0xf000`: every capture's `qActTable` / `qDveTable`), so
/// def.json indices 0..15 have one (decision D857).
pub const QUEUE_PAGES: usize = 15;

/// The second side of an engine's bank.
const SECOND_SIDE: u64 = 0x2_0000;
/// The ring base register of a queue page.
const RING_BASE: u64 = 0x28;
/// The ring size register of a queue page.
const RING_SIZE: u64 = 0x30;
/// The size word every ring gets.
const RING_SIZE_WORD: u32 = 0x00ff_fff0;
/// The re-arm WRITE pair's registers and word (`A + P + 0x64`, `B + P + 0xb0`, 0x100).
const REARM_A: u64 = 0x64;
const REARM_B: u64 = 0xb0;
const REARM_WORD: u32 = 0x100;
/// DMA engines per queue (every capture's field 7: 16 per queue).
const DMA_ENGINES: u64 = 16;
/// Engines one TENSOR_STORE covers.
const GROUP: u64 = 4;
/// Where the model places the synthesized rings in the learned window (below the images).
const RING_AREA: u64 = 0x3000_0000;

fn page(q: &StaticQueue) -> u64 {
    (u64::from(q.index) + 1) << QUEUE_PAGE_SHIFT
}

/// The model's ring base address of `engine`'s `side` of queue `q` inside `window_start`'s window.
pub fn ring_address(window_start: u64, q: &StaticQueue, side: u64, engine: u64) -> u64 {
    window_start + RING_AREA + ((u64::from(q.index) * 2 + side) * DMA_ENGINES + engine) * 0x1000
}

/// A TENSOR_STORE of 2 x 4 u32 immediates at `addr`, element steps `step0`, `step1` (in words).
fn store(addr: u64, step0: u32, words: [u32; MEM_2D_DATA_WORDS]) -> [u8; SLOT_BYTES] {
    let mut s = SlotBuf::new(Opcode::TENSOR_STORE);
    // dtype u32, data source IMM, 2 x 4 elements (every capture's 0xAB); element 1 steps one
    // engine bank: 1 MiB in words.
    Mem2dMut(&mut s)
        .dtype(Dtype::Uint32)
        .datasrc(DataSrc::Immediate)
        .num_elem0(2)
        .num_elem1(4)
        .addr(addr)
        .step_elem([step0, 0x4_0000])
        .data_words(words);
    *s.bytes()
}

/// The ring bases of four engines as TENSOR_STORE words (lo, hi each).
fn bases(window_start: u64, q: &StaticQueue, side: u64, group: u64) -> [u32; MEM_2D_DATA_WORDS] {
    let mut w = [0u32; MEM_2D_DATA_WORDS];
    for i in 0..GROUP {
        let a = ring_address(window_start, q, side, group * GROUP + i);
        w[2 * i as usize] = a as u32;
        w[2 * i as usize + 1] = (a >> 32) as u32;
    }
    w
}

/// The `data` queue's two single WRITEs of its block count.
fn data_writes(q: &StaticQueue) -> [[u8; SLOT_BYTES]; 2] {
    let reg = BCAST_A + page(q) + TAIL_INC;
    let n = u32::from(q.blocks);
    [
        runtime_write(None, &[(reg, n)]),
        runtime_write(None, &[(reg, SECOND_WORD_MARKER | n)]),
    ]
}

fn rearm(q: &StaticQueue) -> [u8; SLOT_BYTES] {
    let p = page(q);
    runtime_write(
        None,
        &[
            (BCAST_A + p + REARM_A, REARM_WORD),
            (BCAST_B + p + REARM_B, REARM_WORD),
        ],
    )
}

/// The PREAMBLE block of queue `q` (module doc): 13 slots, 15 for a `data` queue.
pub fn preamble_block(window_start: u64, q: &StaticQueue) -> Vec<u8> {
    let p = page(q);
    let mut out = rearm(q).to_vec();
    for g in 0..DMA_ENGINES / GROUP {
        let bank = PhysicalCore::FRAME.dma_engine_bank(g * GROUP);
        out.extend_from_slice(&store(
            bank + p + RING_BASE,
            1,
            bases(window_start, q, 0, g),
        ));
        out.extend_from_slice(&store(
            bank + SECOND_SIDE + p + RING_BASE,
            1,
            bases(window_start, q, 1, g),
        ));
        // Step 0 of the size store crosses to the second side: 0x20000 bytes in words.
        out.extend_from_slice(&store(bank + p + RING_SIZE, 0x8000, [RING_SIZE_WORD; 8]));
    }
    if q.data {
        data_writes(q).iter().for_each(|s| out.extend_from_slice(s));
    }
    out
}

/// The POSTAMBLE block of queue `q`: 1 slot, 3 for a `data` queue.
pub fn postamble_block(q: &StaticQueue) -> Vec<u8> {
    let mut out = rearm(q).to_vec();
    if q.data {
        data_writes(q).iter().for_each(|s| out.extend_from_slice(s));
    }
    out
}

/// What a slot of a queue block is, read back from a teacher's bytes (decision D840).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockSlot {
    /// The WRITE pair of 0x100 to the queue's two re-arm registers.
    Rearm,
    /// A TENSOR_STORE to the queue page of a DMA engine bank (ring bases or sizes).
    RingStore,
    /// A single WRITE to the queue's broadcast tail-increment register (a `data` queue's count).
    CountWrite,
}

/// The kind of `slot` as a slot of queue `q`'s blocks, if it is one.
fn block_slot(slot: &[u8], q: &StaticQueue) -> Option<BlockSlot> {
    let s: &[u8; SLOT_BYTES] = slot.try_into().ok()?;
    let p = page(q);
    if let Some(w) = read_runtime_write(s) {
        let rearm = [
            Some((BCAST_A + p + REARM_A, REARM_WORD)),
            Some((BCAST_B + p + REARM_B, REARM_WORD)),
        ];
        return match w {
            _ if w == rearm => Some(BlockSlot::Rearm),
            [Some((a, _)), None] if a == BCAST_A + p + TAIL_INC => Some(BlockSlot::CountWrite),
            _ => None,
        };
    }
    let addr = Mem2d::new(Slot::new(s))
        .filter(|_| s[0] == Opcode::TENSOR_STORE.0)?
        .addr();
    let banks =
        PhysicalCore::FRAME.dma_engine_bank(0)..PhysicalCore::FRAME.dma_engine_bank(DMA_ENGINES);
    let in_page = addr & 0xF000 == p && addr & 0xFFF >= RING_BASE && addr & 0xFFF <= RING_SIZE;
    (banks.contains(&addr) && in_page).then_some(BlockSlot::RingStore)
}

/// The run of queue `q`'s block in `region` (whole slots) starting at its re-arm WRITE pair:
/// the pair, the ring stores after it, then the count WRITEs (decision D840). The first such
/// run; `None` when the region has no re-arm pair of `q`.
pub fn locate(region: &[u8], q: &StaticQueue) -> Option<Range<usize>> {
    let kinds: Vec<Option<BlockSlot>> = region
        .chunks_exact(SLOT_BYTES)
        .map(|s| block_slot(s, q))
        .collect();
    let start = kinds.iter().position(|k| *k == Some(BlockSlot::Rearm))?;
    let stores = kinds[start + 1..]
        .iter()
        .take_while(|k| **k == Some(BlockSlot::RingStore))
        .count();
    let counts = kinds[start + 1 + stores..]
        .iter()
        .take_while(|k| **k == Some(BlockSlot::CountWrite))
        .count();
    Some(start..start + 1 + stores + counts)
}

/// The opcode and first address word (+0x10) of every slot: what a built block and a teacher's
/// must share for the builder to be the teacher runtime's (ring bases and counts aside).
fn shape(block: &[u8]) -> Vec<(u8, u64)> {
    block
        .chunks_exact(SLOT_BYTES)
        .map(|s| {
            let word = s.get(0x10..0x18).and_then(|w| w.try_into().ok());
            (s[0], word.map_or(0, u64::from_le_bytes))
        })
        .collect()
}

/// Whether [`preamble_block`] and [`postamble_block`] for `q` have the shape (slots, opcodes,
/// registers) of the blocks a teacher holds for that queue (decision D840).
pub fn builder_confirmed(q: &StaticQueue, teacher_pre: &[u8], teacher_post: &[u8]) -> bool {
    shape(&preamble_block(0, q)) == shape(teacher_pre)
        && shape(&postamble_block(q)) == shape(teacher_post)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocks_have_the_captured_lengths_and_registers() {
        let io = StaticQueue {
            index: 1,
            data: false,
            blocks: 16,
        };
        let pre = preamble_block(0x8005_0000_0000, &io);
        assert_eq!(pre.len() / SLOT_BYTES, 13);
        // moe_v6b sg00 Pool slot 2 and slot 3's register, slot 14's.
        assert_eq!(&pre[0x10..0x18], &0x8010_020a_2064u64.to_le_bytes());
        assert_eq!(&pre[0x18..0x20], &0x8010_0208_20b0u64.to_le_bytes());
        assert_eq!(
            &pre[64 + 0x10..64 + 0x18],
            &0x8010_0200_2028u64.to_le_bytes()
        );
        assert_eq!(
            &pre[12 * 64 + 0x10..12 * 64 + 0x18],
            &0x8010_02c0_2030u64.to_le_bytes()
        );
        let spill = StaticQueue {
            index: 0,
            data: true,
            blocks: 20,
        };
        let pre = preamble_block(0x8005_0000_0000, &spill);
        assert_eq!(pre.len() / SLOT_BYTES, 15);
        // attn_v6 sg00 DVE slot 16: 0xfffe0014 to 0x8010020a1038.
        assert_eq!(
            &pre[14 * 64 + 0x10..14 * 64 + 0x18],
            &0x8010_020a_1038u64.to_le_bytes()
        );
        assert_eq!(
            &pre[14 * 64 + 0x20..14 * 64 + 0x24],
            &0xfffe_0014u32.to_le_bytes()
        );
        assert_eq!(postamble_block(&spill).len() / SLOT_BYTES, 3);
    }

    #[test]
    fn a_built_block_is_located_and_confirms_the_builder() {
        let q = StaticQueue {
            index: 2,
            data: true,
            blocks: 20,
        };
        let nop = [0u8; SLOT_BYTES];
        let (pre, post) = (preamble_block(0x8005_0000_0000, &q), postamble_block(&q));
        let mut region = [nop; 3].concat();
        region.extend_from_slice(&pre);
        region.extend_from_slice(&nop);
        assert_eq!(locate(&region, &q), Some(3..18));
        assert_eq!(locate(&post, &q), Some(0..3));
        // Another queue's page is not this queue's block.
        assert_eq!(locate(&region, &StaticQueue { index: 1, ..q }), None);
        assert!(builder_confirmed(&q, &pre, &post));
        assert!(!builder_confirmed(&q, &pre[SLOT_BYTES..], &post));
    }
}
