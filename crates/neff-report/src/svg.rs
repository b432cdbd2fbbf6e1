//! Geometry for the page's SVG: a linear scale from a data domain to pixels and a compact
//! number type for coordinates. The shapes themselves are maud templates in each section's
//! module, so every attribute is a typed value and every text is escaped.

use std::fmt;

use maud::Render;

/// A coordinate in user units, printed with at most two decimals (`12.5`, `3`), which keeps a
/// page of many thousand shapes small without visible rounding.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Px(pub f64);

impl fmt::Display for Px {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = (self.0 * 100.0).round() / 100.0;
        if v == v.trunc() {
            write!(f, "{}", v as i64)
        } else {
            let s = format!("{v:.2}");
            f.write_str(s.trim_end_matches('0'))
        }
    }
}

impl Render for Px {
    fn render_to(&self, buffer: &mut String) {
        use fmt::Write;
        let _ = write!(buffer, "{self}");
    }
}

/// Maps `[domain.0, domain.1]` linearly onto `[range.0, range.1]` pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The data interval.
    pub domain: (f64, f64),
    /// The pixel interval.
    pub range: (f64, f64),
}

impl Scale {
    /// A scale; an empty domain maps everything to `range.0`.
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        Self { domain, range }
    }

    /// The pixel position of `v`.
    pub fn at(&self, v: f64) -> Px {
        let span = self.domain.1 - self.domain.0;
        if span <= 0.0 {
            return Px(self.range.0);
        }
        Px(self.range.0 + (v - self.domain.0) / span * (self.range.1 - self.range.0))
    }

    /// The pixel length of a data length `len`.
    pub fn len(&self, len: f64) -> Px {
        let span = self.domain.1 - self.domain.0;
        if span <= 0.0 {
            return Px(0.0);
        }
        Px(len / span * (self.range.1 - self.range.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn px_prints_short() {
        assert_eq!(Px(3.0).to_string(), "3");
        assert_eq!(Px(12.5).to_string(), "12.5");
        assert_eq!(Px(0.126).to_string(), "0.13");
        assert_eq!(Px(-1.0).to_string(), "-1");
    }

    #[test]
    fn scale_maps_ends_and_lengths() {
        // A 960-byte image (the sample's PE, spec 000 §9) onto 600 pixels from x = 20.
        let s = Scale::new((0.0, 960.0), (20.0, 620.0));
        assert_eq!(s.at(0.0), Px(20.0));
        assert_eq!(s.at(960.0), Px(620.0));
        assert_eq!(s.len(64.0), Px(40.0));
        let empty = Scale::new((5.0, 5.0), (0.0, 100.0));
        assert_eq!((empty.at(5.0), empty.len(1.0)), (Px(0.0), Px(0.0)));
    }
}
