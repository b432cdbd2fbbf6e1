//! The streaming scan (decision D27): a NEFF read through a small reusable window instead of
//! one inflated buffer. Every tar header is checked, and every limit applied, as soon as the
//! header has streamed by, so a bomb is refused after a bounded amount of inflating; only the
//! members a caller asks for are kept, plus the list of every member {path, offset, size}.
//! On payloads of 1 MiB or more the caller's thread only inflates; a second thread computes the
//! header hash (reference §1.1) and the gzip CRC-32s, walks the tar and copies the kept members
//! (decision D380).

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use flate2::Crc;

use crate::error::ContainerError;
use crate::gzip_stream::{GzStream, Piece};
use crate::hash::{self, HashStatus, PayloadHasher};
use crate::header::Header;
use crate::inflate::check_crc;
use crate::kept_bytes::KeptBytes;
use crate::neff::{ReadOptions, payload_of};
use crate::tar_read::TarIndex;
use crate::tar_stream::TarStream;

/// Bytes inflated per step: small enough to stay in the L2 cache between the inflater writing
/// it and the CRC / tar reader reading it, large enough that per-call costs are noise.
pub const SCAN_WINDOW: usize = 256 << 10;

/// Payloads shorter than this are read on the caller's thread alone (a thread costs more).
const HASH_THREAD_MIN: usize = 1 << 20;

/// Windows in flight between the inflater and the helper thread.
const WINDOWS: usize = 8;

/// Payload bytes hashed between two looks for filled windows.
const HASH_STEP: usize = 256 << 10;

/// One member as a scan saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScannedMember<'s> {
    /// Path inside the package (normalized, as [`crate::Member::path`]).
    pub path: &'s str,
    /// Offset of the member's data in the inflated tar (as [`crate::Member::offset`]).
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// The bytes, when the scan's `keep` predicate chose the member.
    pub data: Option<&'s [u8]>,
}

/// The outcome of [`scan`]: header, hash status, every member's path, offset and size, and the
/// bytes of the kept members.
#[derive(Debug)]
pub struct Scan<'a> {
    header: Header,
    hash_status: HashStatus,
    payload: &'a [u8],
    index: TarIndex,
    kept: HashMap<usize, KeptBytes>,
    inflated_size: u64,
}

/// Reads `bytes` as [`crate::Neff::parse_with`] does — same header, payload, gzip, tar and limit
/// checks, the same errors for a valid-but-limited input — but streaming: the inflated tar is
/// never held whole. `keep(path, size)` is asked once per regular member, when its header has
/// been read; the bytes of the members it accepts are kept (it should bound the size it
/// accepts). A package is refused as soon as a header declares more than a limit allows, and
/// more than 1 MiB after the end-of-archive block is an error (decision D27).
pub fn scan<'a>(
    bytes: &'a [u8],
    options: &ReadOptions,
    keep: impl FnMut(&str, u64) -> bool + Send,
) -> Result<Scan<'a>, ContainerError> {
    let header = Header::parse(bytes)?;
    let payload = payload_of(&header, bytes)?;
    let (status, streamed) = if payload.len() < HASH_THREAD_MIN || !options.threads {
        let status = if options.verify {
            hash::check(&header, payload)
        } else {
            HashStatus::NotChecked
        };
        (status, stream(payload, options, keep, SCAN_WINDOW).0)
    } else {
        two_threads(&header, payload, options, keep)
    };
    let hash_status = hash::status_result(&header, payload, status)?;
    let (index, kept, inflated_size) = streamed?;
    Ok(Scan {
        header,
        hash_status,
        payload,
        index,
        kept,
        inflated_size,
    })
}

/// What [`stream`] found: the index, the kept members and the inflated size.
type Streamed = (TarIndex, HashMap<usize, KeptBytes>, u64);

/// The scan on two cores (decision D380): the caller's thread only inflates; the helper
/// ([`helper`]) takes each filled window, CRCs it, walks its tar headers and copies the kept
/// members' bytes (so their first-touch page faults are its, as in D112), hands the window
/// back, and hashes the payload in the gaps. A limit the helper finds stops the inflater within
/// [`WINDOWS`] windows (it stops handing windows back). An error of the helper's is earlier in
/// the data than one of the inflater's, which is reported only when the helper saw none.
fn two_threads(
    header: &Header,
    payload: &[u8],
    options: &ReadOptions,
    keep: impl FnMut(&str, u64) -> bool + Send,
) -> (HashStatus, Result<Streamed, ContainerError>) {
    std::thread::scope(|s| {
        let (to_helper, filled) = channel();
        let (to_inflater, free) = channel();
        for _ in 0..WINDOWS {
            let _ = to_inflater.send(vec![0u8; SCAN_WINDOW]);
        }
        let verify = options.verify;
        let walk = Walk::new(payload, options, keep, true);
        let helping = s.spawn(move || helper(header, payload, verify, walk, filled, to_inflater));
        let inflated = inflate_windows(payload, options, free, to_helper);
        let (status, walked) = helping
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let streamed = walked.and_then(|walk| {
            let total = inflated?;
            let (index, kept) = walk.finish()?;
            Ok((index, kept, total))
        });
        (status, streamed)
    })
}

