//! Time per source line and per BIR instruction (issue 21 part 4, D320): each simulated NEFF
//! instruction's duration — and, with a profile of the same NEFF, each measured one's — summed
//! under the source line and the BIR instruction the NEFF's debug info (neff-debug) gives its
//! slot. "Which line of my kernel is the bottleneck."
//!
//! A line is `(file, line)`: the loop iterations of [`neff_debug::Source`] are folded together,
//! since a kernel author asks about the line. Times are sums of issue-to-completion durations
//! (instruction time, D320): instructions of one engine that overlap each count in full, so the
//! shares are of the summed instruction time, not of the span.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use neff_debug::DebugInfo;
use neff_isa::EngineType;
use neff_profile::Profile;
use serde::Serialize;

use neff_sim::SimResult;

/// The time of a run (and a profile) per source line and per BIR instruction.
#[derive(Debug, Clone, Serialize)]
pub struct BySource {
    /// Summed simulated duration of every NEFF instruction, ns (the shares' denominator).
    pub busy_ns: u64,
    /// Of which no source line is known, ns.
    pub no_source_ns: u64,
    /// Of which no BIR instruction is known, ns.
    pub no_bir_ns: u64,
    /// Per source line, most simulated time first.
    pub by_source: Vec<LineTime>,
    /// Per (subgraph, BIR instruction), most simulated time first.
    pub by_bir: Vec<BirTime>,
}

/// One source line's time.
#[derive(Debug, Clone, Serialize)]
pub struct LineTime {
    /// The source file.
    pub file: String,
    /// The line (1-based).
    pub line: u64,
    /// Summed simulated duration, ns.
    pub busy_ns: u64,
    /// Summed measured duration, ns (with a profile only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_ns: Option<u64>,
    /// Simulated instruction executions.
    pub instructions: u64,
}

/// One BIR instruction's time.
#[derive(Debug, Clone, Serialize)]
pub struct BirTime {
    /// The subgraph (BIR names are per subgraph).
    pub subgraph: String,
    /// The BIR instruction name (`I-72-0`, `inst.186`).
    pub bir: String,
    /// Summed simulated duration, ns.
    pub busy_ns: u64,
    /// Summed measured duration, ns (with a profile only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_ns: Option<u64>,
    /// Simulated instruction executions.
    pub instructions: u64,
}

/// What the debug info says of one slot: (BIR name, source file and line).
type Origin = (Option<String>, Option<(String, u64)>);

/// Running sums of one row: (simulated ns, measured ns, simulated executions).
#[derive(Default, Clone, Copy)]
struct Sums {
    sim: f64,
    measured: f64,
    count: u64,
}

