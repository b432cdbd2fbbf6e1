//! Compact JSON written straight into a [`TextBuf`]: the bytes `serde_json::to_writer` writes for
//! the same values (strings escaped as it escapes them, floats by the formatter it uses), without
//! a serializer's per-key string escaping or a `String` per value (decision D660). Keys are
//! written as literals the caller knows need no escaping ([`key`]).

use super::sink::{HEX, TextBuf, TextSink};

/// Appends `"k":`. `k` must need no escaping (an identifier: the keys of `neff disasm --json` and
/// the layout tables' field names; `layout::tests` checks every field name).
#[inline(always)]
pub fn key(out: &mut TextBuf, k: &str) {
    debug_assert!(!k.bytes().any(needs_escape), "key {k:?} needs escaping");
    out.push('"');
    out.push_str(k);
    out.push_ascii(b"\":");
}

/// Appends `{"k":`, the first key of an object.
#[inline(always)]
pub fn key_first(out: &mut TextBuf, k: &str) {
    out.push('{');
    key(out, k);
}

/// Appends `,"k":`, a key after the first.
#[inline(always)]
pub fn key_next(out: &mut TextBuf, k: &str) {
    out.push(',');
    key(out, k);
}

/// Appends `null`.
#[inline(always)]
pub fn null(out: &mut TextBuf) {
    out.push_ascii(b"null");
}

/// Appends `true` or `false`.
#[inline(always)]
pub fn boolean(out: &mut TextBuf, b: bool) {
    out.push_ascii(if b { b"true" } else { b"false" });
}

/// Appends a signed integer in decimal.
#[inline(always)]
pub fn int(out: &mut TextBuf, v: i64) {
    if v < 0 {
        out.push('-');
    }
    out.push_dec(v.unsigned_abs());
}

/// Appends an f64 as serde_json does: non-finite values are `null`, finite ones the shortest
/// representation that reads back to the same value (serde_json 1.0.154 formats with `zmij`).
pub fn float(out: &mut TextBuf, v: f64) {
    if v.is_finite() {
        let mut buf = zmij::Buffer::new();
        out.push_str(buf.format_finite(v));
    } else {
        null(out);
    }
}

/// Appends `s` as a quoted JSON string.
#[inline]
pub fn string(out: &mut TextBuf, s: &str) {
    out.push('"');
    let from = out.len();
    out.extend_from_slice(s.as_bytes());
    escape_from(out, from);
    out.push('"');
}

/// Appends `Some(s)` as a string, `None` as `null`.
#[inline]
pub fn opt_string(out: &mut TextBuf, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => null(out),
    }
}

/// Appends the lowercase hex of `bytes` as a quoted string.
#[inline]
pub fn hex(out: &mut TextBuf, bytes: &[u8]) {
    out.push('"');
    let room = out.room(2 * bytes.len());
    for (pair, &b) in room.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 0xF)];
    }
    out.advance(2 * bytes.len());
    out.push('"');
}

/// Whether serde_json escapes byte `b` inside a string: `"`, `\` and the C0 controls.
#[inline(always)]
const fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Escapes in place what was written from byte `from` on (text written raw and then quoted: the
/// disassembly of a slot, which is ASCII and almost never holds a character to escape).
#[inline]
pub fn escape_from(out: &mut TextBuf, from: usize) {
    let Some(first) = out.as_bytes()[from..].iter().position(|&b| needs_escape(b)) else {
        return;
    };
    let raw = out.as_bytes()[from + first..].to_vec();
    out.truncate(from + first);
    for b in raw {
        push_escaped_byte(out, b);
    }
}

/// Appends byte `b` as serde_json writes it inside a string.
fn push_escaped_byte(out: &mut TextBuf, b: u8) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0A => b'n',
        0x0C => b'f',
        0x0D => b'r',
        _ if b < 0x20 => {
            out.push_ascii(b"\\u00");
            out.push_ascii(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
            return;
        }
        _ => {
            out.extend_from_slice(&[b]);
            return;
        }
    };
    out.push_ascii(&[b'\\', short]);
}

