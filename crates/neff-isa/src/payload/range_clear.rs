//! EVENT_SEMAPHORE_RANGE_CLEAR 0xB0 (CTRL_ER, spec 001 §4 `add_sema_clear`): clears the semaphores
//! `[first, last]`. Spec 001 names `simd_fill_range` without offsets; decision D52: +0x10 first
//! u32, +0x14 last u32.

use crate::layout::view;

view! {
    /// An EVENT_SEMAPHORE_RANGE_CLEAR (CTRL_ER) slot (decision D52).
    RangeClear / RangeClearMut = RANGE_CLEAR "CTRL_ER" {
        /// +0x10 the first semaphore cleared.
        first: u32 @ 0x10, Always;
        /// +0x14 the last semaphore cleared (inclusive).
        last: u32 @ 0x14, Always;
    }
}
