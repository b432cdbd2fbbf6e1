//! The instruction mix of an engine stream: a bar per [`OpKind`] (decision D270), counted over
//! the NEFF's own slots (pseudo-instructions included: the image has none left).

use maud::{Markup, html};
use neff_isa::{OpKind, OpKindCounts};

use crate::format::Count;
use crate::svg::{Px, Scale};

/// Width of the chart.
const WIDTH: f64 = 360.0;
/// Left margin for the kind names.
const LABEL_W: f64 = 64.0;
/// Room right of the longest bar for its count.
const COUNT_W: f64 = 84.0;
/// Height of one bar's row.
const ROW_H: f64 = 16.0;

/// The kinds drawn: the five of issue 17 always, `unknown` only when present.
fn shown(counts: &OpKindCounts) -> Vec<OpKind> {
    OpKind::ALL
        .into_iter()
        .filter(|&k| k != OpKind::Unknown || counts.get(k) > 0)
        .collect()
}

/// The bar chart.
pub(crate) fn chart(counts: &OpKindCounts) -> Markup {
    let kinds = shown(counts);
    let max = kinds
        .iter()
        .map(|&k| counts.get(k))
        .max()
        .unwrap_or(0)
        .max(1);
    let x = Scale::new((0.0, max as f64), (LABEL_W, WIDTH - COUNT_W));
    let total = counts.total().max(1) as f64;
    let h = ROW_H * kinds.len() as f64;
    html! {
        svg.mix viewBox={ "0 0 " (Px(WIDTH)) " " (Px(h)) } role="img" aria-label="instruction mix" {
            @for (i, &k) in kinds.iter().enumerate() {
                @let y = ROW_H * i as f64;
                @let n = counts.get(k);
                @let w = x.len(n as f64);
                text.mix-label x=(Px(LABEL_W - 4.0)) y=(Px(y + 12.0)) { (k.name()) }
                rect class={ "bar k-" (k.name()) } x=(Px(LABEL_W)) y=(Px(y + 2.0)) width=(w) height=(Px(ROW_H - 4.0)) {
                    title { (k.name()) ": " (Count(n)) " instructions (" (format!("{:.1}", 100.0 * n as f64 / total)) "%)" }
                }
                text.mix-count x=(Px(LABEL_W + w.0 + 4.0)) y=(Px(y + 12.0)) { (Count(n)) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_drawn_only_when_present() {
        let mut c = OpKindCounts::default();
        assert_eq!(shown(&c).len(), 5);
        c.0[OpKind::Unknown as usize] = 1;
        assert_eq!(shown(&c).len(), 6);
    }
}