/// Rewrites compact JSON (this module's, or serde_json's compact bytes) as serde_json's pretty
/// printer writes the same value: two-space indents, `"k": v`, `[]` / `{}` when empty. The state
/// carries across calls, so a document can be reindented in parts; a part may start at a known
/// depth ([`Pretty::at_depth`]) between two values of a non-empty container.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pretty {
    /// Containers open around the next byte.
    depth: usize,
    /// A container was just opened: the next byte either closes it (`[]`) or starts its first
    /// value on a new line.
    open: bool,
}

/// A newline and the indent of the deepest line the pretty printer indents without a loop.
const NEWLINE_INDENT: &[u8; 1 + 2 * 16] = b"\n                                ";

impl Pretty {
    /// A reindenter at the start of a document.
    pub const fn new() -> Self {
        Self {
            depth: 0,
            open: false,
        }
    }

    /// A reindenter inside `depth` containers, after a value (the next byte is `,` or a close).
    pub const fn at_depth(depth: usize) -> Self {
        Self { depth, open: false }
    }

    /// Appends the pretty form of `compact`.
    pub fn write(&mut self, compact: &[u8], out: &mut TextBuf) {
        let mut i = 0;
        while let Some(&c) = compact.get(i) {
            let end = match c {
                b'"' => {
                    self.before_value(out);
                    string_end(compact, i)
                }
                b'{' | b'[' => {
                    self.before_value(out);
                    self.depth += 1;
                    self.open = true;
                    i + 1
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if !std::mem::take(&mut self.open) {
                        self.newline(out);
                    }
                    i + 1
                }
                b',' => {
                    out.push(',');
                    self.newline(out);
                    i += 1;
                    continue;
                }
                b':' => {
                    out.push_ascii(b": ");
                    i += 1;
                    continue;
                }
                _ => {
                    self.before_value(out);
                    let run = compact[i..].iter().position(|&b| is_structural(b));
                    run.map_or(compact.len(), |n| i + n)
                }
            };
            out.extend_from_slice(&compact[i..end]);
            i = end;
        }
    }

    /// Starts the first value of a container just opened on a line of its own.
    #[inline]
    fn before_value(&mut self, out: &mut TextBuf) {
        if std::mem::take(&mut self.open) {
            self.newline(out);
        }
    }

    /// A newline and the current indent.
    #[inline]
    fn newline(&self, out: &mut TextBuf) {
        let spaces = 2 * self.depth;
        let direct = spaces.min(NEWLINE_INDENT.len() - 1);
        out.push_ascii(&NEWLINE_INDENT[..1 + direct]);
        for _ in direct..spaces {
            out.push(' ');
        }
    }
}

/// Whether `b` is a byte the reindenter acts on outside strings.
#[inline(always)]
const fn is_structural(b: u8) -> bool {
    matches!(b, b'"' | b'{' | b'}' | b'[' | b']' | b',' | b':')
}

