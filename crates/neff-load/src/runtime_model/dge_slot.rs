//! The DGE table's register load (decision D851): the one START-block slot a subgraph with a
//! `dge-table` var adds to every engine's PREAMBLE, which the runtime's regions of one content
//! key with and without the table differ by. A learned runtime that shows an engine only one way
//! gets the other by putting that slot in, or taking it out.
//!
//! The slot is found from the learned regions themselves, never at a fixed position: an engine
//! with both forms (one key, but for the DGE table) confirms it — the one slot after MODEL_SWITCH
//! whose removal leaves the other form's opcodes, and which that form lacks. Its bytes, but for
//! the word holding the table's device address, are its signature; an engine seen with the table
//! only is read by that signature, and the slot keeps its distance from the PREAMBLE's end.

use neff_isa::SLOT_BYTES;

use super::variant::{LearnedVariant, opcodes};

/// The slot's bytes outside the aligned word at 16..24, which holds the DGE table's device
/// address (relocated between captures, decision D465).
type Signature = ([u8; 16], [u8; SLOT_BYTES - 24]);

const ADDRESS_WORD: std::ops::Range<usize> = 16..24;

fn signature(slot: &[u8]) -> Option<Signature> {
    let head = slot.get(..ADDRESS_WORD.start)?.try_into().ok()?;
    let tail = slot.get(ADDRESS_WORD.end..SLOT_BYTES)?.try_into().ok()?;
    Some((head, tail))
}

fn slot(bytes: &[u8], i: usize) -> &[u8] {
    bytes
        .get(i * SLOT_BYTES..(i + 1) * SLOT_BYTES)
        .unwrap_or(&[])
}

fn slots(bytes: &[u8]) -> usize {
    bytes.len() / SLOT_BYTES
}

/// The slot of `with` (DGE table) whose removal gives `without`'s PREAMBLE, when exactly one
/// after MODEL_SWITCH does and `without` has no slot like it; the POSTAMBLEs must agree in
/// opcodes.
fn confirmed_by_pair(with: &LearnedVariant, without: &LearnedVariant) -> Option<usize> {
    let n = slots(&with.preamble);
    if n != slots(&without.preamble) + 1
        || !opcodes(&with.postamble).eq(opcodes(&without.postamble))
    {
        return None;
    }
    let absent = |i: usize| {
        let s = signature(slot(&with.preamble, i));
        (0..slots(&without.preamble)).all(|j| signature(slot(&without.preamble, j)) != s)
    };
    let mut found = (with.model_switch.end..n).filter(|&i| {
        let rest = opcodes(&with.preamble)
            .enumerate()
            .filter(|&(k, _)| k != i)
            .map(|(_, op)| op);
        rest.eq(opcodes(&without.preamble)) && absent(i)
    });
    let i = found.next()?;
    found.next().is_none().then_some(i)
}

