//! SET_ORDERING_MODE 0xB1: the first slot of every real stream (reference §4.1), all zero past the
//! header. No builder emits it and the spec pages give no payload field (decision D10): typed as
//! header + events; any non-zero payload byte survives as an overlay.

use crate::layout::view;

view! {
    /// A SET_ORDERING_MODE slot: header and events only (decision D10).
    SetOrderingMode / SetOrderingModeMut = SET_ORDERING_MODE "SET_ORDERING_MODE" {}
}
