//! The reverse map, NEFF IP -> device address range: every device address whose forward answer
//! is that NEFF instruction (its own slot(s) plus any INSERTed glue before it), or none for an
//! instruction the runtime DELETEd (spec 004 §3 QUIRK: deleted instructions have no device slot).

use crate::error::IpError;
use crate::patch::PatchSection;

use neff_isa::SLOT_SHIFT;

use super::{DeviceAddr, IpMap, NeffIp, SectionIndex};

/// The device addresses one NEFF instruction occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceRange {
    /// First device address (inclusive).
    pub start: DeviceAddr,
    /// One past the last device address.
    pub end: DeviceAddr,
    /// MAIN or FUNCTION.
    pub section: PatchSection,
}

impl SectionIndex {
    /// The device range of the section-local NEFF instruction `n` (1-based), `None` when `n`
    /// was deleted. The forward map is non-decreasing in the address, so two binary searches
    /// over the section's slots find the first slot answering `>= n` and the first `> n`.
    fn device_range(&self, n: u64) -> Option<(DeviceAddr, DeviceAddr)> {
        let (start, end) = (self.start, self.end);
        let slots = (end - start) >> SLOT_SHIFT;
        let at = |k: u64| self.raw_lookup(start + (k << SLOT_SHIFT)).0;
        let first_at_least = |v: u64| {
            let (mut lo, mut hi) = (0u64, slots);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if at(mid) >= v { hi = mid } else { lo = mid + 1 }
            }
            lo
        };
        let lo = first_at_least(n);
        if lo == slots || at(lo) != n {
            return None;
        }
        let hi = first_at_least(n + 1);
        Some((
            DeviceAddr(start + (lo << SLOT_SHIFT)),
            DeviceAddr(start + (hi << SLOT_SHIFT)),
        ))
    }
}

impl IpMap {
    /// NEFF IP -> device range (the reverse of [`IpMap::neff_ip`]): `Ok(None)` for a deleted
    /// instruction, an error for an IP beyond the engine's MAIN and FUNCTION instructions.
    pub fn device_range(&self, neff_ip: NeffIp) -> Result<Option<DeviceRange>, IpError> {
        let n = neff_ip.0;
        if n == 0 {
            return Err(IpError::NeffIpOutOfRange { neff_ip });
        }
        if n <= self.main_count {
            let r = self.main.device_range(n);
            return Ok(r.map(|(start, end)| DeviceRange {
                start,
                end,
                section: PatchSection::Main,
            }));
        }
        if let Some(f) = &self.function {
            let local = n - self.main_count;
            if local <= f.neff_count() {
                let r = f.device_range(local);
                return Ok(r.map(|(start, end)| DeviceRange {
                    start,
                    end,
                    section: PatchSection::Function,
                }));
            }
        }
        Err(IpError::NeffIpOutOfRange { neff_ip })
    }
}
