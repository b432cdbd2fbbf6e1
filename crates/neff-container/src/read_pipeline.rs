//! Reading with both cores (decision D112): the caller's thread only inflates; a helper thread
//! does everything else a read needs — the header hash of the stored payload (reference §1.1),
//! the first touch of the output pages (so the kernel's page faults and zeroing run on the other
//! core), and the gzip CRC-32 of each inflated chunk (RFC 1952 §2.3.1).
//!
//! Fast path only: the first gzip member, inflated into one buffer of exactly the ISIZE guess
//! (bounded by [`Limits`] before anything is reserved). Whatever does not fit that shape — a
//! larger stream (ISIZE lied, or > 4 GiB), more members — continues on the serial path of
//! [`crate::inflate`] from where the fast path stopped, so nothing is inflated twice.
//!
//! The buffer is `vec![0; n]` (calloc: fresh zero pages, nothing written) split with
//! `chunks_mut` into disjoint chunks that travel helper -> inflater -> helper through channels;
//! no `unsafe`, no shared mutable state.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use flate2::{Crc, FlushDecompress, Status};

use crate::error::ContainerError;
use crate::hash::{self, HashStatus, PayloadHasher};
use crate::header::Header;
use crate::inflate::{
    MemberProgress, finish_member, gz_err, inflate_members_from, isize_hint, member_header_len,
};
use crate::limit_watch::LimitWatch;
use crate::limits::Limits;
use crate::neff::ReadOptions;

/// Bytes per output chunk: large enough that the inflater's per-call window bookkeeping is
/// noise, small enough that a chunk is still in cache when the helper CRCs it.
const CHUNK: usize = 2 << 20;
/// Chunks the helper pre-faults ahead of the inflater.
const AHEAD: usize = 4;
/// Bytes of payload hashed between two looks at the inflater's needs.
const HASH_STEP: usize = 1 << 20;
/// Page size assumed for the first touch (4 KiB pages; larger pages are touched more than needed).
const PAGE: usize = 4096;

/// Hashes (when `options.verify`) and inflates `payload`; returns the hash status (a mismatch
/// already turned into an error) and the inflated tar. Without `options.threads` both steps run
/// on the caller's thread (decision D780).
pub(crate) fn verify_and_inflate(
    header: &Header,
    payload: &[u8],
    options: &ReadOptions,
) -> (
    Result<HashStatus, ContainerError>,
    Result<Vec<u8>, ContainerError>,
) {
    let (limits, verify) = (&options.limits, options.verify);
    let (cap, _) = limits.inflated_cap(payload.len() as u64);
    let guess = isize_hint(payload);
    let Ok(n) = usize::try_from(guess) else {
        return serial(header, payload, limits, verify);
    };
    if !options.threads || guess == 0 || guess > cap {
        return serial(header, payload, limits, verify);
    }
    let body = match member_header_len(payload, 0) {
        Ok(len) => len,
        Err(e) => return (hashed(header, payload, verify), Err(e)),
    };
    let mut out = vec![0u8; n];
    let hasher = verify.then(|| PayloadHasher::new(header));
    let taken = AtomicUsize::new(0);
    let (status, fast) = std::thread::scope(|scope| {
        let (to_inflater, chunks) = sync_channel::<&mut [u8]>(AHEAD);
        let (to_helper, filled) = channel::<&[u8]>();
        let helper = Helper {
            payload,
            hasher,
            crc: Crc::new(),
            taken: &taken,
            watch: LimitWatch::new(limits),
            over_limit: None,
        };
        let chunks_out = out.chunks_mut(CHUNK);
        let helping = scope.spawn(move || helper.run(chunks_out, to_inflater, filled));
        let fast = inflate_first(payload, body, chunks, to_helper, &taken);
        let helped = helping
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let hash = helped.hasher.map(|h| h.finish(header));
        let fast = match helped.over_limit {
            Some(e) => Err(e),
            None => fast.map(|f| (f, helped.crc, helped.watch)),
        };
        (hash, fast)
    });
    let status = match status {
        Some(s) => hash::status_result(header, payload, s),
        None => Ok(HashStatus::NotChecked),
    };
    (
        status,
        fast.and_then(|(f, crc, mut watch)| finish(payload, f, crc, out, limits, &mut watch)),
    )
}

/// Both steps on the caller's thread (the fast path does not apply): the hash, then the serial
/// inflate.
fn serial(
    header: &Header,
    payload: &[u8],
    limits: &Limits,
    verify: bool,
) -> (
    Result<HashStatus, ContainerError>,
    Result<Vec<u8>, ContainerError>,
) {
    (
        hashed(header, payload, verify),
        crate::inflate::inflate_gzip(payload, limits),
    )
}

fn hashed(header: &Header, payload: &[u8], verify: bool) -> Result<HashStatus, ContainerError> {
    if !verify {
        return Ok(HashStatus::NotChecked);
    }
    hash::status_result(header, payload, hash::check(header, payload))
}

/// What the inflater thread leaves: its inflater and how many bytes it wrote.
struct FirstMember {
    progress: MemberProgress,
    written: usize,
}

