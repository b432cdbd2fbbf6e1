//! The `header` section: every field of the 1024-byte header (reference §1.1), the payload's
//! integrity, and the kelf descriptor with its target.

use maud::{Markup, html};
use neff_container::{HashStatus, Header, hash};

use crate::ReportInput;
use crate::format::{Bytes, Count, Hex};

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

/// The feature bits with the names of reference §1.4 (claimed there).
fn feature_text(h: &Header) -> String {
    let names: Vec<String> = h
        .feature_bits
        .bits()
        .map(|b| match b.name {
            Some(name) => format!("{:#x} {name}", b.bit),
            None => format!("{:#x} (unnamed)", b.bit),
        })
        .collect();
    if names.is_empty() {
        Hex(h.feature_bits.0).to_string()
    } else {
        format!("{} = {}", Hex(h.feature_bits.0), names.join(" | "))
    }
}

/// `tpb_per_node` as its non-zero prefix and the count of zeros after it.
fn tpb_text(tpb: &[u8; 64]) -> String {
    let used = tpb.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let shown: Vec<String> = tpb[..used].iter().map(u8::to_string).collect();
    format!("[{}] then {} zeros", shown.join(", "), 64 - used)
}

/// (field, value) rows in header order (reference §1.1).
fn rows(h: &Header) -> Vec<(&'static str, String)> {
    let algorithm = if h.pkg_version == 1 { "sha256" } else { "md5" };
    vec![
        ("pkg_version", h.pkg_version.to_string()),
        ("header_size", Hex(h.header_size).to_string()),
        (
            "data_size",
            format!("{} ({})", Count(h.data_size), Bytes(h.data_size)),
        ),
        (
            "neff_version",
            format!("{}.{}", h.neff_version_major, h.neff_version_minor),
        ),
        (
            "build_version",
            format!("{:?}", h.neff_build_version.text()),
        ),
        ("num_tpb", h.num_tpb.to_string()),
        ("hash", format!("{} ({algorithm})", hash::hex(&h.hash))),
        ("uuid", h.uuid.to_string()),
        ("name", h.name_text()),
        ("requested_tpb_count", h.requested_tpb_count.to_string()),
        ("tpb_per_node", tpb_text(&h.tpb_per_node)),
        ("feature_bits", feature_text(h)),
        ("lnc_size", h.lnc_size.to_string()),
    ]
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
                @for (k, v) in rows(h) {
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
