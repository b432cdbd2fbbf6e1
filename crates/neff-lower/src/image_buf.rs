//! The buffer lowering and image assembly write records into (decision D830): the records in
//! order, as parts that are each either owned bytes or a run of the engine stream itself.
//!
//! Lowering copies a run of real opcodes 1 -> 1 (spec 001 §1), and on a real-shaped NEFF that is
//! almost every slot (the conv2d's 10.3 MB PE stream). A buffer in [`ImageBuf::borrowing`] mode
//! keeps such a run as a view of the stream instead of a copy, so a load that only reports on its
//! images, or `neff lower`, never holds a second copy of the stream beside the package. A buffer
//! made by [`ImageBuf::new`] copies every run: its bytes are one `Vec`, which
//! [`ImageBuf::into_vec`] hands over without a copy.
//!
//! Every write that is not an append names its record by image offset ([`ImageBuf::record_mut`],
//! [`ImageBuf::rewrite`]): a borrowed record written to is copied out of its run first (the run
//! split around it), so the stream is never written. Parts start and end on record boundaries
//! (every writer appends whole 64-byte records), so a record never straddles two parts.

use std::borrow::Cow;

use neff_isa::SLOT_BYTES;

/// Runs shorter than this are copied even by a borrowing buffer: a part per handful of slots
/// would cost more in bookkeeping than the bytes it saves.
pub const BORROW_MIN: usize = 16 * SLOT_BYTES;

/// One part: its image offset and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Part<'s> {
    at: usize,
    bytes: Cow<'s, [u8]>,
}

impl Part<'_> {
    fn end(&self) -> usize {
        self.at + self.bytes.len()
    }
}

/// An engine image or lowered stream under construction, `'s` the engine stream it may borrow
/// runs from (decision D830).
#[derive(Debug, Clone, Default)]
pub struct ImageBuf<'s> {
    /// In image order, contiguous: each part starts where the previous one ends; none is empty
    /// except possibly the last.
    parts: Vec<Part<'s>>,
    /// Whether [`push_run`](Self::push_run) may keep a run as a view of the stream.
    borrow: bool,
}

impl<'s> ImageBuf<'s> {
    /// A buffer that copies every run: one owned `Vec` throughout.
    pub fn new() -> Self {
        Self::default()
    }

    /// A buffer that keeps runs of [`BORROW_MIN`] bytes or more as views of the stream.
    pub fn borrowing() -> Self {
        Self {
            parts: Vec::new(),
            borrow: true,
        }
    }

    /// An owned buffer appending to `bytes` (cleared first, its capacity reused).
    pub fn from_vec(mut bytes: Vec<u8>) -> Self {
        bytes.clear();
        Self {
            parts: vec![Part {
                at: 0,
                bytes: Cow::Owned(bytes),
            }],
            borrow: false,
        }
    }

    /// Whether runs appended from now on may be borrowed (image assembly turns it off for the
    /// FUNCTION section, whose every record the function marker pass rewrites).
    pub fn set_borrowing(&mut self, borrow: bool) {
        self.borrow = borrow;
    }

    /// The image length in bytes.
    pub fn len(&self) -> usize {
        self.parts.last().map_or(0, Part::end)
    }

