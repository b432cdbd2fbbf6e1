//! The DGE queue masks runtime 2.30.51 writes in every engine's PREAMBLE (decision D770): four
//! WRITE data words that name, by def.json `dma_queue` index, the subgraph's dynamic queues.
//!
//! Read from the seven shared captures (both subgraphs, every engine: 224 words, all four
//! registers, no exception). A dynamic queue is *hardware* DGE without a `dynamic_dma` entry
//! (`qActDynamicHW`, `qSPDynamicHW`) and *software* DGE with one (`qPoolDynamic`, its
//! state-buffer scratch). In the engine's control bank (the bank of its `+0x0004 = 1` enable
//! WRITE, `0x8028_02x6_0000` on sg00):
//! - `+0x13a0`: the DMA engines the engine's hardware-DGE queues spread over,
//!   `(1 << num_queues) - 1` (0xffff: every queue seen has 16), 0 without one;
//! - `+0x13c0`: the engine's hardware-DGE queues, bit `q` for queue index `q` (baseline_attention
//!   Activation `qActDynamicHW` 0 -> 1, SP `qSPDynamicHW` 2 -> 4; fused_attention SP 1 -> 2);
//! - `+0x13e0`: every engine's hardware-DGE queues of the subgraph, the same word on all five
//!   (baseline 1 | 4 = 5, fused 2, attn_v6 4, moe 0);
//! - `+0x1500`: the engine's software-DGE queues in bits 16+, bit `q` again, over the DMA engine
//!   mask of `+0x13a0` in the low half (Pool: `qPoolDynamic` 1 -> 0x2ffff, 0 -> 0x1ffff), 0 without
//!   one (sg01 Pool).
//!
//! Only the first WRITE of each register in the PREAMBLE carries the mask; the later ones (the
//! runtime's reset of the same registers) write 0 in every capture and are left as learned.

use neff_isa::{EngineType, SLOT_BYTES};
use neff_lower::runtime_dma::{read_runtime_write, set_runtime_write_data};

/// The engine control bank's enable register: the PREAMBLE WRITE of 1 here names the bank.
const ENABLE: u64 = 0x0004;
/// The bank's offset bits (the captures' banks are 64 KiB aligned: `0x8028_0246_0000`).
const BANK_MASK: u64 = 0xFFFF;
/// `+0x13a0`: the DMA engine mask of the engine's hardware-DGE queues.
const HW_ENGINES: u64 = 0x13a0;
/// `+0x13c0`: the engine's hardware-DGE queues.
const HW_OWN: u64 = 0x13c0;
/// `+0x13e0`: every engine's hardware-DGE queues.
const HW_ALL: u64 = 0x13e0;
/// `+0x1500`: the engine's software-DGE queues over the DMA engine mask.
const SW_OWN: u64 = 0x1500;
/// Where the software-DGE queue bits start in `+0x1500`'s word.
const SW_SHIFT: u32 = 16;

/// The subgraph's dynamic queues by kind and owner, as bit masks of `dma_queue` indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DgeQueues {
    /// Per engine (index order), its hardware-DGE queues (dynamic, no `dynamic_dma`).
    pub hardware: [u32; EngineType::COUNT],
    /// Per engine, the DMA engines its hardware-DGE queues spread over.
    pub hardware_engines: [u32; EngineType::COUNT],
    /// Per engine, its software-DGE queues (dynamic, with `dynamic_dma`).
    pub software: [u32; EngineType::COUNT],
    /// Per engine, the DMA engines its software-DGE queues spread over.
    pub software_engines: [u32; EngineType::COUNT],
}

/// The DMA engine mask of a queue spread over `n` engines (16 in every capture, the most a
/// queue set has).
fn engine_mask(n: Option<u64>) -> u32 {
    match n {
        Some(n) if n < 32 => (1u32 << n) - 1,
        _ => u32::MAX,
    }
}

impl DgeQueues {
    /// The dynamic queues of one kbin; a queue whose index does not fit a 32-bit mask sets no bit
    /// (no capture has more than 3 queues).
    pub fn from_kbin(kbin: &neff_kelf::Kbin<'_>) -> Self {
        let mut out = Self::default();
        for (index, q) in kbin.dma_queues.iter().enumerate() {
            let (Some(owner), true) = (q.owner, q.ty == neff_lower::DYNAMIC_QUEUE) else {
                continue;
            };
            let Some(bit) = u32::try_from(index).ok().and_then(|i| 1u32.checked_shl(i)) else {
                continue;
            };
            let e = owner.index();
            if q.dynamic_dma.is_some() {
                out.software[e] |= bit;
                out.software_engines[e] |= engine_mask(q.num_queues);
            } else {
                out.hardware[e] |= bit;
                out.hardware_engines[e] |= engine_mask(q.num_queues);
            }
        }
        out
    }

