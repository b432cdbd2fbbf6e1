//! Lanes of timed boxes on one time axis, as SVG: the simulated run and the measured one both
//! draw through here. A lane with few boxes draws each (hover: what it is, when, how long); a
//! lane with more than the page's budget allows is drawn as bins of equal time whose height is
//! the fraction of the bin the lane was busy (decision D274). The script zooms and pans the
//! `g.zoom` group along x and redraws the axis.

use maud::{Markup, html};
use neff_isa::{EngineType, OpKind, Opcode, SLOT_BYTES};
use neff_kelf::Kbin;

use crate::format::{Count, Nanos};
use crate::svg::{Px, Scale};

/// Width of the whole chart in user units.
const WIDTH: f64 = 1200.0;
/// Room on the left for lane names.
const LABEL_W: f64 = 170.0;
/// Room on the right for the last axis label.
const RIGHT_PAD: f64 = 28.0;
/// Height of one lane.
const LANE_H: f64 = 16.0;
/// Height of a group's title row.
const GROUP_H: f64 = 18.0;
/// Height of the time axis under the lanes.
const AXIS_H: f64 = 20.0;
/// Most boxes drawn one by one in one lane (decision D274).
pub(crate) const LANE_BOXES: usize = 3000;
/// Most boxes drawn one by one on the whole page; lanes share it (decision D274).
pub(crate) const PAGE_BOXES: usize = 40_000;
/// Longest hover text kept (a disassembly line can be long).
const TITLE_CHARS: usize = 160;

/// What a box is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BoxKind {
    /// A NEFF instruction, coloured by what its slot is for (decision D270).
    Op(OpKind),
    /// An instruction of the runtime's PREAMBLE / POSTAMBLE (no NEFF slot).
    Runtime,
    /// A DMA transfer.
    Transfer,
}

impl BoxKind {
    fn class(self) -> &'static str {
        match self {
            Self::Op(OpKind::Compute) => "k-compute",
            Self::Op(OpKind::Dma) | Self::Transfer => "k-dma",
            Self::Op(OpKind::Sync) => "k-sync",
            Self::Op(OpKind::Control) => "k-control",
            Self::Op(OpKind::Pseudo) => "k-pseudo",
            Self::Op(OpKind::Unknown) => "k-unknown",
            Self::Runtime => "k-runtime",
        }
    }
}

/// One box: `src` indexes whatever the lane's `describe` reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TimedBox {
    /// Start, ns on the chart's axis.
    pub(crate) start: f64,
    /// Duration, ns.
    pub(crate) dur: f64,
    /// Its colour.
    pub(crate) kind: BoxKind,
    /// The index its hover text is made from.
    pub(crate) src: usize,
}

/// One lane: an engine or a DMA queue.
pub(crate) struct Lane<'d> {
    /// The name on the left.
    pub(crate) name: String,
    /// The boxes, in any order.
    pub(crate) boxes: Vec<TimedBox>,
    /// The hover text of box `src` (only called for boxes drawn one by one).
    pub(crate) describe: Box<dyn Fn(usize) -> String + 'd>,
}

/// Lanes under one title ("simulated", "measured on hardware").
pub(crate) struct LaneGroup<'d> {
    /// The title row.
    pub(crate) title: String,
    /// The lanes.
    pub(crate) lanes: Vec<Lane<'d>>,
}

/// The kind of the NEFF slot `slot` of `engine`'s stream, for a box's colour; `Runtime` for an
/// instruction with no NEFF slot (PREAMBLE / POSTAMBLE).
pub(crate) fn slot_kind(
    kbin: Option<&Kbin<'_>>,
    engine: neff_isa::EngineType,
    slot: Option<u64>,
) -> BoxKind {
    let Some(slot) = slot else {
        return BoxKind::Runtime;
    };
    let byte = kbin.and_then(|k| k.engine(engine)).and_then(|e| {
        usize::try_from(slot)
            .ok()
            .and_then(|s| e.instr.get(s * SLOT_BYTES))
    });
    match byte {
        Some(&b) => BoxKind::Op(OpKind::of(Opcode(b))),
        None => BoxKind::Op(OpKind::Unknown),
    }
}

/// One timed instruction of an engine, as [`per_engine`] reads it.
pub(crate) struct EngineItem {
    /// The engine.
    pub(crate) engine: EngineType,
    /// Start, ns.
    pub(crate) start: f64,
    /// Duration, ns.
    pub(crate) dur: f64,
    /// The NEFF slot it executes, if any (decision D275: its colour).
    pub(crate) slot: Option<u64>,
}

