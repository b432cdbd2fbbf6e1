//! Indexing the inflated POSIX tar (reference §2): ustar and GNU forms, members in stored order,
//! directory entries skipped, a leading `./` stripped (libnrt's behaviour per S5, reference §2).
//! Nothing is copied: each member is an offset and a size into the inflated buffer, and every
//! declared size is checked against the bytes present before it is used.

use std::collections::HashMap;

use crate::error::ContainerError;
use crate::limits::{LimitKind, Limits};

/// A tar block.
pub(crate) const BLOCK: usize = 512;

/// Longest GNU `L` / pax record we accept for a path, in bytes.
const MAX_LONG_NAME: u64 = 64 * 1024;

/// Field ranges of a ustar header block (POSIX.1-1988 ustar).
mod field {
    use std::ops::Range;
    pub(super) const NAME: Range<usize> = 0..100;
    pub(super) const SIZE: Range<usize> = 124..136;
    pub(super) const CHKSUM: Range<usize> = 148..156;
    pub(super) const TYPEFLAG: usize = 156;
    pub(super) const MAGIC: Range<usize> = 257..263;
    pub(super) const PREFIX: Range<usize> = 345..500;
}

/// Most bytes accepted from the end-of-archive block to the end of the inflated stream
/// (decision D27): writers pad the archive to a 10 KiB record; anything much larger is not tar
/// padding but unchecked data (a bomb hidden after the archive).
pub(crate) const MAX_TAIL: u64 = 1 << 20;

/// One regular-file member located in the inflated stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Normalized path (no leading `./`, no empty or `.` components).
    pub(crate) path: Box<str>,
    /// Offset of the member's tar header in the inflated stream.
    pub(crate) header_offset: u64,
    /// Offset of the member's first data byte.
    pub(crate) data_offset: u64,
    /// Member size in bytes.
    pub(crate) size: u64,
}

/// The member index of a tar: entries in stored order and a path -> entry map.
#[derive(Debug, Default)]
pub(crate) struct TarIndex {
    pub(crate) entries: Vec<Entry>,
    pub(crate) by_path: HashMap<Box<str>, usize>,
}

/// Overrides carried from a GNU `L` or pax `x` entry to the entry that follows it.
#[derive(Default)]
struct Pending {
    path: Option<Vec<u8>>,
    size: Option<u64>,
}

/// What a non-zero header block declares, after its checksum and size field are checked.
#[derive(Debug)]
pub(crate) struct EntryHeader {
    /// Offset of the header block in the inflated stream.
    pub(crate) pos: u64,
    /// The ustar typeflag.
    pub(crate) typeflag: u8,
    /// Data size (a pax `size` override applied).
    pub(crate) size: u64,
    /// The stored path (a GNU long name or pax `path` applied), not yet normalized.
    pub(crate) raw_path: Vec<u8>,
}

/// What the data following a header is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryData {
    /// The regular member at this index of [`TarIndex::entries`].
    Member(usize),
    /// A GNU long name (`L`) or pax header (`x`) for the next entry; hand it to
    /// [`TarWalker::meta`].
    Meta(u8),
    /// Skipped (directory, pax global header, GNU long link).
    Skip,
}

/// The one tar header parser, shared by the buffered index ([`index_tar`]) and the streaming
/// scan (crate::tar_stream): header checks, path rules and every limit, applied per header.
pub(crate) struct TarWalker<'l> {
    limits: &'l Limits,
    /// The inflated-size cap and which limit sets it.
    cap: (u64, LimitKind),
    pending: Pending,
    /// Members recorded so far.
    pub(crate) index: TarIndex,
}

impl<'l> TarWalker<'l> {
    /// A walker under `limits`, the inflated stream capped at `cap` ([`Limits::inflated_cap`]).
    pub(crate) fn new(limits: &'l Limits, cap: (u64, LimitKind)) -> Self {
        Self {
            limits,
            cap,
            pending: Pending::default(),
            index: TarIndex::default(),
        }
    }

