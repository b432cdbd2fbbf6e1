//! A capture's events as the vendor's rows (reference-ntff §3, §5): the same [`Profile`] the
//! JSON reader fills, with the vendor's names and nanoseconds, computed as the vendor does by
//! [`crate::row_stream`] and collected here.

use crate::capture::CaptureFacts;
use crate::decode::DecodeStats;
use crate::event::CaptureEvents;
use crate::header::NeffHeaderInfo;
use crate::ntff::Capture;
use crate::read::Profile;
use crate::row_stream::{Collect, replay_rows};
use crate::time::TimeBase;

impl Profile {
    /// The rows of a capture, decoded in one pass, with what the decode saw.
    pub fn from_capture(cap: &Capture<'_>) -> (Self, DecodeStats) {
        let mut rows = Collect::default();
        let (tb, stats) = cap.rows(&mut rows);
        (Self::of_rows(cap, rows, tb), stats)
    }

    /// The rows of already decoded events of `cap` (the same rows [`Profile::from_capture`]
    /// makes).
    pub fn from_events(cap: &Capture<'_>, ev: &CaptureEvents) -> Self {
        let mut rows = Collect::default();
        let tb = replay_rows(cap, ev, &mut rows);
        Self::of_rows(cap, rows, tb)
    }

    fn of_rows(cap: &Capture<'_>, rows: Collect, tb: TimeBase) -> Self {
        Self {
            instructions: rows.instructions,
            neff_header: Some(header_of(&cap.facts)),
            metadata: None,
            dma: rows.dma,
            semaphore_update: rows.semaphore_update,
            ham: rows.ham,
            capture: Some(cap.facts.clone()),
            time_base: Some(tb),
        }
    }
}

/// The capture's NEFF as a report's `neff_header`: the uuid bytes present, hex; no hash (a
/// capture carries none).
fn header_of(facts: &CaptureFacts) -> NeffHeaderInfo {
    NeffHeaderInfo {
        uuid: facts
            .uuid_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        hash: String::new(),
        network_name: facts.neff_name.clone(),
    }
}
