//! Allocation-free number writing and parsing for the text form (the hot loop of the
//! disassembler writes into one reused [`super::TextBuf`], like iced-x86's formatter).

use super::sink::{HEX, TextSink};

/// Appends `v` as `0x` + lowercase hex without leading zeros.
#[inline]
pub(crate) fn push_hex<W: TextSink + ?Sized>(out: &mut W, v: u64) {
    out.push_str("0x");
    out.push_hex_digits(v);
}

/// Appends every byte of `bytes` as two lowercase hex digits.
#[inline]
pub(crate) fn push_hex_bytes<W: TextSink + ?Sized>(out: &mut W, bytes: &[u8]) {
    let mut buf = [0u8; 128];
    for chunk in bytes.chunks(64) {
        for (k, &b) in chunk.iter().enumerate() {
            buf[2 * k] = HEX[(b >> 4) as usize];
            buf[2 * k + 1] = HEX[(b & 0xF) as usize];
        }
        out.push_ascii(&buf[..2 * chunk.len()]);
    }
}

/// Parses a decimal or `0x` hex unsigned number.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.is_empty() {
            return None;
        }
        u64::from_str_radix(h, 16).ok()
    } else {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
}

/// Parses a signed decimal (optionally `-`) or `0x` hex number.
pub(crate) fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => parse_u64(rest)
            .and_then(|v| i64::try_from(v).ok())
            .map(|v| -v),
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Parses an even-length hex string into bytes (`None` on an odd length or a non-hex digit).
pub fn parse_hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let b = s.as_bytes();
    (0..b.len() / 2)
        .map(|i| {
            let hi = (b[2 * i] as char).to_digit(16)?;
            let lo = (b[2 * i + 1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_and_parsers_agree() {
        for v in [0u64, 1, 9, 10, 255, 4096, u64::MAX] {
            let mut s = String::new();
            s.push_dec(v);
            assert_eq!(s, v.to_string());
            assert_eq!(parse_u64(&s), Some(v));
            s.clear();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
            assert_eq!(parse_u64(&s), Some(v));
        }
        assert_eq!(parse_i64("-128"), Some(-128));
        assert_eq!(parse_hex_bytes("0a10"), Some(vec![0x0a, 0x10]));
        assert_eq!(parse_u64("1x"), None);
    }
}
