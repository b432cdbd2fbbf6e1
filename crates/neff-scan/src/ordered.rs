//! Scanning many files on a rayon pool with rows delivered in input order and bounded memory
//! (decision D264): workers take the next file index from a counter; the caller's thread
//! receives finished rows, holds the out-of-order ones and hands them on in order. A worker
//! does not start file `i` until fewer than `window` rows are pending before it, so at most
//! `threads` files are in memory and at most `window` rows wait, whatever the input size.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Condvar, Mutex, PoisonError};

use crate::options::ScanOptions;
use crate::row::ScanRow;
use crate::scan_one::scan_file;

/// The name of a scan worker thread: a panic there is a file's `internal` row, not the end of
/// the process (a CLI's panic hook can tell by this prefix).
pub const WORKER_THREAD_PREFIX: &str = "neff-scan-";

/// How to run a scan of many files.
#[derive(Debug, Clone)]
pub struct ParallelOptions {
    /// Worker threads (at least 1); each also runs the load's own parallel steps.
    pub threads: usize,
    /// Most finished rows held back waiting for an earlier one (at least `threads`).
    pub window: usize,
}

impl ParallelOptions {
    /// `threads` workers, a window of 64 rows per worker (a row is a few KB: a straggler
    /// holds back a few MB at most).
    pub fn with_threads(threads: usize) -> Self {
        let threads = threads.max(1);
        Self {
            threads,
            window: threads * 64,
        }
    }
}

/// How far the in-order writer has got, and the signal to stop early.
struct Gate {
    written: Mutex<usize>,
    moved: Condvar,
    stop: AtomicBool,
}

impl Gate {
    /// Waits until row `i` may start (`i < written + window`); false when the scan stopped.
    fn admit(&self, i: usize, window: usize) -> bool {
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        while i >= *written + window && !self.stop.load(Ordering::Relaxed) {
            written = self
                .moved
                .wait(written)
                .unwrap_or_else(PoisonError::into_inner);
        }
        !self.stop.load(Ordering::Relaxed)
    }

    fn advance(&self, written: usize) {
        *self.written.lock().unwrap_or_else(PoisonError::into_inner) = written;
        self.moved.notify_all();
    }

    fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let _guard = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        self.moved.notify_all();
    }
}

/// An error of the pool itself (the rows' errors are in the rows).
#[derive(Debug, thiserror::Error)]
pub enum ScanError<E> {
    /// The thread pool could not be built.
    #[error("cannot start the scan's threads: {0}")]
    Pool(String),
    /// The sink refused a row; the scan stopped there.
    #[error(transparent)]
    Sink(E),
}

/// Scans `paths` with `options` on `parallel.threads` workers and calls `sink` with each row
/// in the order of `paths`. Stops at the first error of `sink`.
pub fn scan_files_ordered<E: Send>(
    paths: &[PathBuf],
    options: &ScanOptions,
    parallel: &ParallelOptions,
    mut sink: impl FnMut(ScanRow) -> Result<(), E>,
) -> Result<(), ScanError<E>> {
    let threads = parallel.threads.max(1);
    let window = parallel.window.max(threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("{WORKER_THREAD_PREFIX}{i}"))
        .build()
        .map_err(|e| ScanError::Pool(e.to_string()))?;
    let next = AtomicUsize::new(0);
    let gate = Gate {
        written: Mutex::new(0),
        moved: Condvar::new(),
        stop: AtomicBool::new(false),
    };
    let (tx, rx) = sync_channel::<(usize, ScanRow)>(window);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            pool.scope(|ps| {
                for _ in 0..threads {
                    let tx = tx.clone();
                    let (next, gate) = (&next, &gate);
                    ps.spawn(move |_| {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= paths.len() || !gate.admit(i, window) {
                                break;
                            }
                            if tx.send((i, scan_file(&paths[i], options))).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
            drop(tx);
        });
        let mut pending = BTreeMap::new();
        let mut written = 0usize;
        // `rx` moves into this closure: returning early drops it, so a worker blocked on a full
        // channel wakes (its send fails) and the scope can join it.
        for (i, row) in rx {
            pending.insert(i, row);
            while let Some(row) = pending.remove(&written) {
                if let Err(e) = sink(row) {
                    gate.halt();
                    return Err(ScanError::Sink(e));
                }
                written += 1;
            }
            gate.advance(written);
        }
        Ok(())
    })
}
