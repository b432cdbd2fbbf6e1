//! The capture reader on the seven shared captures and on broken ones (reference-ntff §1-§3).

use std::path::Path;

use neff_fixtures::{PROFILED_DIR, PROFILED_NAMES, REAL_DIR};
use neff_profile::{Capture, FormatVersion, NtffError, Profile, ReadLimits};

fn inflate(path: &Path) -> Option<Vec<u8>> {
    let gz = neff_fixtures::read(path)?;
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut out).unwrap();
    Some(out)
}

fn captures() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut names: Vec<_> = PROFILED_NAMES
        .iter()
        .map(|n| Path::new(PROFILED_DIR).join(n))
        .collect();
    for n in ["attn_v6", "moe_v6b", "moe_megakernel"] {
        names.push(Path::new(REAL_DIR).join(n));
    }
    for stem in names {
        let (Some(cap), Some(neff)) = (
            inflate(&stem.with_extension("ntff.gz")),
            neff_fixtures::read(stem.with_extension("neff")),
        ) else {
            continue;
        };
        out.push((stem.display().to_string(), cap, neff));
    }
    out
}

/// The NEFF header's uuid (reference-ntff §2: header bytes 0xCC..0xDC).
fn neff_uuid(neff: &[u8]) -> [u8; 16] {
    neff[0xCC..0xDC].try_into().unwrap()
}

#[test]
fn the_seven_captures_read_and_name_their_neff() {
    for (name, bytes, neff) in captures() {
        let cap = Capture::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let f = &cap.facts;
        assert_eq!(f.format, FormatVersion(6), "{name}");
        assert_eq!(f.runtime.as_ref().unwrap().to_string(), "2.30.51", "{name}");
        assert_eq!(f.instance_type.as_deref(), Some("trn2.3xlarge"), "{name}");
        assert!(f.matches_uuid(&neff_uuid(&neff)), "{name}");
        assert!(f.window.is_some(), "{name}");
        for sg in &f.subgraphs {
            assert_eq!(sg.streams.len(), 5, "{name} {}", sg.name);
            for s in &sg.streams {
                assert_eq!(cap.stream_bytes(s).len() % 64, 0, "{name}");
                assert!(!s.segments.is_empty(), "{name}");
            }
        }
        let (ev, stats) = cap.events();
        assert!(!ev.instructions.is_empty() && !ev.dmas.is_empty(), "{name}");
        assert_eq!(stats.unpaired_ends, 0, "{name}");
        assert_eq!(stats.unknown_engine, 0, "{name}");
        // Every record is decoded or counted.
        assert_eq!(stats.records, cap.record_count(), "{name}");
    }
}

#[test]
fn another_neffs_uuid_does_not_match() {
    let all = captures();
    if all.len() < 2 {
        return;
    }
    let cap = Capture::parse(&all[0].1).unwrap();
    let other = all.iter().find(|c| neff_uuid(&c.2) != neff_uuid(&all[0].2));
    if let Some((_, _, neff)) = other {
        assert!(!cap.facts.matches_uuid(&neff_uuid(neff)));
    }
}

fn first() -> Option<Vec<u8>> {
    captures().into_iter().next().map(|c| c.1)
}

#[test]
fn broken_captures_are_errors_naming_where() {
    assert_eq!(Capture::parse(&[]).unwrap_err(), NtffError::Empty);
    assert_eq!(
        Capture::parse(&[6, 0, 0]).unwrap_err(),
        NtffError::ShortHeader { len: 3 }
    );
    assert_eq!(
        Capture::parse(&[9; 200]).unwrap_err(),
        NtffError::UnknownVersion { version: 9 }
    );
    let Some(good) = first() else { return };
    // Cut short: the metadata length now runs past the end.
    let cut = &good[..0x90];
    assert!(matches!(
        Capture::parse(cut).unwrap_err(),
        NtffError::MetadataPastEnd { .. }
    ));
    // A length claiming terabytes-ish (u32 max) is checked, not allocated.
    let mut huge = good.clone();
    huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        Capture::parse(&huge).unwrap_err(),
        NtffError::MetadataPastEnd { length, .. } if length == u64::from(u32::MAX)
    ));
    // Protobuf garbage at the metadata's start.
    let mut garbage = good.clone();
    garbage[0x80..0x90].fill(0xFF);
    let e = Capture::parse(&garbage).unwrap_err();
    assert!(matches!(e, NtffError::Wire { .. }), "{e}");
    let cause = std::error::Error::source(&e).map(ToString::to_string);
    assert!(cause.is_some_and(|c| c.contains("byte 128")), "{e}");
    // Cutting the data area leaves the buffer table pointing outside the file.
    let len = u32::from_le_bytes(good[1..5].try_into().unwrap()) as usize;
    let short = &good[..0x80 + len + 16];
    let e = Capture::parse(short).unwrap_err();
    assert!(matches!(e, NtffError::OutsideData { .. }), "{e}");
    assert!(e.to_string().contains("metadata field"), "{e}");
}

#[test]
fn a_neff_given_as_a_capture_is_named() {
    let Some(neff) = neff_fixtures::read(neff_fixtures::MATMUL_SMALL) else {
        return;
    };
    assert_eq!(
        Capture::parse(&neff).unwrap_err(),
        NtffError::NeffNotCapture
    );
    let e = Profile::parse(Path::new("x.neff"), &neff, &ReadLimits::default()).unwrap_err();
    // The path heads the error; the reason is its source (the CLI prints the whole chain).
    let chain = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(": ");
    assert!(chain.starts_with("x.neff"), "{chain}");
    assert!(chain.contains("NEFF file, not a capture"), "{chain}");
}

#[test]
fn every_cut_of_a_capture_is_an_error_or_a_read_never_a_panic() {
    let Some(good) = first() else { return };
    let step = (good.len() / 97).max(1);
    for n in (0..good.len()).step_by(step) {
        let _ = Capture::parse(&good[..n]).map(|c| c.events());
    }
}
