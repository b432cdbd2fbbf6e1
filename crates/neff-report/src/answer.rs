//! The `answer` section (`neff report --profile`; issue 28 item 4): what a performance engineer
//! asks first, before header and members — per subgraph the measured span against the
//! predicted one and the busiest engine, then the longest NEFF instructions with their slot,
//! disassembly and kernel source line (when the NEFF has debug info). Every number is one the
//! sections below also show: the profile's summary (neff-profile) and the comparison
//! (neff-sim-report).

use maud::{Markup, html};
use neff_isa::text::print_slot;
use neff_isa::{Dialect, SLOT_BYTES, Slot};
use neff_kelf::Kbin;
use neff_profile::ProfiledInstruction;

use crate::format::{Count, Nanos};
use crate::profile_compare::ProfileInput;

/// How many instructions the top list shows.
pub(crate) const TOP: usize = 10;

/// The NEFF slot's disassembly (the dialect `neff profile` prints).
fn text(kbins: &[Kbin<'_>], i: &ProfiledInstruction) -> Option<String> {
    let (engine, slot) = (i.engine()?, usize::try_from(i.compiler_pc?).ok()?);
    let kbin = kbins.iter().find(|k| k.name == i.subgraph)?;
    let bytes = kbin
        .engine(engine)?
        .instr
        .get(slot.checked_mul(SLOT_BYTES)?..)?;
    let mut s = String::new();
    print_slot(&Slot::from_slice(bytes)?, Dialect::Semaphore8, &mut s);
    Some(s.trim().to_string())
}

/// `file:line` of the slot's kernel source, from the NEFF's debug info.
fn source(input: &ProfileInput<'_>, i: &ProfiledInstruction) -> Option<String> {
    let slot = usize::try_from(i.compiler_pc?).ok()?;
    let d = input.debug?.slot(&i.subgraph, i.engine()?, slot);
    d.source.map(|s| format!("{}:{}", s.file, s.line))
}

/// Percent of `whole`.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.0}%", 100.0 * part as f64 / whole as f64)
}

/// The section.
pub(crate) fn section(input: &ProfileInput<'_>, kbins: &[Kbin<'_>]) -> Markup {
    let summary = input.profile.summary();
    let top = input.profile.top_instructions(TOP);
    html! {
        section #answer {
            h2 { "The answer" }
            p.note {
                "From the profile " code { (input.name) } " (measured on hardware) and the "
                "simulated run. Spans run from a subgraph's first NEFF instruction to its last; busy "
                "time is the union of the engine's instructions, the runtime's own included. The "
                "details follow in the sections below."
            }
            table.data.answer-spans {
                thead { tr {
                    th { "subgraph" } th.num { "measured span" } th.num { "predicted span" }
                    th.num { "error" } th { "busiest engine" } th.num { "busy" }
                    th.num { "of the whole span (runtime's code included)" }
                } }
                tbody {
                    @for c in &input.comparison.subgraphs {
                        @let busiest = summary.iter().find(|s| s.name == c.name).and_then(|s| s.busiest().map(|b| (s, b)));
                        tr {
                            td { (c.name) }
                            td.num { (Nanos(c.measured_span_ns as f64)) }
                            td.num { (Nanos(c.predicted_span_ns as f64)) }
                            td.num { (format!("{:+.1}%", c.span_error_pct)) }
                            @if let Some((s, (engine, t))) = busiest {
                                td { (engine.key()) }
                                td.num { (Nanos(t.busy_ns as f64)) }
                                td.num { (share(t.busy_ns, s.span_ns())) " of " (Nanos(s.span_ns() as f64)) }
                            } @else {
                                td { "-" } td.num { "-" } td.num { "-" }
                            }
                        }
                    }
                }
            }
            h3 { "Longest NEFF instructions" }
            table.data.answer-top {
                thead { tr {
                    th { "subgraph" } th { "engine" } th.num { "slot" } th.num { "duration" }
                    th { "instruction" } th { "source" }
                } }
                tbody {
                    @for i in &top {
                        tr {
                            td { (i.subgraph) }
                            td { (i.engine().map_or("?", |e| e.key())) }
                            td.num { (i.compiler_pc.map_or_else(String::new, |s| Count(s).to_string())) }
                            td.num { (Nanos(i.duration as f64)) }
                            td { code { (text(kbins, i).unwrap_or_else(|| i.opcode.clone())) } }
                            td { (source(input, i).unwrap_or_else(|| "-".into())) }
                        }
                    }
                }
            }
        }
    }
}