    /// Whether no byte was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held as views of the stream rather than copies.
    pub fn borrowed_len(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p.bytes, Cow::Borrowed(_)))
            .map(|p| p.bytes.len())
            .sum()
    }

    /// The owned bytes records are appended to, at the end of the image: offsets into it are
    /// relative to its own start, which is image offset `len() - tail().len()`.
    pub fn tail(&mut self) -> &mut Vec<u8> {
        let at = self.len();
        if !matches!(self.parts.last(), Some(p) if matches!(p.bytes, Cow::Owned(_))) {
            self.parts.push(Part {
                at,
                bytes: Cow::Owned(Vec::new()),
            });
        }
        // The last part is owned now: `to_mut` hands its `Vec` over without copying.
        let last = self.parts.len() - 1;
        self.parts[last].bytes.to_mut()
    }

    /// Appends owned bytes.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.tail().extend_from_slice(bytes);
    }

    /// Appends a run of the stream that lowering copies verbatim: kept as a view when borrowing
    /// and the run is at least [`BORROW_MIN`] bytes, copied otherwise.
    pub fn push_run(&mut self, run: &'s [u8]) {
        if !self.borrow || run.len() < BORROW_MIN {
            self.extend_from_slice(run);
            return;
        }
        if self.parts.last().is_some_and(|p| p.bytes.is_empty()) {
            self.parts.pop();
        }
        let at = self.len();
        self.parts.push(Part {
            at,
            bytes: Cow::Borrowed(run),
        });
    }

    /// The parts' bytes in image order (their concatenation is the image).
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.parts.iter().map(|p| &*p.bytes)
    }

    /// The index of the part holding image offset `at` (the last part for `at == len()`).
    fn part_of(&self, at: usize) -> Option<usize> {
        let i = self.parts.partition_point(|p| p.at <= at).checked_sub(1)?;
        // An empty last part shares its start with nothing after it; skip back over none.
        (at < self.parts[i].end() || at == self.len()).then_some(i)
    }

    /// The bytes `[at, at + len)` when one part holds them all (always so for a record).
    pub fn get(&self, at: usize, len: usize) -> Option<&[u8]> {
        let p = &self.parts[self.part_of(at)?];
        p.bytes.get(at - p.at..at - p.at + len)
    }

    /// The 64-byte record at image offset `at`.
    pub fn record(&self, at: usize) -> Option<&[u8]> {
        self.get(at, SLOT_BYTES)
    }

    /// The record at image offset `at`, writable: a borrowed record is first copied out of its
    /// run (the run split into before / the record / after), so the stream is never written.
    pub fn record_mut(&mut self, at: usize) -> Option<&mut [u8]> {
        if at.checked_add(SLOT_BYTES)? > self.len() {
            return None;
        }
        let i = self.part_of(at)?;
        let i = self.own_record(i, at);
        let p = &mut self.parts[i];
        p.bytes.to_mut().get_mut(at - p.at..at - p.at + SLOT_BYTES)
    }

    /// Makes the record at `at` (in part `i`) owned; returns the part now holding it.
    fn own_record(&mut self, i: usize, at: usize) -> usize {
        if matches!(self.parts[i].bytes, Cow::Owned(_)) {
            return i;
        }
        let i = self.split(i, at);
        self.split(i, at + SLOT_BYTES);
        let p = &mut self.parts[i];
        p.bytes = Cow::Owned(p.bytes.to_vec());
        i
    }

    /// Splits the borrowed part `i` at image offset `at` (inside it); returns the index of the
    /// part starting at `at`. An owned part, or `at` at a part's start or end, is left whole.
    fn split(&mut self, i: usize, at: usize) -> usize {
        let p = &self.parts[i];
        let Cow::Borrowed(run) = p.bytes else {
            return i;
        };
        if at <= p.at || at >= p.end() {
            return if at <= p.at { i } else { i + 1 };
        }
        let (before, after) = run.split_at(at - p.at);
        self.parts[i].bytes = Cow::Borrowed(before);
        let after = Part {
            at,
            bytes: Cow::Borrowed(after),
        };
        self.parts.insert(i + 1, after);
        i + 1
    }

    /// Rewrites the record at `at` with what `build` (a neff-isa builder called at offset 0 of
    /// an empty chunk) writes: the builders' `add_ins` copies exactly one whole record, so this
    /// equals calling the builder on a flat image at `at`.
    pub fn rewrite(&mut self, at: usize, build: impl FnOnce(&mut Vec<u8>)) {
        let mut chunk = Vec::with_capacity(SLOT_BYTES);
        build(&mut chunk);
        if let (Some(record), Some(new)) = (self.record_mut(at), chunk.get(..SLOT_BYTES)) {
            record.copy_from_slice(new);
        }
    }

    /// Inserts one zeroed record at image offset `at` (a record boundary, at most `len()`), the
    /// records from `at` on moving up by 64 bytes.
    pub fn insert_zeroed_record(&mut self, at: usize) {
        const ZEROS: [u8; SLOT_BYTES] = [0; SLOT_BYTES];
        if at == self.len() {
            self.extend_from_slice(&ZEROS);
            return;
        }
        let Some(i) = self.part_of(at) else { return };
        let i = match &mut self.parts[i] {
            Part {
                at: start,
                bytes: Cow::Owned(v),
            } => {
                let rel = at - *start;
                v.splice(rel..rel, ZEROS);
                i
            }
            _ => {
                let j = self.split(i, at);
                let zeros = Part {
                    at,
                    bytes: Cow::Owned(ZEROS.to_vec()),
                };
                self.parts.insert(j, zeros);
                j
            }
        };
        for later in &mut self.parts[i + 1..] {
            later.at += SLOT_BYTES;
        }
    }

    /// Shortens the image to `len` bytes (no effect when it is not longer).
    pub fn truncate(&mut self, len: usize) {
        while self.parts.last().is_some_and(|p| p.at >= len && p.at > 0) {
            self.parts.pop();
        }
        if let Some(p) = self.parts.last_mut() {
            let keep = len.saturating_sub(p.at).min(p.bytes.len());
            match &mut p.bytes {
                Cow::Owned(v) => v.truncate(keep),
                Cow::Borrowed(run) => *run = &run[..keep],
            }
        }
    }

    /// The image as one owned buffer: without a copy when it is one owned part (a buffer from
    /// [`new`](Self::new) or [`from_vec`](Self::from_vec)).
    pub fn into_vec(mut self) -> Vec<u8> {
        if self.parts.len() == 1
            && let Some(Part {
                bytes: Cow::Owned(v),
                ..
            }) = self.parts.pop()
        {
            return v;
        }
        self.to_vec()
    }

    /// The image copied into one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for p in self.parts() {
            out.extend_from_slice(p);
        }
        out
    }
}

