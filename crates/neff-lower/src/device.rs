//! What lowering reads of the device (spec 001 §3; docs/device-model.md): the register and
//! memory addresses records write, the silicon generation and how 0xD4 is lowered.
//!
//! Lowering does not own the device model: neff-load's `DeviceModel` (addresses, staging
//! alignment, whose PREAMBLE / POSTAMBLE, templates learned from a capture) implements
//! [`LowerDevice`], so the one model stays one value while this crate needs none of the image
//! side (decision D560).

use std::fmt;

use neff_isa::EngineType;
use neff_kelf::Target;

/// The device facts lowering reads; `Sync` so one model serves every engine's thread.
pub trait LowerDevice: fmt::Debug + Sync {
    /// The tail-pointer register of ring `ring` of the `queue`-th DMA queue (in kbin order); the
    /// target of the WRITE a PSEUDO_DMA_TRIGGER becomes (spec 003 §4).
    fn ring_tail_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError>;
    /// The re-arm register of a ring (add_dma_bundle_rearm, spec 000 §8.1).
    fn ring_rearm_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError>;
    /// The doorbell the `k`-th collective op list of a model rings (spec 001 §3 `trigger_addr`).
    fn cc_trigger_addr(&self, k: usize) -> Result<u64, DeviceModelError>;
    /// The current-rank-id buffer read by PSEUDO_CUR_PROCESSING_RANK_ID (spec 001 §3 pcprid).
    fn rank_id_addr(&self) -> u64;
    /// The global device id stored by PSEUDO_GID_LOAD (spec 001 §3 pseudo_gid_load).
    fn global_device_id(&self) -> u32;
    /// The state buffer (`SB`) in the Neuron address space (decision D157).
    fn state_buffer_base(&self) -> u64;
    /// Where the model's HBM vars are placed, one after the other in var_id order (D157).
    fn tensor_base(&self) -> u64;
    /// The one scratchpad every `virtual` var resolves to, when the modelled runtime does so
    /// (runtime 2.30.51, decision D462); `None`: virtual vars are placed like HBM vars.
    fn virtual_base(&self) -> Option<u64>;
    /// The silicon generation (spec 001's arch gate); `None` is the NEFF's own target.
    fn arch(&self) -> Option<Target>;
    /// How a PSEUDO_DMA_DIRECT2D (0xD4) is lowered (decision D461).
    fn direct2d(&self) -> Direct2dForm;
}

/// How a PSEUDO_DMA_DIRECT2D (0xD4) becomes device records (decision D461).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direct2dForm {
    /// The spec's reading (D54): a descriptor in the ring plus a WRITE of the tail pointer.
    #[default]
    TailWrite,
    /// Runtime 2.30.51 (every 0xD4 of the seven shared captures): the slot itself becomes a DMA
    /// instruction (0xB8), every field kept, each physical-var ADDR8 replaced by the u64 device
    /// address of that byte of the var.
    DmaInstruction,
}

/// A device model that staging would reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceModelError {
    /// Spec 000 §8 asserts the alignment is a power of two and a multiple of the configured size.
    #[error("seq_instr_block_size[{engine}] = {size:#x} is not a power of two")]
    BlockSizeNotPowerOfTwo {
        /// The engine.
        engine: EngineType,
        /// The configured size.
        size: u64,
    },
    /// A register address computation left the 64-bit space.
    #[error("device model: {what} address overflows 64 bits")]
    AddressOverflow {
        /// Which address.
        what: &'static str,
    },
}
