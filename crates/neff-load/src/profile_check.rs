//! A profile checked against a loaded NEFF (`neff ip --profile`, decision D177): for every
//! profiled instruction, does neffkit's IP map give the profiler's slot, both ways, and do the
//! names agree; and does the profile belong to this NEFF at all. It lives here, beside the IP
//! map it checks, so that neff-profile stays a plain reader (issue 28).

use crate::ipmap::DeviceAddr;
use neff_isa::{EngineType, SLOT_BYTES, SLOT_SHIFT, Slot, SlotIndex};
use neff_profile::header::{NeffHeaderInfo, hex_digits};
use neff_profile::{Profile, ProfiledInstruction, mnemonic};

use crate::ipmap::NeffIp;
use crate::model::{LoadedEngine, LoadedModel};
use crate::runtime_model::{RUNTIME_VALUE, RuntimeOp, RuntimeSlot};

/// Why a profile is not the profile of a NEFF.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// The report has no `neff_header` to compare.
    #[error("the profile has no neff_header: cannot tell whether it belongs to this NEFF")]
    NoHeader,
    /// The uuids differ.
    #[error("the profile is of NEFF uuid {profile}, this NEFF's uuid is {neff}")]
    Uuid {
        /// The profile's.
        profile: String,
        /// The NEFF's.
        neff: String,
    },
    /// The hashes differ.
    #[error("the profile is of NEFF hash {profile}, this NEFF's hash is {neff}")]
    Hash {
        /// The profile's.
        profile: String,
        /// The NEFF's (as many digits as the profile gives).
        neff: String,
    },
}

/// Whether a report's `neff_header` names this NEFF: its uuid (16 bytes) and its hash (the
/// profiler prints the md5, the first 16 of the header's 32 hash bytes) must both match.
pub fn check_header(
    header: Option<&NeffHeaderInfo>,
    neff_uuid: &[u8; 16],
    neff_hash: &[u8; 32],
) -> Result<(), Mismatch> {
    let h = header.ok_or(Mismatch::NoHeader)?;
    let uuid = hex_digits(&to_hex(neff_uuid));
    if h.uuid_hex() != uuid {
        return Err(Mismatch::Uuid {
            profile: h.uuid.clone(),
            neff: uuid,
        });
    }
    let want = h.hash_hex();
    let have = to_hex(neff_hash);
    if want.is_empty() || !have.starts_with(&want) {
        return Err(Mismatch::Hash {
            profile: h.hash.clone(),
            neff: have[..want.len().clamp(32, 64)].to_string(),
        });
    }
    Ok(())
}

/// Whether `profile` is of the NEFF with header `neff_uuid` / `neff_hash`: a report by its
/// `neff_header` ([`check_header`]); a raw capture by the uuid bytes it holds (reference-ntff §2:
/// a capture carries no hash).
pub fn check_profile_header(
    profile: &Profile,
    neff_uuid: &[u8; 16],
    neff_hash: &[u8; 32],
) -> Result<(), Mismatch> {
    match &profile.capture {
        Some(facts) if facts.matches_uuid(neff_uuid) => Ok(()),
        Some(facts) => Err(Mismatch::Uuid {
            profile: to_hex(facts.uuid_bytes()),
            neff: to_hex(neff_uuid),
        }),
        None => check_header(profile.neff_header.as_ref(), neff_uuid, neff_hash),
    }
}

/// Whether a traced runtime op at image slot `pc` is the profiled instruction. A row read from a
/// raw capture has no operand text (the capture holds the slot, not the vendor's decoding): its
/// mnemonic alone is compared.
fn runtime_agrees(op: RuntimeOp, pc: usize, i: &ProfiledInstruction, operands: bool) -> bool {
    op.mnemonic() == i.opcode
        && (!operands || runtime_operands_agree(&op.operands(pc), &i.operands))
}

/// Whether every operand token of the model's text appears among the profiler's (which may
/// print more, e.g. `setter=0`), tokens holding a runtime-resolved value excepted.
pub fn runtime_operands_agree(model: &str, profiler: &str) -> bool {
    let theirs: Vec<&str> = profiler.split_whitespace().collect();
    model
        .split_whitespace()
        .filter(|t| !t.contains(RUNTIME_VALUE))
        .all(|t| theirs.contains(&t))
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One profiled instruction neffkit does not agree with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The profiled instruction.
    pub instruction: ProfiledInstruction,
    /// What neffkit says instead.
    pub what: String,
}

