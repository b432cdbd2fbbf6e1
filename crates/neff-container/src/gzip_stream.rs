//! Inflating the gzip payload piece by piece into a caller's window (the streaming scan,
//! decision D27): the same members, trailer checks, zero tail (decision D26) and inflated-size
//! cap as [`crate::inflate`], but nothing is kept — each call overwrites the window. The CRC-32
//! of each member is computed here, or left to the caller (who may run it on another core).

use flate2::{Crc, Decompress, FlushDecompress, Status};

use crate::error::ContainerError;
use crate::inflate::{check_trailer, gz_err, next_member_body};
use crate::limits::{LimitKind, Limits};

/// The member being inflated.
struct Member {
    /// Offset of its deflate data in the payload.
    body: usize,
    inflater: Decompress,
    crc: Crc,
    /// Bytes it has produced so far.
    len: u64,
}

/// The end of a gzip member, for a caller that checks the CRC-32 itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemberEnd {
    /// Offset of the member's trailer in the payload.
    pub(crate) at: usize,
    /// The CRC-32 the trailer stores.
    pub(crate) stored_crc: u32,
}

/// What one [`GzStream::read`] produced: `len` bytes at the front of the window, all of one
/// member; `end` when that member ended with them. Nothing at all means the payload is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Bytes written to the window.
    pub(crate) len: usize,
    /// The member ended (its ISIZE checked, and its CRC-32 when the stream computes it).
    pub(crate) end: Option<MemberEnd>,
}

impl Piece {
    /// The payload is exhausted.
    pub(crate) fn is_done(&self) -> bool {
        self.len == 0 && self.end.is_none()
    }
}

/// A reader of the inflated payload (every gzip member in turn, RFC 1952 §2.2).
pub(crate) struct GzStream<'p> {
    payload: &'p [u8],
    /// Compute and check each member's CRC-32 here.
    crc_here: bool,
    cap: u64,
    cap_kind: LimitKind,
    member: Option<Member>,
    /// Where the next member starts when `member` is None.
    next: usize,
    /// Inflated bytes produced so far (all members).
    total: u64,
    done: bool,
}

impl<'p> GzStream<'p> {
    /// A stream over `payload`, refusing to produce more than the limits' inflated cap; with
    /// `crc_here` false the caller checks each member's CRC-32 against [`Piece::end`].
    pub(crate) fn new(payload: &'p [u8], limits: &Limits, crc_here: bool) -> Self {
        let (cap, cap_kind) = limits.inflated_cap(payload.len() as u64);
        Self {
            payload,
            crc_here,
            cap,
            cap_kind,
            member: None,
            next: 0,
            total: 0,
            done: false,
        }
    }

    /// Inflated bytes produced so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Writes the next inflated bytes to the front of `window`; an empty [`Piece`] only at the
    /// end of the payload (every trailer checked, only zero padding left).
    pub(crate) fn read(&mut self, window: &mut [u8]) -> Result<Piece, ContainerError> {
        loop {
            if self.done {
                return Ok(Piece { len: 0, end: None });
            }
            let Some(m) = self.member.as_mut() else {
                match next_member_body(self.payload, self.next)? {
                    Some(body) => {
                        self.member = Some(Member {
                            body,
                            inflater: Decompress::new(false),
                            crc: Crc::new(),
                            len: 0,
                        });
                    }
                    None => self.done = true,
                }
                continue;
            };
            // At most one byte past the cap, so that exceeding it is observed (as in inflate.rs).
            let room = self.cap.saturating_add(1) - self.total;
            let room = usize::try_from(room).map_or(window.len(), |r| r.min(window.len()));
            let (in_before, out_before) = (m.inflater.total_in(), m.inflater.total_out());
            let input = &self.payload[m.body + in_before as usize..];
            let status = m
                .inflater
                .decompress(input, &mut window[..room], FlushDecompress::None)
                .map_err(|e| gz_err(m.body + m.inflater.total_in() as usize, e.to_string()))?;
            let n = (m.inflater.total_out() - out_before) as usize;
            if self.crc_here {
                m.crc.update(&window[..n]);
            }
            m.len += n as u64;
            self.total += n as u64;
            if self.total > self.cap {
                return Err(ContainerError::Limit {
                    kind: self.cap_kind,
                    found: self.total,
                    limit: self.cap,
                    at: None,
                });
            }
            if status == Status::StreamEnd {
                let at = m.body + m.inflater.total_in() as usize;
                let crc = self.crc_here.then_some(&m.crc);
                let stored_crc = check_trailer(self.payload, at, crc, m.len)?;
                self.next = at + 8;
                self.member = None;
                let end = Some(MemberEnd { at, stored_crc });
                return Ok(Piece { len: n, end });
            }
            if n == 0 && m.inflater.total_in() == in_before {
                return Err(gz_err(
                    self.payload.len(),
                    "the deflate stream ends early (truncated payload)".into(),
                ));
            }
            if n > 0 {
                return Ok(Piece { len: n, end: None });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::inflate::gz;

    use super::*;

    fn drain(payload: &[u8], limits: &Limits, window: usize) -> Result<Vec<u8>, ContainerError> {
        let mut s = GzStream::new(payload, limits, true);
        let mut w = vec![0u8; window];
        let mut out = Vec::new();
        loop {
            let piece = s.read(&mut w)?;
            if piece.is_done() {
                return Ok(out);
            }
            out.extend_from_slice(&w[..piece.len]);
        }
    }

    #[test]
    fn members_and_zero_tail_stream_through_a_small_window() {
        let a: Vec<u8> = (0..100_000u32).map(|i| (i * 7 / 5) as u8).collect();
        let mut p = [gz(&a), gz(b"second")].concat();
        p.resize(p.len() + 300, 0);
        let out = drain(&p, &Limits::default(), 4096).unwrap();
        assert_eq!(out, [&a[..], b"second"].concat());
    }

    #[test]
    fn the_cap_stops_at_one_byte_past_it() {
        let p = gz(&vec![0u8; 1 << 20]);
        let limits = Limits {
            max_total_size: 1000,
            ..Limits::default()
        };
        match drain(&p, &limits, 1 << 16) {
            Err(ContainerError::Limit { found, limit, .. }) => {
                assert_eq!((found, limit), (1001, 1000));
            }
            other => panic!("expected a limit error, got {other:?}"),
        }
    }

    #[test]
    fn bad_crc_truncation_and_junk_are_errors() {
        let p = gz(&vec![5u8; 50_000]);
        let mut bad = p.clone();
        let n = bad.len();
        bad[n - 8] ^= 1;
        assert!(drain(&bad, &Limits::default(), 1024).is_err());
        assert!(drain(&p[..p.len() / 2], &Limits::default(), 1024).is_err());
        let junk = [&p[..], b"x"].concat();
        assert!(drain(&junk, &Limits::default(), 1024).is_err());
    }
}
