//! The arch gate (spec 001 contract: "The heavy translators branch on al_hal_tpb_get_arch_type() —
//! 2 = SUNDA (v2), 3/4 = CAYMAN/MARIANA (v3) ... the v3 single-instruction demux down-translates
//! SUNDA input via translate_one_sunda_to_cayman_instr"; §1 Considerations; decision D288).
//!
//! The device's generation picks the demux: `translate_one_pseudo_instr_v2` on SUNDA,
//! `translate_one_pseudo_instr_v3` on CAYMAN and MARIANA. The v3 demux recognises its own pseudo
//! set (PSEUDO_JPEG_DECODE 0xD7, CC-top only; the DGE transpose family) and down-translates a
//! SUNDA-targeted slot before the shared recipes; the v2 demux has no arm for the v3 set.

use neff_isa::{Generation, Opcode, SLOT_BYTES};
use neff_kelf::Target;

use super::direct2d;
use super::error::LowerErrorKind;

/// Which single-instruction demux lowers a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Demux {
    /// `translate_one_pseudo_instr_v2` (@0x273ff0): SUNDA.
    V2,
    /// `translate_one_pseudo_instr_v3` (@0x3221a0): CAYMAN and MARIANA.
    V3,
}

/// The gate's decision for one subgraph: the NEFF's target, the device's generation, the demux.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchGate {
    /// The kbin target (`kbin.target`, spec 004 §2 step 5): what the NEFF was compiled for.
    pub target: Target,
    /// The device (`al_hal_tpb_get_arch_type()`): the NEFF's target unless the device model
    /// names another.
    pub device: Target,
    /// The demux the device's generation selects.
    pub demux: Demux,
}

impl ArchGate {
    /// The gate for a kbin of arch `target_arch` on a device of `device` (`None`: the target).
    /// An arch that is not 2, 3 or 4 has no demux; a NEFF newer than the device has no
    /// translation (only SUNDA input is down-translated, spec 001 §1).
    pub fn new(target_arch: u32, device: Option<Target>) -> Result<Self, LowerErrorKind> {
        let target = Target::from_arch(target_arch)
            .ok_or(LowerErrorKind::UnknownArch { arch: target_arch })?;
        let device = device.unwrap_or(target);
        if target.arch() > device.arch() {
            return Err(LowerErrorKind::TargetNewerThanDevice {
                target: target.name(),
                device: device.name(),
            });
        }
        let demux = match device {
            Target::Sunda => Demux::V2,
            Target::Cayman | Target::Mariana => Demux::V3,
        };
        Ok(Self {
            target,
            device,
            demux,
        })
    }

    /// Whether slots pass through `translate_one_sunda_to_cayman_instr` first: SUNDA input on
    /// the v3 demux.
    pub fn down_translates(&self) -> bool {
        self.demux == Demux::V3 && self.target == Target::Sunda
    }

    /// Whether the device reads the PTC2E DMA priority class (spec 001 §3: "on cayman+
    /// (arch>2)").
    pub fn reads_ptc2_priority(&self) -> bool {
        self.device.arch() > 2
    }

    /// The v3-only pseudos: what the demux of this gate says about `slot`, or `None` when it goes
    /// to the shared recipes. `cc_top` is whether the subgraph is the CC-top core (vTPB 0,
    /// decision D286). v2: the v3 set is unsupported on this generation. v3: recognised, but
    /// spec 001 gives no recipe for either, so it is unsupported too, saying why.
    pub(super) fn own_pseudo(
        &self,
        slot: &[u8; SLOT_BYTES],
        cc_top: bool,
    ) -> Option<LowerErrorKind> {
        let op = Opcode(slot[0]);
        let what = if op == Opcode::PSEUDO_DMA_DIRECT2D && direct2d::is_transpose(slot) {
            "PSEUDO_DMA_DIRECT2D (0xd4) with dge_op TRANSPOSE or GATHER_TRANSPOSE (the DGE transpose family)"
        } else if op.is_pseudo() && !op.known_in(Generation::V2) {
            op.mnemonic().unwrap_or("unknown")
        } else {
            return None;
        };
        let unsupported = |reason: &'static str| LowerErrorKind::UnsupportedOnGeneration {
            what,
            opcode: op.0,
            device: self.device.name(),
            arch: self.device.arch(),
            reason,
        };
        Some(match self.demux {
            Demux::V2 => unsupported("a v3 (cayman/mariana) pseudo the v2 demux has no arm for"),
            Demux::V3 if op == Opcode::PSEUDO_JPEG_DECODE && !cc_top => {
                unsupported("the v3 demux runs it on the CC-top core (device_tpb_idx 0) only")
            }
            Demux::V3 => unsupported("the v3 demux recognises it but spec 001 gives no recipe"),
        })
    }
}

/// `translate_one_sunda_to_cayman_instr`: the spec names the step but gives no body; every
/// layout neffkit lowers is the same on both generations (decision D288), so the slot passes
/// unchanged. The one place a SUNDA slot would be rewritten.
pub(super) fn translate_one_sunda_to_cayman_instr(slot: &[u8; SLOT_BYTES]) -> [u8; SLOT_BYTES] {
    *slot
}