/// The outcome of [`check_profile`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProfileCheck {
    /// Profiled NEFF instructions (with `compiler_pc`) checked.
    pub neff_instructions: usize,
    /// Of those, how many pcs map to `compiler_pc + 1` (device pc -> NEFF instruction).
    pub forward_agree: usize,
    /// How many NEFF instructions map back to a device range holding the profiled pc.
    pub reverse_agree: usize,
    /// How many carry the profiler's mnemonic (through [`neff_profile::mnemonic`]).
    pub mnemonic_agree: usize,
    /// Profiled runtime instructions (no `compiler_pc`) checked against the runtime model.
    pub runtime_instructions: usize,
    /// Of those, how many fall on a slot of the model's PREAMBLE / POSTAMBLE whose traced
    /// instruction has the profiler's mnemonic and operands ([`runtime_operands_agree`]).
    pub runtime_agree: usize,
    /// How many fall on a slot the model keeps opaque (counted as agreeing: the model claims
    /// nothing there).
    pub runtime_opaque: usize,
    /// Everything that disagrees, in report order.
    pub disagreements: Vec<Disagreement>,
}

/// Checks every profiled instruction against `model` (loaded from the NEFF the profile is of)
/// and the engines' source streams `source(subgraph, engine)`.
///
/// A NEFF instruction agrees when its device pc maps to `compiler_pc + 1` (spec 004 §3 counts
/// from 1) and not into INSERTed glue, when `compiler_pc + 1` maps back to a device range holding
/// the pc, and when its name agrees. A runtime instruction is checked only under the runtime
/// model: its pc must lie in the engine's PREAMBLE or POSTAMBLE, on a slot that is opaque or
/// traced with the same mnemonic.
pub fn check_profile<'s>(
    profile: &Profile,
    model: &LoadedModel,
    source: &dyn Fn(&str, EngineType) -> Option<&'s [u8]>,
) -> ProfileCheck {
    let mut out = ProfileCheck::default();
    for i in &profile.instructions {
        let engine = match i.engine() {
            Some(e) => e,
            None => {
                out.disagree(i, format!("unknown engine queue {:?}", i.label));
                continue;
            }
        };
        let Some(e) = model
            .subgraphs
            .iter()
            .find(|s| s.name == i.subgraph)
            .and_then(|s| s.engine(engine))
        else {
            out.disagree(i, format!("the NEFF has no {} {engine}", i.subgraph));
            continue;
        };
        match i.compiler_pc {
            Some(cpc) => out.neff_instruction(i, cpc, e, source(&i.subgraph, engine)),
            None => out.runtime_instruction(i, e, profile.capture.is_none()),
        }
    }
    out
}

impl ProfileCheck {
    /// Whether every profiled instruction agrees.
    pub fn all_agree(&self) -> bool {
        self.disagreements.is_empty()
    }

    fn disagree(&mut self, i: &ProfiledInstruction, what: String) {
        self.disagreements.push(Disagreement {
            instruction: i.clone(),
            what,
        });
    }

    fn neff_instruction(
        &mut self,
        i: &ProfiledInstruction,
        cpc: u64,
        e: &LoadedEngine,
        src: Option<&[u8]>,
    ) {
        self.neff_instructions += 1;
        let Ok(slot) = u32::try_from(cpc) else {
            self.disagree(i, format!("compiler_pc {cpc} is past any stream's slots"));
            return;
        };
        let want = NeffIp::from_slot(SlotIndex(slot));
        // A pc is a slot index; the IP map takes byte addresses.
        let addr = DeviceAddr(e.ib_addrs.base + (i.pc << SLOT_SHIFT));
        match e.ipmap.neff_ip(addr) {
            Ok(hit) if hit.neff_ip == want && !hit.inserted => self.forward_agree += 1,
            Ok(hit) => self.disagree(
                i,
                format!(
                    "pc {} maps to NEFF instruction {}{}, the profile says {want}",
                    i.pc,
                    hit.neff_ip.0,
                    if hit.inserted { " (inserted glue)" } else { "" }
                ),
            ),
            Err(err) => self.disagree(i, format!("pc {}: {err}", i.pc)),
        }
        match e.ipmap.device_range(want) {
            Ok(Some(r)) if (r.start..r.end).contains(&addr) => self.reverse_agree += 1,
            Ok(Some(r)) => self.disagree(
                i,
                format!(
                    "NEFF instruction {want} maps back to pcs {}..{}, the profile says {}",
                    (r.start.0 - e.ib_addrs.base) >> SLOT_SHIFT,
                    (r.end.0 - e.ib_addrs.base) >> SLOT_SHIFT,
                    i.pc
                ),
            ),
            Ok(None) => self.disagree(i, format!("NEFF instruction {want} has no device slot")),
            Err(err) => self.disagree(i, format!("NEFF instruction {want}: {err}")),
        }
        let name = src
            .and_then(|s| s.get(cpc as usize * SLOT_BYTES..(cpc as usize + 1) * SLOT_BYTES))
            .and_then(Slot::from_slice)
            .and_then(|s| s.opcode().mnemonic());
        match name {
            Some(n) if mnemonic::agrees(&i.opcode, i.compiler_opcode.as_deref(), n) => {
                self.mnemonic_agree += 1
            }
            Some(n) => self.disagree(
                i,
                format!("slot {cpc} is {n}, the profiler says {}", i.opcode),
            ),
            None => self.disagree(
                i,
                format!("slot {cpc} is not a known instruction of the stream"),
            ),
        }
    }