/// One lane per engine with items (those `item` maps), named `prefix` + engine, boxes shifted
/// by `-origin` ns and coloured by their NEFF slot's kind.
pub(crate) fn per_engine<'d, T>(
    items: &'d [T],
    item: impl Fn(&T) -> Option<EngineItem>,
    kbin: Option<&Kbin<'_>>,
    origin: f64,
    prefix: &str,
    describe: fn(&T) -> String,
) -> Vec<Lane<'d>> {
    let mut lanes: Vec<(EngineType, Vec<TimedBox>)> = Vec::new();
    for (src, it) in items.iter().enumerate() {
        let Some(e) = item(it) else { continue };
        let b = TimedBox {
            start: e.start - origin,
            dur: e.dur,
            kind: slot_kind(kbin, e.engine, e.slot),
            src,
        };
        match lanes.iter_mut().find(|(x, _)| *x == e.engine) {
            Some((_, boxes)) => boxes.push(b),
            None => lanes.push((e.engine, vec![b])),
        }
    }
    lanes.sort_by_key(|(e, _)| EngineType::ALL.iter().position(|x| x == e));
    lanes
        .into_iter()
        .map(|(engine, boxes)| Lane {
            name: format!("{prefix}{}", engine.key()),
            boxes,
            describe: Box::new(move |i| describe(&items[i])),
        })
        .collect()
}

/// How many boxes each lane may draw one by one: [`LANE_BOXES`], less when many lanes share
/// [`PAGE_BOXES`], never under 200.
pub(crate) fn lane_budget(lanes_on_page: usize) -> usize {
    (PAGE_BOXES / lanes_on_page.max(1)).clamp(200, LANE_BOXES)
}

