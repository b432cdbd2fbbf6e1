//! The events a capture's records decode to, compact and in device picoseconds (reference-ntff
//! §3): what [`crate::decode`] yields to a sink, one per paired instruction, paired DMA
//! transfer, semaphore / event update and throttle record. The vendor-named rows of
//! [`crate::Profile`] are made from these.

use neff_isa::EngineType;

/// One executed instruction: a start record and its end record (kind 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstructionEvent {
    /// Index of the subgraph in [`crate::CaptureFacts::subgraphs`].
    pub subgraph: u16,
    /// The engine (w0 bits 26..28).
    pub engine: EngineType,
    /// Slot index in the engine's loaded stream.
    pub pc: u32,
    /// Start record time, ps.
    pub start_ps: u64,
    /// End record time, ps.
    pub end_ps: u64,
    /// Cycles waited on events (start w1 bits 16..31).
    pub wait_cycles: u16,
    /// End w1 bits 0..15 (0xFFFF = none).
    pub crc_in: u16,
    /// End w1 bits 16..31 (0xFFFF = none).
    pub crc_out: u16,
    /// w0 bit 21: the last instruction of a stream (seen).
    pub last_of_stream: bool,
}

/// One DMA transfer: a start record and its data-done record (kind 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaEvent {
    /// Index of the subgraph.
    pub subgraph: u16,
    /// The DMA engine id (64.. on the first core).
    pub dma_engine: u8,
    /// The queue (w1 bits 4..7).
    pub queue: u8,
    /// Transfer size, bytes.
    pub size: u32,
    /// Start record time, in the DMA clock's units (ps on trn2).
    pub start: u64,
    /// Data-done record time.
    pub end: u64,
    /// The data-done record's crc.
    pub crc: u16,
}

/// One semaphore or event update (kind 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemaphoreEvent {
    /// Index of the subgraph.
    pub subgraph: u16,
    /// The semaphore's (or event's) index.
    pub index: u8,
    /// A semaphore (bit 8 set) rather than an event.
    pub is_semaphore: bool,
    /// The operation byte (0xF3 increment, 0xF4 decrement, 0xF9 set, seen).
    pub op: u8,
    /// The new value.
    pub value: u32,
    /// When, ps.
    pub ts_ps: u64,
}

/// One throttle record (kind 5): the state from `ts` until the next record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleEvent {
    /// Index of the subgraph.
    pub subgraph: u16,
    /// The vendor's `k`.
    pub k: u8,
    /// The vendor's `type`.
    pub kind: u8,
    /// The vendor's `n`.
    pub n: u8,
    /// When, in the throttle clock's units (ps on trn2).
    pub ts: u64,
}

/// What the decoder hands each decoded event to.
pub trait EventSink {
    /// A paired instruction.
    fn instruction(&mut self, e: InstructionEvent);
    /// A paired DMA transfer.
    fn dma(&mut self, e: DmaEvent);
    /// A semaphore or event update.
    fn semaphore(&mut self, e: SemaphoreEvent);
    /// A throttle record.
    fn throttle(&mut self, e: ThrottleEvent);
}

/// Every event of a capture, collected (for captures that fit in memory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureEvents {
    /// Instructions, in the order their end records appear, buffer by buffer.
    pub instructions: Vec<InstructionEvent>,
    /// DMA transfers, in data-done order.
    pub dmas: Vec<DmaEvent>,
    /// Semaphore and event updates, in record order.
    pub semaphores: Vec<SemaphoreEvent>,
    /// Throttle records, in record order.
    pub throttles: Vec<ThrottleEvent>,
}

impl EventSink for CaptureEvents {
    fn instruction(&mut self, e: InstructionEvent) {
        self.instructions.push(e);
    }
    fn dma(&mut self, e: DmaEvent) {
        self.dmas.push(e);
    }
    fn semaphore(&mut self, e: SemaphoreEvent) {
        self.semaphores.push(e);
    }
    fn throttle(&mut self, e: ThrottleEvent) {
        self.throttles.push(e);
    }
}
