//! NOP 0xA4 (`add_nop`, spec 001 §3 the dbg_cc_nop trigger): the events, and the cycle count the
//! profiler prints for every NOP (`cycle=0` on the four real NOPs it holds; the runtime's own
//! PREAMBLE NOPs print `cycle=1`). Its place, +0x0C u32, is decision D137: every real 0xA4 slot
//! (reference §4.4) and every `add_nop` record (decision D52) is zero past the events, so the
//! offset is not pinned by a non-zero value.

use crate::layout::view;

view! {
    /// A NOP slot (decisions D52, D137).
    Nop / NopMut = NOP "NOP" {
        /// +0x0C the cycle count (profile `cycle=`).
        cycle: u32 @ 0x0C, Always;
    }
}
