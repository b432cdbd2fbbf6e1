//! An engine's patch rows (`kbin_patch_location_t`, spec 000 §3): a summary per (type, section)
//! and the first rows themselves.

use maud::{Markup, html};
use neff_lower::patch::EnginePatches;

use crate::format::{Count, Hex};

/// Rows listed per engine before the rest is only counted (decision D272).
pub(crate) const PATCH_ROWS: usize = 64;

/// (type, section) -> (rows, slots), in first-seen order.
fn summary(p: &EnginePatches) -> Vec<(&'static str, &'static str, u64, u64)> {
    let mut out: Vec<(&'static str, &'static str, u64, u64)> = Vec::new();
    for l in p.locations() {
        let key = (l.kind.name(), l.section.name());
        match out.iter_mut().find(|r| (r.0, r.1) == key) {
            Some(r) => {
                r.2 += 1;
                r.3 += u64::from(l.count);
            }
            None => out.push((key.0, key.1, 1, u64::from(l.count))),
        }
    }
    out
}

/// The summary table and the first [`PATCH_ROWS`] rows (in a collapsed block).
pub(crate) fn rows(p: &EnginePatches) -> Markup {
    let rows = p.locations();
    html! {
        table.data.patch-summary {
            thead { tr { th { "type" } th { "section" } th.num { "rows" } th.num { "slots" } } }
            tbody {
                @for (kind, section, n, slots) in summary(p) {
                    tr { td { (kind) } td { (section) } td.num { (Count(n)) } td.num { (Count(slots)) } }
                }
            }
        }
        details.patch-rows {
            summary { "patch rows (" (Count(rows.len() as u64)) ")" }
            table.data {
                thead { tr { th.num { "#" } th.num { "offset" } th.num { "count" } th { "type" } th { "section" } } }
                tbody {
                    @for (i, l) in rows.iter().take(PATCH_ROWS).enumerate() {
                        tr {
                            td.num { (i) }
                            td.num { code { (Hex(u64::from(l.offset))) } }
                            td.num { (l.count) }
                            td { (l.kind.name()) }
                            td { (l.section.name()) }
                        }
                    }
                }
                @if rows.len() > PATCH_ROWS {
                    tfoot { tr.more { td colspan="5" {
                        "… and " (Count((rows.len() - PATCH_ROWS) as u64)) " more rows (counted above)"
                    } } }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neff_lower::patch::{PatchSection, PatchType};

    #[test]
    fn rows_past_the_cap_are_counted_not_listed() {
        let mut p = EnginePatches::with_array_count(0);
        for i in 0..100 {
            p.append(64 * i, 64, PatchType::Insert, PatchSection::Main);
        }
        p.append(0, 128, PatchType::Delete, PatchSection::Function);
        assert_eq!(
            summary(&p),
            [("INSERT", "MAIN", 100, 100), ("DELETE", "FUNCTION", 1, 2)]
        );
        let html = rows(&p).into_string();
        // Two header rows, two summary rows, the listed rows; the footer row is `tr.more`.
        assert_eq!(html.matches("<tr>").count(), 2 + 2 + PATCH_ROWS);
        assert!(html.contains("… and 37 more rows"));
    }
}
