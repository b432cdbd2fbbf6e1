//! Device IP <-> NEFF IP translation (spec 004 §3, `kbin_patch_device_ip_to_neff_ip`).
//!
//! A device instruction address is classified into the MAIN or the FUNCTION section of one
//! engine's image (never PREAMBLE / POSTAMBLE, spec 004 §3 NOTE), then that section's patch rows
//! are replayed to count NEFF instructions. Three forms live here:
//! - [`walk::device_ip_to_neff_ip_literal`]: the spec's walk as printed, kept verbatim;
//! - [`walk::device_ip_to_neff_ip`]: the same walk positioned at each row's offset
//!   (decision D71), the linear reference;
//! - [`IpMap`]: prefix sums + binary search, used by default and proven equal to the positioned
//!   walk by property tests; it also answers the reverse question (NEFF IP -> device range).

pub mod index;
pub mod reverse;
pub mod walk;

pub use index::{IpCursor, IpMap, SectionIndex};

use std::fmt;
use std::ops::Range;

use neff_isa::SlotIndex;

use crate::image::CodeRange;
use crate::patch::PatchSection;

/// A 1-based NEFF instruction index: the source slot's position in the engine's `.bin`
/// (spec 004 §3: `neff_ip` starts at 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NeffIp(pub u64);

/// An absolute device byte address (the sequencer's PC), `inst_block.start_addr + offset`
/// (spec 000 §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceAddr(pub u64);

impl NeffIp {
    /// The NEFF IP of the 0-based source slot `slot` of the engine's `.bin`: the one conversion
    /// between the two index spaces (spec 004 §3: `neff_ip` starts at 1).
    pub const fn from_slot(slot: SlotIndex) -> Self {
        Self(slot.0 as u64 + 1)
    }

    /// The 0-based source slot this NEFF IP names; `None` for 0 (no instruction) or one past
    /// `u32` slots.
    pub fn slot(self) -> Option<SlotIndex> {
        let slot = self.0.checked_sub(1)?;
        u32::try_from(slot).ok().map(SlotIndex)
    }
}

impl fmt::Display for NeffIp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl DeviceAddr {
    /// The address `bytes` further on.
    #[inline]
    pub const fn plus(self, bytes: u64) -> Self {
        Self(self.0 + bytes)
    }
}

/// In hex, as the runtime prints device addresses (`0x4000010200`).
impl fmt::Display for DeviceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// One engine's address layout, as the IP walk needs it (spec 000 §3.2: `ib_addrs[eng]` and
/// `ib_functions[eng]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineLayout {
    /// Device address of the image's first byte (`ib_addrs.base`, `start_addr`).
    pub base: DeviceAddr,
    /// The MAIN range `core_offset` {offset, size}, image-relative bytes.
    pub core: CodeRange,
    /// The FUNCTION range `ib_functions[eng]` {offset, size}; size 0 when there are no functions.
    pub functions: CodeRange,
}

impl EngineLayout {
    /// The device address MAIN row offsets are relative to: the image start, because MAIN rows
    /// carry image byte offsets (spec 000 §7.2 `v54 = block_start`; decision D71).
    pub fn main_row_base(&self) -> DeviceAddr {
        self.base
    }

    /// The device address FUNCTION row offsets are relative to: the FUNCTION section start,
    /// because function rows are rebased by `function_section_offset` (spec 000 §7.1, §7.2
    /// `v54 = block_start - function_section_offset`; decision D71).
    pub fn function_row_base(&self) -> DeviceAddr {
        self.base.plus(self.functions.offset)
    }

    /// Device `[start, end)` of MAIN.
    pub fn main_range(&self) -> Range<DeviceAddr> {
        self.base.plus(self.core.offset)..self.base.plus(self.core.end())
    }

    /// Device `[start, end)` of the FUNCTION section (empty when there are no functions).
    pub fn function_range(&self) -> Range<DeviceAddr> {
        self.base.plus(self.functions.offset)..self.base.plus(self.functions.end())
    }
}

/// The answer for one device address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpHit {
    /// The NEFF instruction (1-based index into the engine's source stream).
    pub neff_ip: NeffIp,
    /// The section the address lies in: [`PatchSection::Main`] or [`PatchSection::Function`].
    pub section: PatchSection,
    /// True when the address is a slot the runtime INSERTed (no exact NEFF instruction); the
    /// answer is then the NEFF instruction the inserted slots precede (decision D71).
    pub inserted: bool,
}

/// A patch row as the IP walk reads it: the 16-byte record with its type and section still raw
/// `u32`s, so a row with a type the runtime does not define reaches the walk and is reported
/// ("Invalid patch type", spec 004 §3) instead of being unrepresentable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawPatchRow {
    /// Byte offset of the edit, relative to the section's row base (decision D71).
    pub offset: u32,
    /// Instruction count of the edit, in 64-byte slots.
    pub count: u32,
    /// `kbin_patch_type_t` value (INSERT=0, MODIFY=1, DELETE=2).
    pub kind: u32,
    /// `kbin_patch_section_t` value (PREAMBLE=0, POSTAMBLE=1, MAIN=2, FUNCTION=3).
    pub section: u32,
}

impl From<crate::patch::PatchLocation> for RawPatchRow {
    fn from(loc: crate::patch::PatchLocation) -> Self {
        Self {
            offset: loc.offset,
            count: loc.count,
            kind: loc.kind as u32,
            section: loc.section as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec 004 §3: `neff_ip` starts at 1, so slot 0 is NEFF IP 1 and NEFF IP 0 names no slot.
    #[test]
    fn slot_and_neff_ip_convert_one_way_and_back() {
        assert_eq!(NeffIp::from_slot(SlotIndex(0)), NeffIp(1));
        assert_eq!(NeffIp(1).slot(), Some(SlotIndex(0)));
        assert_eq!(NeffIp(0).slot(), None);
        assert_eq!(NeffIp(u64::from(u32::MAX) + 2).slot(), None);
        let s = SlotIndex(41);
        assert_eq!(NeffIp::from_slot(s).slot(), Some(s));
    }
}