/// The time range `[min start, max end]` over every box of `groups` (0..1 when empty).
pub(crate) fn domain(groups: &[LaneGroup<'_>]) -> (f64, f64) {
    let boxes = || groups.iter().flat_map(|g| &g.lanes).flat_map(|l| &l.boxes);
    let lo = boxes().map(|b| b.start).fold(f64::INFINITY, f64::min);
    let hi = boxes()
        .map(|b| b.start + b.dur)
        .fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// One bin of an aggregated lane.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Bin {
    /// Boxes that start in the bin.
    starts: u64,
    /// Busy time inside the bin, ns (overlaps counted once as far as a sweep in start order
    /// sees them).
    busy: f64,
}

/// Bins of equal time over `domain`: boxes starting in each, and busy time (the union of the
/// boxes' intervals, clipped to each bin).
fn bins(boxes: &[TimedBox], domain: (f64, f64), n: usize) -> Vec<Bin> {
    let width = (domain.1 - domain.0) / n as f64;
    let mut out = vec![Bin::default(); n];
    let index = |t: f64| (((t - domain.0) / width) as usize).min(n - 1);
    let mut sorted: Vec<(f64, f64)> = boxes.iter().map(|b| (b.start, b.start + b.dur)).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(s, _) in &sorted {
        out[index(s)].starts += 1;
    }
    // The union of intervals, then each merged interval spread over the bins it covers.
    let mut merged: Vec<(f64, f64)> = Vec::new();
    for (s, e) in sorted {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    for (s, e) in merged {
        let (first, last) = (index(s), index(e));
        for (i, bin) in out.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = domain.0 + width * i as f64;
            bin.busy += (e.min(lo + width) - s.max(lo)).max(0.0);
        }
    }
    out
}

/// Hover text cut to [`TITLE_CHARS`].
fn clip(mut s: String) -> String {
    if let Some((i, _)) = s.char_indices().nth(TITLE_CHARS) {
        s.truncate(i);
        s.push('…');
    }
    s
}

/// A lane's shapes inside the zoom group, at vertical offset `y`.
fn lane_shapes(lane: &Lane<'_>, x: &Scale, y: f64, budget: usize, domain: (f64, f64)) -> Markup {
    if lane.boxes.len() <= budget {
        return html! {
            @for b in &lane.boxes {
                rect class={ "box " (b.kind.class()) } x=(x.at(b.start)) y=(Px(y + 2.0))
                    width=(x.len(b.dur)) height=(Px(LANE_H - 4.0)) {
                    title { (clip((lane.describe)(b.src))) }
                }
            }
        };
    }
    let n = (budget / 2).max(100);
    let width = (domain.1 - domain.0) / n as f64;
    html! {
        @for (i, bin) in bins(&lane.boxes, domain, n).iter().enumerate().filter(|(_, b)| b.starts > 0 || b.busy > 0.0) {
            @let fill = (bin.busy / width).clamp(0.0, 1.0);
            @let h = ((LANE_H - 4.0) * fill).max(1.0);
            @let t0 = domain.0 + width * i as f64;
            rect.box.agg x=(x.at(t0)) y=(Px(y + LANE_H - 2.0 - h)) width=(x.len(width)) height=(Px(h)) {
                title { (Count(bin.starts)) " started, busy " (format!("{:.0}", fill * 100.0)) "% of "
                    (Nanos(t0)) "–" (Nanos(t0 + width)) }
            }
        }
    }
}

/// The chart: group titles and lane names on the left, the boxes in a zoomable group, the time
/// axis beneath (ns from the start of `domain`; the script redraws it on zoom).
pub(crate) fn chart(groups: &[LaneGroup<'_>], domain: (f64, f64), budget: usize) -> Markup {
    let rows: f64 = groups
        .iter()
        .map(|g| GROUP_H + LANE_H * g.lanes.len() as f64)
        .sum();
    let height = rows + AXIS_H;
    let plot_w = WIDTH - LABEL_W - RIGHT_PAD;
    let x = Scale::new(domain, (0.0, plot_w));
    let mut y = 0.0;
    let mut placed: Vec<(f64, &Lane<'_>)> = Vec::new();
    let mut titles: Vec<(f64, &str)> = Vec::new();
    for g in groups {
        titles.push((y, &g.title));
        y += GROUP_H;
        for lane in &g.lanes {
            placed.push((y, lane));
            y += LANE_H;
        }
    }
    html! {
        svg.timeline viewBox={ "0 0 " (Px(WIDTH)) " " (Px(height)) } data-zoom=""
            data-t0=(Px(domain.0)) data-t1=(Px(domain.1)) data-plot-x=(Px(LABEL_W)) data-plot-w=(Px(plot_w))
            role="img" aria-label="timeline" {
            @for (ty, t) in &titles {
                text.group-title x="2" y=(Px(ty + 13.0)) { (t) }
            }
            @for (ly, lane) in &placed {
                rect.lane-bg x=(Px(LABEL_W)) y=(Px(*ly)) width=(Px(plot_w)) height=(Px(LANE_H)) {}
                text.lane-name x=(Px(LABEL_W - 6.0)) y=(Px(ly + 12.0)) { (lane.name) }
            }
            svg.plot x=(Px(LABEL_W)) y="0" width=(Px(plot_w)) height=(Px(rows)) {
                g.zoom {
                    @for (ly, lane) in &placed {
                        (lane_shapes(lane, &x, *ly, budget, domain))
                    }
                }
            }
            g.axis transform={ "translate(0," (Px(rows)) ")" } {
                line x1=(Px(LABEL_W)) x2=(Px(LABEL_W + plot_w)) y1="0" y2="0" {}
                @for i in 0..=5 {
                    @let t = domain.0 + (domain.1 - domain.0) * f64::from(i) / 5.0;
                    text.tick x=(Px(LABEL_W + plot_w * f64::from(i) / 5.0)) y="14" { (Nanos(t - domain.0)) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(start: f64, dur: f64) -> TimedBox {
        TimedBox {
            start,
            dur,
            kind: BoxKind::Transfer,
            src: 0,
        }
    }

    #[test]
    fn bins_count_starts_and_union_busy_time() {
        // Two overlapping boxes over [0, 30) and one over [60, 70): 3 bins of 40 ns... over 0..120.
        let boxes = [b(0.0, 20.0), b(10.0, 20.0), b(60.0, 10.0)];
        let got = bins(&boxes, (0.0, 120.0), 3);
        assert_eq!(got[0].starts, 2);
        assert!((got[0].busy - 30.0).abs() < 1e-9, "{got:?}");
        assert_eq!(got[1].starts, 1);
        assert!((got[1].busy - 10.0).abs() < 1e-9);
        assert_eq!(got[2], Bin::default());
    }

    #[test]
    fn a_box_across_bins_is_split_between_them() {
        let got = bins(&[b(30.0, 20.0)], (0.0, 80.0), 2);
        assert!((got[0].busy - 10.0).abs() < 1e-9 && (got[1].busy - 10.0).abs() < 1e-9);
        assert_eq!((got[0].starts, got[1].starts), (1, 0));
    }

    #[test]
    fn the_page_budget_is_shared_between_lanes() {
        assert_eq!(lane_budget(1), LANE_BOXES);
        assert_eq!(lane_budget(40), 1000);
        assert_eq!(lane_budget(10_000), 200);
    }

    #[test]
    fn lanes_over_budget_are_binned() {
        let lane = Lane {
            name: "pe".into(),
            boxes: (0..1000).map(|i| b(f64::from(i), 1.0)).collect(),
            describe: Box::new(|i| format!("box {i}")),
        };
        let x = Scale::new((0.0, 1000.0), (0.0, 100.0));
        let one_by_one = lane_shapes(&lane, &x, 0.0, 1000, (0.0, 1000.0)).into_string();
        assert_eq!(one_by_one.matches("<rect").count(), 1000);
        let binned = lane_shapes(&lane, &x, 0.0, 300, (0.0, 1000.0)).into_string();
        assert_eq!(binned.matches("<rect").count(), 150);
        assert!(binned.contains("busy 100%"), "{}", &binned[..300]);
    }
}
