//! `neff report`: one self-contained HTML page per NEFF (issue 17).
//!
//! The page is built with maud (compile-time templates, every value escaped) and its graphics are
//! SVG elements written by the same templates from computed geometry ([`svg`]); the style sheet
//! and the one small script are inline, so the file opens offline with nothing fetched.
//!
//! Sections, each an element with a stable `id` (tests and the browser check look for them):
//!
//! | id | what |
//! | --- | --- |
//! | `answer` | with a profile, first: measured vs predicted span, busiest engine, the longest NEFF instructions with slot, disassembly and source line |
//! | `header` | every header field, integrity, the kelf descriptor and target |
//! | `members` | path, size and package offset of every member |
//! | `engines` | per subgraph and engine: the image's region map to scale, patch rows, instruction mix |
//! | `dma` | queues with owner, semaphores, rings, descriptors and bytes moved |
//! | `timeline` | the simulated run (neff-sim), or a statement that no simulation is available |
//! | `profile-compare` | with a profile: measured under simulated on one time axis, per-class durations |
//!
//! Large NEFFs stay usable: tables show their first rows and summarise the rest (decision D272),
//! and timeline lanes draw bins of time instead of boxes beyond a few thousand (decision D274).
//!
//! ```
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff")).unwrap();
//! let neff = neff_container::Neff::parse(&bytes).unwrap();
//! let kelf = neff_kelf::Kelf::from_neff(&neff).unwrap();
//! let kbins = kelf.kbins().unwrap();
//! let model = neff_load::model::load(&kelf, &Default::default()).unwrap();
//! let input = neff_report::ReportInput::new("sample.neff", &neff, &kelf, &kbins, Ok(&model));
//! let html = neff_report::render(&input);
//! assert!(html.contains(r#"id="engines""#));
//! ```

mod against;
mod answer;
mod dma;
mod engines;
mod format;
mod header;
mod lanes;
mod members;
mod mix;
mod page;
mod patches;
mod profile_compare;
mod region_map;
pub mod svg;
mod timeline;

use neff_container::Neff;
use neff_kelf::{Kbin, Kelf};
use neff_load::LoadError;
use neff_load::model::LoadedModel;

pub use profile_compare::ProfileInput;
pub use timeline::TimelineInput;

/// Everything the page shows, read and loaded by the caller.
#[derive(Clone, Copy)]
pub struct ReportInput<'a> {
    /// The name shown in the title (usually the file name).
    pub file_name: &'a str,
    /// The parsed container: header, integrity, members.
    pub neff: &'a Neff<'a>,
    /// The manifests.
    pub kelf: &'a Kelf<'a>,
    /// Every subgraph's kbin (engine streams, DMA queues), in the kelf's order.
    pub kbins: &'a [Kbin<'a>],
    /// The loaded model (images, regions, patches, generated DMA descriptors), or why the load
    /// failed: the page then shows everything that does not need it (decision D273).
    pub model: Result<&'a LoadedModel, &'a LoadError>,
    /// The name of the device model the images were staged under.
    pub device_model: &'a str,
    /// The simulated run, or why there is none.
    pub timeline: TimelineInput<'a>,
    /// A hardware profile to compare the run with (the `profile-compare` section).
    pub profile: Option<ProfileInput<'a>>,
    /// The diff against another NEFF (the `against` section, `neff report --against`).
    pub against: Option<&'a neff_diff::NeffDiff<'a>>,
}

impl<'a> ReportInput<'a> {
    /// An input with the default device model's name and no simulation.
    pub fn new(
        file_name: &'a str,
        neff: &'a Neff<'a>,
        kelf: &'a Kelf<'a>,
        kbins: &'a [Kbin<'a>],
        model: Result<&'a LoadedModel, &'a LoadError>,
    ) -> Self {
        Self {
            file_name,
            neff,
            kelf,
            kbins,
            model,
            device_model: "spec",
            timeline: TimelineInput::Unavailable(timeline::NOT_SIMULATED),
            profile: None,
            against: None,
        }
    }
}

/// The whole page as one HTML string.
pub fn render(input: &ReportInput<'_>) -> String {
    page::page(input).into_string()
}
