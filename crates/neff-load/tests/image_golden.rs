//! Regression guard for the load (parallel engines, single-allocation images, the bulk
//! pass-through copy, every lowering recipe): the images, device bases, patch rows and collective
//! op lists of generated NEFFs are kept as insta snapshots (tests/snapshots/), readable and
//! reviewed with `cargo insta review` when a change is meant to alter them (say why in the commit).
//! The image bytes are summarised by their SHA-256 (they are megabytes); the rows and op lists are
//! written out. The snapshots were first taken from the code whose images hashed to the golden
//! SHA-256s this file held before (commit ee3be1c).

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_synth::{SynthOptions, SynthTarget};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Every subgraph's engines in load order: engine, base, image length and SHA-256, patch rows,
/// op lists (their `Debug` form: every field of spec 001 §3's ENC plans).
fn model_summary(opts: &SynthOptions) -> String {
    let bytes = neff_synth::generate(opts).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let mut out = format!("{opts:?}\n");
    for sg in &model.subgraphs {
        for e in &sg.engines {
            let sha: String = Sha256::digest(&e.image.bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let _ = writeln!(
                out,
                "{} {} base={:#x} image={} bytes sha256={sha}",
                sg.name,
                e.engine.key(),
                e.ib_addrs.base,
                e.image.bytes.len()
            );
            for p in e.image.patches.locations() {
                let _ = writeln!(
                    out,
                    "  patch offset={:#x} count={} {} {}",
                    p.offset, p.count, p.kind, p.section
                );
            }
            for l in &e.op_lists {
                let _ = writeln!(out, "  {l:?}");
            }
        }
    }
    out
}

#[test]
fn sunda_images_rows_and_op_lists() {
    let opts = SynthOptions {
        subgraphs: 1,
        slots_per_engine: 3000,
        functions: 3,
        seed: 7,
        target: SynthTarget::Sunda,
    };
    insta::assert_snapshot!(model_summary(&opts));
}

#[test]
fn cayman_images_rows_and_op_lists() {
    let opts = SynthOptions {
        subgraphs: 3,
        slots_per_engine: 5000,
        functions: 2,
        seed: 11,
        target: SynthTarget::Cayman,
    };
    insta::assert_snapshot!(model_summary(&opts));
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
