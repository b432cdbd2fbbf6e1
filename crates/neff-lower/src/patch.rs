//! The kbin patch table (spec 004 §3, spec 000 §3): per-engine lists of 16-byte
//! `kbin_patch_location_t` rows recording where the device image departs 1:1 from the NEFF
//! stream, so a device instruction address can be mapped back to a NEFF instruction.
//!
//! Lowering (spec 001 §5) produces a block's INSERT/DELETE rows, image assembly (spec 000 §6-§7)
//! adds the whole-region INSERTs, splices block lists with [`EnginePatches::extend`] and rebases
//! them with [`EnginePatches::add_base_offset`]; the IP maps (`ipmap`) read them.

use std::fmt;

use neff_isa::EngineType;

/// Bytes per instruction slot: counts are stored in slots, `byte_count >> 6` (spec 004 §3).
const SLOT_SHIFT: u32 = 6;

/// `kbin_patch_type_t` (spec 004 §3: INSERT=0, MODIFY=1, DELETE=2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PatchType {
    /// The device has `count` instructions the NEFF does not (staging glue, pseudo expansion).
    Insert = 0,
    /// One device instruction replaces one NEFF instruction in place (branch fix-ups).
    Modify = 1,
    /// The NEFF has `count` instructions the device does not (labels, dropped pseudos).
    Delete = 2,
}

/// `kbin_patch_section_t` (spec 004 §3: PREAMBLE=0, POSTAMBLE=1, MAIN=2, FUNCTION=3).
///
/// The shipped enum spells the last value `KBIN_PATCH_SECTION_FUNCATION` (spec 000 §3.1); the
/// variant keeps that spelling, text output spells the region FUNCTION.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PatchSection {
    /// The runtime-synthesized PREAMBLE (with MODEL_SWITCH inside).
    Preamble = 0,
    /// The runtime-synthesized POSTAMBLE.
    Postamble = 1,
    /// The MAIN body: function 0 of the engine stream.
    Main = 2,
    /// A named function's body (`KBIN_PATCH_SECTION_FUNCATION`).
    Function = 3,
}

impl PatchType {
    /// The type with the runtime's numeric value `v`; `None` for the values the walk rejects
    /// ("Invalid patch type", spec 004 §3).
    pub const fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Self::Insert),
            1 => Some(Self::Modify),
            2 => Some(Self::Delete),
            _ => None,
        }
    }

    /// The upper-case name used in text and JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Insert => "INSERT",
            Self::Modify => "MODIFY",
            Self::Delete => "DELETE",
        }
    }
}

impl PatchSection {
    /// The section with the runtime's numeric value `v`.
    pub const fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Self::Preamble),
            1 => Some(Self::Postamble),
            2 => Some(Self::Main),
            3 => Some(Self::Function),
            _ => None,
        }
    }

    /// The upper-case region name used in text and JSON output (`FUNCTION` for
    /// [`PatchSection::Function`]).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Preamble => "PREAMBLE",
            Self::Postamble => "POSTAMBLE",
            Self::Main => "MAIN",
            Self::Function => "FUNCTION",
        }
    }
}

impl fmt::Display for PatchType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for PatchSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `kbin_patch_location_t` (spec 000 §3: 16 bytes {offset, count, type, section}).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PatchLocation {
    /// Byte offset in the assembled image (the one address-relative field, spec 004 §3).
    pub offset: u32,
    /// Instruction count of the edit, in 64-byte slots.
    pub count: u32,
    /// What the edit does.
    pub kind: PatchType,
    /// Which region of the image it lies in.
    pub section: PatchSection,
}

/// Size of one encoded [`PatchLocation`] (spec 000 §3: 16 B).
pub const PATCH_LOCATION_SIZE: usize = 16;

impl PatchLocation {
    /// The 16-byte little-endian record the runtime stores (`{offset, count, type, section}`).
    pub fn to_bytes(&self) -> [u8; PATCH_LOCATION_SIZE] {
        let mut out = [0u8; PATCH_LOCATION_SIZE];
        out[0..4].copy_from_slice(&self.offset.to_le_bytes());
        out[4..8].copy_from_slice(&self.count.to_le_bytes());
        out[8..12].copy_from_slice(&(self.kind as u32).to_le_bytes());
        out[12..16].copy_from_slice(&(self.section as u32).to_le_bytes());
        out
    }

    /// Decodes a 16-byte record; `None` if the type or section value is not one the runtime
    /// defines.
    pub fn from_bytes(bytes: &[u8; PATCH_LOCATION_SIZE]) -> Option<Self> {
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        Some(Self {
            offset: word(0),
            count: word(4),
            kind: PatchType::from_u32(word(8))?,
            section: PatchSection::from_u32(word(12))?,
        })
    }
}

/// One engine's growable patch list, `kbin_eng_patch_t` {count, array_count, locations}
/// (spec 000 §3, spec 004 §3).
///
/// `array_count` is tracked explicitly so the runtime's growth rules (double on append,
/// next power of two on extend, `count <= array_count`) are observable and tested.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnginePatches {
    locations: Vec<PatchLocation>,
    array_count: usize,
}

