//! The document: head with the inline style sheet, the navigation, the sections in order, and
//! the inline script (timeline zoom and pan; nothing is fetched).

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::{
    ReportInput, against, answer, dma, engines, header, members, profile_compare, timeline,
};

/// The style sheet, inline.
const CSS: &str = include_str!("../assets/report.css");
/// The script, inline: small and vanilla.
const JS: &str = include_str!("../assets/report.js");

/// The section ids, in page order, with their navigation labels (`answer` and `profile-compare`
/// only with a profile).
const SECTIONS: [(&str, &str); 8] = [
    ("answer", "Answer"),
    ("header", "Header"),
    ("members", "Members"),
    ("engines", "Engines"),
    ("dma", "DMA"),
    ("timeline", "Timeline"),
    ("profile-compare", "Simulated vs measured"),
    ("against", "Against"),
];

/// The whole page.
pub(crate) fn page(input: &ReportInput<'_>) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content={ "neffkit " (env!("CARGO_PKG_VERSION")) };
                title { "neff report: " (input.file_name) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header.top {
                    h1 { "neff report " span.file { (input.file_name) } }
                    nav {
                        @for (id, label) in SECTIONS {
                            @if (!matches!(id, "answer" | "profile-compare") || input.profile.is_some())
                                && (id != "against" || input.against.is_some()) {
                                a href={ "#" (id) } { (label) }
                            }
                        }
                    }
                }
                main {
                    // With a profile, the page opens with the answer (issue 28).
                    @if let Some(p) = &input.profile {
                        (answer::section(p, input.kbins))
                    }
                    (header::section(input))
                    (members::section(input))
                    (engines::section(input))
                    (dma::section(input))
                    (timeline::section(&input.timeline, input.kbins))
                    @if let Some(p) = &input.profile {
                        (profile_compare::section(p, input.kbins))
                    }
                    @if let Some(d) = input.against {
                        (against::section(d))
                    }
                }
                script { (PreEscaped(JS)) }
            }
        }
    }
}
