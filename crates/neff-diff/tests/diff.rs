//! neff-diff on the spec sample (itself, its repack with another uuid, an edited copy: the
//! snapshot of a small diff), on damaged sides (the error names the side and where), and on the
//! real pairs of the fixtures (baseline vs fused attention, bf16 vs fp32, moe_v6b vs
//! moe_megakernel).

use neff_container::{Neff, NeffBuilder, ReadOptions};
use neff_diff::align::Op;
use neff_diff::members::MemberStatus;
use neff_diff::text::{TextOptions, write_text};
use neff_diff::{DiffError, DiffOptions, Input, NeffDiff, Side, diff};

/// The error and its sources, joined as the CLI prints them (anyhow's `{:#}`).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        text.push_str(": ");
        text.push_str(&s.to_string());
        next = s.source();
    }
    text
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

/// Diffs two byte strings and hands the result to `check` (the diff borrows both inputs).
fn with_diff<R>(a: &[u8], b: &[u8], time: bool, check: impl FnOnce(&NeffDiff<'_>) -> R) -> R {
    let mut options = DiffOptions::default();
    if !time {
        options.time = None;
    }
    let na = Input::parse(Side::A, "a.neff", a, &options.read).unwrap();
    let nb = Input::parse(Side::B, "b.neff", b, &options.read).unwrap();
    let ia = Input::new(Side::A, "a.neff", &na).unwrap();
    let ib = Input::new(Side::B, "b.neff", &nb).unwrap();
    check(&diff(&ia, &ib, &options))
}

fn text(d: &NeffDiff<'_>) -> String {
    let mut out = Vec::new();
    write_text(d, &TextOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every engine's counts add up: unchanged + removed + changed = slots_a and
/// unchanged + added + changed = slots_b (the issue's invariant), and the runs say the same.
fn assert_counts_add_up(d: &NeffDiff<'_>) {
    for e in &d.engines {
        let a = &e.alignment;
        assert_eq!(a.unchanged + a.removed + a.changed, a.slots_a, "{e:?}");
        assert_eq!(a.unchanged + a.added + a.changed, a.slots_b, "{e:?}");
        assert_eq!(a.slots_a, (e.stream_a.len() / 64) as u64);
        assert_eq!(a.slots_b, (e.stream_b.len() / 64) as u64);
    }
}

/// The sample with member `path` rewritten by `edit`.
fn edited(path: &str, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = std::fs::read(SAMPLE).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let mut member = neff.member(path).unwrap().to_vec();
    edit(&mut member);
    let mut b = NeffBuilder::from_neff(&neff);
    b.replace(path, member).unwrap();
    b.build().unwrap()
}

#[test]
fn sample_against_itself_is_the_same_and_lists_nothing() {
    let a = std::fs::read(SAMPLE).unwrap();
    with_diff(&a, &a, true, |d| {
        assert!(d.same);
        assert!(d.header.changed.is_empty() && d.members.changes.is_empty());
        assert!(d.manifests.is_empty());
        assert!(d.engines.iter().all(|e| e.alignment.ops.is_empty()));
        let t = d.time.as_ref().unwrap();
        assert_eq!(t.a_ns, t.b_ns);
        assert!(t.a_ns.unwrap() > 0);
        assert_eq!(text(d), "--- A a.neff\n+++ B b.neff\n");
    });
}

#[test]
fn repack_with_another_uuid_differs_in_the_header_only() {
    let a = std::fs::read(SAMPLE).unwrap();
    let neff = Neff::parse(&a).unwrap();
    let mut builder = NeffBuilder::from_neff(&neff);
    builder.set_uuid(uuid::Uuid::from_u128(
        0x1234_5678_9abc_def0_1234_5678_9abc_def0,
    ));
    let b = builder.build().unwrap();
    with_diff(&a, &b, false, |d| {
        assert!(!d.same);
        let fields: Vec<&str> = d.header.changed.iter().map(|c| c.field.as_str()).collect();
        assert!(fields.contains(&"uuid"), "{fields:?}");
        // The repacked payload may be compressed otherwise (data_size, hash); nothing else.
        assert!(
            fields
                .iter()
                .all(|f| ["uuid", "hash", "data_size"].contains(f)),
            "{fields:?}"
        );
        assert!(d.members.changes.is_empty());
        assert_eq!(d.members.unchanged, neff.member_count() as u64);
        assert!(d.manifests.is_empty());
        assert!(d.engines.iter().all(|e| e.is_same()));
    });
}

/// POOL slot 1 waits on `$S[23]` instead of `$S[22]` (spec 003 §7.2: events byte +5), a copy of
/// slot 2 is appended, and `gradient_in` grows to 256 bytes.
fn small_edit() -> Vec<u8> {
    let once = edited("sg00/pool.bin", |pool| {
        pool[64 + 5] = 23;
        let last = pool[128..192].to_vec();
        pool.extend_from_slice(&last);
    });
    let neff = Neff::parse(&once).unwrap();
    let def = std::str::from_utf8(neff.member("sg00/def.json").unwrap()).unwrap();
    let def = def.replace(
        r#""gradient_in":{"ops":[],"size":128"#,
        r#""gradient_in":{"ops":[],"size":256"#,
    );
    let mut b = NeffBuilder::from_neff(&neff);
    b.replace("sg00/def.json", def.into_bytes()).unwrap();
    b.build().unwrap()
}

#[test]
fn one_operand_one_added_slot_and_one_var_size() {
    let a = std::fs::read(SAMPLE).unwrap();
    let b = small_edit();
    with_diff(&a, &b, false, |d| {
        assert!(!d.same);
        assert_counts_add_up(d);
        let pool = d
            .engines
            .iter()
            .find(|e| e.engine == neff_isa::EngineType::Pool)
            .unwrap();
        let al = &pool.alignment;
        assert_eq!((al.slots_a, al.slots_b), (3, 4));
        assert_eq!(
            (al.unchanged, al.changed, al.added, al.removed),
            (2, 1, 1, 0)
        );
        assert_eq!(
            al.ops,
            [
                Op::Changed { a: 1, b: 1, len: 1 },
                // B's slots 2 and 3 are both copies of A's 2: the first pass keeps the changed
                // slot and the copy after it in one hunk.
                Op::Added { b: 2, len: 1 }
            ]
        );
        let fields =
            neff_diff::operands::field_changes(pool.stream_a, 1, pool.stream_b, 1, d.dialect);
        assert_eq!(fields.len(), 1, "{fields:?}");
        assert_eq!(fields[0].offset, 5);
        let m = &d.manifests;
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].member, "sg00/def.json");
        assert_eq!(m[0].pointer, "/var/gradient_in/size");
        assert_eq!(
            (m[0].a.clone(), m[0].b.clone()),
            (Some(128.into()), Some(256.into()))
        );
        let paths: Vec<_> = d
            .members
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.status))
            .collect();
        assert_eq!(
            paths,
            [
                ("sg00/def.json", MemberStatus::Changed),
                ("sg00/pool.bin", MemberStatus::Changed)
            ]
        );
    });
}

