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
    let mut file = super::input::open_file(path)?;
    let mut buf = vec![0u8; PIECE];
    let mut at = 0u64;
    let mut kept = 0;
    loop {
        let n = kept
            + fill(&mut *file, &mut buf[kept..])
                .with_context(|| format!("reading {}", path.display()))?;
        if n == kept && kept == 0 {
            return Ok(at);
        }
        let last = n < buf.len();
        // A full piece holds back its open tail (at most one slot) for the next read.
        let hold = if last {
            0
        } else {
            neff_isa::continuation::open_tail(&buf[..n])
        };
        f(at, &buf[..n - hold])?;
        at += (n - hold) as u64;
        if last {
            return Ok(at);
        }
        buf.copy_within(n - hold..n, 0);
        kept = hold;
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
