//! Learning checked on its teacher (decision D843): the capture's own NEFF, loaded as the runtime
//! learned from it, gives every captured stream back to its length and opcode sequence, or the
//! learner has misread this runtime's layout and says where.

use neff_isa::{EngineType, Opcode, SLOT_BYTES};

use super::stream::CapturedStream;

/// A captured stream its own learned runtime does not give back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{capture}: {subgraph} {engine}: its own NEFF, loaded as the runtime learned from this \
     capture, has {built_slots} slots where the capture has {captured_slots}; first difference \
     at slot {slot} ({region}): the capture has {captured}, the model {built} — the learner does \
     not understand this runtime's layout"
)]
pub struct Unreproduced {
    /// The capture.
    pub capture: String,
    /// The subgraph.
    pub subgraph: String,
    /// The engine.
    pub engine: EngineType,
    /// The first slot whose opcode differs (or the shorter side's length).
    pub slot: usize,
    /// Where that slot is in the captured stream: PREAMBLE, MAIN or POSTAMBLE.
    pub region: &'static str,
    /// The captured slot's opcode, or `nothing` past its end.
    pub captured: String,
    /// The model's.
    pub built: String,
    /// The captured stream's slots.
    pub captured_slots: usize,
    /// The model image's slots.
    pub built_slots: usize,
}

/// The opcode of slot `i` of `bytes`, as text.
fn opcode_at(bytes: &[u8], i: usize) -> Option<u8> {
    bytes.get(i * SLOT_BYTES).copied()
}

fn name(op: Option<u8>) -> String {
    op.map_or_else(|| "nothing".to_owned(), |b| Opcode(b).to_string())
}

/// Checks `image` (the model's image of the captured stream's engine and subgraph) against
/// `stream`: same length, same opcode at every slot.
pub fn check_stream(
    capture: &str,
    subgraph: &str,
    image: &[u8],
    stream: &CapturedStream<'_>,
) -> Result<(), Box<Unreproduced>> {
    let (built_slots, captured_slots) = (image.len() / SLOT_BYTES, stream.slot_count());
    let slot = (0..built_slots.max(captured_slots)).find(|&i| {
        opcode_at(image, i) != opcode_at(stream.bytes, i) || i >= captured_slots.min(built_slots)
    });
    let Some(slot) = slot else {
        return Ok(());
    };
    let region = match (stream.preamble(), stream.postamble()) {
        (Some(p), _) if p.contains(&slot) => "PREAMBLE",
        (_, Some(p)) if slot >= p.start => "POSTAMBLE",
        _ => "MAIN",
    };
    Err(Box::new(Unreproduced {
        capture: capture.to_owned(),
        subgraph: subgraph.to_owned(),
        engine: stream.engine,
        slot,
        region,
        captured: name(opcode_at(stream.bytes, slot)),
        built: name(opcode_at(image, slot)),
        captured_slots,
        built_slots,
    }))
}