    /// Reads the header block at `pos`: None for a zero block (end of archive), else the
    /// declared entry (checksum and size field checked, pending long name / pax applied).
    pub(crate) fn header(
        &mut self,
        block: &[u8],
        pos: u64,
    ) -> Result<Option<EntryHeader>, ContainerError> {
        if block.iter().all(|&b| b == 0) {
            return Ok(None); // end-of-archive marker (two zero blocks; one is accepted)
        }
        check_checksum(block, pos)?;
        let size = match self.pending.size.take() {
            Some(size) => size,
            None => parse_number(&block[field::SIZE])
                .ok_or_else(|| tar_err(pos + 124, "bad size field".into()))?,
        };
        let raw_path = self
            .pending
            .path
            .take()
            .unwrap_or_else(|| header_path(block));
        Ok(Some(EntryHeader {
            pos,
            typeflag: block[field::TYPEFLAG],
            size,
            raw_path,
        }))
    }

    /// Classifies an entry and applies the limits its header declares — member count, member
    /// size, and its data end against the inflated cap — before any of its data is read.
    pub(crate) fn enter(&mut self, h: &EntryHeader) -> Result<EntryData, ContainerError> {
        let data = match h.typeflag {
            b'0' | 0 | b'7' if !h.raw_path.ends_with(b"/") => {
                let path = normalize_path(&h.raw_path, h.pos)?;
                EntryData::Member(add_entry(&mut self.index, self.limits, path, h)?)
            }
            b'0' | 0 | b'5' => EntryData::Skip, // directory entries are skipped (reference §2)
            b'L' if h.size > MAX_LONG_NAME => {
                return Err(tar_err(h.pos, format!("GNU long name of {} bytes", h.size)));
            }
            b'x' if h.size > MAX_LONG_NAME => {
                return Err(tar_err(h.pos, format!("pax header of {} bytes", h.size)));
            }
            b'L' | b'x' => EntryData::Meta(h.typeflag),
            b'g' | b'K' => EntryData::Skip,
            other => return Err(unsupported(&h.raw_path, h.pos, other)),
        };
        let end = h.pos.saturating_add(BLOCK as u64).saturating_add(h.size);
        let (cap, kind) = self.cap;
        if end > cap {
            return Err(ContainerError::Limit {
                kind,
                found: end,
                limit: cap,
                at: Some(String::from_utf8_lossy(&h.raw_path).into_owned()),
            });
        }
        Ok(data)
    }

    /// The data of an [`EntryData::Meta`] entry whose header is at `pos`.
    pub(crate) fn meta(
        &mut self,
        typeflag: u8,
        data: &[u8],
        pos: u64,
    ) -> Result<(), ContainerError> {
        match typeflag {
            b'L' => self.pending.path = Some(until_nul(data).to_vec()),
            _ => self.pending = parse_pax(data, pos)?,
        }
        Ok(())
    }
}

/// Refuses more than [`MAX_TAIL`] bytes from the end-of-archive block at `at` on (decision D27).
pub(crate) fn check_tail(tail: u64, at: u64) -> Result<(), ContainerError> {
    if tail > MAX_TAIL {
        return Err(tar_err(
            at,
            format!(
                "more than {MAX_TAIL} bytes from the end-of-archive block to the end of the payload"
            ),
        ));
    }
    Ok(())
}