/// The inflater's side of [`two_threads`]: inflates into the free windows and sends each
/// filled one to the helper; returns the inflated size. Stops early, without an error of its
/// own, when the helper stops listening (it found an error, which it reports).
fn inflate_windows(
    payload: &[u8],
    options: &ReadOptions,
    free: Receiver<Vec<u8>>,
    filled: Sender<(Vec<u8>, Piece)>,
) -> Result<u64, ContainerError> {
    let mut gz = GzStream::new(payload, &options.limits, false);
    while let Ok(mut window) = free.recv() {
        let piece = gz.read(&mut window)?;
        if piece.is_done() || filled.send((window, piece)).is_err() {
            break;
        }
    }
    Ok(gz.total())
}

/// What reads the inflated stream in order: the tar reader (which copies the kept members),
/// and the CRC-32 of each gzip member when the gzip stream does not check it itself.
struct Walk<'l, K> {
    tar: TarStream<'l, K>,
    crc: Option<MemberCrc>,
}

impl<'l, K: FnMut(&str, u64) -> bool> Walk<'l, K> {
    fn new(payload: &[u8], options: &'l ReadOptions, keep: K, crc: bool) -> Self {
        let limits = &options.limits;
        Self {
            tar: TarStream::new(
                limits,
                limits.inflated_cap(payload.len() as u64),
                options.map_memory,
                keep,
            ),
            crc: crc.then(MemberCrc::default),
        }
    }

    /// The next `piece` of the stream, at the front of `window`.
    fn add(&mut self, window: &[u8], piece: Piece) -> Result<(), ContainerError> {
        if let Some(crc) = &mut self.crc {
            crc.add(window, piece)?;
        }
        self.tar.feed(&window[..piece.len])
    }

    /// The end of the stream: the tar must be complete.
    fn finish(self) -> Result<(TarIndex, HashMap<usize, KeptBytes>), ContainerError> {
        self.tar.finish()
    }
}

/// The helper thread: each filled window first (so windows come back quickly), the payload
/// hash in [`HASH_STEP`] slices while none is waiting. On an error it stops taking and handing
/// back windows (which stops the inflater) and finishes the hash, whose mismatch is reported
/// before any stream error.
fn helper<'l, K: FnMut(&str, u64) -> bool>(
    header: &Header,
    payload: &[u8],
    verify: bool,
    mut walk: Walk<'l, K>,
    filled: Receiver<(Vec<u8>, Piece)>,
    free: Sender<Vec<u8>>,
) -> (HashStatus, Result<Walk<'l, K>, ContainerError>) {
    let mut hasher = verify.then(|| PayloadHasher::new(header));
    let mut hashed = 0usize;
    let fed = loop {
        let next = match filled.try_recv() {
            Ok(w) => Some(w),
            Err(TryRecvError::Disconnected) => break Ok(()),
            Err(TryRecvError::Empty) => None,
        };
        let (window, piece) = match next {
            Some(w) => w,
            None => match hasher.as_mut().filter(|_| hashed < payload.len()) {
                Some(h) => {
                    let end = (hashed + HASH_STEP).min(payload.len());
                    h.update(&payload[hashed..end]);
                    hashed = end;
                    continue;
                }
                None => match filled.recv() {
                    Ok(w) => w,
                    Err(_) => break Ok(()),
                },
            },
        };
        if let Err(e) = walk.add(&window, piece) {
            break Err(e);
        }
        let _ = free.send(window);
    };
    drop((filled, free));
    if let Some(h) = hasher.as_mut() {
        h.update(&payload[hashed..]);
    }
    let status = hasher.map_or(HashStatus::NotChecked, |h| h.finish(header));
    (status, fed.map(|()| walk))
}

/// The running CRC-32 of the current gzip member (RFC 1952 §2.3.1).
#[derive(Default)]
struct MemberCrc {
    crc: Crc,
}

