//! Every instruction, DMA, semaphore and throttle row of the four shared reports rebuilt from
//! the capture each was made from (reference-ntff §3, §5; decisions D402-D405). The exceptions
//! the reference leaves open are counted and characterised exactly; any other miss fails.

use std::collections::BTreeMap;
use std::path::Path;

use neff_fixtures::{PROFILED_DIR, PROFILED_NAMES};
use neff_profile::{Profile, ReadLimits};

fn read(name: &str, ext: &str) -> Option<Profile> {
    let path = Path::new(PROFILED_DIR).join(format!("{name}.{ext}"));
    if !neff_fixtures::present(&path) {
        return None;
    }
    Some(Profile::read(&path, &ReadLimits::default()).unwrap())
}

/// A multiset of rows: key -> count.
fn bag<K: Ord>(rows: impl Iterator<Item = K>) -> BTreeMap<K, i64> {
    let mut m = BTreeMap::new();
    for k in rows {
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

/// Rows the report has more of (positive count) or the capture has more of (negative).
fn diff<K: Ord + Clone>(report: &BTreeMap<K, i64>, capture: &BTreeMap<K, i64>) -> Vec<(K, i64)> {
    let mut out = Vec::new();
    for (k, n) in report {
        let d = n - capture.get(k).copied().unwrap_or(0);
        if d != 0 {
            out.push((k.clone(), d));
        }
    }
    for (k, n) in capture {
        if !report.contains_key(k) {
            out.push((k.clone(), -n));
        }
    }
    out
}

fn pairs() -> Vec<(&'static str, Profile, Profile)> {
    let mut out = Vec::new();
    for name in PROFILED_NAMES {
        let (Some(json), Some(cap)) = (read(name, "profile.json.gz"), read(name, "ntff.gz")) else {
            continue;
        };
        out.push((name, json, cap));
    }
    out
}

#[test]
fn every_instruction_row_pc_time_and_crc_is_rebuilt() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p.instructions.iter().map(|i| {
                (
                    i.subgraph.clone(),
                    i.label.clone(),
                    i.pc,
                    i.timestamp,
                    i.duration,
                    i.crc_in,
                    i.crc_out,
                )
            }))
        };
        assert_eq!(diff(&key(&json), &key(&cap)), vec![], "{name}");
        assert_eq!(json.instructions.len(), cap.instructions.len(), "{name}");
    }
}

/// D402: the vendor's `evt_wait_time` is the wait cycles / 1.2 in f32, truncated, on every row
/// but six of fused_attention (all 39702 cycles: 33085 by that rule, 33084 in the report).
#[test]
fn event_wait_matches_but_for_the_six_rows_one_ns_low() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p
                .instructions
                .iter()
                .map(|i| (i.subgraph.clone(), i.pc, i.timestamp, i.evt_wait_time)))
        };
        let d = diff(&key(&json), &key(&cap));
        let report_only: Vec<_> = d.iter().filter(|(_, n)| *n > 0).collect();
        let capture_only: Vec<_> = d.iter().filter(|(_, n)| *n < 0).collect();
        let want = if name == "fused_attention" { 6 } else { 0 };
        assert_eq!(report_only.len(), want, "{name}: {d:?}");
        for (r, c) in report_only.iter().zip(&capture_only) {
            let ((sg, pc, ts, w), _) = r;
            let ((sg2, pc2, ts2, w2), _) = c;
            assert_eq!((sg, pc, ts), (sg2, pc2, ts2), "{name}");
            assert_eq!((*w, *w2), (Some(33084), Some(33085)), "{name}");
        }
    }
}

/// D404: every DMA row of the report is rebuilt; the capture holds a few more, all on queue 14
/// (instruction fetch) of sg00, 1 KiB or 16 KiB each (reference §3: open).
#[test]
fn every_dma_row_is_rebuilt_and_the_extras_are_queue_14_fetches() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p.dma.iter().map(|d| {
                (
                    d.subgraph.clone(),
                    d.dma_engine,
                    d.dma_queue,
                    d.size,
                    d.timestamp,
                    d.duration,
                    d.crc,
                )
            }))
        };
        let d = diff(&key(&json), &key(&cap));
        assert!(
            d.iter().all(|(_, n)| *n < 0),
            "{name}: a report row is missing: {d:?}"
        );
        let extra: i64 = d.iter().map(|(_, n)| -n).sum();
        let want = if name == "baseline_bf16_s512" { 6 } else { 4 };
        assert_eq!(extra, want, "{name}: {d:?}");
        for ((sg, _, queue, size, ..), _) in &d {
            assert_eq!((sg.as_str(), *queue), ("sg00", 14), "{name}");
            assert!([1024, 16384].contains(size), "{name}: {size}");
        }
        assert_eq!(
            json.dma.len() as i64 + extra,
            cap.dma.len() as i64,
            "{name}"
        );
    }
}

#[test]
fn every_semaphore_row_is_rebuilt() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p
                .semaphore_update
                .iter()
                .map(|s| (s.subgraph.clone(), s.index, s.value, s.timestamp)))
        };
        assert_eq!(diff(&key(&json), &key(&cap)), vec![], "{name}");
        assert!(!json.semaphore_update.is_empty(), "{name}");
    }
}

/// D405: a throttle row lasts until the next of its subgraph, the last until the subgraph's last
/// instruction ends.
#[test]
fn every_throttle_row_is_rebuilt() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p.ham.iter().map(|h| {
                (
                    h.subgraph.clone(),
                    h.k,
                    h.kind,
                    h.n,
                    h.timestamp,
                    h.duration,
                )
            }))
        };
        assert_eq!(diff(&key(&json), &key(&cap)), vec![], "{name}");
        assert!(!json.ham.is_empty(), "{name}");
    }
}

/// D406: the capture's own pc -> NEFF slot (reference §4) is the report's `compiler_pc` on
/// every instruction, the runtime's own (no `compiler_pc`) included.
#[test]
fn neff_slot_from_the_capture_is_the_reports_compiler_pc() {
    for (name, json, cap) in pairs() {
        let key = |p: &Profile| {
            bag(p.instructions.iter().map(|i| {
                (
                    i.subgraph.clone(),
                    i.label.clone(),
                    i.pc,
                    i.timestamp,
                    i.compiler_pc,
                )
            }))
        };
        assert_eq!(diff(&key(&json), &key(&cap)), vec![], "{name}");
        assert!(
            json.instructions.iter().any(|i| i.compiler_pc.is_none()),
            "{name}"
        );
    }
}
