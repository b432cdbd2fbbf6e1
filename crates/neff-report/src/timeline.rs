//! The `timeline` section: the simulated run, one lane per engine and DMA queue — or, when no
//! simulation is available, a statement saying so (never invented data).

use maud::{Markup, html};

/// What the timeline section shows.
#[derive(Debug, Clone, Copy)]
pub enum TimelineInput<'a> {
    /// No simulated run; the text says why.
    Unavailable(&'a str),
}

/// The statement shown when neffkit has no simulator to run.
pub(crate) const NO_SIMULATOR: &str = "No simulation is available: this build of neffkit has no \
     simulator (`neff sim`), so no timeline is drawn. Nothing on this page is estimated.";

/// The section.
pub(crate) fn section(input: &TimelineInput<'_>) -> Markup {
    html! {
        section #timeline {
            h2 { "Timeline" }
            @match input {
                TimelineInput::Unavailable(why) => p.missing { (why) },
            }
        }
    }
}
