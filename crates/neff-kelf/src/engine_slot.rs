//! A kbin engine slot (spec 004 §2 step 1, `kbin_engine_t`): the engine type, name, derived
//! instruction count and the verbatim instruction bytes.

use neff_isa::{EngineType, SLOT_BYTES, SLOT_SHIFT};

/// One filled engine slot. The slot index is the `instr_sets` map position (alphabetical by
/// engine name), NOT the engine type: read [`EngineSlot::eng_type`] (spec 004 §2 GOTCHA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSlot<'a> {
    /// The slot index, 0..5 (act, dve, pe, pool, sp when all five are present).
    pub slot: usize,
    /// The true engine type (`eng->eng_type`, +0).
    pub eng_type: EngineType,
    /// The engine name (`eng->name`, +4; the def.json key, at most 255 bytes).
    pub name: String,
    /// `size >> 6` (`eng->ninstr`, +260): whole 64-byte records the sequencer fetches.
    pub ninstr: u32,
    /// The raw blob size: the byte copy's length (spec 004 §2 NOTE: not `ninstr * 64`).
    pub size: u32,
    /// The blob, verbatim (`eng->instr`, +320), trailing `size & 63` bytes included.
    pub instr: &'a [u8],
    /// The member the blob came from (`sg00/PE.bin`).
    pub member: String,
}

impl<'a> EngineSlot<'a> {
    /// Fills a slot the way gen_kbin does (spec 004 §2 lines 210-221): ninstr derived by `>> 6`,
    /// the size kept for the copy. Returns the warning for a blob that is not a multiple of 64.
    pub fn fill(
        slot: usize,
        eng_type: EngineType,
        name: &str,
        member: &str,
        instr: &'a [u8],
    ) -> (Self, Option<String>) {
        let size = u32::try_from(instr.len()).unwrap_or(u32::MAX);
        let ninstr = size >> SLOT_SHIFT;
        let trailing = size & 63;
        let warning = (trailing != 0).then(|| {
            format!(
                "{member}: {size} bytes is not a multiple of 64; the trailing {trailing} bytes are \
                 copied but not counted in ninstr = {ninstr} (spec 004 §2)"
            )
        });
        let name: String = name.chars().take(255).collect();
        (
            Self {
                slot,
                eng_type,
                name,
                ninstr,
                size,
                instr,
                member: member.to_owned(),
            },
            warning,
        )
    }

    /// The `i`-th whole 64-byte record, if `i < ninstr`.
    pub fn record(&self, i: usize) -> Option<&'a [u8]> {
        let start = i.checked_mul(SLOT_BYTES)?;
        if i >= self.ninstr as usize {
            return None;
        }
        self.instr.get(start..start + SLOT_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ninstr_is_size_shift_6_and_the_tail_is_kept() {
        let blob = [0u8; 130];
        let (s, w) = EngineSlot::fill(2, EngineType::Pe, "pe", "sg00/pe.bin", &blob);
        assert_eq!((s.ninstr, s.size, s.instr.len()), (2, 130, 130));
        assert!(w.unwrap().starts_with("sg00/pe.bin: 130 bytes"));
        assert!(s.record(1).is_some() && s.record(2).is_none());
        let (s, w) = EngineSlot::fill(0, EngineType::Act, "act", "a.bin", &[]);
        assert_eq!((s.ninstr, s.size, w), (0, 0, None));
    }
}