/// Sums `r` (run with [`crate::SimOptions::record`]) and, when given, `profile` per source line
/// and BIR instruction of `info`.
pub fn by_source(r: &SimResult, info: &DebugInfo, profile: Option<&Profile>) -> BySource {
    let mut origins: HashMap<(String, EngineType, u32), Origin> = HashMap::new();
    let mut origin = |sg: &str, engine: EngineType, slot: u32| -> Origin {
        origins
            .entry((sg.to_owned(), engine, slot))
            .or_insert_with(|| {
                let d = info.slot(sg, engine, slot as usize);
                (
                    d.bir.map(|b| b.name.to_owned()),
                    d.source.map(|s| (s.file, s.line)),
                )
            })
            .clone()
    };
    let mut lines: BTreeMap<(String, u64), Sums> = BTreeMap::new();
    let mut birs: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let (mut busy, mut no_source, mut no_bir) = (0.0, 0.0, 0.0);
    for sg in &r.subgraphs {
        let slices = sg.timeline.iter().flat_map(|t| &t.slices);
        for s in slices {
            let Some(slot) = s.slot else { continue };
            busy += s.dur_ns;
            let (bir, line) = origin(&sg.name, s.engine, slot);
            add(&mut lines, line, &mut no_source, |e| {
                e.sim += s.dur_ns;
                e.count += 1;
            });
            add(
                &mut birs,
                bir.map(|b| (sg.name.clone(), b)),
                &mut no_bir,
                |e| {
                    e.sim += s.dur_ns;
                    e.count += 1;
                },
            );
        }
        for i in profile.iter().flat_map(|p| p.neff_instructions(&sg.name)) {
            let (Some(engine), Some(pc)) = (i.engine(), i.compiler_pc) else {
                continue;
            };
            let Ok(slot) = u32::try_from(pc) else {
                continue;
            };
            let (bir, line) = origin(&sg.name, engine, slot);
            let d = i.duration as f64;
            let mut skip = 0.0;
            add(&mut lines, line, &mut skip, |e| e.measured += d);
            add(
                &mut birs,
                bir.map(|b| (sg.name.clone(), b)),
                &mut skip,
                |e| e.measured += d,
            );
        }
    }
    let measured = |s: &Sums| profile.map(|_| whole(s.measured));
    let mut by_source: Vec<LineTime> = lines
        .into_iter()
        .map(|((file, line), s)| LineTime {
            file,
            line,
            busy_ns: whole(s.sim),
            measured_ns: measured(&s),
            instructions: s.count,
        })
        .collect();
    by_source.sort_by_key(|l| std::cmp::Reverse((l.busy_ns, l.measured_ns)));
    let mut by_bir: Vec<BirTime> = birs
        .into_iter()
        .map(|((subgraph, bir), s)| BirTime {
            subgraph,
            bir,
            busy_ns: whole(s.sim),
            measured_ns: measured(&s),
            instructions: s.count,
        })
        .collect();
    by_bir.sort_by_key(|b| std::cmp::Reverse((b.busy_ns, b.measured_ns)));
    BySource {
        busy_ns: whole(busy),
        no_source_ns: whole(no_source),
        no_bir_ns: whole(no_bir),
        by_source,
        by_bir,
    }
}

/// Applies `f` to the row of `key`, or counts the time as unattributed when there is none.
fn add<K: Ord>(
    rows: &mut BTreeMap<K, Sums>,
    key: Option<K>,
    none: &mut f64,
    f: impl FnOnce(&mut Sums),
) {
    match key {
        Some(k) => f(rows.entry(k).or_default()),
        None => {
            let mut s = Sums::default();
            f(&mut s);
            *none += s.sim;
        }
    }
}

/// The `top` lines and BIR instructions with the most simulated time, as text.
pub fn render(b: &BySource, top: usize) -> String {
    let mut s = String::new();
    let share = |ns: u64| {
        if b.busy_ns == 0 {
            0.0
        } else {
            100.0 * ns as f64 / b.busy_ns as f64
        }
    };
    let _ = writeln!(
        s,
        "time by source line (summed instruction time {:.3} us; {:.3} us with no line):",
        b.busy_ns as f64 / 1000.0,
        b.no_source_ns as f64 / 1000.0
    );
    for l in b.by_source.iter().take(top) {
        let _ = writeln!(
            s,
            "  {:>10.3} us {:>5.1}% x{:<6}{}  {}:{}",
            l.busy_ns as f64 / 1000.0,
            share(l.busy_ns),
            l.instructions,
            measured_text(l.measured_ns),
            l.file,
            l.line
        );
    }
    let _ = writeln!(
        s,
        "time by BIR instruction ({:.3} us with none):",
        b.no_bir_ns as f64 / 1000.0
    );
    for x in b.by_bir.iter().take(top) {
        let _ = writeln!(
            s,
            "  {:>10.3} us {:>5.1}% x{:<6}{}  {} {}",
            x.busy_ns as f64 / 1000.0,
            share(x.busy_ns),
            x.instructions,
            measured_text(x.measured_ns),
            x.subgraph,
            x.bir
        );
    }
    s
}

fn measured_text(m: Option<u64>) -> String {
    m.map_or(String::new(), |m| {
        format!(" measured {:>10.3} us", m as f64 / 1000.0)
    })
}

/// Fractional ns summed, as whole ns.
fn whole(ns: f64) -> u64 {
    ns.max(0.0).round() as u64
}
