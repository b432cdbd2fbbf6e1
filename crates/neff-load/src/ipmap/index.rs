//! The indexed device-IP -> NEFF-IP map: each section's rows become sorted device spans with
//! prefix-summed NEFF counts, so one lookup is a binary search instead of a walk over every row
//! (DESIGN.md "the IP map is indexed"). Equal to [`super::walk::device_ip_to_neff_ip`] by
//! property test (crates/neff-load/tests/ipmap_props.rs).

use crate::error::IpError;
use crate::patch::{PatchLocation, PatchSection, PatchType};

use std::ops::Range;

use neff_isa::{SLOT_BYTES, SLOT_SHIFT};

use super::{DeviceAddr, EngineLayout, IpHit, NeffIp, RawPatchRow};

/// One positioned row: the device bytes it covers and the NEFF cursor before and after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    /// Device address of the row (`row_base + offset`).
    start: u64,
    /// First device address after it (start for DELETE, + 0x40 for MODIFY, + count<<6 INSERT).
    end: u64,
    /// NEFF IP of the first instruction at `start`.
    neff_start: u64,
    /// NEFF IP of the first instruction at `end`.
    neff_end: u64,
    /// Whether the covered device slots are INSERTed glue.
    inserted: bool,
}

/// One section (MAIN or FUNCTION) of one engine, indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionIndex {
    /// Device `[start, end)` (the address arithmetic of the spans stays in plain `u64`).
    pub(super) start: u64,
    pub(super) end: u64,
    spans: Vec<Span>,
    count: u64,
}

impl SectionIndex {
    /// Positions `section`'s rows at `row_base + offset` and prefix-sums the NEFF cursor, exactly
    /// as the positioned walk replays them (decision D71). `range` is the section's device
    /// `[start, end)`. Rejects an undefined type and a row before the cursor, as the walk does.
    pub fn build(
        rows: &[RawPatchRow],
        section: PatchSection,
        row_base: DeviceAddr,
        range: Range<DeviceAddr>,
    ) -> Result<Self, IpError> {
        let (row_base, start, end) = (row_base.0, range.start.0, range.end.0);
        let mut spans = Vec::new();
        let (mut address, mut neff) = (start, 1u64);
        for (row, p) in rows.iter().enumerate() {
            if p.section != section as u32 {
                continue;
            }
            let kind = PatchType::from_u32(p.kind)
                .ok_or(IpError::InvalidPatchType { row, kind: p.kind })?;
            let row_addr = row_base + u64::from(p.offset);
            if row_addr < address {
                return Err(IpError::RowOutOfOrder {
                    row,
                    offset: p.offset,
                });
            }
            neff += (row_addr - address) >> SLOT_SHIFT;
            let (len, adv) = match kind {
                PatchType::Insert => (u64::from(p.count) << SLOT_SHIFT, 0),
                PatchType::Modify => (SLOT_BYTES as u64, 1),
                PatchType::Delete => (0, u64::from(p.count)),
            };
            spans.push(Span {
                start: row_addr,
                end: row_addr + len,
                neff_start: neff,
                neff_end: neff + adv,
                inserted: kind == PatchType::Insert,
            });
            address = row_addr + len;
            neff += adv;
        }
        let mut index = Self {
            start,
            end,
            spans,
            count: 0,
        };
        index.count = index.raw_lookup(end).0 - 1;
        Ok(index)
    }

    /// The section's device `[start, end)`.
    pub fn range(&self) -> Range<DeviceAddr> {
        DeviceAddr(self.start)..DeviceAddr(self.end)
    }

    /// Number of positioned rows.
    pub fn rows(&self) -> usize {
        self.spans.len()
    }

    /// `(neff_ip, inserted)` of a device address at or after the section start: the last span
    /// starting at or before it decides (binary search), then the pass-through run after it.
    /// `None` for INSERTed glue that no NEFF instruction of the section follows (decision D71).
    pub fn lookup(&self, device_ip: DeviceAddr) -> Option<(NeffIp, bool)> {
        let (ip, inserted) = self.lookup_hinted(device_ip.0, None)?;
        Some((NeffIp(ip), inserted))
    }

    /// [`Self::lookup`], finding the span from `hint` (the previous answer's) when given.
    fn lookup_hinted(&self, device_ip: u64, hint: Option<&mut usize>) -> Option<(u64, bool)> {
        match self.raw_lookup_at(device_ip, self.spans_upto(device_ip, hint)) {
            (ip, true) if ip > self.count => None,
            hit => Some(hit),
        }
    }

    /// How many spans start at or before `device_ip`: a binary search, or with `hint` (the
    /// count of the previous, lower address) a walk forward from there, the same answer in
    /// a few steps for ascending addresses (a simulator decoding an image slot by slot).
    fn spans_upto(&self, device_ip: u64, hint: Option<&mut usize>) -> usize {
        let search = || self.spans.partition_point(|s| s.start <= device_ip);
        let Some(h) = hint else {
            return search();
        };
        let mut i = (*h).min(self.spans.len());
        if i > 0 && self.spans[i - 1].start > device_ip {
            i = search();
        } else {
            while i < self.spans.len() && self.spans[i].start <= device_ip {
                i += 1;
            }
        }
        *h = i;
        i
    }

    /// The cursor without the trailing-glue rule: non-decreasing in the address, so the reverse
    /// map can binary-search it (trailing glue reads `count + 1`, past every instruction).
    pub(super) fn raw_lookup(&self, device_ip: u64) -> (u64, bool) {
        self.raw_lookup_at(device_ip, self.spans_upto(device_ip, None))
    }