impl EnginePatches {
    /// `kbin_patch_allocate`: an empty list with room for `array_count` rows (the driver reserves
    /// 8, spec 000 §2 stage 4).
    pub fn with_array_count(array_count: usize) -> Self {
        Self {
            locations: Vec::with_capacity(array_count),
            array_count,
        }
    }

    /// The rows in append order.
    pub fn locations(&self) -> &[PatchLocation] {
        &self.locations
    }

    /// Number of rows (`count`).
    pub fn len(&self) -> usize {
        self.locations.len()
    }

    /// Whether the list has no rows.
    pub fn is_empty(&self) -> bool {
        self.locations.is_empty()
    }

    /// The reserved row count (`array_count`); always `>= len()`.
    pub fn array_count(&self) -> usize {
        self.array_count
    }

    /// `kbin_patch_append` (spec 000 §6 NOTE): records an edit of `byte_count` bytes at image
    /// byte `offset`, storing `byte_count >> 6` slots; a zero byte count appends nothing;
    /// `array_count` doubles on overflow.
    pub fn append(&mut self, offset: u32, byte_count: u64, kind: PatchType, section: PatchSection) {
        if byte_count == 0 {
            return;
        }
        let count = u32::try_from(byte_count >> SLOT_SHIFT).unwrap_or(u32::MAX);
        if self.locations.len() == self.array_count {
            self.array_count = (self.array_count * 2).max(1);
        }
        self.locations.push(PatchLocation {
            offset,
            count,
            kind,
            section,
        });
    }

    /// Appends a row whose count is already in slots (a block row carried verbatim, e.g. MODIFY).
    pub fn push(&mut self, location: PatchLocation) {
        if self.locations.len() == self.array_count {
            self.array_count = (self.array_count * 2).max(1);
        }
        self.locations.push(location);
    }

    /// `kbin_patch_extend` (spec 004 §3): concatenates `other` onto this list, growing
    /// `array_count` to the next power of two of the combined count.
    pub fn extend(&mut self, other: &EnginePatches) {
        let needed = self.locations.len() + other.locations.len();
        if needed > self.array_count {
            self.array_count = needed.next_power_of_two();
        }
        self.locations.extend_from_slice(&other.locations);
        debug_assert!(
            self.locations.len() <= self.array_count,
            "count <= array_count"
        );
    }

    /// `kbin_patch_add_base_offset` (spec 004 §3): adds `base` to every row's offset.
    pub fn add_base_offset(&mut self, base: u32) {
        for loc in &mut self.locations {
            loc.offset = loc.offset.wrapping_add(base);
        }
    }
}

/// `kbin_patch_info_t` (spec 000 §3: `eng_patch[5]`, one list per engine, 80 B in the runtime).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PatchInfo {
    eng_patch: [EnginePatches; EngineType::COUNT],
}

impl PatchInfo {
    /// The list of one engine.
    pub fn engine(&self, engine: EngineType) -> &EnginePatches {
        &self.eng_patch[engine.index()]
    }

    /// The list of one engine, for appending.
    pub fn engine_mut(&mut self, engine: EngineType) -> &mut EnginePatches {
        &mut self.eng_patch[engine.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_stores_slots_and_skips_zero_bytes() {
        let mut p = EnginePatches::with_array_count(8);
        p.append(0x40, 3 * 64, PatchType::Insert, PatchSection::Main);
        p.append(0x80, 0, PatchType::Delete, PatchSection::Main);
        assert_eq!(p.len(), 1);
        assert_eq!(p.locations()[0].count, 3);
    }

    #[test]
    fn append_doubles_and_extend_rounds_to_power_of_two() {
        let mut p = EnginePatches::with_array_count(2);
        for i in 0..3 {
            p.append(i * 64, 64, PatchType::Insert, PatchSection::Main);
        }
        assert_eq!(p.array_count(), 4);
        let mut q = EnginePatches::with_array_count(1);
        q.append(0, 64, PatchType::Delete, PatchSection::Main);
        q.extend(&p);
        assert_eq!((q.len(), q.array_count()), (4, 4));
        q.extend(&p);
        assert_eq!((q.len(), q.array_count()), (7, 8));
    }

    #[test]
    fn record_is_16_bytes_little_endian_in_spec_order() {
        let loc = PatchLocation {
            offset: 0x1234,
            count: 2,
            kind: PatchType::Delete,
            section: PatchSection::Function,
        };
        let b = loc.to_bytes();
        assert_eq!(b, [0x34, 0x12, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
        assert_eq!(PatchLocation::from_bytes(&b), Some(loc));
        let mut bad = b;
        bad[8] = 7;
        assert_eq!(PatchLocation::from_bytes(&bad), None);
    }

    #[test]
    fn add_base_offset_moves_every_row() {
        let mut p = EnginePatches::default();
        p.append(0, 64, PatchType::Insert, PatchSection::Function);
        p.append(64, 64, PatchType::Modify, PatchSection::Function);
        p.add_base_offset(0x1000);
        let offsets: Vec<u32> = p.locations().iter().map(|l| l.offset).collect();
        assert_eq!(offsets, [0x1000, 0x1040]);
    }
}
