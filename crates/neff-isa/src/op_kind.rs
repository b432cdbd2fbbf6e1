//! What an instruction is *for* — compute, DMA, sync, control or pseudo — the coarse grouping
//! reports and summaries count by (decision D270). The band of [`OpClass`] says which engine
//! family an opcode belongs to; this says which job it does, so that the Control band's
//! semaphore waits, DMA starts and branches land in different groups.

use crate::opcode::{OpClass, Opcode};

/// The job an opcode does (decision D270).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Arithmetic on tensors: the PE, ACT, datapath and high bands, less their DMA opcodes.
    Compute,
    /// Data movement started by the engine itself (the DMA opcodes of the Control and high bands).
    Dma,
    /// Waiting and signalling: semaphore and event waits, polls, range clears, drains, notifies.
    Sync,
    /// Sequencing and registers: branches, ALU, moves, writes, loads of registers, NOPs, HALT.
    Control,
    /// Host-lowered pseudo-instructions (spec 003 §4): never executed by the hardware.
    Pseudo,
    /// A byte the opcode table does not know, or its INVALID marker (0xFF).
    Unknown,
}

impl OpKind {
    /// Every kind, in display order.
    pub const ALL: [OpKind; 6] = [
        Self::Compute,
        Self::Dma,
        Self::Sync,
        Self::Control,
        Self::Pseudo,
        Self::Unknown,
    ];

    /// The lower-case name used in text, JSON and HTML.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Compute => "compute",
            Self::Dma => "dma",
            Self::Sync => "sync",
            Self::Control => "control",
            Self::Pseudo => "pseudo",
            Self::Unknown => "unknown",
        }
    }

    /// The kind of `op` (decision D270): pseudo by band (spec 003 §4), DMA and sync by the
    /// opcodes named below, compute for the engine bands, control for the rest of the Control
    /// band.
    pub fn of(op: Opcode) -> Self {
        let Some(info) = op.info() else {
            return Self::Unknown;
        };
        if DMA.contains(&op) {
            return Self::Dma;
        }
        if SYNC.contains(&op) {
            return Self::Sync;
        }
        match info.class {
            OpClass::Pseudo => Self::Pseudo,
            OpClass::Pe | OpClass::Act | OpClass::Datapath | OpClass::High => Self::Compute,
            OpClass::Control => Self::Control,
            OpClass::Invalid => Self::Unknown,
        }
    }
}

/// Opcodes that move data by themselves (reference §4.2: the DMA family of the Control band,
/// the collective SB-to-SB copy, and the high band's gather-transpose).
const DMA: [Opcode; 7] = [
    Opcode::DMAMEMCPY,
    Opcode::DMA_MEMCPY2,
    Opcode::DMA_IMMEDIATE,
    Opcode::DMA_INDIRECT,
    Opcode::DMA_TRANSPOSE,
    Opcode::SB2SB_COLLECTIVE,
    Opcode::DMA_GATHER_TRANSPOSE,
];

/// Opcodes whose job is to wait or to signal (spec 003 §3.3 events and semaphores; DRAIN waits
/// for the engine's own queue, NOTIFY signals the host).
const SYNC: [Opcode; 6] = [
    Opcode::EVENT_SEMAPHORE,
    Opcode::EVENT_SEMAPHORE_RANGE_CLEAR,
    Opcode::POLL_SEM,
    Opcode::TEST_EVENT_SEM,
    Opcode::DRAIN,
    Opcode::NOTIFY,
];

/// Instruction counts per [`OpKind`], indexed by the kind's position in [`OpKind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpKindCounts(pub [u64; OpKind::ALL.len()]);

impl OpKindCounts {
    /// Counts the opcode of every whole 64-byte slot of `stream` (a trailing partial slot is not
    /// an instruction, spec 004 §2).
    pub fn of_stream(stream: &[u8]) -> Self {
        // One kind per opcode byte, computed once: the count loop is then a table look-up.
        let mut kind_of = [0u8; 256];
        for (b, k) in kind_of.iter_mut().enumerate() {
            *k = OpKind::of(Opcode(b as u8)) as u8;
        }
        let mut counts = Self::default();
        for slot in stream.chunks_exact(crate::SLOT_BYTES) {
            counts.0[kind_of[slot[0] as usize] as usize] += 1;
        }
        counts
    }

    /// The count of `kind`.
    pub fn get(&self, kind: OpKind) -> u64 {
        self.0[kind as usize]
    }

    /// The sum over every kind.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_job_not_the_band() {
        assert_eq!(OpKind::of(Opcode::MATMUL), OpKind::Compute);
        assert_eq!(OpKind::of(Opcode::ACTIVATE), OpKind::Compute);
        assert_eq!(OpKind::of(Opcode::TENSOR_TENSOR_ARITH_OP), OpKind::Compute);
        assert_eq!(OpKind::of(Opcode::DMA_GATHER_TRANSPOSE), OpKind::Dma);
        assert_eq!(OpKind::of(Opcode::DMAMEMCPY), OpKind::Dma);
        assert_eq!(OpKind::of(Opcode::EVENT_SEMAPHORE), OpKind::Sync);
        assert_eq!(OpKind::of(Opcode::COMPARE_BRANCH), OpKind::Control);
        assert_eq!(OpKind::of(Opcode::WRITE), OpKind::Control);
        assert_eq!(OpKind::of(Opcode::PSEUDO_DMA_TRIGGER), OpKind::Pseudo);
        assert_eq!(OpKind::of(Opcode::INVALID), OpKind::Unknown);
        assert_eq!(OpKind::of(Opcode(0x00)), OpKind::Unknown);
    }

    #[test]
    fn every_table_row_but_invalid_has_a_known_kind() {
        for info in crate::OPCODES {
            let kind = OpKind::of(Opcode(info.value));
            assert_eq!(
                kind == OpKind::Unknown,
                info.class == OpClass::Invalid,
                "{}",
                info.mnemonic
            );
        }
    }

    #[test]
    fn stream_counts_whole_slots_only() {
        // spec 003 §7.2 pool.bin: two PSEUDO_DMA_TRIGGERs and an EVENT_SEMAPHORE, plus 10 stray
        // bytes that are not an instruction.
        let mut bin = vec![0u8; 3 * 64 + 10];
        bin[0] = 0xc1;
        bin[64] = 0xc1;
        bin[128] = 0xa0;
        let c = OpKindCounts::of_stream(&bin);
        assert_eq!(c.get(OpKind::Pseudo), 2);
        assert_eq!(c.get(OpKind::Sync), 1);
        assert_eq!(c.total(), 3);
    }
}
