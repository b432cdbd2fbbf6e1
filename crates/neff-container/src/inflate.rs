//! Inflating the gzip payload (reference §1.2 notes: one gzip member, `1f 8b 08 00 <mtime> 04 03`)
//! into one buffer, bounded by [`Limits`] before anything is reserved.
//!
//! Backend: flate2 on zlib-rs with runtime CPU detection, raw deflate decoded in one call into a
//! buffer pre-sized from the gzip ISIZE trailer (decision D22, figures in docs/performance.md).
//! ISIZE is the size mod 2^32, so it only sizes the first reservation; the buffer grows (still
//! within the limits) when a payload is larger than 4 GiB.
//!
//! The compiler pads the payload with zero bytes to a multiple of 10240 after the gzip member
//! (matmul_small.neff: member 53,601 B, data_size 61,440; decision D26). An all-zero tail after
//! the last member is accepted, like `gzip -dc` does; any other trailing byte is an error.

use flate2::{Crc, Decompress, FlushDecompress, Status};

use crate::error::ContainerError;
use crate::limit_watch::LimitWatch;
use crate::limits::Limits;

/// gzip member header flags (RFC 1952 §2.3.1).
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Smallest growth step once the ISIZE-sized reservation is full.
const MIN_GROW: usize = 1 << 20;

/// Inflates every gzip member of `payload` into one buffer, checking each member's CRC-32 and
/// ISIZE trailer, and refusing to grow past the limits.
/// The tar's member-count and member-size limits are checked as the bytes come ([`LimitWatch`]).
pub(crate) fn inflate_gzip(payload: &[u8], limits: &Limits) -> Result<Vec<u8>, ContainerError> {
    let (cap, _) = limits.inflated_cap(payload.len() as u64);
    let first_guess = isize_hint(payload).min(cap);
    let mut out = Vec::new();
    reserve(&mut out, usize::try_from(first_guess).unwrap_or(usize::MAX))?;
    inflate_members_from(payload, 0, out, limits, &mut LimitWatch::new(limits))
}

/// Inflates the members from `pos` on (appending to `out`, whose bytes `watch` has seen), then
/// accepts only an all-zero tail.
pub(crate) fn inflate_members_from(
    payload: &[u8],
    mut pos: usize,
    mut out: Vec<u8>,
    limits: &Limits,
    watch: &mut LimitWatch<'_>,
) -> Result<Vec<u8>, ContainerError> {
    let (cap, cap_kind) = limits.inflated_cap(payload.len() as u64);
    while let Some(body) = next_member_body(payload, pos)? {
        let progress = MemberProgress::start(body, out.len());
        pos = finish_member(payload, progress, &mut out, (cap, cap_kind), watch)?;
    }
    Ok(out)
}

/// The deflate body offset of the gzip member starting at `pos`, or None when only zero
/// padding is left (decision D26); anything else is trailing data, an error.
pub(crate) fn next_member_body(
    payload: &[u8],
    pos: usize,
) -> Result<Option<usize>, ContainerError> {
    if payload[pos..].iter().all(|&b| b == 0) {
        return Ok(None);
    }
    if !payload[pos..].starts_with(&[0x1f, 0x8b]) {
        return Err(gz_err(
            pos,
            format!(
                "{} bytes of non-zero trailing data after the gzip member",
                payload.len() - pos
            ),
        ));
    }
    Ok(Some(pos + member_header_len(payload, pos)?))
}

/// A guess of the inflated size from the ISIZE trailer (size mod 2^32), used only to size the
/// first reservation. The zero padding (decision D26) hides where the trailer ends: it ends at
/// some `t` in `e..=e+3`, `e` being just past the last non-zero byte (ISIZE's high bytes may be
/// zero). Each later `t` reads a value ~256x smaller; the true one is the smallest candidate
/// that is still at least half the compressed size (exact whenever the ratio is under ~128).
pub(crate) fn isize_hint(payload: &[u8]) -> u64 {
    let end = payload.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let floor = end as u64 / 2;
    (end..=(end + 3).min(payload.len()))
        .filter_map(|t| payload.get(t.checked_sub(4)?..t))
        .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .filter(|&v| v >= floor)
        .min()
        .unwrap_or(end as u64 * 4)
}

/// Where the inflation of one member stands: its deflate body offset, the inflater, where its
/// output starts in the buffer and how much of that output the CRC already covers (the
/// two-thread reader hands over a member half done; decision D112).
pub(crate) struct MemberProgress {
    /// Offset of the member's deflate data in the payload.
    pub(crate) body: usize,
    /// The raw-deflate inflater, `total_in` bytes into the body.
    pub(crate) inflater: Decompress,
    /// Offset in the output buffer of the member's first inflated byte.
    pub(crate) out_start: usize,
    /// CRC-32 of `out[out_start..crc_upto]`.
    pub(crate) crc: Crc,
    /// End of the bytes `crc` covers.
    pub(crate) crc_upto: usize,
    /// The inflater has already returned `StreamEnd`.
    pub(crate) ended: bool,
}

impl MemberProgress {
    /// A member not yet started.
    pub(crate) fn start(body: usize, out_start: usize) -> Self {
        Self {
            body,
            inflater: Decompress::new(false),
            out_start,
            crc: Crc::new(),
            crc_upto: out_start,
            ended: false,
        }
    }
}