/// Indexes every member of `tar`, refusing unsafe or unsupported entries (issue 3, "Package").
pub(crate) fn index_tar(tar: &[u8], limits: &Limits) -> Result<TarIndex, ContainerError> {
    // The tar is already inflated within the cap: its own length is the cap here.
    let mut walker = TarWalker::new(limits, (u64::MAX, LimitKind::TotalSize));
    let mut pos = 0usize;
    while pos < tar.len() {
        let Some(block) = tar.get(pos..pos + BLOCK) else {
            return Err(tar_err(
                pos as u64,
                format!("truncated header block ({} bytes left)", tar.len() - pos),
            ));
        };
        let Some(h) = walker.header(block, pos as u64)? else {
            check_tail((tar.len() - pos) as u64, pos as u64)?;
            break;
        };
        let data_offset = pos + BLOCK;
        let available = (tar.len() - data_offset) as u64;
        if h.size > available {
            return Err(ContainerError::MemberTruncated {
                path: String::from_utf8_lossy(&h.raw_path).into_owned(),
                offset: pos as u64,
                declared: h.size,
                available,
            });
        }
        // size <= available <= tar.len(), so these conversions and additions cannot overflow.
        let size = h.size as usize;
        let next = data_offset + size.div_ceil(BLOCK) * BLOCK;
        if let EntryData::Meta(typeflag) = walker.enter(&h)? {
            walker.meta(typeflag, &tar[data_offset..data_offset + size], h.pos)?;
        }
        pos = next.min(tar.len());
    }
    Ok(walker.index)
}

/// Records one regular member after the count, size and duplicate checks; returns its index.
fn add_entry(
    index: &mut TarIndex,
    limits: &Limits,
    path: String,
    h: &EntryHeader,
) -> Result<usize, ContainerError> {
    if index.entries.len() >= limits.max_members {
        let found = index.entries.len() as u64 + 1;
        return Err(ContainerError::Limit {
            kind: LimitKind::MemberCount,
            found,
            limit: limits.max_members as u64,
            at: Some(path),
        });
    }
    if h.size > limits.max_member_size {
        return Err(ContainerError::Limit {
            kind: LimitKind::MemberSize,
            found: h.size,
            limit: limits.max_member_size,
            at: Some(path),
        });
    }
    let path: Box<str> = path.into_boxed_str();
    if index.by_path.contains_key(&path) {
        return Err(ContainerError::DuplicatePath {
            path: path.into(),
            offset: h.pos,
        });
    }
    let at = index.entries.len();
    index.by_path.insert(path.clone(), at);
    index.entries.push(Entry {
        path,
        header_offset: h.pos,
        data_offset: h.pos + BLOCK as u64,
        size: h.size,
    });
    Ok(at)
}

/// The stored path: ustar `prefix/name` when the POSIX magic says the prefix field is a prefix
/// (GNU `ustar  ` headers use those bytes for times).
fn header_path(block: &[u8]) -> Vec<u8> {
    let name = until_nul(&block[field::NAME]);
    let prefix = until_nul(&block[field::PREFIX]);
    if &block[field::MAGIC] == b"ustar\0" && !prefix.is_empty() {
        [prefix, b"/", name].concat()
    } else {
        name.to_vec()
    }
}

/// Validates and normalizes a member path: UTF-8, relative, no `..`, leading `./` and empty or
/// `.` components dropped.
pub(crate) fn normalize_path(raw: &[u8], offset: u64) -> Result<String, ContainerError> {
    let refuse = |reason| ContainerError::UnsafePath {
        path: String::from_utf8_lossy(raw).into_owned(),
        offset,
        reason,
    };
    let text = std::str::from_utf8(raw).map_err(|_| refuse("not UTF-8"))?;
    if text.starts_with('/') {
        return Err(refuse("absolute path"));
    }
    if text.contains('\\') {
        return Err(refuse("backslash in path"));
    }
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse("`..` component")),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(refuse("empty path"));
    }
    Ok(parts.join("/"))
}

/// A pax extended header (`x`): records `"<len> <key>=<value>\n"`; `path` and `size` apply to the
/// next entry, other keys are ignored.
fn parse_pax(data: &[u8], pos: u64) -> Result<Pending, ContainerError> {
    let mut pending = Pending::default();
    let mut rest = data;
    while !rest.is_empty() && rest[0] != 0 {
        let bad = || tar_err(pos, "malformed pax record".into());
        let space = rest.iter().position(|&b| b == b' ').ok_or_else(bad)?;
        let len: usize = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        let record = rest.get(space + 1..len).ok_or_else(bad)?;
        let record = record.strip_suffix(b"\n").ok_or_else(bad)?;
        let eq = record.iter().position(|&b| b == b'=').ok_or_else(bad)?;
        let (key, value) = (&record[..eq], &record[eq + 1..]);
        match key {
            b"path" => pending.path = Some(value.to_vec()),
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(bad)?;
                pending.size = Some(size);
            }
            _ => {}
        }
        rest = &rest[len..];
    }
    Ok(pending)
}

