//! The `members` section: every member of the package with its size and offset.

use maud::{Markup, html};

use crate::ReportInput;
use crate::format::{Bytes, Count, Hex};

/// Member rows shown before the rest is summarised (decision D272).
pub(crate) const MEMBER_ROWS: usize = 2000;

/// The section.
pub(crate) fn section(input: &ReportInput<'_>) -> Markup {
    let neff = input.neff;
    let total = neff.total_member_size();
    let hidden = neff.member_count().saturating_sub(MEMBER_ROWS);
    let hidden_bytes: u64 = neff.members().skip(MEMBER_ROWS).map(|m| m.size()).sum();
    html! {
        section #members {
            h2 { "Members" }
            p { (Count(neff.member_count() as u64)) " members, " (Bytes(total)) " inflated. "
                "Offsets are byte offsets of each member's data in the inflated tar package." }
            table.data {
                thead { tr { th { "path" } th.num { "size" } th.num { "offset" } } }
                tbody {
                    @for m in neff.members().take(MEMBER_ROWS) {
                        tr {
                            td { code { (m.path) } }
                            td.num title=(Bytes(m.size())) { (Count(m.size())) }
                            td.num { code { (Hex(m.offset)) } }
                        }
                    }
                }
                @if hidden > 0 {
                    tfoot { tr.more { td colspan="3" {
                        "… and " (Count(hidden as u64)) " more members (" (Bytes(hidden_bytes)) ")"
                    } } }
                }
            }
        }
    }
}
