//! Why a runtime learned from a capture has no regions for one engine of a NEFF (decision
//! D842): the load stops with this, naming the capture, the engine, the content key and what
//! was missing, rather than build regions of another runtime version.

use neff_isa::EngineType;

use super::variant::{QueuePlace, VariantKey};

/// What the capture did not teach.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnlearnedWhy {
    /// No stream of the engine has the key, nor one that differs from it only in a static
    /// queue.
    #[error(
        "no stream of the capture has this key, nor one differing only in a static queue (its keys for the engine: {})",
        keys(seen)
    )]
    NoKey {
        /// The engine's keys the capture has.
        seen: Vec<VariantKey>,
    },
    /// The stream with the engine's static queue holds no block of it the learner recognizes
    /// (decision D840), so it cannot be taken out.
    #[error(
        "the capture's {subgraph} stream ({key}) holds no block of its static queue that the \
         learner recognizes (a WRITE of 0x100 to the queue's two re-arm registers, in the \
         PREAMBLE before the program start and in the POSTAMBLE before its last slot), so it \
         cannot be taken out"
    )]
    NoBlockToCut {
        /// The subgraph of that stream.
        subgraph: String,
        /// Its key.
        key: VariantKey,
    },
    /// The engine's static queue needs its blocks built, and the capture shows no block of such
    /// a queue that the builder reproduces (decision D840).
    #[error(
        "static queue {queue} ({}) needs its PREAMBLE / POSTAMBLE blocks built, and the capture \
         has no block of a queue of that kind that runtime 2.30.51's builder reproduces to take \
         their place and shape from", if *data { "data" } else { "not data" }
    )]
    NoBlockToCopy {
        /// The def.json `dma_queue` index.
        queue: u8,
        /// Whether it is a `data` queue.
        data: bool,
    },
    /// The learned regions are too short for the place a queue block goes.
    #[error(
        "the capture's {subgraph} regions have no PREAMBLE slot {} before the program start or \
         no {} POSTAMBLE slots to put a queue block before", place.preamble_at, place.postamble_tail
    )]
    NoRoomForBlock {
        /// The subgraph of the learned regions.
        subgraph: String,
        /// Where the block would go.
        place: QueuePlace,
    },
    /// The key's streams were seen with other counts of table sets, and the capture does not show
    /// that the count leaves the regions as they are (decision D844).
    #[error(
        "the capture shows this engine's regions with {taught:?} table set(s) only and this NEFF \
         has {wanted}; whether the count changes this runtime's regions (it does not under \
         2.30.51, D467) is not shown by the capture"
    )]
    TableSets {
        /// The counts the capture shows.
        taught: Vec<usize>,
        /// The NEFF's.
        wanted: usize,
    },
    /// The static-queue block found in the capture's stream is not confirmed as the whole block
    /// (decision D844).
    #[error(
        "the {slots}-slot static-queue block found in the capture's {subgraph} stream {}, so \
         taking it out may leave part of it", if *contradicted {
            "leaves other opcodes than the capture's stream of the engine without a static queue"
        } else {
            "is not runtime 2.30.51's block and the capture has no stream of the engine without \
             a static queue to hold the cut against"
        }
    )]
    UnconfirmedCut {
        /// The subgraph of the stream with the block.
        subgraph: String,
        /// The block's PREAMBLE slots.
        slots: usize,
        /// Whether the queue-less stream contradicts the cut (else: nothing confirms it).
        contradicted: bool,
    },
    /// Two or more static queues on one engine: no capture shows their blocks; runtime
    /// 2.30.51's are built one after the other (decision D857), no other version's.
    #[error(
        "the engine owns {queues} static queues; no capture shows the blocks of more than one          (runtime 2.30.51's are built one after the other, D857; this runtime's order and place          are not known)"
    )]
    ManyQueues {
        /// How many.
        queues: u8,
    },
}

fn keys(seen: &[VariantKey]) -> String {
    if seen.is_empty() {
        return "none".to_owned();
    }
    seen.iter()
        .map(|k| format!("[{k}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One engine's regions a capture of another runtime version than the rules' did not teach
/// (decision D842).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{capture} (runtime {version}) teaches no {engine} regions for content [{key}]: {why}; the \
     rules' regions are runtime 2.30.51's and stand in for no other version"
)]
pub struct Unlearned {
    /// The capture learned from.
    pub capture: String,
    /// Its runtime version.
    pub version: String,
    /// The engine.
    pub engine: EngineType,
    /// The engine's content key in the loaded NEFF.
    pub key: VariantKey,
    /// What was missing.
    pub why: UnlearnedWhy,
}