/// The index past the closing quote of the string opening at `compact[at]` (the end of the bytes
/// for an unterminated one).
#[inline]
fn string_end(compact: &[u8], at: usize) -> usize {
    let mut j = at + 1;
    while let Some(&b) = compact.get(j) {
        match b {
            b'"' => return j + 1,
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
    compact.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(f: impl FnOnce(&mut TextBuf)) -> Vec<u8> {
        let mut out = TextBuf::with_capacity(1);
        f(&mut out);
        out.as_bytes().to_vec()
    }

    /// Reference bytes: what serde_json writes (a dev-dependency of neff-isa).
    fn serde<T: serde::Serialize + ?Sized>(v: &T) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }

    proptest! {
        #[test]
        fn strings_escape_as_serde_json_does(s in any::<String>()) {
            prop_assert_eq!(written(|o| string(o, &s)), serde(&s));
        }

        #[test]
        fn ascii_with_controls_escapes_as_serde_json_does(s in "[\\x00-\\x7f]{0,80}") {
            prop_assert_eq!(written(|o| string(o, &s)), serde(&s));
        }

        #[test]
        fn numbers_are_serde_json_numbers(i in any::<i64>(), bits in any::<u32>(), wide in any::<u64>()) {
            prop_assert_eq!(written(|o| int(o, i)), serde(&i));
            let f = f64::from(f32::from_bits(bits));
            prop_assert_eq!(written(|o| float(o, f)), serde(&f));
            let d = f64::from_bits(wide);
            prop_assert_eq!(written(|o| float(o, d)), serde(&d));
        }

        #[test]
        fn hex_is_lowercase_pairs(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            prop_assert_eq!(written(|o| hex(o, &bytes)), serde(&want));
        }
    }

    /// A JSON value of strings, numbers, literals, arrays and objects (empty ones included).
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[ -~\\x00-\\x1f{}\\[\\],:\"\\\\]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-z,:{}\"]{0,6}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whole, and cut at any byte into two parts reindented in turn, a compact document
        /// comes out as serde_json's pretty printer writes it.
        #[test]
        fn pretty_is_serde_jsons_pretty(v in json_value(), cut in any::<prop::sample::Index>()) {
            let compact = serde_json::to_vec(&v).unwrap();
            let want = serde_json::to_vec_pretty(&v).unwrap();
            let whole = written(|o| Pretty::new().write(&compact, o));
            prop_assert_eq!(String::from_utf8_lossy(&whole), String::from_utf8_lossy(&want));
            let at = cut.index(compact.len() + 1);
            let parts = written(|o| {
                let mut p = Pretty::new();
                p.write(&compact[..at], o);
                p.write(&compact[at..], o);
            });
            // A cut inside a string or a number cannot be resumed without its state; only
            // the cuts outside them are promised.
            if at == 0 || at == compact.len() || is_structural(compact[at - 1]) && !inside_string(&compact, at) {
                prop_assert_eq!(parts, want);
            }
        }
    }

    /// Whether byte `at` of `compact` is inside a string.
    fn inside_string(compact: &[u8], at: usize) -> bool {
        let mut i = 0;
        let mut inside = false;
        while i < at {
            match compact[i] {
                b'\\' if inside => i += 1,
                b'"' => inside = !inside,
                _ => {}
            }
            i += 1;
        }
        inside
    }

    #[test]
    fn pretty_resumes_inside_a_container() {
        let doc = br#"{"a":[{"x":1},{"x":2}],"b":[]}"#;
        let want =
            serde_json::to_vec_pretty(&serde_json::from_slice::<serde_json::Value>(doc).unwrap())
                .unwrap();
        // The second part starts between the array's values, two containers deep.
        let split = doc.iter().position(|&b| b == b',').unwrap();
        let mut out = TextBuf::with_capacity(1);
        Pretty::new().write(&doc[..split], &mut out);
        Pretty::at_depth(2).write(&doc[split..], &mut out);
        assert_eq!(
            String::from_utf8_lossy(out.as_bytes()),
            String::from_utf8_lossy(&want)
        );
    }

    #[test]
    fn literals_and_edges() {
        assert_eq!(written(|o| int(o, i64::MIN)), serde(&i64::MIN));
        assert_eq!(written(|o| int(o, -1)), b"-1");
        assert_eq!(written(|o| float(o, f64::NAN)), serde(&f64::NAN));
        assert_eq!(written(|o| float(o, -0.0)), serde(&-0.0f64));
        assert_eq!(written(|o| float(o, 1.0)), serde(&1.0f64));
        assert_eq!(written(|o| float(o, 1e-7)), serde(&1e-7f64));
        assert_eq!(written(|o| boolean(o, true)), serde(&true));
        assert_eq!(written(null), serde(&()));
        assert_eq!(written(|o| opt_string(o, None)), serde(&None::<&str>));
        assert_eq!(written(|o| key(o, "start_addr")), b"\"start_addr\":");
        // Raw text escaped afterwards, from a start inside the buffer.
        let got = written(|o| {
            o.push_str("ab");
            let from = o.len();
            o.push_str("x\"y\\z\n\u{1}");
            escape_from(o, from);
        });
        assert_eq!(got, b"abx\\\"y\\\\z\\n\\u0001");
    }
}