/// Inflates the first member into the chunks as they arrive, sending each filled chunk back
/// for its CRC. Stops at the end of the member or when the buffer is full.
fn inflate_first<'b>(
    payload: &[u8],
    body: usize,
    chunks: Receiver<&'b mut [u8]>,
    filled: Sender<&'b [u8]>,
    taken: &AtomicUsize,
) -> Result<FirstMember, ContainerError> {
    let mut progress = MemberProgress::start(body, 0);
    let mut written = 0usize;
    for chunk in chunks.iter() {
        taken.fetch_add(1, Ordering::Release);
        let mut at = 0usize;
        while at < chunk.len() && !progress.ended {
            let inflater = &mut progress.inflater;
            let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
            let input = &payload[body + in_before as usize..];
            let status = inflater
                .decompress(input, &mut chunk[at..], FlushDecompress::None)
                .map_err(|e| gz_err(body + inflater.total_in() as usize, e.to_string()))?;
            at += (inflater.total_out() - out_before) as usize;
            progress.ended = status == Status::StreamEnd;
            if !progress.ended && inflater.total_in() == in_before && at == out_before as usize {
                return Err(gz_err(
                    payload.len(),
                    "the deflate stream ends early (truncated payload)".into(),
                ));
            }
        }
        written += at;
        let chunk: &'b [u8] = chunk;
        // The helper only stops listening once the inflater is done; a send error cannot happen.
        let _ = filled.send(&chunk[..at]);
        if progress.ended {
            break;
        }
    }
    Ok(FirstMember { progress, written })
}

/// Hands the fast path's output to the serial path: the rest of the member if the buffer was
/// too small, its trailer, then any further members and the zero tail.
fn finish(
    payload: &[u8],
    first: FirstMember,
    crc: Crc,
    mut out: Vec<u8>,
    limits: &Limits,
    watch: &mut LimitWatch<'_>,
) -> Result<Vec<u8>, ContainerError> {
    let cap = limits.inflated_cap(payload.len() as u64);
    out.truncate(first.written);
    let mut progress = first.progress;
    progress.crc = crc;
    progress.crc_upto = first.written;
    let pos = finish_member(payload, progress, &mut out, cap, watch)?;
    inflate_members_from(payload, pos, out, limits, watch)
}

/// The helper thread's state.
struct Helper<'a> {
    payload: &'a [u8],
    hasher: Option<PayloadHasher>,
    crc: Crc,
    /// Chunks the inflater has taken so far.
    taken: &'a AtomicUsize,
    /// The tar limits, checked on each filled chunk in order (D345).
    watch: LimitWatch<'a>,
    /// The limit the tar broke: the inflater gets no more chunks.
    over_limit: Option<ContainerError>,
}

impl<'a> Helper<'a> {
    /// Keeps the inflater fed with pre-faulted chunks (or, when it is waiting, an untouched one
    /// it faults itself), and spends the gaps hashing the payload, CRC-ing filled chunks and
    /// walking their tar headers; stops feeding once a tar limit is broken.
    fn run<'b>(
        mut self,
        mut chunks: std::slice::ChunksMut<'b, u8>,
        to_inflater: SyncSender<&'b mut [u8]>,
        filled: Receiver<&'b [u8]>,
    ) -> Self {
        let mut hashed = 0usize;
        let mut sent = 0usize;
        let mut feed = Some(to_inflater);
        loop {
            while let Ok(done) = filled.try_recv() {
                self.filled(done);
            }
            if self.over_limit.is_some() {
                feed = None; // the inflater stops after the chunks it holds
            }
            let ahead = sent - self.taken.load(Ordering::Acquire);
            let hashing = self.hasher.is_some() && hashed < self.payload.len();
            if let Some(to) = feed.as_ref().filter(|_| ahead < AHEAD || !hashing) {
                let Some(chunk) = chunks.next() else {
                    feed = None; // no chunk left: the inflater stops when the buffer is full
                    continue;
                };
                if ahead > 0 {
                    touch(chunk);
                }
                if to.send(chunk).is_err() {
                    feed = None; // the inflater has stopped (end of member or error)
                }
                sent += 1;
            } else if let Some(h) = self.hasher.as_mut().filter(|_| hashing) {
                let end = (hashed + HASH_STEP).min(self.payload.len());
                h.update(&self.payload[hashed..end]);
                hashed = end;
            } else {
                break;
            }
        }
        for done in filled.iter() {
            self.filled(done);
        }
        self
    }

    /// A chunk the inflater filled: its CRC, and its tar headers until a limit breaks.
    fn filled(&mut self, done: &[u8]) {
        self.crc.update(done);
        if self.over_limit.is_none() {
            self.over_limit = self.watch.feed(done).err();
        }
    }
}

/// Writes one byte per page so the page fault (and the kernel's zeroing) happens here, on the
/// helper's core, instead of in the middle of the inflate.
fn touch(chunk: &mut [u8]) {
    for i in (0..chunk.len()).step_by(PAGE) {
        chunk[i] = 0;
    }
}

#[cfg(test)]
mod tests {
    use crate::inflate::gz;

