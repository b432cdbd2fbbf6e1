//! The NeuronCore's synchronization state of one subgraph: 256 semaphores and 256 events
//! (spec 003 §1: `TONGA_ISA_TPB_NUM_EVENTS = 256`; the 8-byte events index semaphores with a
//! byte, reference §4.1), shared by every engine and every DMA queue of the core — a DMA
//! completion on POOL's queue raises the semaphore PE waits on (reference §4.5: DIRECT2D
//! `semaphore=24`, PE `EVENT_SEMAPHORE` wait sem 24 >= 16).

/// Semaphores and events in one place.
pub(crate) const SYNC_SLOTS: usize = 256;

/// Semaphore values and event flags.
#[derive(Debug, Clone)]
pub struct SyncState {
    /// Semaphore values. Hardware semaphores are 32-bit; an `i64` keeps a decrement below zero
    /// visible instead of wrapping.
    pub sems: [i64; SYNC_SLOTS],
    /// Event flags.
    pub events: [bool; SYNC_SLOTS],
}

impl Default for SyncState {
    fn default() -> Self {
        Self {
            sems: [0; SYNC_SLOTS],
            events: [false; SYNC_SLOTS],
        }
    }
}

/// Which synchronization object a wait reads or an update writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(tag = "kind", content = "index", rename_all = "snake_case")]
pub enum SyncObject {
    /// `$S[i]`.
    Semaphore(u8),
    /// `$E[i]`.
    Event(u8),
}

impl SyncObject {
    /// A dense index: semaphores 0..256, events 256..512 (the waiter lists).
    pub fn slot(self) -> usize {
        match self {
            Self::Semaphore(i) => usize::from(i),
            Self::Event(i) => SYNC_SLOTS + usize::from(i),
        }
    }
}

impl std::fmt::Display for SyncObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Semaphore(i) => write!(f, "$S[{i}]"),
            Self::Event(i) => write!(f, "$E[{i}]"),
        }
    }
}