    /// [`Self::raw_lookup`] once the spans starting at or before `device_ip` are counted (`i`).
    fn raw_lookup_at(&self, device_ip: u64, i: usize) -> (u64, bool) {
        match i.checked_sub(1).map(|k| self.spans[k]) {
            None => (
                1 + (device_ip.saturating_sub(self.start) >> SLOT_SHIFT),
                false,
            ),
            Some(s) if device_ip < s.end => (s.neff_start, s.inserted),
            Some(s) => (s.neff_end + ((device_ip - s.end) >> SLOT_SHIFT), false),
        }
    }

    /// How many NEFF instructions the section holds: the cursor at its end, minus one.
    pub fn neff_count(&self) -> u64 {
        self.count
    }
}

/// Where [`IpMap::neff_ip_next`]'s previous answer was, per section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IpCursor {
    main: usize,
    function: usize,
}

/// One engine's indexed IP map: MAIN and FUNCTION sections (spec 004 §3 probe order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpMap {
    pub(super) main: SectionIndex,
    pub(super) function: Option<SectionIndex>,
    pub(super) main_count: u64,
}

impl IpMap {
    /// Indexes one engine's patch rows against its layout.
    pub fn new(rows: &[RawPatchRow], layout: &EngineLayout) -> Result<Self, IpError> {
        let main = SectionIndex::build(
            rows,
            PatchSection::Main,
            layout.main_row_base(),
            layout.main_range(),
        )?;
        let functions = layout.function_range();
        let function = if functions.is_empty() {
            None
        } else {
            Some(SectionIndex::build(
                rows,
                PatchSection::Function,
                layout.function_row_base(),
                functions,
            )?)
        };
        let main_count = main.neff_count();
        Ok(Self {
            main,
            function,
            main_count,
        })
    }

    /// Indexes typed rows (the loaded model's `eng_patch[eng]`).
    pub fn from_locations(rows: &[PatchLocation], layout: &EngineLayout) -> Result<Self, IpError> {
        let raw: Vec<RawPatchRow> = rows.iter().copied().map(RawPatchRow::from).collect();
        Self::new(&raw, layout)
    }

    /// What the runtime's `kbin_patch_device_ip_to_neff_ip` says where neffkit answered `hit`: it
    /// finds a section by its first patch row, so a MAIN without rows (all 1 -> 1) is "Failed to
    /// find section 2 in the patch list", and a FUNCTION address needs FUNCTION rows and MAIN rows
    /// (its answer adds a MAIN walk). `None` when the runtime answers too (decision D291).
    pub fn runtime_error(&self, hit: &IpHit) -> Option<IpError> {
        let missing = |s: PatchSection| IpError::SectionNotFound { section: s as u32 };
        if self.main.rows() == 0 {
            return Some(missing(PatchSection::Main));
        }
        match (&self.function, hit.section) {
            (Some(f), PatchSection::Function) if f.rows() == 0 => {
                Some(missing(PatchSection::Function))
            }
            _ => None,
        }
    }

    /// Number of NEFF instructions in MAIN.
    pub fn main_count(&self) -> u64 {
        self.main_count
    }

    /// `kbin_patch_device_ip_to_neff_ip` (spec 004 §3), indexed: MAIN first, then FUNCTION;
    /// anything else is the out-of-bounds error naming the address.
    pub fn neff_ip(&self, device_ip: DeviceAddr) -> Result<IpHit, IpError> {
        self.neff_ip_hinted(device_ip.0, None)
    }

    /// [`Self::neff_ip`] for addresses visited in ascending order: `cursor` remembers where the
    /// previous answer was, so each lookup walks a few spans instead of searching them all (a
    /// lower address than the previous one is searched as usual). Same answers.
    pub fn neff_ip_next(
        &self,
        cursor: &mut IpCursor,
        device_ip: DeviceAddr,
    ) -> Result<IpHit, IpError> {
        self.neff_ip_hinted(device_ip.0, Some(cursor))
    }

    fn neff_ip_hinted(
        &self,
        device_ip: u64,
        mut cursor: Option<&mut IpCursor>,
    ) -> Result<IpHit, IpError> {
        let (ms, me) = (self.main.start, self.main.end);
        if ms <= device_ip && device_ip < me {
            let hint = cursor.as_deref_mut().map(|c| &mut c.main);
            let (ip, inserted) =
                self.main
                    .lookup_hinted(device_ip, hint)
                    .ok_or(IpError::NoNeffInstruction {
                        device_ip: DeviceAddr(device_ip),
                    })?;
            return Ok(IpHit {
                neff_ip: NeffIp(ip),
                section: PatchSection::Main,
                inserted,
            });
        }
        if device_ip < ms && ms - device_ip <= SLOT_BYTES as u64 {
            return Err(IpError::BeforeMain {
                device_ip: DeviceAddr(device_ip),
                main_start: DeviceAddr(ms),
            });
        }
        if let Some(f) = &self.function
            && f.start <= device_ip
            && device_ip < f.end
        {
            let hint = cursor.map(|c| &mut c.function);
            let (ip, inserted) =
                f.lookup_hinted(device_ip, hint)
                    .ok_or(IpError::NoNeffInstruction {
                        device_ip: DeviceAddr(device_ip),
                    })?;
            return Ok(IpHit {
                neff_ip: NeffIp(ip + self.main_count),
                section: PatchSection::Function,
                inserted,
            });
        }
        Err(IpError::OutOfBounds {
            device_ip: DeviceAddr(device_ip),
        })
    }
}
