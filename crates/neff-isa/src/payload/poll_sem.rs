//! POLL_SEM 0xB3 (CTRL_POLL_SEM, spec 001 §4 `add_poll_sem`): read the semaphore at an address
//! `n_read` times into a register, combining with an ALU sub-op (MIN), and write back. Spec 001
//! names `fill_poll_fields` without offsets; decision D52: +0x0C ALU op, +0x10 semaphore address
//! u64, +0x18 write-back address u64, +0x20 n_read u32, +0x24 register.

use crate::alu_op::AluOp;
use crate::layout::view;

view! {
    /// A POLL_SEM (CTRL_POLL_SEM) slot (decision D52).
    PollSem / PollSemMut = POLL_SEM "CTRL_POLL_SEM" {
        /// +0x0C the ALU sub-op combining the reads (`add_poll_sem`: MIN = 9).
        op: enum(AluOp) @ 0x0C, Always;
        /// +0x10 the polled semaphore's address.
        addr: hex64 @ 0x10, Always;
        /// +0x18 the write-back address.
        wb_addr: hex64 @ 0x18, Always;
        /// +0x20 how many reads.
        n_read: u32 @ 0x20, Always;
        /// +0x24 the destination register.
        reg: u8 @ 0x24, Always;
    }
}
