//! What a change costs: each side loaded and run on the simulator (neff-load, neff-sim) under
//! the same device model, and the predicted times set side by side with their delta — per
//! subgraph (the span), per engine (busy time) and, where the NEFF carries debug info, per
//! source line (summed instruction time, neff-sim's `by_source`).

use std::collections::BTreeMap;

use neff_debug::DebugInfo;
use neff_isa::EngineType;
use neff_kelf::Kelf;
use neff_load::device_model::{DeviceModel, RegionModel};
use neff_load::model::{LoadOptions, load};
use neff_sim::{SimOptions, SimResult, simulate};
use serde::Serialize;

/// How the two sides are simulated.
#[derive(Debug, Clone)]
pub struct TimeOptions {
    /// The device model's regions; `None`: the default of each NEFF's target (as `neff sim`).
    pub regions: Option<RegionModel>,
    /// Instructions per subgraph before a run is stopped as a runaway.
    pub max_steps: u64,
}

impl Default for TimeOptions {
    fn default() -> Self {
        Self {
            regions: None,
            max_steps: neff_sim::DEFAULT_MAX_STEPS,
        }
    }
}

/// One row of predicted time: A, B and B - A, ns (a side that was not simulated is `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeRow {
    /// The subgraph (`sg00`), or for a source line its file.
    pub key: String,
    /// The engine (`pe`, ...) of a per-engine row, the line number of a source line, else None.
    pub detail: Option<String>,
    /// A's time, ns.
    pub a_ns: Option<u64>,
    /// B's time, ns.
    pub b_ns: Option<u64>,
    /// B - A, ns, when both are known.
    pub delta_ns: Option<i64>,
}

/// The predicted time of both sides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TimeDiff {
    /// A's simulated span of `sg00` (the first subgraph), ns.
    pub a_ns: Option<u64>,
    /// B's.
    pub b_ns: Option<u64>,
    /// Why A has no time (it did not load, it deadlocked, it ran away).
    pub a_error: Option<String>,
    /// Why B has no time.
    pub b_error: Option<String>,
    /// Per subgraph: the span.
    pub subgraphs: Vec<TimeRow>,
    /// Per subgraph and engine: busy time.
    pub engines: Vec<TimeRow>,
    /// Per source line (both sides' debug info), largest |delta| first.
    pub lines: Vec<TimeRow>,
}

/// One side's run: its result, or why there is none.
type Run = Result<SimResult, String>;

/// Loads and simulates one kelf. The timeline is recorded only when the debug info can place
/// its instructions on source lines (it costs memory per executed instruction).
fn run(kelf: &Kelf<'_>, debug: &DebugInfo, options: &TimeOptions) -> Run {
    let device = match options.regions {
        Some(m) => DeviceModel::with_regions(m),
        None => DeviceModel::default_for(kelf.target),
    };
    let load_options = LoadOptions {
        device,
        drop_image_bytes: false,
        ..LoadOptions::default()
    };
    let model = load(kelf, &load_options).map_err(|e| format!("load: {e}"))?;
    let sim = SimOptions {
        max_steps: options.max_steps,
        record: !debug.is_empty(),
        slice_text: false,
        ..SimOptions::default()
    };
    let r = simulate(&model, &sim).map_err(|e| format!("simulate: {e}"))?;
    match &r.deadlock {
        Some(d) => Err(d.message.clone()),
        None => Ok(r),
    }
}

fn delta(a: Option<u64>, b: Option<u64>) -> Option<i64> {
    Some(i64::try_from(b?).ok()? - i64::try_from(a?).ok()?)
}

fn row(key: String, detail: Option<String>, a: Option<u64>, b: Option<u64>) -> TimeRow {
    TimeRow {
        key,
        detail,
        a_ns: a,
        b_ns: b,
        delta_ns: delta(a, b),
    }
}

/// Simulates both sides and compares their times.
pub fn diff_time(
    (ka, da): (&Kelf<'_>, &DebugInfo),
    (kb, db): (&Kelf<'_>, &DebugInfo),
    options: &TimeOptions,
) -> TimeDiff {
    let ra = run(ka, da, options);
    let rb = run(kb, db, options);
    let (sa, sb) = (ra.as_ref().ok(), rb.as_ref().ok());
    let mut out = TimeDiff {
        a_error: ra.as_ref().err().cloned(),
        b_error: rb.as_ref().err().cloned(),
        ..TimeDiff::default()
    };
    // Subgraphs and engines in A's order, then B's new ones.
    let mut spans: Vec<(String, Option<u64>, Option<u64>)> = Vec::new();
    let mut busy: BTreeMap<(String, usize), (Option<u64>, Option<u64>)> = BTreeMap::new();
    for (side, r) in [(0, &sa), (1, &sb)] {
        for sg in r.iter().flat_map(|r| &r.subgraphs) {
            let at = match spans.iter().position(|(n, _, _)| *n == sg.name) {
                Some(i) => i,
                None => {
                    spans.push((sg.name.clone(), None, None));
                    spans.len() - 1
                }
            };
            let slot = if side == 0 {
                &mut spans[at].1
            } else {
                &mut spans[at].2
            };
            *slot = Some(sg.span_ns);
            for e in &sg.engines {
                let v = busy.entry((sg.name.clone(), e.engine.index())).or_default();
                *(if side == 0 { &mut v.0 } else { &mut v.1 }) = Some(e.busy_ns);
            }
        }
    }
    let first = spans.iter().find(|(n, _, _)| n == "sg00").or(spans.first());
    out.a_ns = first.and_then(|s| s.1);
    out.b_ns = first.and_then(|s| s.2);
    for (name, a, b) in &spans {
        out.subgraphs.push(row(name.clone(), None, *a, *b));
        for e in EngineType::ALL {
            if let Some((a, b)) = busy.get(&(name.clone(), e.index())) {
                out.engines
                    .push(row(name.clone(), Some(e.key().to_owned()), *a, *b));
            }
        }
    }
    if let (Some(a), Some(b)) = (sa, sb)
        && !da.is_empty()
        && !db.is_empty()
    {
        out.lines = line_rows(a, da, b, db);
    }
    out
}

/// Per source line (file, line): A's and B's summed instruction time, largest change first.
fn line_rows(a: &SimResult, da: &DebugInfo, b: &SimResult, db: &DebugInfo) -> Vec<TimeRow> {
    let mut lines: BTreeMap<(String, u64), (Option<u64>, Option<u64>)> = BTreeMap::new();
    for l in neff_sim_report::by_source::by_source(a, da, None).by_source {
        lines.entry((l.file, l.line)).or_default().0 = Some(l.busy_ns);
    }
    for l in neff_sim_report::by_source::by_source(b, db, None).by_source {
        lines.entry((l.file, l.line)).or_default().1 = Some(l.busy_ns);
    }
    let mut rows: Vec<TimeRow> = lines
        .into_iter()
        .map(|((file, line), (a, b))| {
            let (a, b) = (a.or(Some(0)), b.or(Some(0)));
            row(file, Some(line.to_string()), a, b)
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.delta_ns.map_or(0, i64::unsigned_abs)));
    rows
}
