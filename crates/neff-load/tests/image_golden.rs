//! Regression guard for the load optimisations (parallel engines, single-allocation images, the
//! bulk pass-through copy): the images, device bases, patch rows and collective op lists of
//! generated NEFFs hash to the values hard-coded below (first computed with the pre-optimisation
//! code, commit 35b4dd8; op lists and the ccop owner joined with decisions D285/D286; calls
//! grew their return-address slot with D290; recomputed when neff-synth's streams changed to balanced
//! waits, D360, with neff-load unchanged).
//! A change that alters any image byte, base, row or op-list field fails here; if a change is
//! meant to alter them, recompute the hashes and say why in the commit.

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::lower::{CollectiveOpList, ResolvedTensor};
use neff_load::model::{LoadOptions, load};
use neff_synth::{SynthOptions, SynthTarget};
use sha2::{Digest, Sha256};

/// Feeds every field of an engine's op lists (spec 001 §3 ENC plans) to the hash.
fn hash_op_lists(h: &mut Sha256, lists: &[CollectiveOpList]) {
    let tensor = |h: &mut Sha256, t: &ResolvedTensor| match t {
        ResolvedTensor::Single(v) => {
            h.update([0u8]);
            h.update(v.to_le_bytes());
        }
        ResolvedTensor::List(l) => {
            h.update((l.len() as u64 + 1).to_le_bytes());
            l.iter().for_each(|v| h.update(v.to_le_bytes()));
        }
    };
    for l in lists {
        h.update(l.source_slot.to_le_bytes());
        h.update([l.opcode, u8::from(l.ccop_owner)]);
        h.update(l.trigger_addr.to_le_bytes());
        for op in &l.ops {
            h.update([op.class as u8, op.reduce.unwrap_or(0xFF), op.alu_op]);
            h.update([op.chaining as u8, op.dtype, op.dma_priority.unwrap_or(0xFF)]);
            h.update(op.elem_size.to_le_bytes());
            h.update(op.input_tensor_id.to_le_bytes());
            h.update(op.input1_tensor_id.unwrap_or(u32::MAX).to_le_bytes());
            h.update(op.output_tensor_id.to_le_bytes());
            tensor(h, &op.input);
            tensor(h, &op.output);
            for n in [
                op.num_elements,
                op.input_elements,
                op.output_elements,
                op.rank_n,
            ] {
                h.update(n.to_le_bytes());
            }
            h.update(op.group_id.to_le_bytes());
            h.update(op.src_offset.to_le_bytes());
            h.update(op.dst_offset.to_le_bytes());
        }
    }
}

/// SHA-256 over every subgraph's engines in load order: name, engine, base, image bytes, rows,
/// op lists.
fn model_hash(opts: &SynthOptions) -> String {
    let bytes = neff_synth::generate(opts).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let mut h = Sha256::new();
    for sg in &model.subgraphs {
        h.update(sg.name.as_bytes());
        for e in &sg.engines {
            h.update(e.engine.key().as_bytes());
            h.update(e.ib_addrs.base.to_le_bytes());
            h.update((e.image.bytes.len() as u64).to_le_bytes());
            h.update(&e.image.bytes);
            for p in e.image.patches.locations() {
                h.update(p.offset.to_le_bytes());
                h.update(p.count.to_le_bytes());
                h.update([p.kind as u8, p.section as u8]);
            }
            hash_op_lists(&mut h, &e.op_lists);
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn images_hash_as_before_the_optimisations() {
    let cases = [
        (
            SynthTarget::Sunda,
            1,
            3000,
            3,
            7,
            "cc260e76c13ae045e61496fb19198b184cc6d63182086c52d66092279f2d6234",
        ),
        (
            SynthTarget::Cayman,
            3,
            5000,
            2,
            11,
            "36ba666ee476d685882e31bd2bb23a21a0edfcd904ab3ce3cc7d1b185d104a79",
        ),
    ];
    for (target, subgraphs, slots, functions, seed, want) in cases {
        let opts = SynthOptions {
            subgraphs,
            slots_per_engine: slots,
            functions,
            seed,
            target,
        };
        assert_eq!(model_hash(&opts), want, "{opts:?}");
    }
}

/// A report-only load (images dropped and their buffers reused by the next engine, descriptors
/// checked but not kept) reports the same lengths, bases and rows as a full load.
#[test]
fn report_only_load_matches_the_full_load() {
    let opts = SynthOptions {
        subgraphs: 2,
        slots_per_engine: 4000,
        functions: 2,
        seed: 5,
        target: SynthTarget::Cayman,
    };
    let bytes = neff_synth::generate(&opts).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let full = load(&kelf, &LoadOptions::default()).unwrap();
    let mut lean_opts = LoadOptions {
        drop_image_bytes: true,
        ..LoadOptions::default()
    };
    lean_opts.lower.skip_descriptors = true;
    let lean = load(&kelf, &lean_opts).unwrap();
    let kept: usize = full
        .subgraphs
        .iter()
        .flat_map(|s| &s.engines)
        .map(|e| e.descriptors.len())
        .sum();
    assert!(kept > 0, "the synth input has DIRECT2D slots");
    for (a, b) in full.subgraphs.iter().zip(&lean.subgraphs) {
        for (x, y) in a.engines.iter().zip(&b.engines) {
            assert_eq!(x.block.inst_len, x.image.bytes.len() as u64);
            assert_eq!(
                (x.block.inst_len, x.ib_addrs.base),
                (y.block.inst_len, y.ib_addrs.base)
            );
            assert_eq!(x.image.patches, y.image.patches);
            assert_eq!(a.patch_info(x.engine), Some(&x.image.patches));
            assert!(y.image.bytes.is_empty() && y.descriptors.is_empty());
        }
    }
}
