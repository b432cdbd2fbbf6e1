//! The streamed summary (held-back rows put in start order, a bounded top list) equals the
//! summary computed with every row sorted in memory, on the shared captures and reports.

use std::path::Path;

use neff_fixtures::{PROFILED_DIR, PROFILED_NAMES};
use neff_isa::EngineType;
use neff_profile::{Profile, ProfiledInstruction, ReadLimits};

/// Busy (union) and waiting ns of one engine, all rows sorted (the oracle).
fn exact(rows: &[&ProfiledInstruction], sg_start: u64) -> (u64, u64) {
    let mut of: Vec<_> = rows.to_vec();
    of.sort_by_key(|i| i.timestamp);
    let mut iv: Vec<_> = of.iter().map(|i| (i.timestamp, i.end())).collect();
    iv.sort_unstable();
    let (mut busy, mut cur) = (0, None::<(u64, u64)>);
    for (s, e) in iv {
        cur = match cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                busy += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    busy += cur.map_or(0, |(s, e)| e - s);
    let (mut waiting, mut prev_end) = (0, sg_start);
    for i in &of {
        waiting += i
            .timestamp
            .saturating_sub(prev_end)
            .min(i.evt_wait_time.unwrap_or(0));
        prev_end = prev_end.max(i.end());
    }
    (busy, waiting)
}

#[test]
fn the_streamed_summary_is_the_sorted_one() {
    for n in PROFILED_NAMES {
        for ext in ["ntff.gz", "profile.json.gz"] {
            let path = Path::new(PROFILED_DIR).join(n).with_extension(ext);
            if !neff_fixtures::present(&path) {
                continue;
            }
            let p = Profile::read(&path, &ReadLimits::default()).unwrap();
            let summary = p.summary();
            assert!(!summary.is_empty(), "{n}");
            for sg in &summary {
                assert_eq!(sg.out_of_order, 0, "{n} {ext}");
                let ins: Vec<_> = p
                    .instructions
                    .iter()
                    .filter(|i| i.subgraph == sg.name)
                    .collect();
                assert_eq!(sg.start_ns, ins.iter().map(|i| i.timestamp).min().unwrap());
                for e in EngineType::ALL {
                    let of: Vec<_> = ins
                        .iter()
                        .copied()
                        .filter(|i| i.engine() == Some(e))
                        .collect();
                    let t = sg.engines[e.index()];
                    assert_eq!(t.instructions, of.len() as u64, "{n} {ext}");
                    assert_eq!(
                        (t.busy_ns, t.waiting_ns),
                        exact(&of, sg.start_ns),
                        "{n} {ext} {e:?}"
                    );
                }
            }
            let top = p.top_instructions(10);
            let mut all: Vec<_> = p
                .instructions
                .iter()
                .filter(|i| i.compiler_pc.is_some())
                .collect();
            all.sort_by(|a, b| {
                b.duration
                    .cmp(&a.duration)
                    .then_with(|| a.subgraph.cmp(&b.subgraph))
                    .then(a.timestamp.cmp(&b.timestamp))
            });
            let want: Vec<_> = all.into_iter().take(10).cloned().collect();
            assert_eq!(top, want, "{n} {ext}");
        }
    }
}
