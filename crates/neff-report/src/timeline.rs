//! The `timeline` section: the simulated run (neff-sim) with one lane per engine and DMA queue,
//! the span and the busiest engine stated — or, when there is no simulated run, a statement
//! saying why (never invented data).

use maud::{Markup, html};
use neff_kelf::Kbin;
use neff_sim::{SimResult, Slice, SubgraphResult, Timeline, TransferRecord};

use crate::format::{Bytes, Count, Nanos};
use crate::lanes::{self, BoxKind, EngineItem, Lane, LaneGroup, TimedBox};

/// What the timeline section shows.
#[derive(Debug, Clone, Copy)]
pub enum TimelineInput<'a> {
    /// No simulated run; the text says why.
    Unavailable(&'a str),
    /// A run of [`neff_sim::simulate`] with its timeline recorded (`SimOptions::record`).
    Simulated(&'a SimResult),
}

/// The statement shown when nothing was simulated.
pub(crate) const NOT_SIMULATED: &str = "No simulation is available: the page was made without \
     running the simulator, so no timeline is drawn. Nothing on this page is estimated.";

/// Hover text of a simulated instruction.
pub(crate) fn describe_slice(s: &Slice) -> String {
    let slot = s
        .slot
        .map_or_else(|| "runtime".to_string(), |n| format!("slot {n}"));
    format!(
        "{}\n{} · {} · start {} · {}",
        s.text,
        slot,
        format!("{:?}", s.region).to_uppercase(),
        Nanos(s.start_ns),
        Nanos(s.dur_ns)
    )
}

/// Hover text of a simulated transfer.
fn describe_transfer(t: &TransferRecord) -> String {
    format!(
        "{} ring {}: {} · start {} · {}",
        t.queue,
        t.ring,
        Bytes(t.bytes),
        Nanos(t.start_ns),
        Nanos(t.dur_ns)
    )
}

/// One lane per engine that ran something, boxes shifted by `-origin` ns.
pub(crate) fn engine_lanes<'d>(
    tl: &'d Timeline,
    kbin: Option<&Kbin<'_>>,
    origin: f64,
    prefix: &str,
) -> Vec<Lane<'d>> {
    let item = |s: &Slice| {
        Some(EngineItem {
            engine: s.engine,
            start: s.start_ns,
            dur: s.dur_ns,
            slot: s.slot.map(u64::from),
        })
    };
    lanes::per_engine(&tl.slices, item, kbin, origin, prefix, describe_slice)
}

/// One lane per DMA queue that moved something.
fn queue_lanes(tl: &Timeline) -> Vec<Lane<'_>> {
    let mut names: Vec<&str> = Vec::new();
    for t in &tl.transfers {
        if !names.contains(&t.queue.as_str()) {
            names.push(&t.queue);
        }
    }
    names
        .into_iter()
        .map(|q| Lane {
            name: format!("queue {q}"),
            boxes: tl
                .transfers
                .iter()
                .enumerate()
                .filter(|(_, t)| t.queue == q)
                .map(|(i, t)| TimedBox {
                    start: t.start_ns,
                    dur: t.dur_ns,
                    kind: BoxKind::Transfer,
                    src: i,
                })
                .collect(),
            describe: Box::new(move |i| describe_transfer(&tl.transfers[i])),
        })
        .collect()
}

/// "Span …; busiest engine …" for one subgraph.
fn span_line(sg: &SubgraphResult) -> Markup {
    let busiest = sg.engines.iter().max_by_key(|e| e.busy_ns);
    html! {
        p.span {
            "Span " (Nanos(sg.span_ns as f64)) " (first NEFF instruction issued at "
            (Nanos(sg.main_start_ns as f64)) " to the last one's completion); whole run "
            (Nanos(sg.total_ns as f64)) ". "
            @if let Some(e) = busiest {
                "Busiest engine: " (e.engine.key()) ", busy " (Nanos(e.busy_ns as f64))
                " (" (format!("{:.0}", 100.0 * e.busy_ns as f64 / sg.span_ns.max(1) as f64)) "% of the span)."
            }
        }
    }
}

/// Per engine: busy, waiting, idle, instructions.
fn engine_table(sg: &SubgraphResult) -> Markup {
    html! {
        table.data.sim-engines {
            thead { tr { th { "engine" } th.num { "busy" } th.num { "waiting" } th.num { "idle" }
                th.num { "NEFF instructions" } th.num { "all instructions" } } }
            tbody {
                @for e in &sg.engines {
                    tr {
                        td { (e.engine.key()) }
                        td.num { (Nanos(e.busy_ns as f64)) }
                        td.num { (Nanos(e.wait_ns as f64)) }
                        td.num { (Nanos(e.idle_ns as f64)) }
                        td.num { (Count(e.instructions)) }
                        td.num { (Count(e.total_instructions)) }
                    }
                }
            }
        }
    }
}

/// Lanes on the whole page: engines and queues of every subgraph with a timeline.
fn lanes_on_page(r: &SimResult) -> usize {
    r.subgraphs
        .iter()
        .filter_map(|sg| sg.timeline.as_ref())
        .map(|tl| neff_isa::EngineType::ALL.len() + tl.transfers.len().min(64))
        .sum()
}

/// One subgraph's part.
fn subgraph(sg: &SubgraphResult, kbin: Option<&Kbin<'_>>, budget: usize) -> Markup {
    html! {
        h3 { "Subgraph " (sg.name) }
        @if sg.deadlocked { p.missing { "This subgraph deadlocked; the timeline ends where it stopped." } }
        (span_line(sg))
        (engine_table(sg))
        @if let Some(tl) = &sg.timeline {
            @let groups = [LaneGroup {
                title: "simulated: engines and DMA queues".into(),
                lanes: engine_lanes(tl, kbin, 0.0, "").into_iter().chain(queue_lanes(tl)).collect(),
            }];
            (lanes::chart(&groups, (0.0, sg.total_ns.max(1) as f64), budget))
        } @else {
            p.missing { "The run was simulated without recording its timeline." }
        }
    }
}

/// The section.
pub(crate) fn section(input: &TimelineInput<'_>, kbins: &[Kbin<'_>]) -> Markup {
    html! {
        section #timeline {
            h2 { "Timeline" }
            @match input {
                TimelineInput::Unavailable(why) => p.missing { (why) },
                TimelineInput::Simulated(r) => {
                    p.note {
                        "The run as neff sim models it (its cost model is fitted on hardware profiles). "
                        "Hover a box for its instruction; wheel to zoom, drag to pan, double-click to reset. "
                        "Boxes are coloured by what their NEFF slot is for; grey boxes are the runtime's "
                        "PREAMBLE / POSTAMBLE. A lane with more boxes than the page can hold shows how busy "
                        "it was per stretch of time instead."
                    }
                    @if let Some(d) = &r.deadlock {
                        p.missing { "Deadlock in " (d.subgraph) ": " (d.message) }
                    }
                    @for w in &r.warnings { p.note { "warning: " (w) } }
                    @let budget = lanes::lane_budget(lanes_on_page(r));
                    @for sg in &r.subgraphs {
                        (subgraph(sg, kbins.iter().find(|k| k.name == sg.name), budget))
                    }
                }
            }
        }
    }
}
