//! SET_ORDERING_MODE 0xB1: the first slot of every real stream (reference §4.1), all zero past the
//! header, which the profiler prints `ordering_mode=relaxed`. Its byte, +0x0C, is decision D137
//! (no real slot holds another value; no builder emits it).

use crate::layout::view;
use crate::reduce::OrderingMode;

view! {
    /// A SET_ORDERING_MODE slot (decision D137).
    SetOrderingMode / SetOrderingModeMut = SET_ORDERING_MODE "SET_ORDERING_MODE" {
        /// +0x0C the ordering mode.
        ordering_mode: enum(OrderingMode) @ 0x0C, Always;
    }
}
