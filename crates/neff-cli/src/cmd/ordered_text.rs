//! Text made on every core and written in order (decision D392): `neff disasm`'s formatter.
//!
//! Jobs (pieces of engine streams) are claimed one at a time by whichever thread is free; each
//! thread formats its job into a buffer of its own and the calling thread writes the buffers in
//! job order. Unlike splitting every piece in two halves and joining both (the printer it
//! replaces), no core waits for the other at every piece, and the writing of one job overlaps
//! the formatting of the next.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};

use neff_isa::text::TextBuf;

/// Buffers each helper may have filled and not yet had written: one in flight, one being filled.
const BUFFERS_PER_HELPER: usize = 2;

/// Threads at most, the caller's included: the text held in flight grows with them (two buffers
/// per helper, ~0.8 MB each), and eight cores already make text (~1.1 GB/s each on issue 20's
/// input) faster than a pipe or a file takes it, so more would only add memory.
const MAX_THREADS: usize = 8;

/// A buffer a job is formatted into: the text of `neff disasm`, the JSON lines of `--jsonl`.
pub(crate) trait JobBuf: Send {
    /// An empty buffer with room for `capacity` bytes.
    fn with_capacity(capacity: usize) -> Self;
    /// Empties it, keeping its room.
    fn clear(&mut self);
    /// What was formatted.
    fn as_bytes(&self) -> &[u8];
}

impl JobBuf for TextBuf {
    fn with_capacity(capacity: usize) -> Self {
        TextBuf::with_capacity(capacity)
    }
    fn clear(&mut self) {
        TextBuf::clear(self);
    }
    fn as_bytes(&self) -> &[u8] {
        TextBuf::as_bytes(self)
    }
}

impl JobBuf for Vec<u8> {
    fn with_capacity(capacity: usize) -> Self {
        Vec::with_capacity(capacity)
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

/// Formats every job of `jobs` with `format` on all available cores and writes the texts to
/// `out` in job order; each buffer starts with `capacity` bytes of room. Returns the first write
/// error (the remaining jobs are then not formatted).
pub(crate) fn write_in_order<J: Send, B: JobBuf>(
    jobs: impl Iterator<Item = J> + Send,
    format: impl Fn(J, &mut B) + Sync,
    capacity: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let helpers = threads.min(MAX_THREADS) - 1;
    let mut own = B::with_capacity(capacity);
    if helpers == 0 {
        for job in jobs {
            own.clear();
            format(job, &mut own);
            out.write_all(own.as_bytes())?;
        }
        return Ok(());
    }
    // The next job and its number, claimed under one lock so numbers follow the job order.
    let source = Mutex::new(jobs.enumerate());
    let claim = || source.lock().ok()?.next();
    let (done_tx, done) = channel::<(usize, B)>();
    let (free_tx, free) = channel::<B>();
    let free = Mutex::new(free);
    for _ in 0..helpers * BUFFERS_PER_HELPER {
        let _ = free_tx.send(B::with_capacity(capacity));
    }
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            let (done_tx, free, claim, format) = (done_tx.clone(), &free, &claim, &format);
            scope.spawn(move || {
                // A buffer first, then a job: a claimed job always has room to be made in.
                while let Some(mut text) = take(free) {
                    let Some((n, job)) = claim() else { break };
                    text.clear();
                    format(job, &mut text);
                    if done_tx.send((n, text)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut writer = InOrder {
            next: 0,
            early: BTreeMap::new(),
            done,
            out,
        };
        let result = (|| {
            while let Some((n, job)) = claim() {
                own.clear();
                format(job, &mut own);
                writer.write_before(n, |text| {
                    let _ = free_tx.send(text);
                })?;
                writer.out.write_all(own.as_bytes())?;
                writer.next = n + 1;
            }
            writer.write_before(usize::MAX, |text| {
                let _ = free_tx.send(text);
            })
        })();
        // No more buffers: helpers waiting for one stop; the others finish their job and stop.
        drop(free_tx);
        result
    })
}

/// A free buffer, or `None` once the writer has stopped handing them out.
fn take<B>(free: &Mutex<Receiver<B>>) -> Option<B> {
    free.lock().ok()?.recv().ok()
}

/// The helpers' finished jobs, written in job order.
struct InOrder<'o, W, B> {
    /// The number of the next job to write.
    next: usize,
    /// Finished jobs that arrived before their turn.
    early: BTreeMap<usize, B>,
    done: Receiver<(usize, B)>,
    out: &'o mut W,
}

impl<W: Write, B: JobBuf> InOrder<'_, W, B> {
    /// Writes every job numbered below `end` (waiting for the helpers' ones), handing each
    /// written buffer to `reuse`. With `end == usize::MAX`, writes all the helpers made.
    fn write_before(&mut self, end: usize, mut reuse: impl FnMut(B)) -> io::Result<()> {
        while self.next < end {
            let text = match self.early.remove(&self.next) {
                Some(text) => text,
                None => match self.done.recv() {
                    Ok((n, text)) if n != self.next => {
                        self.early.insert(n, text);
                        continue;
                    }
                    Ok((_, text)) => text,
                    // Every helper has stopped: after the last job that is the end; before it,
                    // a helper died with a job (its panic is resumed when the scope ends).
                    Err(_) if end == usize::MAX && self.early.is_empty() => return Ok(()),
                    Err(_) => return Err(io::Error::other("a formatting thread stopped")),
                },
            };
            self.out.write_all(text.as_bytes())?;
            self.next += 1;
            reuse(text);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neff_isa::text::TextSink;

    /// Whatever the cores and the jobs' costs, the text comes out in job order, each job once.
    #[test]
    fn texts_are_written_in_job_order() {
        for jobs in [0usize, 1, 2, 3, 17, 500] {
            let mut out = Vec::new();
            write_in_order(
                0..jobs,
                |j, text: &mut TextBuf| {
                    // Uneven costs, so helpers finish out of order.
                    let spin = if j % 7 == 0 { 20_000 } else { 10 };
                    let mut x = j as u64;
                    for _ in 0..spin {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
                    }
                    text.push_str(&format!("{j}\n"));
                },
                64,
                &mut out,
            )
            .unwrap();
            let want: String = (0..jobs).map(|j| format!("{j}\n")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), want, "{jobs} jobs");
        }
    }

    /// A job whose formatting panics (a bug) panics the call, on whichever thread it ran; nothing
    /// hangs and no later job is written after the gap.
    #[test]
    fn a_panicking_job_panics_the_call() {
        for bad in [0usize, 1, 5, 99] {
            let mut out = Vec::new();
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                write_in_order(
                    0..100usize,
                    |j, text: &mut TextBuf| {
                        assert_ne!(j, bad, "job {bad} is broken");
                        text.push_str(&format!("{j}\n"));
                    },
                    64,
                    &mut out,
                )
            }));
            assert!(run.is_err(), "job {bad}");
            let text = String::from_utf8(out).unwrap();
            let want: String = (0..bad).map(|j| format!("{j}\n")).collect();
            assert!(want.starts_with(&text), "job {bad}: {text:?}");
        }
    }

    /// A write error stops the run and is returned; nothing hangs.
    #[test]
    fn a_write_error_is_returned() {
        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                if self.0 < b.len() {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
                }
                self.0 -= b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let e = write_in_order(
            0..10_000,
            |j, text: &mut TextBuf| text.push_str(&format!("line {j}\n")),
            64,
            &mut Full(100),
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
