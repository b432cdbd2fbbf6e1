//! NOP 0xA4 (`add_nop`, spec 001 §3 the dbg_cc_nop trigger): the header and the events only, the
//! shape of every real 0xA4 slot (reference §4.4) and of `add_nop` (decision D52). Any non-zero
//! payload byte survives as an `@0xOFF=HEX` overlay.

use crate::layout::view;

view! {
    /// A NOP slot: events only (decision D52).
    Nop / NopMut = NOP "NOP" {}
}
