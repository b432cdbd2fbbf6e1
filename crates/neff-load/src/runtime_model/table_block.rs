//! The table load's block (decision D858): the slots an engine's table sets (Activation's
//! function sets, DVE's tables) add before the program start (D171, D467:
//! [`super::rules::TABLE_SET_SLOTS`]), found in the learned regions, so that an engine seen only
//! with tables (DVE, in every shared capture) gets its regions without them.
//!
//! An engine seen both ways (Activation, in runtime 2.30.51's captures) confirms the block: the
//! slots of its form with tables whose removal leaves its form without, before the program start
//! — one set only (the first and the last embedding of the table-less slots agree), the
//! POSTAMBLEs of one opcode sequence. In 2.30.51 that is the table queue's ring set-up and DMA
//! (nine slots from PREAMBLE slot 2: re-arm WRITE pair, three TENSOR_STOREs to queue 14's page,
//! TENSOR_LOAD, a wait, the queue-14 count pair, a wait, a semaphore slot) and one semaphore slot
//! between two DRAINs seven slots before the program start. Another engine's block is taken at
//! the same distances from its program start where its slots there have the confirmed block's
//! shape (opcode and register page offset).

use neff_isa::SLOT_BYTES;

use super::variant::{LearnedVariant, opcodes};

/// The first address word of a slot (a register or device address).
const ADDRESS_WORD: std::ops::Range<usize> = 16..24;
/// The page-offset bits of an address: the same whatever the allocator or the core chose.
const PAGE_OFFSET: u64 = 0xFFF;

fn address_offset(slot: &[u8]) -> u64 {
    slot.get(ADDRESS_WORD)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
        & PAGE_OFFSET
}

/// What one slot must share with another to be the same slot of a region seen in another
/// subgraph or capture: its first 16 bytes (opcode and fields) and its address's page offset.
/// Data words and address pages follow the subgraph (the DGE masks, D770) and the allocator
/// (D465); since D816 the core's words are in one frame, so they no longer differ.
fn alike(a: &[u8], b: &[u8]) -> bool {
    a.get(..ADDRESS_WORD.start) == b.get(..ADDRESS_WORD.start)
        && address_offset(a) == address_offset(b)
}

/// What a block slot must share with the confirmed block's slot on another engine: its opcode
/// and address page offset (the fields name the engine's own semaphores).
fn shaped(a: &[u8], b: &[u8]) -> bool {
    a.first() == b.first() && address_offset(a) == address_offset(b)
}

fn init(v: &LearnedVariant) -> Vec<&[u8]> {
    v.preamble[..v.program_start * SLOT_BYTES]
        .chunks_exact(SLOT_BYTES)
        .collect()
}

fn slot(x: &LearnedVariant, i: usize) -> &[u8] {
    &x.preamble[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
}

/// The slots of `with` that `without`'s slots are, in order: each the first alike slot after
/// the previous one's (the leftmost embedding).
fn first_embedding(with: &[&[u8]], without: &[&[u8]]) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(without.len());
    let mut from = 0;
    for b in without {
        let k = (from..with.len()).find(|&k| alike(with[k], b))?;
        out.push(k);
        from = k + 1;
    }
    Some(out)
}

/// The same, each the last alike slot before the next one's (the rightmost embedding).
fn last_embedding(with: &[&[u8]], without: &[&[u8]]) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(without.len());
    let mut to = with.len();
    for b in without.iter().rev() {
        let k = (0..to).rev().find(|&k| alike(with[k], b))?;
        out.push(k);
        to = k;
    }
    out.reverse();
    Some(out)
}

/// The block a pair confirms: the slots of `with` (tables) before its program start that
/// `without` lacks, as distances from the program start, when the table-less slots sit in one
/// way only in `with`'s and the POSTAMBLEs have one opcode sequence.
fn confirmed_by_pair(with: &LearnedVariant, without: &LearnedVariant) -> Option<Vec<usize>> {
    if with.program_start <= without.program_start
        || !opcodes(&with.postamble).eq(opcodes(&without.postamble))
    {
        return None;
    }
    let (w, wo) = (init(with), init(without));
    let first = first_embedding(&w, &wo)?;
    (last_embedding(&w, &wo)? == first).then(|| {
        (0..w.len())
            .filter(|k| !first.contains(k))
            .map(|k| with.program_start - k)
            .collect()
    })
}

