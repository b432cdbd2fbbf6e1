//! A bounded window of a sink's storage (issue 20): a token whose longest text is known (a tensor,
//! a number) is written with one capacity check for the whole token, through a position kept in a
//! register, instead of a check and a length update per piece. Numbers are written a word at a time.

use super::sink::{DEC_PAIRS, HEX, copy_short, dec_digits, hex_digits};

/// The next bytes of a sink's storage and how many of them are written.
#[derive(Debug)]
pub(crate) struct Window<'a> {
    room: &'a mut [u8],
    len: usize,
}

impl<'a> Window<'a> {
    /// The room [`Window::dec`] needs: 20 digits of a `u64`.
    pub(crate) const DEC_ROOM: usize = 20;
    /// The room [`Window::hex`] needs: 16 digits of a `u64`.
    pub(crate) const HEX_ROOM: usize = 16;

    /// A window on `room`, nothing written.
    #[inline(always)]
    pub(crate) fn new(room: &'a mut [u8]) -> Window<'a> {
        Window { room, len: 0 }
    }

    /// The bytes written.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends one byte.
    #[inline(always)]
    pub(crate) fn byte(&mut self, c: u8) {
        self.room[self.len] = c;
        self.len += 1;
    }

    /// Appends `K` bytes.
    #[inline(always)]
    pub(crate) fn bytes<const K: usize>(&mut self, b: &[u8; K]) {
        self.room[self.len..self.len + K].copy_from_slice(b);
        self.len += K;
    }

    /// Appends `ascii` (any length that fits the room; a fixed token is [`Window::bytes`]).
    #[inline(always)]
    pub(crate) fn ascii(&mut self, ascii: &[u8]) {
        let n = ascii.len();
        copy_short(&mut self.room[self.len..self.len + n], ascii);
        self.len += n;
    }

    /// Appends the first `n` bytes of a word, all `K` of which fit the room (a word of digits
    /// whose leading zeros were shifted out).
    #[inline(always)]
    fn word<const K: usize>(&mut self, b: [u8; K], n: usize) {
        self.room[self.len..self.len + K].copy_from_slice(&b);
        self.len += n;
    }

    /// Appends `ascii[..n]`, copying all 16 bytes (a pre-rendered token of up to 16 bytes).
    #[inline(always)]
    pub(crate) fn ascii16(&mut self, ascii: &[u8; 16], n: usize) {
        self.word(*ascii, n.min(16));
    }

    /// Appends `v` in decimal. Most numbers of a line are one or two digits (tensor steps and
    /// counts, indices); the rest up to 8 digits are one word whose leading zeros are shifted
    /// out. Needs [`Window::DEC_ROOM`].
    #[inline(always)]
    pub(crate) fn dec(&mut self, v: u64) {
        if v < 10 {
            self.byte(b'0' + v as u8);
        } else if v < 100 {
            let d = 2 * v as usize;
            self.word([DEC_PAIRS[d], DEC_PAIRS[d + 1]], 2);
        } else if v < 10_000 {
            let n = 3 + usize::from(v >= 1000);
            self.word((dec4(v as u32) >> (8 * (4 - n))).to_le_bytes(), n);
        } else if v < 100_000_000 {
            let (hi, lo) = ((v / 10_000) as u32, (v % 10_000) as u32);
            let n = 5 + usize::from(hi >= 10) + usize::from(hi >= 100) + usize::from(hi >= 1000);
            let word = (u64::from(dec4(hi)) | u64::from(dec4(lo)) << 32) >> (8 * (8 - n));
            self.word(word.to_le_bytes(), n);
        } else {
            let (digits, n) = dec_long(v);
            self.word(digits, n);
        }
    }

    /// Appends `v` in lowercase hex without prefix or leading zeros. Needs [`Window::HEX_ROOM`].
    #[inline(always)]
    pub(crate) fn hex(&mut self, v: u64) {
        let n = hex_digits(v);
        match u32::try_from(v) {
            Ok(v) => self.word((hex8(v) >> (8 * (8 - n))).to_le_bytes(), n),
            Err(_) => {
                for k in (0..n).rev() {
                    self.byte(HEX[((v >> (4 * k)) & 0xF) as usize]);
                }
            }
        }
    }
}

/// The digits of `v` (9 or more) and their count, out of line: a pure function, so that the
/// window calling it stays in registers.
#[inline(never)]
fn dec_long(v: u64) -> ([u8; 20], usize) {
    let mut digits = [0; 20];
    let n = dec_digits(v, &mut digits).len();
    digits.copy_within(20 - n.., 0);
    (digits, n)
}

/// The four decimal digits of `v < 10_000` with leading zeros, as the bytes of a little-endian
/// word (the first digit in the low byte).
#[inline(always)]
fn dec4(v: u32) -> u32 {
    let (hi, lo) = (2 * (v / 100) as usize, 2 * (v % 100) as usize);
    u32::from_le_bytes([
        DEC_PAIRS[hi],
        DEC_PAIRS[hi + 1],
        DEC_PAIRS[lo],
        DEC_PAIRS[lo + 1],
    ])
}

/// The eight lowercase hex digits of `v` with leading zeros, as the bytes of a little-endian
/// word (the first digit in the low byte): each nibble spread into a byte, then turned into its
/// ASCII digit eight at a time (SWAR) instead of a table look-up per digit.
#[inline(always)]
fn hex8(v: u32) -> u64 {
    let mut x = u64::from(v);
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Nibble i (from the low end) is now byte i; a nibble >= 10 gets `'a' - '0' - 10` more.
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + letters * 0x27).swap_bytes()
}
