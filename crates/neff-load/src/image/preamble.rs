//! The PREAMBLE (spec 000 §6.2 (A), §9): the runtime-synthesized head of every engine image,
//! built from the micro-op builders, with the MODEL_SWITCH sub-range inside it. The exact
//! sequences are documented in docs/device-model.md "Image layout: PREAMBLE / POSTAMBLE"
//! (decision D74); the spec names the steps (notify / barrier / DGE / ulib-load / the PE
//! steps / POOL's ulib configuration and Q7 library IMEM load) but not their bytes.

use neff_isa::builder::{
    WAIT_SEM_GE_IMM, add_evsem, add_notify, add_sync_barrier, add_wr32,
    get_event_semaphore_wait_update,
};
use neff_isa::{EngineType, SLOT_BYTES};

use super::AssemblyContext;

/// Engine control registers the preamble writes, at `csr_base + engine * 0x1000 + reg`
/// (decision D74; the device model gives no such table).
pub mod csr {
    /// DGE (descriptor generation engine) enable.
    pub const DGE_ENABLE: u64 = 0x00;
    /// PE background-transpose enable.
    pub const PE_BG_TRANSPOSE: u64 = 0x08;
    /// IO-queue set switch (which queue set this model's DMAs use).
    pub const IOQ_SWITCH: u64 = 0x10;
    /// Arguments-table swap (points the engine at this model's argument table).
    pub const ARGS_TABLE_SWAP: u64 = 0x18;
    /// POOL micro-library (ulib) configuration.
    pub const POOL_ULIB_CONFIG: u64 = 0x20;
    /// POOL Q7 IMEM load: source address register.
    pub const POOL_IMEM_SRC: u64 = 0x28;
    /// POOL Q7 IMEM load: length, written last to start the load.
    pub const POOL_IMEM_GO: u64 = 0x30;
}

/// Notify queue value announcing the start of the program (DONE is 3, spec 000 §8.1).
pub const NOTIFY_START: u32 = 1;

/// The PREAMBLE's bytes and its two inner marks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    /// The records.
    pub bytes: Vec<u8>,
    /// Offset of the MODEL_SWITCH sub-range (`model_switch_block.offset`).
    pub model_switch_offset: usize,
    /// `program_start_offset`: the inference-wait gate the POSTAMBLE's reset branch returns to.
    pub program_start_offset: usize,
}

/// Builds one engine's PREAMBLE: [notify START][DGE enable][PE: bg-transpose]
/// [POOL: ulib config + IMEM load when the NEFF has ucode libs] | MODEL_SWITCH: [ioq switch]
/// [args-table swap][sync barrier] | program start: [wait for the inference-start semaphore].
pub fn build_preamble(engine: EngineType, ctx: &AssemblyContext) -> Preamble {
    let reg = |r: u64| ctx.csr_base + engine.index() as u64 * 0x1000 + r;
    let mut b = Vec::with_capacity(16 * SLOT_BYTES);
    let mut off = add_notify(&mut b, 0, 0, NOTIFY_START);
    off = add_wr32(&mut b, off, reg(csr::DGE_ENABLE), 1, None);
    if engine == EngineType::Pe {
        off = add_wr32(&mut b, off, reg(csr::PE_BG_TRANSPOSE), 1, None);
    }
    if engine == EngineType::Pool && ctx.has_ucode_libs {
        off = add_wr32(&mut b, off, reg(csr::POOL_ULIB_CONFIG), 1, None);
        // The Q7 library IMEM load sequence (ucode_ll_get_load_sequence): source, then go.
        off = add_wr32(
            &mut b,
            off,
            reg(csr::POOL_IMEM_SRC),
            ctx.ucode_lib_addr as u32,
            None,
        );
        off = add_wr32(&mut b, off, reg(csr::POOL_IMEM_GO), ctx.ucode_lib_len, None);
    }
    let model_switch_offset = off;
    off = add_wr32(&mut b, off, reg(csr::IOQ_SWITCH), ctx.ioq_set, None);
    off = add_wr32(&mut b, off, reg(csr::ARGS_TABLE_SWAP), ctx.args_table, None);
    off = add_sync_barrier(&mut b, off, ctx.barrier_semaphore, ctx.barrier_participants);
    let program_start_offset = off;
    let gate = get_event_semaphore_wait_update(WAIT_SEM_GE_IMM, ctx.start_semaphore, 0, 0, 1);
    add_evsem(&mut b, off, Some(gate));
    Preamble {
        bytes: b,
        model_switch_offset,
        program_start_offset,
    }
}
