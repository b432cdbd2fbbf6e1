//! The MAIN pseudo-instruction forms a learned runtime's capture vouches for (decision D845):
//! `--like` lowers MAIN as runtime 2.30.51 does (D461, D580, D581); the teacher check (D843)
//! confirms that for the pseudo-instructions the capture's own NEFF has, and for a capture of
//! another version a NEFF using others is told so.

use neff_isa::{EngineType, Opcode, SLOT_BYTES};

use super::learned::LearnedRuntime;

/// The distinct pseudo-instruction opcodes of `streams` (engine programs), in order.
pub fn pseudo_opcodes<'a>(streams: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut seen = [false; 256];
    for s in streams {
        for slot in s.chunks_exact(SLOT_BYTES) {
            seen[usize::from(slot[0])] |= Opcode(slot[0]).is_pseudo();
        }
    }
    (0..=u8::MAX).filter(|&b| seen[usize::from(b)]).collect()
}

/// A pseudo-instruction of a loaded NEFF the capture's NEFF never uses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{subgraph} {engine}: slot {slot} is {opcode}, which the NEFF of {capture} (runtime {version}) \
     never uses: it is lowered as runtime 2.30.51 does, which this capture does not confirm"
)]
pub struct UntaughtForm {
    /// The capture.
    pub capture: String,
    /// Its runtime version.
    pub version: String,
    /// The subgraph.
    pub subgraph: String,
    /// The engine.
    pub engine: EngineType,
    /// The slot of the engine's program (0-based).
    pub slot: usize,
    /// The opcode.
    pub opcode: Opcode,
}

impl LearnedRuntime {
    /// The first slot of every pseudo-instruction kind of one engine program the capture's NEFF
    /// never uses; none for a capture of 2.30.51 (whose forms the lowering was read from) or one
    /// whose NEFF's forms were not recorded.
    pub fn untaught_forms(
        &self,
        subgraph: &str,
        engine: EngineType,
        stream: &[u8],
    ) -> Vec<UntaughtForm> {
        let Some(taught) = self
            .taught_pseudos
            .as_deref()
            .filter(|_| !self.rules_apply())
        else {
            return Vec::new();
        };
        let mut out: Vec<UntaughtForm> = Vec::new();
        for (slot, s) in stream.chunks_exact(SLOT_BYTES).enumerate() {
            let opcode = Opcode(s[0]);
            if opcode.is_pseudo()
                && !taught.contains(&s[0])
                && !out.iter().any(|u| u.opcode == opcode)
            {
                out.push(UntaughtForm {
                    capture: self.capture.clone(),
                    version: self.version.clone(),
                    subgraph: subgraph.to_owned(),
                    engine,
                    slot,
                    opcode,
                });
            }
        }
        out
    }
}