/// Two buffers are equal when they hold the same bytes, however they are split into parts.
impl PartialEq for ImageBuf<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

impl Eq for ImageBuf<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(n: usize, seed: u8) -> Vec<u8> {
        (0..n * SLOT_BYTES)
            .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
            .collect()
    }

    /// A flat image and a borrowing buffer given the same appends and writes hold the same
    /// bytes; the stream is untouched and the long run stays borrowed.
    #[test]
    fn borrowing_matches_a_flat_image() {
        let stream = records(40, 3);
        let mut flat = Vec::new();
        let mut buf = ImageBuf::borrowing();
        flat.extend_from_slice(&[9u8; SLOT_BYTES]);
        buf.extend_from_slice(&[9u8; SLOT_BYTES]);
        flat.extend_from_slice(&stream);
        buf.push_run(&stream);
        flat.extend_from_slice(&[5u8; SLOT_BYTES]);
        buf.tail().extend_from_slice(&[5u8; SLOT_BYTES]);
        assert_eq!(buf.borrowed_len(), stream.len());
        // A write inside the run, an insertion inside it and one at the end.
        flat[10 * SLOT_BYTES + 3] |= 1;
        buf.record_mut(10 * SLOT_BYTES).unwrap()[3] |= 1;
        flat.splice(20 * SLOT_BYTES..20 * SLOT_BYTES, [0u8; SLOT_BYTES]);
        buf.insert_zeroed_record(20 * SLOT_BYTES);
        let end = flat.len() - SLOT_BYTES;
        flat.splice(end..end, [0u8; SLOT_BYTES]);
        buf.insert_zeroed_record(end);
        buf.rewrite(0, |c| c.extend_from_slice(&[1u8; SLOT_BYTES]));
        flat[..SLOT_BYTES].copy_from_slice(&[1u8; SLOT_BYTES]);
        assert_eq!(buf.len(), flat.len());
        assert_eq!(buf.to_vec(), flat);
        assert_eq!(buf.borrowed_len(), stream.len() - SLOT_BYTES);
        for at in (0..flat.len()).step_by(SLOT_BYTES) {
            assert_eq!(buf.record(at), Some(&flat[at..at + SLOT_BYTES]), "{at}");
        }
        assert_eq!(stream, records(40, 3));
        buf.truncate(5 * SLOT_BYTES);
        flat.truncate(5 * SLOT_BYTES);
        assert_eq!(buf.into_vec(), flat);
    }

    /// An owned buffer copies runs and hands its one `Vec` over.
    #[test]
    fn an_owned_buffer_is_one_vec() {
        let stream = records(20, 1);
        let mut buf = ImageBuf::from_vec(Vec::with_capacity(4096));
        buf.push_run(&stream);
        assert_eq!(buf.borrowed_len(), 0);
        assert_eq!(buf.parts().count(), 1);
        assert_eq!(buf.into_vec(), stream);
    }

    /// One edit of the property test, applied to a flat `Vec` and to a borrowing buffer.
    #[derive(Debug, Clone)]
    enum Edit {
        Append(u8),
        Run(usize, usize),
        Or(usize, u8),
        Insert(usize),
        Rewrite(usize, u8),
        Truncate(usize),
    }

    fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
        use proptest::prelude::*;
        prop_oneof![
            any::<u8>().prop_map(Edit::Append),
            (0usize..64, 0usize..40).prop_map(|(a, n)| Edit::Run(a, n)),
            (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Or(a, b)),
            any::<usize>().prop_map(Edit::Insert),
            (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Rewrite(a, b)),
            any::<usize>().prop_map(Edit::Truncate),
        ]
    }

    proptest::proptest! {
        /// Any sequence of appends, runs, record writes, insertions and truncations leaves a
        /// borrowing buffer with the bytes of the flat image, and the stream untouched.
        #[test]
        fn edits_match_a_flat_image(edits in proptest::collection::vec(edit(), 0..40)) {
            let stream = records(104, 5);
            let mut flat: Vec<u8> = Vec::new();
            let mut buf = ImageBuf::borrowing();
            let slots = |flat: &Vec<u8>| flat.len() / SLOT_BYTES;
            for e in edits {
                match e {
                    Edit::Append(b) => {
                        flat.extend_from_slice(&[b; SLOT_BYTES]);
                        buf.tail().extend_from_slice(&[b; SLOT_BYTES]);
                    }
                    Edit::Run(a, n) => {
                        let run = &stream[a * SLOT_BYTES..(a + n) * SLOT_BYTES];
                        flat.extend_from_slice(run);
                        buf.push_run(run);
                    }
                    Edit::Or(at, b) if slots(&flat) > 0 => {
                        let at = at % slots(&flat) * SLOT_BYTES;
                        flat[at + 3] |= b;
                        buf.record_mut(at).unwrap()[3] |= b;
                    }
                    Edit::Insert(at) => {
                        let at = at % (slots(&flat) + 1) * SLOT_BYTES;
                        flat.splice(at..at, [0u8; SLOT_BYTES]);
                        buf.insert_zeroed_record(at);
                    }
                    Edit::Rewrite(at, b) if slots(&flat) > 0 => {
                        let at = at % slots(&flat) * SLOT_BYTES;
                        flat[at..at + SLOT_BYTES].copy_from_slice(&[b; SLOT_BYTES]);
                        buf.rewrite(at, |c| c.extend_from_slice(&[b; SLOT_BYTES]));
                    }
                    Edit::Truncate(at) => {
                        let at = at % (slots(&flat) + 1) * SLOT_BYTES;
                        flat.truncate(at);
                        buf.truncate(at);
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(buf.len(), flat.len());
            }
            proptest::prop_assert_eq!(buf.to_vec(), flat.clone());
            for at in (0..flat.len()).step_by(SLOT_BYTES) {
                proptest::prop_assert_eq!(buf.record(at), Some(&flat[at..at + SLOT_BYTES]));
            }
            proptest::prop_assert_eq!(stream, records(104, 5));
        }
    }

    /// Short runs are copied even when borrowing.
    #[test]
    fn short_runs_are_copied() {
        let stream = records(2, 0);
        let mut buf = ImageBuf::borrowing();
        buf.push_run(&stream);
        assert_eq!(buf.borrowed_len(), 0);
        assert_eq!(buf.to_vec(), stream);
    }
}