/// `v`'s regions without its table block (decision D858), when `variants` hold an engine seen
/// with and without tables (the same static queues) that confirms the block, and `v`'s slots at
/// that block's distances from the program start have its shape. `None` otherwise.
pub fn without_tables(variants: &[LearnedVariant], v: &LearnedVariant) -> Option<LearnedVariant> {
    if !v.key.tables {
        return Some(v.clone());
    }
    let (donor, block) = variants.iter().filter(|w| w.key.tables).find_map(|with| {
        let without = variants.iter().find(|o| {
            o.engine == with.engine
                && !o.key.tables
                && o.key.static_queues == with.key.static_queues
                && o.key.data_queues == with.key.data_queues
        })?;
        Some((with, confirmed_by_pair(with, without)?))
    })?;
    let at = |d: usize| v.program_start.checked_sub(d);
    let mut cut = Vec::with_capacity(block.len());
    for &d in &block {
        let i = at(d)?;
        if !shaped(slot(v, i), slot(donor, donor.program_start - d)) {
            return None;
        }
        cut.push(i);
    }
    let n = cut.len();
    let preamble = (v.preamble.chunks_exact(SLOT_BYTES).enumerate())
        .filter(|(i, _)| !cut.contains(i))
        .flat_map(|(_, s)| s.iter().copied())
        .collect();
    let mut out = LearnedVariant {
        preamble,
        program_start: v.program_start - n,
        model_switch: v.model_switch.start - n..v.model_switch.end - n,
        queue_block: None,
        table_sets: vec![0],
        ..v.clone()
    };
    out.key.tables = false;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime_model::variant::{Confirmed, VariantKey};
    use neff_isa::EngineType;

    fn slot(op: u8, tag: u8, offset: u16) -> Vec<u8> {
        let mut s = vec![0u8; SLOT_BYTES];
        s[0] = op;
        s[1] = tag;
        s[16..18].copy_from_slice(&offset.to_le_bytes());
        s
    }

    fn variant(
        engine: EngineType,
        tables: bool,
        pre: Vec<Vec<u8>>,
        start: usize,
    ) -> LearnedVariant {
        LearnedVariant {
            engine,
            subgraph: "sg".into(),
            key: VariantKey {
                tables,
                dge_table: false,
                static_queues: 0,
                data_queues: 0,
            },
            preamble: pre.concat(),
            program_start: start,
            model_switch: start + 1..start + 2,
            postamble: slot(0xb2, 0, 0),
            queue_block: None,
            confirmed: Confirmed {
                masks: true,
                counts: true,
            },
            table_sets: vec![usize::from(tables)],
        }
    }

    #[test]
    fn a_pair_confirms_the_block_and_another_engine_loses_it() {
        let base = |e: u8| {
            vec![
                slot(0xa6, 0, 0),
                slot(0xaa, 0, 0x2c),
                slot(0xa2, 0, 0),
                slot(0xa2, 0, 0),
                slot(0xb1, e, 0),
                slot(0xb0, e, 0),
            ]
        };
        // The block: an aa like the kept one but at another offset, and a slot between the two
        // a2s.
        let with = |e: u8| {
            let mut p = base(e);
            p.insert(3, slot(0xa4, e, 0));
            p.insert(1, slot(0xaa, e, 0x30));
            p
        };
        let act = variant(EngineType::Act, true, with(6), 6);
        let act_without = variant(EngineType::Act, false, base(6), 4);
        let dve = variant(EngineType::Dve, true, with(7), 6);
        let all = [act.clone(), act_without.clone(), dve.clone()];
        let made = without_tables(&all, &dve).unwrap();
        assert_eq!(made.preamble, base(7).concat());
        assert_eq!((made.program_start, made.model_switch), (4, 5..6));
        assert!(!made.key.tables);
        // Nothing confirms it without the pair.
        assert!(without_tables(&[act, dve.clone()], &dve).is_none());
        // Two ways to cut: not confirmed.
        let twice = variant(
            EngineType::Act,
            true,
            vec![
                slot(0xa6, 0, 0),
                slot(0xa2, 0, 0),
                slot(0xa2, 0, 0),
                slot(0xb1, 0, 0),
            ],
            3,
        );
        let once = variant(
            EngineType::Act,
            false,
            vec![slot(0xa6, 0, 0), slot(0xa2, 0, 0), slot(0xb1, 0, 0)],
            2,
        );
        assert!(confirmed_by_pair(&twice, &once).is_none());
    }
}
