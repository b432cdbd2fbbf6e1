//! The `against` section (`neff report A --against B`, issue 33): the diff of this NEFF against
//! another (neff-diff), per engine counts and the diff(1)-style text of neff-diff, capped.

use maud::{Markup, html};
use neff_diff::NeffDiff;
use neff_diff::text::{TextOptions, write_text};

use crate::format::Count;

/// Lines of the diff text shown before the rest is summarised (the page stays openable).
pub(crate) const TEXT_LINES: usize = 2000;

/// The section.
pub(crate) fn section(d: &NeffDiff<'_>) -> Markup {
    let mut text = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_text(d, &TextOptions::default(), &mut text);
    let text = String::from_utf8_lossy(&text);
    let total = text.lines().count();
    let shown: Vec<&str> = text.lines().take(TEXT_LINES).collect();
    html! {
        section #against {
            h2 { "Against " code { (d.b) } }
            p {
                @if d.same { "The two NEFFs are the same." }
                @else {
                    (Count(d.header.changed.len() as u64)) " header fields, "
                    (Count(d.members.changes.len() as u64)) " members and "
                    (Count(d.manifests.len() as u64)) " manifest values differ. "
                    "Slot counts per engine (unchanged + removed + changed = A's slots; "
                    "unchanged + added + changed = B's):"
                }
            }
            table.data {
                thead { tr {
                    th { "subgraph" } th { "engine" } th.num { "slots A" } th.num { "slots B" }
                    th.num { "unchanged" } th.num { "changed" } th.num { "added" } th.num { "removed" }
                } }
                tbody {
                    @for e in &d.engines {
                        @let a = &e.alignment;
                        tr {
                            td { (e.subgraph) } td { (e.engine.key()) }
                            td.num { (Count(a.slots_a)) } td.num { (Count(a.slots_b)) }
                            td.num { (Count(a.unchanged)) } td.num { (Count(a.changed)) }
                            td.num { (Count(a.added)) } td.num { (Count(a.removed)) }
                        }
                    }
                }
            }
            pre.diff { (shown.join("\n")) }
            @if total > TEXT_LINES {
                p { "… and " (Count((total - TEXT_LINES) as u64)) " more lines: run "
                    code { "neff diff" } " for all of them." }
            }
        }
    }
}
