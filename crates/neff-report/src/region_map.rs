//! An engine image's region map (spec 000 §6: `[PREAMBLE(MODEL_SWITCH)][MAIN][POSTAMBLE][FUNCTION*]`)
//! as an SVG bar drawn to scale, each region with its offsets, size and device addresses on hover,
//! and the same facts as a table beneath (a region too small to see still has its row).

use maud::{Markup, html};
use neff_isa::SLOT_SHIFT;
use neff_load::image::CodeRange;
use neff_load::model::LoadedEngine;

use crate::format::{Bytes, Hex};
use crate::svg::{Px, Scale};

/// Width of the map in user units.
const WIDTH: f64 = 720.0;
/// Top of the bar.
const BAR_Y: f64 = 4.0;
/// Height of the bar.
const BAR_H: f64 = 30.0;
/// Inset of MODEL_SWITCH inside PREAMBLE (it lies within it, spec 000 §6.2).
const INSET: f64 = 7.0;
/// Narrowest region that gets its name written inside.
const LABEL_MIN: f64 = 64.0;

/// One region of an image.
pub(crate) struct Region {
    /// The name the spec and `neff load` use.
    pub(crate) name: &'static str,
    /// The CSS class that colours it.
    pub(crate) class: &'static str,
    /// Its range in the image.
    pub(crate) range: CodeRange,
    /// Drawn inside its parent (MODEL_SWITCH inside PREAMBLE).
    pub(crate) nested: bool,
}

/// The five regions of `e`'s image, in image order.
pub(crate) fn regions(e: &LoadedEngine) -> [Region; 5] {
    let img = &e.image;
    let region = |name, class, range, nested| Region {
        name,
        class,
        range,
        nested,
    };
    [
        region("PREAMBLE", "rg-preamble", img.eib.preamble, false),
        region("MODEL_SWITCH", "rg-switch", img.eib.model_switch, true),
        region("MAIN", "rg-main", img.eib.core, false),
        region("POSTAMBLE", "rg-postamble", img.postamble, false),
        region("FUNCTION", "rg-function", img.functions, false),
    ]
}

/// The hover text of a region: offsets in the image and addresses on the device.
fn describe(r: &Region, base: u64) -> String {
    let start = base + r.range.offset;
    let last = (start + r.range.size).saturating_sub(1);
    format!(
        "{}: image {}..{} ({}, {} slots), device {}..{}",
        r.name,
        Hex(r.range.offset),
        Hex(r.range.end()),
        Bytes(r.range.size),
        r.range.size >> SLOT_SHIFT,
        Hex(start),
        Hex(last)
    )
}

/// The SVG bar of `e`'s image, to scale in bytes.
pub(crate) fn map(e: &LoadedEngine) -> Markup {
    let len = e.block.inst_len.max(1) as f64;
    let x = Scale::new((0.0, len), (0.0, WIDTH));
    let base = e.ib_addrs.base;
    let shown: Vec<Region> = regions(e)
        .into_iter()
        .filter(|r| r.range.size > 0)
        .collect();
    let total_h = BAR_Y + BAR_H + 16.0;
    html! {
        svg.regionmap viewBox={ "0 0 " (Px(WIDTH)) " " (Px(total_h)) } role="img"
            aria-label={ "region map of a " (Bytes(e.block.inst_len)) " image" } {
            rect.rg-frame x="0" y=(Px(BAR_Y)) width=(Px(WIDTH)) height=(Px(BAR_H)) {}
            @for r in &shown {
                @let (y, h) = if r.nested { (BAR_Y + INSET, BAR_H - 2.0 * INSET) } else { (BAR_Y, BAR_H) };
                @let w = x.len(r.range.size as f64);
                rect class={ "rg " (r.class) } x=(x.at(r.range.offset as f64)) y=(Px(y))
                    width=(w) height=(Px(h)) {
                    title { (describe(r, base)) }
                }
                @if w.0 >= LABEL_MIN && !r.nested {
                    text.rg-label x=(Px(x.at(r.range.offset as f64).0 + 4.0)) y=(Px(BAR_Y + 12.0)) { (r.name) }
                }
            }
            text.axis x="0" y=(Px(total_h - 2.0)) { (Hex(base)) }
            text.axis.end x=(Px(WIDTH)) y=(Px(total_h - 2.0)) { (Hex(base + e.block.inst_len)) }
        }
    }
}

/// The regions as table rows.
pub(crate) fn table(e: &LoadedEngine) -> Markup {
    let base = e.ib_addrs.base;
    html! {
        table.data.regions {
            thead { tr { th { "region" } th.num { "offset" } th.num { "size" } th.num { "device start" } } }
            tbody {
                @for r in regions(e) {
                    tr {
                        td { span class={ "swatch " (r.class) } {} (r.name) }
                        td.num { code { (Hex(r.range.offset)) } }
                        td.num { (Bytes(r.range.size)) }
                        td.num { code { (Hex(base + r.range.offset)) } }
                    }
                }
            }
        }
    }
}