    /// The word the runtime writes to register `offset` of `engine`'s control bank, if it is one
    /// of the four masks.
    fn word(&self, engine: EngineType, offset: u64) -> Option<u32> {
        let e = engine.index();
        match offset {
            HW_ENGINES => Some(self.hardware_engines[e] * u32::from(self.hardware[e] != 0)),
            HW_OWN => Some(self.hardware[e]),
            HW_ALL => Some(self.hardware.iter().fold(0, |a, m| a | m)),
            SW_OWN if self.software[e] == 0 => Some(0),
            SW_OWN => Some(self.software[e] << SW_SHIFT | self.software_engines[e]),
            _ => None,
        }
    }

    /// `preamble` with the four mask words of `engine` rewritten for these queues; `None` when
    /// nothing changes (no mask WRITE, or the learned words are already these).
    pub fn rewrite(&self, engine: EngineType, preamble: &[u8]) -> Option<Vec<u8>> {
        let single = |slot: &[u8]| {
            let s: &[u8; SLOT_BYTES] = slot.try_into().ok()?;
            match read_runtime_write(s)? {
                [Some(w), None] => Some(w),
                _ => None,
            }
        };
        let slots = || preamble.chunks_exact(SLOT_BYTES).enumerate();
        let bank = slots().find_map(|(_, s)| {
            let (addr, data) = single(s)?;
            (addr & BANK_MASK == ENABLE && data == 1).then_some(addr & !BANK_MASK)
        })?;
        let mut out: Option<Vec<u8>> = None;
        let mut seen = [false; 4];
        for (i, s) in slots() {
            let Some((addr, data)) = single(s) else {
                continue;
            };
            if addr & !BANK_MASK != bank {
                continue;
            }
            let Some(k) = [HW_ENGINES, HW_OWN, HW_ALL, SW_OWN]
                .iter()
                .position(|&o| o == addr & BANK_MASK)
            else {
                continue;
            };
            // The first WRITE of a register is the mask; later ones are its reset.
            if std::mem::replace(&mut seen[k], true) {
                continue;
            }
            let Some(word) = self.word(engine, addr & BANK_MASK) else {
                continue;
            };
            if word != data {
                let mut slot: [u8; SLOT_BYTES] = s.try_into().ok()?;
                // Keep the learned slot's other bytes (events): rewrite the data word only.
                set_runtime_write_data(&mut slot, 0, word);
                out.get_or_insert_with(|| preamble.to_vec())[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
                    .copy_from_slice(&slot);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neff_lower::runtime_dma::runtime_write;

    fn write(addr: u64, data: u32) -> [u8; SLOT_BYTES] {
        runtime_write(None, &[(addr, data)])
    }

    fn data(pre: &[u8], slot: usize) -> u32 {
        let s: &[u8; SLOT_BYTES] = pre[slot * SLOT_BYTES..][..SLOT_BYTES].try_into().unwrap();
        read_runtime_write(s).unwrap()[0].unwrap().1
    }

    /// baseline_attention sg00 SP's mask WRITEs (slots 4-7) and enable (11), rewritten for
    /// fused_attention's queues (`qPoolDynamic` 0, `qSPDynamicHW` 1): its capture's words.
    #[test]
    fn baseline_sp_words_become_fused_sp_words() {
        let bank = 0x8028_0286_0000u64;
        let mut pre = Vec::new();
        for (o, d) in [
            (0x13a0, 0xffff),
            (0x13c0, 4),
            (0x13e0, 5),
            (0x14c0, 4),
            (0x0004, 1),
        ] {
            pre.extend_from_slice(&write(bank + o, d));
        }
        pre.extend_from_slice(&write(bank + 0x13e0, 0));
        let mut q = DgeQueues::default();
        q.hardware[EngineType::Sp.index()] = 1 << 1;
        q.hardware_engines[EngineType::Sp.index()] = 0xffff;
        q.software[EngineType::Pool.index()] = 1;
        q.software_engines[EngineType::Pool.index()] = 0xffff;
        let out = q.rewrite(EngineType::Sp, &pre).expect("words change");
        assert_eq!(
            (0..6).map(|i| data(&out, i)).collect::<Vec<_>>(),
            [0xffff, 2, 2, 4, 1, 0]
        );
        // Pool's software-DGE word: queue 0 -> 0x1ffff.
        assert_eq!(q.word(EngineType::Pool, SW_OWN), Some(0x1ffff));
        assert_eq!(q.word(EngineType::Sp, SW_OWN), Some(0));
        // The same queues again change nothing.
        assert_eq!(q.rewrite(EngineType::Sp, &out), None);
    }
}