impl MemberCrc {
    /// Adds `piece`; at its member's end, compares with the stored CRC-32.
    fn add(&mut self, window: &[u8], piece: Piece) -> Result<(), ContainerError> {
        self.crc.update(&window[..piece.len]);
        if let Some(end) = piece.end {
            let sum = std::mem::take(&mut self.crc).sum();
            check_crc(sum, end.stored_crc, end.at)?;
        }
        Ok(())
    }
}

/// Inflates `payload` through one window of `window` bytes on the caller's thread into the
/// tar reader; also returns how many bytes were inflated, error or not (the tests bound it for
/// bombs).
fn stream(
    payload: &[u8],
    options: &ReadOptions,
    keep: impl FnMut(&str, u64) -> bool,
    window: usize,
) -> (Result<Streamed, ContainerError>, u64) {
    let mut gz = GzStream::new(payload, &options.limits, true);
    let mut walk = Walk::new(payload, options, keep, false);
    let mut window = vec![0u8; window];
    let result = loop {
        let piece = match gz.read(&mut window) {
            Ok(piece) => piece,
            Err(e) => break Err(e),
        };
        if piece.is_done() {
            break walk.finish();
        }
        if let Err(e) = walk.add(&window, piece) {
            break Err(e);
        }
    };
    let total = gz.total();
    (result.map(|(index, kept)| (index, kept, total)), total)
}

impl<'a> Scan<'a> {
    /// The typed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The integrity outcome ([`HashStatus::NotChecked`] when `verify` was off).
    pub fn hash_status(&self) -> HashStatus {
        self.hash_status
    }

