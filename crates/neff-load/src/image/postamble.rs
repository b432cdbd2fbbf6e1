//! The POSTAMBLE (spec 000 §8.1 `ib_insert_common_postamble`, §6.2 (C)): the per-inference
//! reset/notify tail and the reset branch back to the program start (decision D74 documents the
//! bytes in docs/device-model.md).

use neff_isa::builder::{
    add_br_rel, add_cmpeq_imm_br_rel, add_dma_bundle_rearm, add_ldr32_addr, add_notify,
    add_sema_reset, add_sync_barrier, check_rel_offset,
};
use neff_isa::{ByteOffset, EngineType, SLOT_BYTES};

use super::AssemblyContext;
use crate::error::LoadError;
use crate::lower::ImageBuf;

/// The postamble scratch limit (spec 000 §8.1: `assert(off <= 0x10000)`, common.c:0x148).
pub const POSTAMBLE_LIMIT: usize = 0x10000;
/// `add_notify(scratch, off, 0, 3)`: the execution-DONE notify value (spec 000 §8.1 :84).
pub const NOTIFY_DONE: u32 = 3;
/// Notify value raised when POOL's indirect-DMA bound check finds a violation (decision D74).
pub const NOTIFY_BOUND_ERROR: u32 = 4;
/// Scratch register the bound check loads into (decision D74).
const BOUND_CHECK_REG: u8 = 0;

/// Appends the POSTAMBLE to `buf` (which already holds PREAMBLE and MAIN) and the reset branch
/// to `program_start`: [POOL: indirect-DMA bound check] sync barrier, semaphore reset, sync
/// barrier, one DMA re-arm per ring, notify(DONE), the <= 0x10000 check, then the reset branch.
pub fn append_postamble(
    engine: EngineType,
    buf: &mut ImageBuf<'_>,
    program_start: usize,
    ctx: &AssemblyContext,
) -> Result<(), LoadError> {
    let mut s = Vec::with_capacity(16 * SLOT_BYTES);
    let mut off = 0;
    if ctx.dma_indirect_bound_check && engine == EngineType::Pool {
        // insert_dma_indirect1d_bound_check_instrs_v2: load the violation counter, skip the
        // error notify when it is zero.
        off = add_ldr32_addr(&mut s, off, BOUND_CHECK_REG, ctx.bound_check_addr, None);
        off = add_cmpeq_imm_br_rel(&mut s, off, BOUND_CHECK_REG, 0, 2 * SLOT_BYTES as i32, None);
        off = add_notify(&mut s, off, 0, NOTIFY_BOUND_ERROR);
    }
    off = add_sync_barrier(&mut s, off, ctx.barrier_semaphore, ctx.barrier_participants);
    off = add_sema_reset(&mut s, off, &ctx.pcb_semaphores);
    off = add_sync_barrier(&mut s, off, ctx.barrier_semaphore, ctx.barrier_participants);
    for &(addr, ndesc) in &ctx.rearm_rings {
        off = add_dma_bundle_rearm(&mut s, off, addr, ndesc);
    }
    off = add_notify(&mut s, off, 0, NOTIFY_DONE);
    if off > POSTAMBLE_LIMIT {
        return Err(LoadError::PostambleTooLarge { engine, len: off });
    }
    // ib_create_one_block :1191: the execution-reset branch back to the inference-wait gate.
    let at = buf.len() + off;
    let rel = program_start as i64 - at as i64;
    let rel32 = check_rel_offset(rel).map_err(|_| LoadError::BranchOutOfReach {
        engine,
        offset: ByteOffset(at as u64),
        target: program_start as i128,
    })?;
    let off = add_br_rel(&mut s, off, rel32, None);
    buf.extend_from_slice(&s[..off]);
    Ok(())
}
