//! Reading a raw `.bin` engine stream piece by piece through one reused buffer, so that
//! `neff validate` / `neff disasm` never hold (and never page-fault in) the whole file: the
//! pieces are whole 64-byte slots (spec 003 §1), only the last may end with a partial slot, and
//! a piece never ends on a slot a continuation may follow (decision D155: a 0xD4 and its 0xDA
//! are judged and printed together).

use std::io::Read;
use std::path::Path;

use anyhow::Context;

/// Bytes per piece: 32,768 slots (`neff disasm` prints each half on its own core).
pub(crate) const PIECE: usize = 2 << 20;

/// Calls `f(first_byte_offset, piece)` for each piece of `path` in order; returns the file's
/// length. A 0xD4 or 0xD9 that ends a full piece is held back and starts the next one.
pub(crate) fn for_each_piece(
    path: &Path,
    mut f: impl FnMut(u64, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut pieces = Pieces::open(path)?;
    while let Some((at, piece)) = pieces.next_piece()? {
        f(at, &piece)?;
    }
    Ok(pieces.at)
}

/// The pieces of one `.bin` file, read in order, each in a buffer of its own (so that several
/// can be formatted at once: `neff disasm`, D392).
pub(crate) struct Pieces<'p> {
    path: &'p Path,
    file: Box<dyn Read + Send>,
    /// Stream offset of the next piece.
    at: u64,
    /// The open tail held back from the previous piece (at most one slot).
    tail: Vec<u8>,
    done: bool,
}

impl<'p> Pieces<'p> {
    /// Opens `path` (`-`: standard input).
    pub(crate) fn open(path: &'p Path) -> anyhow::Result<Self> {
        Ok(Pieces {
            path,
            file: super::input::open_file(path)?,
            at: 0,
            tail: Vec::new(),
            done: false,
        })
    }

    /// The next piece and its first byte's offset, or `None` after the last.
    pub(crate) fn next_piece(&mut self) -> anyhow::Result<Option<(u64, Vec<u8>)>> {
        if self.done {
            return Ok(None);
        }
        let mut buf = vec![0u8; PIECE];
        let kept = self.tail.len();
        buf[..kept].copy_from_slice(&self.tail);
        let n = kept
            + fill(&mut *self.file, &mut buf[kept..])
                .with_context(|| format!("reading {}", self.path.display()))?;
        let last = n < buf.len();
        self.done = last;
        if n == 0 {
            return Ok(None);
        }
        // A full piece holds back its open tail (at most one slot) for the next read.
        let hold = if last {
            0
        } else {
            neff_isa::continuation::open_tail(&buf[..n])
        };
        self.tail.clear();
        self.tail.extend_from_slice(&buf[n - hold..n]);
        buf.truncate(n - hold);
        let at = self.at;
        self.at += buf.len() as u64;
        Ok(Some((at, buf)))
    }
}

/// Reads until `buf` is full or the file ends (a short read is not the end).
fn fill(file: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
