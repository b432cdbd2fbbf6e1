//! NOTIFY 0xA6: `add_notify(chunk, off, queue, value)` (spec 000 §8.1: `add_notify(scratch, off,
//! 0, 3)` is the execution-DONE notify). The spec gives no bytes; decision D52 puts the two
//! arguments as u32 at +0x10 and +0x14. No value enum is named: the spec pins only DONE = 3 by
//! example.

use crate::layout::view;

view! {
    /// A NOTIFY slot (decision D52).
    Notify / NotifyMut = NOTIFY "NOTIFY" {
        /// +0x10 the notification queue.
        queue: u32 @ 0x10, Always;
        /// +0x14 the value posted (3 = execution done, spec 000 §8.1).
        value: u32 @ 0x14, Always;
    }
}
