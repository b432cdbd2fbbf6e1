//! Regression guard for the load optimisations (parallel engines, single-allocation images, the
//! bulk pass-through copy): the images, device bases and patch rows of generated NEFFs hash to
//! the values computed with the pre-optimisation code (commit 35b4dd8, hashes hard-coded below).
//! A change that alters any image byte, base or row fails here; if a change is meant to alter
//! them, recompute the hashes and say why in the commit.

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_synth::{SynthOptions, SynthTarget};
use sha2::{Digest, Sha256};

/// SHA-256 over every subgraph's engines in load order: name, engine, base, image bytes, rows.
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
            "d7e0c96341955296e4cad6015ba42ca0fbf0785d19e60d092369b9840c6cd2c7",
        ),
        (
            SynthTarget::Cayman,
            3,
            5000,
            2,
            11,
            "abb2e971bda572e296e36c741250c0dcc990de3711d5dee6b2fbb0a7e8298b1a",
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