    fn runtime_instruction(&mut self, i: &ProfiledInstruction, e: &LoadedEngine, operands: bool) {
        let Some(r) = &e.image.runtime else {
            return; // the spec model claims nothing about the runtime's own slots
        };
        self.runtime_instructions += 1;
        let pc = i.pc as usize;
        let post_start = (e.image.postamble.offset >> SLOT_SHIFT) as usize;
        let found = r.at(pc, post_start);
        let slot = found.map(|s| s.slot);
        // A learned slot (D850) is the runtime's own bytes: its opcode must be the profiler's.
        let learned_name =
            (found.and_then(|s| s.bytes)).and_then(|b| Slot::from_slice(b)?.opcode().mnemonic());
        match (slot, learned_name) {
            (Some(RuntimeSlot::Opaque), Some(n)) if mnemonic::agrees(&i.opcode, None, n) => {
                self.runtime_agree += 1
            }
            (Some(RuntimeSlot::Opaque), Some(n)) => self.disagree(
                i,
                format!(
                    "runtime slot {pc} is the runtime's `{n}` in the model, the profiler says `{}`",
                    i.opcode
                ),
            ),
            (slot, _) => self.runtime_slot_verdict(i, slot, pc, e, operands),
        }
    }

    fn runtime_slot_verdict(
        &mut self,
        i: &ProfiledInstruction,
        slot: Option<RuntimeSlot>,
        pc: usize,
        e: &LoadedEngine,
        operands: bool,
    ) {
        match slot {
            Some(RuntimeSlot::Opaque) => {
                self.runtime_opaque += 1;
                self.runtime_agree += 1;
            }
            Some(RuntimeSlot::Traced(op)) if runtime_agrees(op, pc, i, operands) => {
                self.runtime_agree += 1
            }
            Some(RuntimeSlot::Traced(op)) => self.disagree(
                i,
                format!(
                    "runtime slot {pc} is `{} {}` in the model, the profiler says `{} {}`",
                    op.mnemonic(),
                    op.operands(pc),
                    i.opcode,
                    i.operands.trim()
                ),
            ),
            None if inserted_by_lowering(e, i.pc) => self.runtime_agree += 1,
            None => self.disagree(
                i,
                format!("pc {pc} is no PREAMBLE or POSTAMBLE slot of the model"),
            ),
        }
    }
}

/// Whether device slot `pc` is a record the model inserts into a NEFF instruction's lowering
/// (inside that instruction's device range, not the instruction's own record): the runtime marks
/// the same records as its own, with no compiler pc (decision D531: the first broadcast WRITE of
/// every static-queue 0xC1 in the shared captures).
fn inserted_by_lowering(e: &LoadedEngine, pc: u64) -> bool {
    let addr = DeviceAddr(e.ib_addrs.base + (pc << SLOT_SHIFT));
    let Ok(hit) = e.ipmap.neff_ip(addr) else {
        return false;
    };
    hit.inserted
        && matches!(
            e.ipmap.device_range(hit.neff_ip),
            Ok(Some(r)) if (r.start..r.end).contains(&addr)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_operands_compare_by_token_skipping_runtime_values() {
        // sg00 Activation pc 55 and pc 37 of baseline_attention.
        assert!(runtime_operands_agree(
            "$S[2]==1 $S[2]++@complete",
            " setter=0 $S[2]==1 $S[2]++@complete "
        ));
        assert!(runtime_operands_agree(
            "addr=uint32@<runtime>[0,0][1,1] data=$R[0]",
            "addr=uint32@0x8005c035e000[0,0][1,1] data=$R[0]"
        ));
        assert!(!runtime_operands_agree(
            "$S[2]==7 $S[2]++@complete",
            "setter=0 $S[2]==1 $S[2]++@complete"
        ));
    }

    #[test]
    fn header_pairs_by_uuid_and_md5() {
        let uuid = [
            0xde, 0xbb, 0x20, 0x02, 0x2c, 0xc8, 0x45, 0x8d, 0xbd, 0xc6, 0x4a, 0x79, 0x2e, 0xd6,
            0xfe, 0x4a,
        ];
        let mut hash = [0u8; 32];
        hash[..4].copy_from_slice(&[0xd4, 0x1d, 0xd7, 0xd3]);
        let h = NeffHeaderInfo {
            uuid: "debb20022cc8458dbdc64a792ed6fe4a".into(),
            hash: "d41dd7d3".into(),
            ..Default::default()
        };
        assert_eq!(check_header(Some(&h), &uuid, &hash), Ok(()));
        let mut other = uuid;
        other[0] = 0;
        assert!(matches!(
            check_header(Some(&h), &other, &hash),
            Err(Mismatch::Uuid { .. })
        ));
        hash[0] = 0;
        assert!(matches!(
            check_header(Some(&h), &uuid, &hash),
            Err(Mismatch::Hash { .. })
        ));
        assert_eq!(check_header(None, &uuid, &hash), Err(Mismatch::NoHeader));
    }
}
