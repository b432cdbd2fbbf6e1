//! Where the text form is written: a `String` (the public API: one line, a JSON `text`) or a
//! [`TextBuf`], the byte buffer `neff disasm` formats whole streams into (issue 20: the text is
//! ASCII, so the hot loop needs neither UTF-8 checks nor a `memcpy` call per short token).

use super::window::Window;

/// A writer of the (ASCII) text form. Every printer of [`crate::text`] is generic over it, so one
/// printer serves both the `String` API and the [`TextBuf`] fast path.
pub trait TextSink {
    /// Appends one ASCII character (`c` is never outside ASCII).
    fn push(&mut self, c: char);
    /// Appends a string.
    fn push_str(&mut self, s: &str);
    /// Appends `v` in decimal.
    fn push_dec(&mut self, v: u64);
    /// Appends `v` in lowercase hex without prefix or leading zeros.
    fn push_hex_digits(&mut self, v: u64);
    /// Appends bytes known to be ASCII.
    fn push_ascii(&mut self, ascii: &[u8]);
    /// The last byte written, if any.
    fn last_byte(&self) -> Option<u8>;
    /// This sink as a [`TextBuf`], if it is one: the printers then take the straight-line
    /// printers `view!` compiles per layout (decision D374). Other sinks need not override it.
    #[inline]
    fn as_text_buf(&mut self) -> Option<&mut TextBuf> {
        None
    }
}

/// Writes a token of at most `$room` bytes with `$write(&mut Window, $arg)` (a function, called
/// directly so that it is inlined): on a [`TextBuf`]'s storage directly (one capacity check for the
/// token), for any other sink into a stack buffer that is then appended. One writer of the token
/// serves both.
macro_rules! with_window {
    ($out:ident, $room:expr, $write:path, $arg:expr) => {
        match $out.as_text_buf() {
            Some(buf) => {
                let mut w = $crate::text::window::Window::new(buf.room($room));
                $write(&mut w, $arg);
                let n = w.len();
                buf.advance(n);
            }
            None => {
                let mut room = [0u8; $room];
                let mut w = $crate::text::window::Window::new(&mut room);
                $write(&mut w, $arg);
                let n = w.len();
                $out.push_ascii(&room[..n]);
            }
        }
    };
}
pub(crate) use with_window;

/// Lowercase hex digits.
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// The number of lowercase hex digits of `v` (1 for 0).
#[inline]
pub(crate) fn hex_digits(v: u64) -> usize {
    ((64 - (v | 1).leading_zeros()) as usize).div_ceil(4)
}

impl TextSink for String {
    #[inline]
    fn push(&mut self, c: char) {
        String::push(self, c)
    }

    #[inline]
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s)
    }

    #[inline]
    fn push_dec(&mut self, v: u64) {
        if v < 10 {
            String::push(self, (b'0' + v as u8) as char);
            return;
        }
        let mut digits = [0; 20];
        TextSink::push_ascii(self, dec_digits(v, &mut digits));
    }

    #[inline]
    fn push_hex_digits(&mut self, v: u64) {
        for k in (0..hex_digits(v)).rev() {
            String::push(self, HEX[((v >> (4 * k)) & 0xF) as usize] as char);
        }
    }

    #[inline]
    fn push_ascii(&mut self, ascii: &[u8]) {
        if ascii.len() <= 8 {
            ascii.iter().for_each(|&c| String::push(self, c as char));
        } else {
            String::push_str(self, std::str::from_utf8(ascii).unwrap_or_default());
        }
    }

    #[inline]
    fn last_byte(&self) -> Option<u8> {
        self.as_bytes().last().copied()
    }
}

/// A growable byte buffer for the text form: its storage is kept initialised past the text, so
/// a short token is copied as one or two fixed-width moves and a number is written in place
/// (no `memcpy` call, no digit buffer), with one bounds check per token.
#[derive(Debug, Clone, Default)]
pub struct TextBuf {
    /// Initialised storage; the text is `buf[..len]`.
    buf: Vec<u8>,
    len: usize,
}

/// The room `TextBuf` adds when it grows past its storage, beyond what was asked.
const GROW_SLACK: usize = 4096;

impl TextBuf {
    /// An empty buffer with room for `capacity` bytes of text.
    pub fn with_capacity(capacity: usize) -> Self {
        TextBuf {
            buf: vec![0; capacity],
            len: 0,
        }
    }

