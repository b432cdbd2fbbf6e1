//! Reading a raw `.bin` engine stream piece by piece through one reused buffer, so that
//! `neff validate` / `neff disasm` never hold (and never page-fault in) the whole file: the
//! pieces are whole 64-byte slots (spec 003 §1), only the last may end with a partial slot.

use std::io::Read;
use std::path::Path;

use anyhow::Context;

/// Bytes per piece: 32,768 slots (`neff disasm` prints each half on its own core).
pub(crate) const PIECE: usize = 2 << 20;

/// Calls `f(first_byte_offset, piece)` for each piece of `path` in order; returns the file's
/// length.
pub(crate) fn for_each_piece(
    path: &Path,
    mut f: impl FnMut(u64, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut buf = vec![0u8; PIECE];
    let mut at = 0u64;
    loop {
        let n = fill(&mut file, &mut buf).with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            return Ok(at);
        }
        f(at, &buf[..n])?;
        at += n as u64;
        if n < buf.len() {
            return Ok(at);
        }
    }
}

/// Reads until `buf` is full or the file ends (a short read is not the end).
fn fill(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
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
