//! How numbers read on the page: hexadecimal addresses, grouped counts, byte sizes.

use std::fmt;

/// `0x...` in lower case.
pub(crate) struct Hex(pub u64);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A count with thousands grouped by a thin space-free comma: `16,777,220`.
pub(crate) struct Count(pub u64);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        let head = digits.len() % 3;
        for (i, c) in digits.chars().enumerate() {
            if i != 0 && (i + 3 - head).is_multiple_of(3) {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// A byte size: exact below 10 KiB, else with one decimal in KiB / MiB / GiB.
pub(crate) struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
        if self.0 < 10 << 10 {
            return write!(f, "{} B", Count(self.0));
        }
        let mut v = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while v >= 1024.0 && unit + 1 < UNITS.len() {
            v /= 1024.0;
            unit += 1;
        }
        write!(f, "{v:.1} {}", UNITS[unit])
    }
}

/// A duration given in nanoseconds, in the unit that keeps it short.
pub(crate) struct Nanos(pub f64);

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns.abs() < 1e3 {
            write!(f, "{ns:.0} ns")
        } else if ns.abs() < 1e6 {
            write!(f, "{:.2} µs", ns / 1e3)
        } else if ns.abs() < 1e9 {
            write!(f, "{:.2} ms", ns / 1e6)
        } else {
            write!(f, "{:.3} s", ns / 1e9)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_group_by_thousands() {
        assert_eq!(Count(0).to_string(), "0");
        assert_eq!(Count(999).to_string(), "999");
        assert_eq!(Count(1000).to_string(), "1,000");
        assert_eq!(Count(16_777_220).to_string(), "16,777,220");
    }

    #[test]
    fn bytes_are_exact_when_small() {
        assert_eq!(Bytes(960).to_string(), "960 B");
        assert_eq!(Bytes(10_240).to_string(), "10.0 KiB");
        assert_eq!(Bytes(1_073_741_824).to_string(), "1.0 GiB");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(Nanos(640.0).to_string(), "640 ns");
        assert_eq!(Nanos(23_600.0).to_string(), "23.60 µs");
        assert_eq!(Nanos(2.5e6).to_string(), "2.50 ms");
    }
}
