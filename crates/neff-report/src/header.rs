//! The `header` section: every field of the 1024-byte header (reference §1.1), the payload's
//! integrity, and the kelf descriptor with its target.

use maud::{Markup, html};
use neff_container::HashStatus;

use crate::ReportInput;

/// What the integrity check found, in words.
fn integrity(status: HashStatus) -> (&'static str, &'static str) {
    match status {
        HashStatus::Verified => ("verified", "ok"),
        HashStatus::VerifiedLegacyOrder => ("verified (legacy field order)", "ok"),
        HashStatus::Mismatch => (
            "MISMATCH: the header hash does not match the payload",
            "bad",
        ),
        HashStatus::NotChecked => ("not checked (--no-verify)", "warn"),
    }
}

/// The section.
pub(crate) fn section(input: &ReportInput<'_>) -> Markup {
    let h = input.neff.header();
    let (integrity_text, integrity_class) = integrity(input.neff.hash_status());
    let kelf = input.kelf;
    html! {
        section #header {
            h2 { "Header" }
            table.kv {
                @for (k, v) in h.text_rows() {
                    tr { th { (k) } td { code { (v) } } }
                }
                tr { th { "integrity" } td { span class=(integrity_class) { (integrity_text) } } }
                tr { th { "kelf" } td { code { (kelf.descriptor_member) } } }
                tr { th { "target" } td { code { (kelf.target) } " (arch " (kelf.target.arch()) ")" } }
                tr { th { "subgraphs" } td {
                    @for (i, g) in kelf.graphs().iter().enumerate() {
                        @if i > 0 { ", " }
                        code { (g.name) }
                    }
                } }
                tr { th { "device model" } td { code { (input.device_model) } } }
            }
        }
    }
}