    /// The text written so far.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The text's length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets the text, keeping the storage.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` bytes of the text (all of it when `len` is past its end).
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Appends bytes of any kind (UTF-8 text, serialized JSON), not only ASCII tokens.
    #[inline]
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        self.room(n).copy_from_slice(bytes);
        self.len += n;
    }

    /// The next `n` bytes of storage, grown when needed; the caller fills them and advances
    /// `len` by what it wrote (at most `n`).
    #[inline(always)]
    pub(crate) fn room(&mut self, n: usize) -> &mut [u8] {
        if self.buf.len() - self.len < n {
            self.grow(n);
        }
        &mut self.buf[self.len..self.len + n]
    }

    #[cold]
    fn grow(&mut self, n: usize) {
        let want = (self.len + n + GROW_SLACK).max(2 * self.buf.len());
        self.buf.resize(want, 0);
    }
}

impl TextBuf {
    /// Keeps `n` more bytes of the storage [`TextBuf::room`] handed out as text.
    #[inline(always)]
    pub(crate) fn advance(&mut self, n: usize) {
        self.len += n;
    }
}

/// Copies `src` into `dst` (same length) with at most two overlapping fixed-width moves for
/// lengths up to 32 (the keys, names and mnemonics of a line), else one copy.
#[inline(always)]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    match n {
        0 => {}
        1..=3 => {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..n].copy_from_slice(&src[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..n].copy_from_slice(&src[n - 8..]);
        }
        17..=32 => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..n].copy_from_slice(&src[n - 16..]);
        }
        _ => dst[..n].copy_from_slice(src),
    }
}

/// `"00" "01" ... "99"`: two decimal digits per division.
pub(crate) const DEC_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The decimal digits of `v`, written from the end of `buf` (two per division; the count falls
/// out of the writing, no logarithm).
#[inline]
pub(crate) fn dec_digits(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    while v >= 100 {
        let d = 2 * (v % 100) as usize;
        v /= 100;
        buf[i - 2..i].copy_from_slice(&DEC_PAIRS[d..d + 2]);
        i -= 2;
    }
    if v >= 10 {
        let d = 2 * v as usize;
        buf[i - 2..i].copy_from_slice(&DEC_PAIRS[d..d + 2]);
        i -= 2;
    } else {
        buf[i - 1] = b'0' + v as u8;
        i -= 1;
    }
    &buf[i..]
}

impl TextSink for TextBuf {
    #[inline(always)]
    fn push(&mut self, c: char) {
        self.room(1)[0] = c as u8;
        self.len += 1;
    }

    #[inline(always)]
    fn push_str(&mut self, s: &str) {
        self.push_ascii(s.as_bytes())
    }

    #[inline(always)]
    fn push_dec(&mut self, v: u64) {
        let mut w = Window::new(self.room(Window::DEC_ROOM));
        w.dec(v);
        let n = w.len();
        self.len += n;
    }

    #[inline(always)]
    fn push_hex_digits(&mut self, v: u64) {
        let mut w = Window::new(self.room(Window::HEX_ROOM));
        w.hex(v);
        let n = w.len();
        self.len += n;
    }

    #[inline(always)]
    fn push_ascii(&mut self, ascii: &[u8]) {
        let n = ascii.len();
        copy_short(self.room(n), ascii);
        self.len += n;
    }

    #[inline(always)]
    fn last_byte(&self) -> Option<u8> {
        self.as_bytes().last().copied()
    }

    #[inline(always)]
    fn as_text_buf(&mut self) -> Option<&mut TextBuf> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::{TextBuf, TextSink};
    use proptest::prelude::*;

    /// The same tokens to any sink.
    fn tokens<W: TextSink>(out: &mut W, v: u64, small: u64, mid: u64, s: &str) {
        out.push_dec(v);
        out.push_hex_digits(v);
        out.push_dec(mid);
        out.push_hex_digits(mid);
        out.push_str(s);
        out.push(' ');
        out.push_dec(small);
        out.push_hex_digits(small);
    }

    proptest! {
        #[test]
        fn textbuf_writes_what_string_writes(
            v in any::<u64>(), small in 0u64..1000, mid in 0u64..0x2_0000_0000, s in "[ -~]{0,70}",
        ) {
            let mut a = String::new();
            tokens(&mut a, v, small, mid, &s);
            // A tiny start forces every growth path.
            let mut b = TextBuf::with_capacity(3);
            tokens(&mut b, v, small, mid, &s);
            prop_assert_eq!(a.as_bytes(), b.as_bytes());
            prop_assert_eq!(a, format!("{v}{v:x}{mid}{mid:x}{s} {small}{small:x}"));
        }
    }

    #[test]
    fn numbers_at_their_edges() {
        for v in [
            0,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            4096,
            9999,
            10_000,
            12_345_678,
            99_999_999,
            100_000_000,
            0xabc_def0,
            0xffff_ffff,
            0x1_0000_0000,
            u64::MAX / 10,
            u64::MAX,
        ] {
            let mut t = TextBuf::default();
            t.push_dec(v);
            t.push(' ');
            t.push_hex_digits(v);
            assert_eq!(t.as_bytes(), format!("{v} {v:x}").as_bytes());
        }
    }
}