    /// The stored (compressed) payload, `data_size` bytes from file offset 0x400.
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// Every member in stored order, with the bytes of the kept ones.
    pub fn members(&self) -> impl ExactSizeIterator<Item = ScannedMember<'_>> + '_ {
        self.index
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| ScannedMember {
                path: &e.path,
                offset: e.data_offset,
                size: e.size,
                data: self.kept.get(&i).map(|k| &**k),
            })
    }

    /// Number of members.
    pub fn member_count(&self) -> usize {
        self.index.entries.len()
    }

    /// Sum of member sizes.
    pub fn total_member_size(&self) -> u64 {
        self.index.entries.iter().map(|e| e.size).sum()
    }

    /// The size of the member at `path`, kept or not.
    pub fn member_size(&self, path: &str) -> Option<u64> {
        Some(self.index.entries[*self.index.by_path.get(path)?].size)
    }

    /// The bytes of the member at `path`, if it exists and was kept.
    pub fn member(&self, path: &str) -> Option<&[u8]> {
        self.kept.get(self.index.by_path.get(path)?).map(|k| &**k)
    }

    /// Bytes of inflated tar the scan streamed through (the whole tar and its padding).
    pub fn inflated_size(&self) -> u64 {
        self.inflated_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LimitKind, Limits, Neff, NeffBuilder};

    fn package() -> Vec<u8> {
        let mut b = NeffBuilder::new();
        b.add(&format!("sg00/{}.json", "n".repeat(95)), &b"{\"a\":1}"[..])
            .unwrap();
        b.add(
            "sg00/pe.bin",
            (0..5000u32).map(|i| i as u8).collect::<Vec<u8>>(),
        )
        .unwrap();
        b.add("empty", &b""[..]).unwrap();
        b.build().unwrap()
    }

    /// Windows smaller than a block, odd-sized and larger: headers and data straddle them.
    #[test]
    fn any_window_gives_the_buffered_index() {
        let bytes = package();
        let neff = Neff::parse(&bytes).unwrap();
        let header = Header::parse(&bytes).unwrap();
        let payload = payload_of(&header, &bytes).unwrap();
        for window in [1, 7, 511, 512, 513, 4096, 1 << 20] {
            let (r, total) = stream(payload, &ReadOptions::default(), |_, _| true, window);
            let (index, kept, inflated) = r.unwrap();
            assert_eq!(inflated, total);
            assert_eq!(total, neff.tar_bytes().len() as u64);
            let got: Vec<_> = index
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (&*e.path, e.data_offset, &*kept[&i]))
                .collect();
            let want: Vec<_> = neff.members().map(|m| (m.path, m.offset, m.data)).collect();
            assert_eq!(got, want, "window {window}");
        }
    }

    fn bomb_payload(tar_head: &[u8], zeros: usize) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(1));
        e.write_all(tar_head).unwrap();
        e.write_all(&vec![0u8; zeros]).unwrap();
        e.finish().unwrap()
    }

    /// A payload whose one header declares an 8 GiB - 1 member, then 32 MiB of zeros, and
    /// options whose member limit (1 GiB) it breaks.
    fn oversized_member_bomb() -> (Vec<u8>, ReadOptions) {
        let mut head = [0u8; 512];
        head[..11].copy_from_slice(b"sg00/pe.bin");
        head[124..136].copy_from_slice(b"77777777777 ");
        head[156] = b'0';
        let sum: u32 = head.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * 32;
        head[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        let p = bomb_payload(&head, 32 << 20);
        let options = ReadOptions {
            limits: Limits {
                max_member_size: 1 << 30,
                ..Limits::default()
            },
            ..ReadOptions::default()
        };
        (p, options)
    }

    /// Bombs stop within a couple of windows of inflated bytes, not at the end of the payload.
    #[test]
    fn bombs_stop_after_a_bounded_amount_of_inflating() {
        // The end-of-archive block, then 32 MiB of zeros.
        let p = bomb_payload(&[], 32 << 20);
        let (r, total) = stream(&p, &ReadOptions::default(), |_, _| true, SCAN_WINDOW);
        assert!(matches!(r, Err(ContainerError::Tar { .. })), "{r:?}");
        assert!(
            total <= crate::tar_read::MAX_TAIL + SCAN_WINDOW as u64,
            "{total}"
        );
        // A header declaring 8 GiB - 1, then zeros.
        let (p, options) = oversized_member_bomb();
        let (r, total) = stream(&p, &options, |_, _| true, SCAN_WINDOW);
        assert!(
            matches!(
                r,
                Err(ContainerError::Limit {
                    kind: LimitKind::MemberSize,
                    ..
                })
            ),
            "{r:?}"
        );
        assert!(total <= SCAN_WINDOW as u64, "{total}");
    }

    /// A header for [`two_threads`] (its hash is the empty package's: a mismatch for any
    /// other payload).
    fn some_header() -> Header {
        Header::parse(&NeffBuilder::new().build().unwrap()).unwrap()
    }

    /// The two-thread read (the tar walked on the helper, D380) finds what the one-window
    /// read finds, on a package spanning many windows.
    #[test]
    fn two_threads_give_the_serial_index_and_members() {
        let mut b = NeffBuilder::new();
        let mut x = 1u32;
        let noise: Vec<u8> = (0..3 * SCAN_WINDOW + 77)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        b.add("sg00/Activation.bin", noise).unwrap();
        b.add("sg00/def.json", &b"{}"[..]).unwrap();
        b.add("sg00/PE.bin", vec![7u8; 5 * SCAN_WINDOW]).unwrap();
        let bytes = b.build().unwrap();
        let header = Header::parse(&bytes).unwrap();
        let payload = payload_of(&header, &bytes).unwrap();
        let keep = |path: &str, _| path.ends_with(".bin");
        let options = ReadOptions::default();
        let (status, two) = two_threads(&header, payload, &options, keep);
        assert_eq!(status, HashStatus::Verified);
        let (index, kept, total) = two.unwrap();
        let (serial, serial_total) = stream(payload, &options, keep, SCAN_WINDOW);
        let (serial_index, serial_kept, _) = serial.unwrap();
        let listed = |i: &TarIndex| -> Vec<(String, u64, u64)> {
            let e = i.entries.iter();
            e.map(|e| (e.path.to_string(), e.data_offset, e.size))
                .collect()
        };
        assert_eq!(listed(&index), listed(&serial_index));
        assert_eq!(index.entries.len(), 3);
        assert_eq!((kept, total), (serial_kept, serial_total));
    }

    /// A limit found on the helper stops the read with that error, and the hash is still
    /// finished (its mismatch is reported first by [`scan`]).
    #[test]
    fn two_threads_stop_at_a_limit_and_finish_the_hash() {
        let (p, options) = oversized_member_bomb();
        let (status, r) = two_threads(&some_header(), &p, &options, |_, _| true);
        assert_eq!(status, HashStatus::Mismatch);
        assert!(
            matches!(
                r,
                Err(ContainerError::Limit {
                    kind: LimitKind::MemberSize,
                    ..
                })
            ),
            "{r:?}"
        );
        // A truncated deflate stream: the inflater's error, not the tar's cut member.
        let mut b = NeffBuilder::new();
        b.add(
            "sg00/PE.bin",
            (0..4 << 20).map(|i| (i % 251) as u8).collect::<Vec<u8>>(),
        )
        .unwrap();
        let bytes = b.build().unwrap();
        let whole = &bytes[crate::HEADER_SIZE..];
        let (_, r) = two_threads(
            &some_header(),
            &whole[..whole.len() / 2],
            &options,
            |_, _| true,
        );
        assert!(matches!(r, Err(ContainerError::Gzip { .. })), "{r:?}");
    }
}
