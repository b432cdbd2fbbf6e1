//! The `profile-compare` section (`neff report --profile`): per subgraph, the timeline measured
//! on hardware (neuron-profile, read by neff-profile) under the simulated one on the same time
//! axis — both from the subgraph's first NEFF instruction — and measured vs predicted span, busy
//! time per engine and mean duration per opcode class (neff-sim's comparison).

use maud::{Markup, html};
use neff_isa::EngineType;
use neff_kelf::Kbin;
use neff_profile::{Profile, ProfiledInstruction};
use neff_sim::SimResult;
use neff_sim_report::compare::{Comparison, SubgraphComparison};

use crate::format::{Count, Nanos};
use crate::lanes::{self, EngineItem, Lane, LaneGroup};
use crate::timeline::engine_lanes;

/// A profile with the run it is compared against.
#[derive(Debug, Clone, Copy)]
pub struct ProfileInput<'a> {
    /// The profile file's name, for the page.
    pub name: &'a str,
    /// The profile.
    pub profile: &'a Profile,
    /// The simulated run (with its timeline recorded).
    pub run: &'a SimResult,
    /// `neff_sim_report::compare::compare(run, profile)`.
    pub comparison: &'a Comparison,
    /// The NEFF's debug info, for the source lines of the `answer` section's top instructions.
    pub debug: Option<&'a neff_debug::DebugInfo>,
}

/// Hover text of a measured instruction.
fn describe(i: &ProfiledInstruction) -> String {
    let slot = i
        .compiler_pc
        .map_or_else(|| "runtime".to_string(), |n| format!("slot {n}"));
    format!(
        "{} {}\n{} · pc {} · {} · start {} · {}",
        i.opcode,
        i.operands,
        slot,
        i.pc,
        i.label,
        Nanos(i.timestamp as f64),
        Nanos(i.duration as f64)
    )
}

/// One lane per engine of the measured instructions of `subgraph`, shifted by `-origin`.
fn measured_lanes<'d>(
    p: &'d Profile,
    subgraph: &str,
    kbin: Option<&Kbin<'_>>,
    origin: f64,
) -> Vec<Lane<'d>> {
    let item = |i: &ProfiledInstruction| {
        (i.subgraph == subgraph).then_some(())?;
        Some(EngineItem {
            engine: i.engine()?,
            start: i.timestamp as f64,
            dur: i.duration as f64,
            slot: i.compiler_pc,
        })
    };
    lanes::per_engine(&p.instructions, item, kbin, origin, "measured ", describe)
}

/// Percent with a sign.
fn pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// Span, engines and classes of one subgraph.
fn tables(c: &SubgraphComparison) -> Markup {
    html! {
        p.span {
            "Span: measured " (Nanos(c.measured_span_ns as f64)) ", predicted "
            (Nanos(c.predicted_span_ns as f64)) " (" (pct(c.span_error_pct)) "); "
            (Count(c.paired)) " NEFF instructions paired."
        }
        table.data.busy-compare {
            thead { tr { th { "engine" } th.num { "measured busy" } th.num { "predicted busy" } } }
            tbody {
                @for e in &c.engines {
                    tr {
                        td { (e.engine.key()) }
                        td.num { (Nanos(e.measured_busy_ns as f64)) }
                        td.num { (Nanos(e.predicted_busy_ns as f64)) }
                    }
                }
            }
        }
        h4 { "Mean duration per opcode class" }
        table.data.class-compare {
            thead { tr { th { "engine" } th { "class" } th.num { "count" } th.num { "measured" }
                th.num { "predicted" } th.num { "error" } } }
            tbody {
                @for k in &c.classes {
                    tr {
                        td { (k.engine.key()) }
                        td { (k.class.name()) }
                        td.num { (Count(k.count)) }
                        td.num { (Nanos(k.measured_mean_ns)) }
                        td.num { (Nanos(k.predicted_mean_ns)) }
                        td.num { (pct(k.error_pct)) }
                    }
                }
            }
        }
    }
}

/// The section.
pub(crate) fn section(input: &ProfileInput<'_>, kbins: &[Kbin<'_>]) -> Markup {
    let p = input.profile;
    let lanes_on_page: usize = input.comparison.subgraphs.len() * 2 * EngineType::ALL.len();
    let budget = lanes::lane_budget(lanes_on_page);
    html! {
        section #profile-compare {
            h2 { "Simulated vs measured" }
            p.note {
                "The profile " code { (input.name) } " (neuron-profile, real hardware) under the "
                "simulated run, both from the subgraph's first NEFF instruction. Instructions are "
                "paired by engine, NEFF slot and occurrence."
            }
            @for c in &input.comparison.subgraphs {
                @let kbin = kbins.iter().find(|k| k.name == c.name);
                @let sim = input.run.subgraphs.iter().find(|s| s.name == c.name);
                @let measured_origin = p.neff_instructions(&c.name).map(|i| i.timestamp).min().unwrap_or(0);
                h3 { "Subgraph " (c.name) }
                (tables(c))
                @if let Some(tl) = sim.and_then(|s| s.timeline.as_ref().map(|tl| (s, tl))) {
                    @let (s, tl) = tl;
                    @let groups = [
                        LaneGroup {
                            title: "simulated".into(),
                            lanes: engine_lanes(tl, kbin, s.main_start_ns as f64, "simulated "),
                        },
                        LaneGroup {
                            title: "measured on hardware".into(),
                            lanes: measured_lanes(p, &c.name, kbin, measured_origin as f64),
                        },
                    ];
                    (lanes::chart(&groups, lanes::domain(&groups), budget))
                }
            }
        }
    }
}