/// A tar number field: octal text (NUL/space padded) or GNU base-256 (high bit of the first byte).
pub(crate) fn parse_number(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|&b| b & 0x80 != 0) {
        if field[0] & 0x40 != 0 {
            return None; // negative
        }
        let mut value = u64::from(field[0] & 0x3f);
        for &b in &field[1..] {
            value = value.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(value);
    }
    let text = field.iter().skip_while(|&&b| b == b' ');
    let mut value = 0u64;
    let mut digits = 0;
    for &b in text.take_while(|&&b| b != 0 && b != b' ') {
        if !(b'0'..=b'7').contains(&b) {
            return None;
        }
        value = value.checked_mul(8)?.checked_add(u64::from(b - b'0'))?;
        digits += 1;
    }
    (digits > 0 || field.iter().all(|&b| b == 0 || b == b' ')).then_some(value)
}

/// The header checksum: the sum of all bytes with the checksum field read as spaces (ustar);
/// the historic signed sum is accepted too.
fn check_checksum(block: &[u8], pos: u64) -> Result<(), ContainerError> {
    let stored = parse_number(&block[field::CHKSUM])
        .ok_or_else(|| tar_err(pos + 148, "bad checksum field".into()))?;
    let spaces = 8 * u64::from(b' ');
    let outside = |range: std::ops::Range<usize>| block[range].iter();
    let unsigned: u64 = outside(0..148)
        .chain(outside(156..BLOCK))
        .map(|&b| u64::from(b))
        .sum::<u64>()
        + spaces;
    let signed: i64 = outside(0..148)
        .chain(outside(156..BLOCK))
        .map(|&b| i64::from(b as i8))
        .sum::<i64>()
        + spaces as i64;
    if stored == unsigned || i64::try_from(stored).is_ok_and(|s| s == signed) {
        Ok(())
    } else {
        Err(tar_err(
            pos,
            format!("header checksum {stored:o} does not match computed {unsigned:o}"),
        ))
    }
}

/// The error for a link, device, fifo or unknown entry.
fn unsupported(raw_path: &[u8], pos: u64, typeflag: u8) -> ContainerError {
    let kind = match typeflag {
        b'1' => "hard link",
        b'2' => "symlink",
        b'3' => "character device",
        b'4' => "block device",
        b'6' => "fifo",
        b'S' => "GNU sparse file",
        _ => "unknown entry type",
    };
    ContainerError::UnsupportedEntry {
        path: String::from_utf8_lossy(raw_path).into_owned(),
        offset: pos,
        kind,
        typeflag: char::from(typeflag),
    }
}

fn until_nul(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())]
}

/// A malformed-tar error at `offset` of the inflated stream.
pub(crate) fn tar_err(offset: u64, reason: String) -> ContainerError {
    ContainerError::Tar { offset, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_octal_space_terminated_and_base256() {
        assert_eq!(parse_number(b"00000000620 "), Some(0o620));
        assert_eq!(parse_number(b"000664 \0"), Some(0o664));
        assert_eq!(
            parse_number(&[0x80, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0]),
            Some(1 << 36)
        );
        assert_eq!(parse_number(b"0009"), None);
        assert_eq!(parse_number(&[0xff; 12]), None);
    }

    #[test]
    fn paths_are_normalized_or_refused() {
        assert_eq!(
            normalize_path(b"./sg00//def.json", 0).unwrap(),
            "sg00/def.json"
        );
        for bad in [&b"/etc/passwd"[..], b"a/../../x", b"..", b"./", b"\xff"] {
            assert!(
                matches!(
                    normalize_path(bad, 0),
                    Err(ContainerError::UnsafePath { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
