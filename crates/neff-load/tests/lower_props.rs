//! Property tests of lowering (spec 000 §5, spec 001 §5): output length is the sum of per-slot
//! record counts, and replaying the patch rows maps every output record to its source slot.

use neff_isa::EngineType;
use neff_load::device_model::DeviceModel;
use neff_lower::patch::{PatchLocation, PatchSection, PatchType};
use neff_lower::{LowerContext, LowerQueue, LowerResources, LowerVar, translate_block};
use proptest::prelude::*;

/// Slot kinds and how many records each lowers to.
const KINDS: [(u8, usize); 6] = [
    (0xa0, 1),
    (0xb1, 1),
    (0xc1, 1),
    (0xc8, 1),
    (0xcc, 0),
    (0xd5, 2),
];

fn slot(kind: usize, label: u32) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[0] = KINDS[kind].0;
    s[1] = 0x10;
    match s[0] {
        0xc1 => s[0x0c..0x0e].copy_from_slice(b"q0"),
        0xc8 => {
            s[4..8].copy_from_slice(&[4, 1, 0x13, 2]);
            s[0x0c] = 0x04;
            s[0x0d] = 0x0a;
            s[0x20] = 1;
        }
        0xcc => s[0x0c..0x10].copy_from_slice(&label.to_le_bytes()),
        0xd5 => s[0x0c] = 30,
        _ => {}
    }
    s
}

/// The device -> NEFF walk of spec 004 §3 applied record by record: INSERT rows cover `count`
/// records of the slot whose 1:1 record follows, DELETE rows skip `count` source slots.
fn replay(rows: &[PatchLocation], records: usize, first_slot: u64) -> Vec<u64> {
    let mut map = Vec::with_capacity(records);
    let mut src = first_slot;
    let mut rows = rows.iter().peekable();
    let mut cursor = 0u32;
    loop {
        while let Some(r) = rows.peek().filter(|r| r.offset == cursor) {
            match r.kind {
                PatchType::Insert => {
                    map.extend(std::iter::repeat_n(src, r.count as usize));
                    cursor += r.count * 64;
                }
                PatchType::Delete => src += u64::from(r.count),
                PatchType::Modify => unreachable!("lowering emits no MODIFY"),
            }
            rows.next();
        }
        if map.len() >= records {
            return map;
        }
        map.push(src);
        src += 1;
        cursor += 64;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lengths_add_up_and_patch_rows_replay_to_origins(
        kinds in prop::collection::vec(0usize..KINDS.len(), 0..40),
        lead in 0usize..3,
    ) {
        let res = LowerResources {
            queues: vec![LowerQueue { name: "q0".into(), owner: None, ty: "in".into(), semaphores: vec![], rings: 1, blocks: vec![] }],
            // The collectives' tensor ids 0/0 resolve to the state buffer (decision D285).
            vars: vec![LowerVar {
                var_id: 0,
                name: "SB".into(),
                ty: neff_kelf::VarType::StateBuffer,
                size: 0,
                placement: 0,
                referenced_var_id: None,
                dge_list: None,
            }],
            arch: 2,
            ..LowerResources::default()
        };
        let dev = DeviceModel::default();
        let ctx = LowerContext::new(&res, &dev, "");
        let mut stream = vec![0u8; lead * 64];
        for c in stream.chunks_exact_mut(64) {
            c[..2].copy_from_slice(&[0xb1, 0x10]);
        }
        for (i, &k) in kinds.iter().enumerate() {
            stream.extend_from_slice(&slot(k, i as u32));
        }
        let (bytes, out) = translate_block(&ctx, EngineType::Pool, &stream, lead * 64..stream.len(), 0, PatchSection::Main).unwrap();
        prop_assert_eq!(out.range.clone(), 0..bytes.len());
        let expected: usize = kinds.iter().map(|&k| KINDS[k].1).sum();
        prop_assert_eq!(out.record_count(), expected);
        prop_assert_eq!(out.origins.len(), expected);
        let replayed = replay(out.patches.locations(), expected, lead as u64);
        prop_assert_eq!(replayed, out.origins.clone());
        for (i, &k) in kinds.iter().enumerate() {
            let n = out.origins.iter().filter(|&&o| o == (lead + i) as u64).count();
            prop_assert_eq!(n, KINDS[k].1);
        }
    }
}
