//! Two captures compared (issue 33 item 2): neuron-profile JSON reports or raw `.ntff`
//! captures, read by neff-profile's one reader (one model for both), of the same NEFF or of two.
//! Measured time A vs B per instruction (subgraph, engine, NEFF slot), per DMA queue and, when
//! the NEFFs' debug info is given, per source line.

use std::collections::BTreeMap;

use neff_debug::DebugInfo;
use neff_isa::EngineType;
use neff_profile::Profile;
use serde::Serialize;

/// One row of measured time: A's and B's summed durations and executions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MeasuredRow {
    /// The subgraph, or for a source line its file.
    pub key: String,
    /// The engine and slot (`pe #12`), the queue (`queue 3`) or the line number.
    pub detail: String,
    /// A's opcode at the slot (instruction rows; `None` elsewhere or when A has none).
    pub what_a: Option<String>,
    /// B's.
    pub what_b: Option<String>,
    /// A's summed duration, ns (0 when A has none).
    pub a_ns: u64,
    /// B's.
    pub b_ns: u64,
    /// B - A, ns.
    pub delta_ns: i64,
    /// A's executions (transfers, for a queue).
    pub count_a: u64,
    /// B's.
    pub count_b: u64,
}

/// The measured comparison of two captures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CaptureDiff {
    /// A's file name.
    pub a: String,
    /// B's.
    pub b: String,
    /// Per subgraph: the measured span (first issue to last completion of a NEFF instruction).
    pub subgraphs: Vec<MeasuredRow>,
    /// Per (subgraph, engine, NEFF slot), largest |delta| first.
    pub instructions: Vec<MeasuredRow>,
    /// Per (subgraph, DMA queue), largest |delta| first.
    pub queues: Vec<MeasuredRow>,
    /// Per source line (with both NEFFs' debug info), largest |delta| first.
    pub lines: Vec<MeasuredRow>,
}

/// Running sums of one key on both sides.
#[derive(Default, Clone)]
struct Sums {
    what: [Option<String>; 2],
    ns: [u64; 2],
    count: [u64; 2],
}

fn rows(map: BTreeMap<(String, String), Sums>) -> Vec<MeasuredRow> {
    let mut out: Vec<MeasuredRow> = map
        .into_iter()
        .map(|((key, detail), s)| MeasuredRow {
            key,
            detail,
            what_a: s.what[0].clone(),
            what_b: s.what[1].clone(),
            a_ns: s.ns[0],
            b_ns: s.ns[1],
            delta_ns: s.ns[1] as i64 - s.ns[0] as i64,
            count_a: s.count[0],
            count_b: s.count[1],
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.delta_ns.unsigned_abs()));
    out
}

/// Compares two profiles; `debug` (both sides' NEFF debug info) adds the per-line rows.
pub fn diff_captures(
    (fa, pa): (&str, &Profile),
    (fb, pb): (&str, &Profile),
    debug: Option<(&DebugInfo, &DebugInfo)>,
) -> CaptureDiff {
    let mut instr: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let mut queues: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let mut lines: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let mut spans: BTreeMap<(String, String), Sums> = BTreeMap::new();
    for (k, p) in [pa, pb].into_iter().enumerate() {
        let info = debug.map(|(a, b)| if k == 0 { a } else { b });
        for i in &p.instructions {
            let (Some(engine), Some(slot)) = (i.engine(), i.compiler_pc) else {
                continue;
            };
            let s = instr
                .entry((i.subgraph.clone(), format!("{} #{slot}", engine.key())))
                .or_default();
            s.what[k].get_or_insert_with(|| i.opcode.clone());
            s.ns[k] += i.duration;
            s.count[k] += 1;
            if let Some(src) = info.and_then(|d| source_of(d, &i.subgraph, engine, slot)) {
                let s = lines.entry(src).or_default();
                s.ns[k] += i.duration;
                s.count[k] += 1;
            }
        }
        for t in &p.dma {
            let s = queues
                .entry((t.subgraph.clone(), format!("queue {}", t.dma_queue)))
                .or_default();
            s.ns[k] += t.duration;
            s.count[k] += 1;
        }
        let names: std::collections::BTreeSet<&str> =
            p.instructions.iter().map(|i| i.subgraph.as_str()).collect();
        for sg in names {
            if let Some(span) = p.span_ns(sg) {
                let s = spans.entry((sg.to_owned(), "span".into())).or_default();
                s.ns[k] = span;
                s.count[k] = 1;
            }
        }
    }
    let mut subgraphs = rows(spans);
    subgraphs.sort_by(|x, y| x.key.cmp(&y.key));
    CaptureDiff {
        a: fa.to_owned(),
        b: fb.to_owned(),
        subgraphs,
        instructions: rows(instr),
        queues: rows(queues),
        lines: rows(lines),
    }
}

/// `(file, line)` of a slot, from the debug info.
fn source_of(d: &DebugInfo, sg: &str, e: EngineType, slot: u64) -> Option<(String, String)> {
    let s = d.slot(sg, e, usize::try_from(slot).ok()?).source?;
    Some((s.file, s.line.to_string()))
}

/// Prints the comparison: spans, then the `top` rows of each table by |delta|.
pub fn write_capture_text(
    d: &CaptureDiff,
    top: usize,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    writeln!(out, "--- A {}", d.a)?;
    writeln!(out, "+++ B {}", d.b)?;
    let tables = [
        ("measured span", &d.subgraphs),
        ("instructions (summed duration)", &d.instructions),
        ("DMA queues (summed transfer time)", &d.queues),
        ("source lines (summed duration)", &d.lines),
    ];
    for (title, rows) in tables {
        if rows.is_empty() {
            continue;
        }
        writeln!(out, "{title}, ns: A B delta")?;
        for r in rows
            .iter()
            .filter(|r| r.delta_ns != 0 || rows.len() <= top)
            .take(top)
        {
            let what = match (&r.what_a, &r.what_b) {
                (Some(a), Some(b)) if a != b => format!(" {a} -> {b}"),
                (Some(w), _) | (None, Some(w)) => format!(" {w}"),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {} {}{what}: {} {} {:+} (x{} -> x{})",
                r.key, r.detail, r.a_ns, r.b_ns, r.delta_ns, r.count_a, r.count_b
            )?;
        }
    }
    Ok(())
}