/// Inflates the rest of a member into `out` (growing it within the cap), checks its trailer and
/// returns the offset after it. Each step's bytes go through `watch`, so a tar limit stops the
/// inflate within one buffer growth of the header that breaks it.
pub(crate) fn finish_member(
    payload: &[u8],
    mut m: MemberProgress,
    out: &mut Vec<u8>,
    (cap, cap_kind): (u64, crate::limits::LimitKind),
    watch: &mut LimitWatch<'_>,
) -> Result<usize, ContainerError> {
    let body = m.body;
    while !m.ended {
        let inflater = &mut m.inflater;
        let consumed = body + inflater.total_in() as usize;
        let (before_in, before_out) = (inflater.total_in(), out.len());
        let status = inflater
            .decompress_vec(&payload[consumed..], out, FlushDecompress::Finish)
            .map_err(|e| gz_err(body + inflater.total_in() as usize, e.to_string()))?;
        watch.feed(&out[before_out..])?;
        if status == Status::StreamEnd {
            break;
        }
        if out.len() as u64 > cap {
            return Err(ContainerError::Limit {
                kind: cap_kind,
                found: out.len() as u64,
                limit: cap,
                at: None,
            });
        }
        if out.len() == out.capacity() {
            grow(out, cap)?;
        } else if inflater.total_in() == before_in && out.len() == before_out {
            return Err(gz_err(
                payload.len(),
                "the deflate stream ends early (truncated payload)".into(),
            ));
        }
    }
    let trailer_at = body + m.inflater.total_in() as usize;
    m.crc.update(&out[m.crc_upto..]);
    check_trailer(
        payload,
        trailer_at,
        Some(&m.crc),
        (out.len() - m.out_start) as u64,
    )?;
    Ok(trailer_at + 8)
}

/// Reserves the next chunk: double what is there, at least 1 MiB, at most one byte past `cap`
/// (so that exceeding the cap is observed rather than silently allowed).
fn grow(out: &mut Vec<u8>, cap: u64) -> Result<(), ContainerError> {
    let room = usize::try_from(cap.saturating_add(1))
        .unwrap_or(usize::MAX)
        .saturating_sub(out.len());
    reserve(out, out.len().max(MIN_GROW).min(room.max(1)))
}

/// Reserves `additional` bytes, turning an allocator refusal into an error instead of an abort
/// (a size the limits allow may still not fit the machine).
fn reserve(out: &mut Vec<u8>, additional: usize) -> Result<(), ContainerError> {
    out.try_reserve_exact(additional)
        .map_err(|_| ContainerError::OutOfMemory {
            bytes: (out.len() as u64).saturating_add(additional as u64),
        })
}

/// Length of the gzip member header at `start` (RFC 1952 §2.3), checking magic and method.
pub(crate) fn member_header_len(payload: &[u8], start: usize) -> Result<usize, ContainerError> {
    let h = &payload[start..];
    if h.len() < 10 {
        return Err(gz_err(start, "truncated gzip header".into()));
    }
    if h[0..2] != [0x1f, 0x8b] || h[2] != 8 {
        return Err(gz_err(
            start,
            format!("bad gzip magic/method {:02x?}", &h[0..3]),
        ));
    }
    let flags = h[3];
    let mut at = 10usize;
    if flags & FEXTRA != 0 {
        let len = h
            .get(at..at + 2)
            .ok_or_else(|| gz_err(start + at, "truncated FEXTRA".into()))?;
        at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let rest = h.get(at..).unwrap_or_default();
            let nul = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| gz_err(start + at, "unterminated gzip name/comment".into()))?;
            at += nul + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    if at > h.len() {
        return Err(gz_err(start, "truncated gzip header".into()));
    }
    Ok(at)
}

/// Checks CRC-32 and ISIZE (RFC 1952 §2.3.1) of one member's output (`crc` over its `len`
/// inflated bytes; None when the CRC is checked elsewhere, see [`check_crc`]). Returns the
/// stored CRC-32.
pub(crate) fn check_trailer(
    payload: &[u8],
    at: usize,
    crc: Option<&Crc>,
    len: u64,
) -> Result<u32, ContainerError> {
    let t = payload
        .get(at..at + 8)
        .ok_or_else(|| gz_err(at, "truncated gzip trailer (payload cut short)".into()))?;
    let crc_stored = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    let isize_stored = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
    if let Some(crc) = crc {
        check_crc(crc.sum(), crc_stored, at)?;
    }
    if len as u32 != isize_stored {
        return Err(gz_err(
            at + 4,
            format!("ISIZE {isize_stored} != inflated size {len} mod 2^32"),
        ));
    }
    Ok(crc_stored)
}

/// Compares a member's computed CRC-32 with the one stored in its trailer at `at`.
pub(crate) fn check_crc(computed: u32, stored: u32, at: usize) -> Result<(), ContainerError> {
    if computed != stored {
        return Err(gz_err(
            at,
            format!("CRC-32 {computed:08x} != stored {stored:08x}"),
        ));
    }
    Ok(())
}

pub(crate) fn gz_err(offset: usize, reason: String) -> ContainerError {
    ContainerError::Gzip {
        offset: offset as u64,
        reason,
    }
}

/// A gzip member of `bytes` (fast level): the test inputs of the readers.
#[cfg(test)]
pub(crate) fn gz(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}