#[test]
fn small_diff_text_snapshot() {
    let a = std::fs::read(SAMPLE).unwrap();
    let b = small_edit();
    with_diff(&a, &b, false, |d| insta::assert_snapshot!(text(d)));
}

#[test]
fn damaged_b_is_named_with_its_offset() {
    let a = std::fs::read(SAMPLE).unwrap();
    let b = &a[..a.len() - 40];
    let r = ReadOptions::default();
    Input::parse(Side::A, "a.neff", &a, &r).unwrap();
    let err = Input::parse(Side::B, "b.neff", b, &r).unwrap_err();
    assert_eq!(err.side(), Side::B);
    assert_eq!(err.to_string(), "side B (b.neff)");
    let msg = chain(&err);
    assert!(
        msg.starts_with("side B (b.neff): data_size at offset 0x010"),
        "{msg}"
    );
}

#[test]
fn damaged_manifest_of_a_names_the_member_and_pointer() {
    let a = edited("sg00/def.json", |def| {
        let text = String::from_utf8(def.clone()).unwrap();
        *def = text
            .replace(r#""var_id":3"#, r#""var_id":"three""#)
            .into_bytes();
    });
    let r = ReadOptions::default();
    let na = Input::parse(Side::A, "a.neff", &a, &r).unwrap();
    let err = Input::new(Side::A, "a.neff", &na).err().unwrap();
    assert!(matches!(err, DiffError::Kelf { side: Side::A, .. }));
    let msg = chain(&err);
    assert!(msg.starts_with("side A (a.neff): "), "{msg}");
    assert!(msg.contains("sg00/def.json"), "{msg}");
    assert!(msg.contains("/var/gradient_in/var_id"), "{msg}");
}

/// A real pair from the fixtures, read in place (skipped when absent).
fn real_pair(a: &str, b: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = neff_fixtures::REAL_DIR;
    Some((
        neff_fixtures::read(format!("{dir}/{a}"))?,
        neff_fixtures::read(format!("{dir}/{b}"))?,
    ))
}

#[test]
fn bf16_vs_fp32_doubles_the_tensors_and_changes_matmul_dtypes() {
    let Some((a, b)) = real_pair(
        "profiled/baseline_bf16_s512.neff",
        "profiled/fused_fp32_s512.neff",
    ) else {
        return;
    };
    with_diff(&a, &b, true, |d| {
        assert!(!d.same);
        assert_counts_add_up(d);
        // fp32 elements are twice bf16's: every kernel tensor's var doubles.
        for var in ["k_ref", "q_ref", "v_ref", "kernel_out"] {
            let c = d
                .manifests
                .iter()
                .find(|c| c.member == "sg00/def.json" && c.pointer == format!("/var/{var}/size"))
                .unwrap_or_else(|| panic!("{var}: {:?}", d.manifests));
            assert_eq!(
                (c.a.clone(), c.b.clone()),
                (Some(131072.into()), Some(262144.into()))
            );
        }
        // Both carry debug info: instructions are aligned by BIR name and source line.
        let pe = &d.engines[0];
        assert_eq!(pe.aligned_by, neff_diff::AlignedBy::DebugInfo);
        // A MATMUL paired with a MATMUL reads its input dtype change field by field.
        let matmul = pe.alignment.ops.iter().find_map(|op| match *op {
            Op::Changed { a, b, len } => (0..len)
                .map(|k| (a + k, b + k))
                .find(|&(i, _)| pe.stream_a[i as usize * 64] == neff_isa::Opcode::MATMUL.0),
            _ => None,
        });
        let (i, j) = matmul.expect("a changed MATMUL");
        let fields = neff_diff::operands::field_changes(pe.stream_a, i, pe.stream_b, j, d.dialect);
        let dtype = fields
            .iter()
            .find(|f| f.field.starts_with("in_dtype"))
            .unwrap();
        assert_eq!(
            (dtype.a.as_deref(), dtype.b.as_deref()),
            (Some("bfloat16"), Some("fp32"))
        );
        let t = d.time.as_ref().unwrap();
        assert!(t.a_ns.unwrap() > 0 && t.b_ns.unwrap() > 0);
        // Their debug info names BIR instructions but no source line.
        assert!(t.lines.is_empty());
    });
}

#[test]
fn baseline_vs_fused_attention_fused_is_predicted_faster() {
    let Some((a, b)) = real_pair(
        "profiled/baseline_attention.neff",
        "profiled/fused_attention.neff",
    ) else {
        return;
    };
    with_diff(&a, &b, true, |d| {
        assert!(!d.same);
        assert_counts_add_up(d);
        let t = d.time.as_ref().unwrap();
        // The profiles of the pair (profiled/README.md) measure the fused kernel faster; the
        // simulator agrees on the direction.
        assert!(t.b_ns.unwrap() < t.a_ns.unwrap(), "{t:?}");
        let sg00 = &t.subgraphs[0];
        assert_eq!(sg00.key, "sg00");
        assert_eq!(
            sg00.delta_ns,
            Some(t.b_ns.unwrap() as i64 - t.a_ns.unwrap() as i64)
        );
    });
}

#[test]
fn moe_v6b_vs_megakernel_counts_match_the_streams() {
    let Some((a, b)) = real_pair("moe_v6b.neff", "moe_megakernel.neff") else {
        return;
    };
    with_diff(&a, &b, true, |d| {
        assert!(!d.same);
        assert_counts_add_up(d);
        // Both map slots to NKI source lines (other files: each line is one side's only).
        let t = d.time.as_ref().unwrap();
        let files = |side_a: bool| {
            t.lines
                .iter()
                .filter(|r| {
                    if side_a {
                        r.a_ns > Some(0)
                    } else {
                        r.b_ns > Some(0)
                    }
                })
                .map(|r| r.key.rsplit('/').next().unwrap().to_owned())
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(
            files(true).into_iter().collect::<Vec<_>>(),
            ["v6b_1_coalesce_down_dma.py"]
        );
        assert_eq!(
            files(false).into_iter().collect::<Vec<_>>(),
            ["v5_token_parallel_tkg.py"]
        );
        // fixtures/real/README.md: moe_megakernel sg00 has pe 1,643, act 535, pool 4,749,
        // dve 388, sp 11 instructions.
        let sg00: Vec<u64> = d
            .engines
            .iter()
            .filter(|e| e.subgraph == "sg00")
            .map(|e| e.alignment.slots_b)
            .collect();
        assert_eq!(sg00, [1643, 535, 4749, 388, 11]);
    });
}
