//! The descriptor counts of two runtime DMAs on queue 14 that runtime 2.30.51 starts from the
//! PREAMBLE (decision D771): WRITE pairs of one count to both sides' tail-increment registers of
//! a DMA engine's queue-14 page (`0x8010_02x2_f038` and `0x8010_02x0_f038`; queue 14 is the
//! capture's table queue, field 7.2 `qActTable` / `qDveTable`).
//!
//! - Activation's table load (its first pair, inside the table-set block, DMA engine 9): 4 plus
//!   one per `activation_function_sets` entry — 5 with one set (six captures), 6 with attn_v6's
//!   two.
//! - PE's START DMA (its pair after MODEL_SWITCH, DMA engine 5; PE then waits on event 4): the
//!   capture traces that DMA engine's queue-14 transfers, one per descriptor: a 4-byte word
//!   every run (the same data in every capture), an 8-byte one when the subgraph has a
//!   `dge-table` var, and in moe_v6b / moe_megakernel four 4-byte words more, two per `in`
//!   queue (the pairs' second words are one value, their first differ). So `1 + dge + 2 x in`:
//!   sg01 1, sg00 2, moe sg00 6.
//!
//! The other pairs (PE's program-start pair, 2 everywhere; DVE's table load, 6 with the one
//! `dve_tables` entry every subgraph has) stay as learned.

use neff_isa::{EngineType, SLOT_BYTES};
use neff_lower::runtime_dma::{TAIL_INC, read_runtime_write};

use super::RuntimeContent;

/// A DMA engine bank's offset bits (1 MiB banks at `0x8010_0200_0000 + e << 20`, D582).
const BANK_MASK: u64 = 0xF_FFFF;
/// Queue 14's page (`(14 + 1) << 12`, D580) plus its tail-increment register.
const QUEUE14_TAIL: u64 = 0xF000 + TAIL_INC;
/// The second side of a bank (D582).
const SECOND_SIDE: u64 = 0x2_0000;
/// Descriptors Activation's table load has besides one per function set.
const ACT_TABLE_BASE: u32 = 4;
/// PE's START DMA: the word every run moves.
const PE_START_BASE: u32 = 1;
/// PE's START DMA: the words each `in` queue adds.
const PE_START_PER_IN_QUEUE: u32 = 2;

/// The count of a queue-14 WRITE pair in `slot`: both sides, one count; `None` for another slot.
fn pair_count(slot: &[u8]) -> Option<u32> {
    let s: &[u8; SLOT_BYTES] = slot.try_into().ok()?;
    let [Some((a, x)), Some((b, y))] = read_runtime_write(s)? else {
        return None;
    };
    (a & BANK_MASK == SECOND_SIDE + QUEUE14_TAIL && b == a - SECOND_SIDE && x == y).then_some(x)
}

/// Which queue-14 pair of `engine`'s PREAMBLE is modelled (its index among the engine's pairs:
/// Activation's table load is its first, PE's START DMA its second after the program-start
/// pair) and its count for `content`.
fn modelled(engine: EngineType, content: &RuntimeContent) -> Option<(usize, u32)> {
    let sets = u32::try_from(content.activation_function_sets).unwrap_or(u32::MAX);
    match engine {
        EngineType::Act if sets > 0 => Some((0, ACT_TABLE_BASE.saturating_add(sets))),
        EngineType::Pe => Some((
            1,
            PE_START_BASE
                + u32::from(content.dge_table)
                + PE_START_PER_IN_QUEUE * u32::from(content.in_queues),
        )),
        _ => None,
    }
}

/// `preamble` with `engine`'s modelled count written for `content`; `None` when nothing
/// changes (no such pair, or the learned count is already it).
pub fn rewrite(engine: EngineType, content: &RuntimeContent, preamble: &[u8]) -> Option<Vec<u8>> {
    let (nth, count) = modelled(engine, content)?;
    let (i, old) = preamble
        .chunks_exact(SLOT_BYTES)
        .enumerate()
        .filter_map(|(i, s)| Some((i, pair_count(s)?)))
        .nth(nth)?;
    if old == count {
        return None;
    }
    let mut out = preamble.to_vec();
    let at = i * SLOT_BYTES;
    // +0x20 / +0x28: the two data words (neff_lower::runtime_dma's layout).
    out[at + 0x20..at + 0x28].copy_from_slice(&u64::from(count).to_le_bytes());
    out[at + 0x28..at + 0x30].copy_from_slice(&u64::from(count).to_le_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use neff_lower::runtime_dma::runtime_write;

    /// PE sg00 slots 27 and 50 of baseline_attention (2, 2), rewritten for moe_v6b's sg00 (a DGE
    /// table, two `in` queues): its capture's 2 and 6.
    #[test]
    fn pe_start_count_follows_dge_table_and_in_queues() {
        let pair = |n| runtime_write(None, &[(0x8010_0252_f038, n), (0x8010_0250_f038, n)]);
        let mut pre = pair(2).to_vec();
        pre.extend_from_slice(&pair(2));
        let moe = RuntimeContent {
            dge_table: true,
            in_queues: 2,
            ..RuntimeContent::default()
        };
        let out = rewrite(EngineType::Pe, &moe, &pre).expect("count changes");
        assert_eq!(pair_count(&out[..SLOT_BYTES]), Some(2));
        assert_eq!(pair_count(&out[SLOT_BYTES..]), Some(6));
        let sg01 = RuntimeContent::default();
        let out = rewrite(EngineType::Pe, &sg01, &pre).expect("count changes");
        assert_eq!(pair_count(&out[SLOT_BYTES..]), Some(1));
        // Activation with two sets (attn_v6): 6; DVE untouched.
        let act = RuntimeContent {
            activation_function_sets: 2,
            ..sg01
        };
        let a = runtime_write(None, &[(0x8010_0292_f038, 5), (0x8010_0290_f038, 5)]);
        let out = rewrite(EngineType::Act, &act, &a).expect("count changes");
        assert_eq!(pair_count(&out), Some(6));
        assert_eq!(rewrite(EngineType::Dve, &act, &a), None);
    }
}
