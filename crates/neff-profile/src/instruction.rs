//! One executed instruction of a report (`instruction[]`).

use neff_isa::EngineType;
use serde::Deserialize;

/// One instruction the hardware executed, as the profiler recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProfiledInstruction {
    /// The subgraph (`sg00`, ...).
    pub subgraph: String,
    /// The engine queue (see [`crate::queue`]).
    pub label: String,
    /// The profiler's mnemonic.
    pub opcode: String,
    /// The device pc: the instruction's slot index in the engine's image, from its first slot.
    pub pc: u64,
    /// For an instruction that comes from the NEFF: its slot in the engine's `.bin`, 0-based;
    /// absent for the runtime's own PREAMBLE / POSTAMBLE instructions.
    #[serde(default)]
    pub compiler_pc: Option<u64>,
    /// The profiler's operand text (runtime-resolved addresses).
    #[serde(default)]
    pub operands: String,
    /// For a DMA instruction: the NEFF's own name of it (e.g. `PSEUDO_DMA_DIRECT2D`).
    #[serde(default)]
    pub compiler_opcode: Option<String>,
    /// For a DMA instruction: the operands decoded at NEFF level (var ids and offsets, not the
    /// runtime's addresses; decision D132).
    #[serde(default)]
    pub compiler_operands: Option<String>,
    /// Issue time, ns.
    #[serde(default)]
    pub timestamp: u64,
    /// Issue to completion, ns.
    #[serde(default)]
    pub duration: u64,
    /// Time the instruction waited on events before it issued, ns (`evt_wait_time`).
    #[serde(default)]
    pub evt_wait_time: Option<u64>,
    /// The end record's `crc_in` (65535 = none).
    #[serde(default)]
    pub crc_in: Option<u64>,
    /// The end record's `crc_out` (65535 = none).
    #[serde(default)]
    pub crc_out: Option<u64>,
}

impl ProfiledInstruction {
    /// The engine of the instruction's queue, if the label is one neffkit knows.
    pub fn engine(&self) -> Option<EngineType> {
        crate::queue::engine_of(&self.label)
    }

    /// Completion time, ns: `timestamp + duration`.
    pub fn end(&self) -> u64 {
        self.timestamp.saturating_add(self.duration)
    }

    /// The NEFF instruction it ran, as spec 004 §3 counts them (1-based): `compiler_pc + 1`.
    pub fn neff_ip(&self) -> Option<u64> {
        self.compiler_pc.map(|c| c + 1)
    }
}
