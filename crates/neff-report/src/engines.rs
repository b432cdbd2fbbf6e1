//! The `engines` section: per subgraph and engine, the loaded image's region map, its patch rows
//! and the instruction mix of the NEFF stream.

use maud::{Markup, html};
use neff_isa::OpKindCounts;
use neff_kelf::{EngineSlot, Kbin};
use neff_load::model::{LoadedEngine, LoadedSubgraph};

use crate::ReportInput;
use crate::format::{Bytes, Count, Hex};
use crate::{mix, patches, region_map};

/// The section.
pub(crate) fn section(input: &ReportInput<'_>) -> Markup {
    html! {
        section #engines {
            h2 { "Engines" }
            p.note {
                "Each image is drawn to scale in bytes (hover a region for its offsets, size and device "
                "addresses). The mix counts the NEFF's own instructions by what they do: compute, DMA, "
                "sync, control, and pseudo-instructions the runtime lowers at load."
            }
            @if let Err(why) = input.model {
                p.missing { "The NEFF did not load, so no image is drawn: " (format!("{why:#}")) }
            }
            @for (kbin, sg) in pairs(input) {
                div.subgraph id={ "engines-" (kbin.name) } {
                    h3 { "Subgraph " (kbin.name) }
                    div.cards {
                        @for slot in &kbin.engines {
                            (card(&kbin.name, slot, sg.and_then(|sg| sg.engine(slot.eng_type))))
                        }
                    }
                }
            }
        }
    }
}

/// Each kbin with its loaded subgraph (same name; `None` when the load failed), in the kelf's
/// order.
pub(crate) fn pairs<'i>(
    input: &'i ReportInput<'_>,
) -> impl Iterator<Item = (&'i Kbin<'i>, Option<&'i LoadedSubgraph>)> + 'i {
    input.kbins.iter().map(move |k| {
        let sg = input
            .model
            .ok()
            .and_then(|m| m.subgraphs.iter().find(|sg| sg.name == k.name));
        (k, sg)
    })
}

/// One engine's card: the image's facts when it loaded, the stream's mix always.
fn card(sg: &str, slot: &EngineSlot<'_>, e: Option<&LoadedEngine>) -> Markup {
    let counts = OpKindCounts::of_stream(slot.instr);
    html! {
        div.engine id={ "engine-" (sg) "-" (slot.eng_type.key()) } {
            h4 { (sg) " / " (slot.eng_type.key()) " " span.sub { code { (slot.member) } } }
            @if let Some(e) = e {
                @let img = &e.image;
                p.facts {
                    (Count(img.source_slots as u64)) " source slots → "
                    (Count(img.lowered_slots())) " lowered slots; image "
                    (Bytes(e.block.inst_len)) " at " code { (Hex(e.ib_addrs.base)) }
                }
                (region_map::map(e))
                (region_map::table(e))
            } @else {
                p.facts { (Count(u64::from(slot.ninstr))) " source slots; not loaded" }
            }
            h5 { "Instruction mix" }
            (mix::chart(&counts))
            @if let Some(e) = e {
                h5 { "Patch rows" }
                (patches::rows(&e.image.patches))
            }
        }
    }
}