/// The signatures of the DGE load every engine with both forms confirms.
fn confirmed(variants: &[LearnedVariant]) -> Vec<Signature> {
    let mut out = Vec::new();
    for with in variants.iter().filter(|v| v.key.dge_table) {
        let pair = variants.iter().find(|o| {
            o.engine == with.engine
                && !o.key.dge_table
                && o.key.tables == with.key.tables
                && o.key.static_queues == with.key.static_queues
                && o.key.data_queues == with.key.data_queues
        });
        let sig = pair
            .and_then(|o| confirmed_by_pair(with, o))
            .and_then(|i| signature(slot(&with.preamble, i)));
        if let Some(s) = sig
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    out
}

/// The DGE load's slot in `v` (a form with the table): the one slot after MODEL_SWITCH with a
/// confirmed signature.
fn locate(v: &LearnedVariant, sigs: &[Signature]) -> Option<usize> {
    let mut found = (v.model_switch.end..slots(&v.preamble))
        .filter(|&i| signature(slot(&v.preamble, i)).is_some_and(|s| sigs.contains(&s)));
    let i = found.next()?;
    found.next().is_none().then_some(i)
}

/// `v`'s regions in a subgraph with (`dge_table`) or without the DGE table, when `v` is the other
/// form and `variants` confirm the slot: taken out of `v`; or put in, at the distance from the
/// PREAMBLE's end a learned form of the engine with the table shows, else at `rules_from_end`
/// (the rules' START block, for the runtime they were read from), with the bytes of the engine's
/// own load, else another engine's (one slot in every engine of every capture). `None` when
/// nothing confirms it.
pub(crate) fn with_dge_table(
    variants: &[LearnedVariant],
    v: &LearnedVariant,
    dge_table: bool,
    rules_from_end: Option<usize>,
) -> Option<LearnedVariant> {
    if v.key.dge_table == dge_table {
        return Some(v.clone());
    }
    let sigs = confirmed(variants);
    let mut preamble = v.preamble.clone();
    if dge_table {
        let located = |same: bool| {
            variants
                .iter()
                .filter(move |w| w.key.dge_table && (w.engine == v.engine) == same)
                .find_map(|w| Some((w, locate(w, &sigs)?)))
        };
        // Slots from the load to the PREAMBLE's end, the load included.
        let (from_end, (donor, j)) = match located(true) {
            Some((w, j)) => (slots(&w.preamble) - j, (w, j)),
            None => (rules_from_end?, located(false)?),
        };
        let at = (slots(&v.preamble) + 1).checked_sub(from_end)?;
        if at < v.model_switch.end {
            return None;
        }
        let bytes = slot(&donor.preamble, j).to_vec();
        preamble.splice(at * SLOT_BYTES..at * SLOT_BYTES, bytes);
    } else {
        let i = locate(v, &sigs)?;
        preamble.drain(i * SLOT_BYTES..(i + 1) * SLOT_BYTES);
    }
    let mut out = LearnedVariant {
        preamble,
        ..v.clone()
    };
    out.key.dge_table = dge_table;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime_model::variant::{Confirmed, VariantKey};
    use neff_isa::EngineType;

    fn slot_of(op: u8, tag: u8) -> Vec<u8> {
        let mut s = vec![0u8; SLOT_BYTES];
        s[0] = op;
        s[1] = tag;
        s
    }

    /// A PREAMBLE of `n` slots (opcodes 1, 2, ...), MODEL_SWITCH ending at slot 2.
    fn variant(engine: EngineType, dge: bool, tables: bool, n: u8) -> LearnedVariant {
        let mut pre: Vec<u8> = (1..=n).flat_map(|k| slot_of(k, 0)).collect();
        if dge {
            // The load, two slots before the end.
            let at = (usize::from(n) - 2) * SLOT_BYTES;
            let mut load = slot_of(0xaa, 7);
            load[16] = engine as u8; // the address word may differ
            pre.splice(at..at, load);
        }
        LearnedVariant {
            engine,
            subgraph: "sg".into(),
            key: VariantKey {
                tables,
                dge_table: dge,
                static_queues: 0,
                data_queues: 0,
            },
            preamble: pre,
            program_start: 1,
            model_switch: 2..2,
            postamble: slot_of(0xb2, 0),
            queue_block: None,
            confirmed: Confirmed {
                masks: true,
                counts: true,
            },
            table_sets: vec![0],
        }
    }

    #[test]
    fn a_pair_confirms_the_load_and_another_engine_gets_or_loses_it() {
        let pe = [
            variant(EngineType::Pe, true, false, 8),
            variant(EngineType::Pe, false, false, 8),
        ];
        // Activation seen once with the table (and tables), once without either.
        let act_with = variant(EngineType::Act, true, true, 10);
        let act_without = variant(EngineType::Act, false, false, 6);
        let all = [
            pe[0].clone(),
            pe[1].clone(),
            act_with.clone(),
            act_without.clone(),
        ];
        let taken = with_dge_table(&all, &act_with, false, None).unwrap();
        assert_eq!(
            taken.preamble,
            variant(EngineType::Act, false, true, 10).preamble
        );
        let put = with_dge_table(&all, &act_without, true, None).unwrap();
        assert_eq!(
            put.preamble,
            variant(EngineType::Act, true, false, 6).preamble
        );
        assert!(put.key.dge_table && !taken.key.dge_table);
        // Without the confirming pair nothing is flipped.
        let unconfirmed = [act_with.clone(), act_without.clone()];
        assert!(with_dge_table(&unconfirmed, &act_with, false, Some(3)).is_none());
        assert!(with_dge_table(&unconfirmed, &act_without, true, Some(3)).is_none());
    }
}