    use super::*;
    use crate::NeffBuilder;

    /// Compressible but not trivial bytes (a few MiB cross several chunks).
    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| ((i / 7) ^ (i >> 13)) as u8).collect()
    }

    /// Read options with these limits and `verify`, the second thread allowed.
    fn options(limits: Limits, verify: bool) -> ReadOptions {
        ReadOptions {
            verify,
            limits,
            ..ReadOptions::default()
        }
    }

    /// A header whose hash is that of `payload` (pkg_version 2, word-swapped MD5).
    fn header_for(payload: &[u8]) -> Header {
        let bytes = NeffBuilder::new().build().unwrap();
        let mut header = Header::parse(&bytes).unwrap();
        header.hash = hash::compute(header.pkg_version, payload);
        header
    }

    fn read(payload: &[u8], limits: &Limits) -> Result<Vec<u8>, ContainerError> {
        let (status, tar) =
            verify_and_inflate(&header_for(payload), payload, &options(*limits, true));
        assert_eq!(status.unwrap(), HashStatus::Verified);
        tar
    }

    #[test]
    fn many_chunks_round_trip() {
        let d = data(5 * CHUNK + 123);
        assert_eq!(read(&gz(&d), &Limits::default()).unwrap(), d);
    }

    #[test]
    fn zero_padding_after_the_member_is_accepted() {
        let d = data(CHUNK + 1);
        let mut p = gz(&d);
        p.resize(p.len() + 5000, 0); // compiler padding (decision D26)
        assert_eq!(read(&p, &Limits::default()).unwrap(), d);
    }

    #[test]
    fn second_member_continues_on_the_serial_path() {
        // The trailer read last is the small member's ISIZE: the fast path's buffer is sized
        // from a guess, and whatever it is the output must be both members in order.
        let (a, b) = (data(3 * CHUNK + 5), b"tail member".to_vec());
        let p = [gz(&a), gz(&b)].concat();
        assert_eq!(read(&p, &Limits::default()).unwrap(), [a, b].concat());
    }

    #[test]
    fn isize_smaller_than_the_data_grows_then_fails_the_trailer() {
        let d = data(2 * CHUNK + 77);
        let mut p = gz(&d);
        let n = p.len();
        p[n - 4..].copy_from_slice(&1000u32.to_le_bytes()); // ISIZE claims 1000 bytes
        match read(&p, &Limits::default()) {
            Err(ContainerError::Gzip { reason, .. }) => assert!(reason.contains("ISIZE 1000")),
            other => panic!("expected an ISIZE error, got {other:?}"),
        }
    }

    #[test]
    fn isize_larger_than_the_data_fails_the_trailer() {
        let d = data(CHUNK / 2);
        let mut p = gz(&d);
        let n = p.len();
        let big = (d.len() as u32) + 3 * CHUNK as u32;
        p[n - 4..].copy_from_slice(&big.to_le_bytes());
        assert!(matches!(
            read(&p, &Limits::default()),
            Err(ContainerError::Gzip { .. })
        ));
    }

    #[test]
    fn corrupt_crc_is_an_error() {
        let d = data(3 * CHUNK);
        let mut p = gz(&d);
        let n = p.len();
        p[n - 8] ^= 1;
        match read(&p, &Limits::default()) {
            Err(ContainerError::Gzip { reason, .. }) => assert!(reason.contains("CRC-32")),
            other => panic!("expected a CRC error, got {other:?}"),
        }
    }

    #[test]
    fn truncated_and_corrupt_streams_are_errors_not_hangs() {
        let d = data(4 * CHUNK);
        let p = gz(&d);
        assert!(read(&p[..p.len() / 2], &Limits::default()).is_err());
        let mut bad = p.clone();
        for b in &mut bad[p.len() / 3..p.len() / 3 + 64] {
            *b = 0xff;
        }
        assert!(read(&bad, &Limits::default()).is_err());
    }

    #[test]
    fn a_lying_isize_cannot_pass_the_cap() {
        let d = data(2 * CHUNK);
        let mut p = gz(&d);
        let n = p.len();
        p[n - 4..].copy_from_slice(&4096u32.to_le_bytes());
        let limits = Limits {
            max_total_size: CHUNK as u64,
            ..Limits::default()
        };
        assert!(matches!(
            read(&p, &limits),
            Err(ContainerError::Limit {
                kind: crate::LimitKind::TotalSize,
                ..
            })
        ));
    }

    #[test]
    fn hash_mismatch_and_no_verify() {
        let d = data(CHUNK + 9);
        let p = gz(&d);
        let mut header = header_for(&p);
        header.hash[0] ^= 1;
        let (status, tar) = verify_and_inflate(&header, &p, &options(Limits::default(), true));
        assert!(matches!(status, Err(ContainerError::HashMismatch { .. })));
        assert_eq!(tar.unwrap(), d);
        let (status, tar) = verify_and_inflate(&header, &p, &options(Limits::default(), false));
        assert_eq!(status.unwrap(), HashStatus::NotChecked);
        assert_eq!(tar.unwrap(), d);
    }
}
