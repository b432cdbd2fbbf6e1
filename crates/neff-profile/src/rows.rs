//! The vendor-named rows of DMA transfers, semaphore updates and throttle states (the JSON
//! report's `dma`, `semaphore_update` and `ham`), which both readers fill: the JSON reader from
//! the report, the capture reader from the decoded events.

use serde::{Deserialize, Deserializer};

/// One DMA transfer (`dma[]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DmaTransfer {
    /// The subgraph.
    pub subgraph: String,
    /// The DMA engine id (`"64"` in the report).
    #[serde(deserialize_with = "number_or_text")]
    pub dma_engine: u64,
    /// The queue index (`"0"` in the report).
    #[serde(deserialize_with = "number_or_text")]
    pub dma_queue: u64,
    /// Transfer size, bytes (`transfer_size`).
    #[serde(rename = "transfer_size", default)]
    pub size: u64,
    /// Start, ns.
    #[serde(default)]
    pub timestamp: u64,
    /// Start to data done, ns.
    #[serde(default)]
    pub duration: u64,
    /// The transfer's crc.
    #[serde(default)]
    pub crc: Option<u64>,
}

/// One semaphore update (`semaphore_update[]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SemaphoreUpdate {
    /// The subgraph.
    pub subgraph: String,
    /// The semaphore's index (`id`: `"2"`, or `"S[24] (qSyncDynamicHW)"` for a queue's
    /// semaphore, in the report).
    #[serde(rename = "id", deserialize_with = "semaphore_index")]
    pub index: u64,
    /// The new value.
    pub value: i64,
    /// When, ns.
    #[serde(default)]
    pub timestamp: u64,
}

/// One throttle state (`ham[]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ThrottleRow {
    /// The subgraph.
    pub subgraph: String,
    /// The vendor's `k`.
    pub k: u64,
    /// The vendor's `type`.
    #[serde(rename = "type")]
    pub kind: u64,
    /// The vendor's `n`.
    pub n: u64,
    /// Start, ns.
    #[serde(default)]
    pub timestamp: u64,
    /// Until the next state, ns.
    #[serde(default)]
    pub duration: u64,
}

/// A report field written as a JSON number or as text.
#[derive(Deserialize)]
#[serde(untagged)]
enum N {
    Num(u64),
    Text(String),
}

/// A number the report writes as a JSON number or as decimal text.
fn number_or_text<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match N::deserialize(d)? {
        N::Num(n) => Ok(n),
        N::Text(t) => t.trim().parse().map_err(serde::de::Error::custom),
    }
}

/// The index of a report's semaphore `id`: its first run of decimal digits (`"2"`,
/// `"S[24] (qSyncDynamicHW)"`).
fn semaphore_index<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match N::deserialize(d)? {
        N::Num(n) => Ok(n),
        N::Text(t) => {
            let digits: String = t
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            digits
                .parse()
                .map_err(|_| serde::de::Error::custom(format!("semaphore id {t:?} has no index")))
        }
    }
}
