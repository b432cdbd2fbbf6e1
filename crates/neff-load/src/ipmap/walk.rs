//! The linear device-IP -> NEFF-IP walks (spec 004 §3, `kbin_patch_device_ip_to_neff_ip` and
//! `get_neff_ip`).
//!
//! [`device_ip_to_neff_ip_literal`] is the walk exactly as the spec prints it: it replays a
//! section's rows in list order and never reads a row's `offset`. That is only right when the
//! rows tile the section from its first byte with no pass-through run between them.
//! [`device_ip_to_neff_ip`] is the reference neffkit keeps: the same replay, but each row is
//! first positioned at `row_base + offset` and the pass-through run before it is counted
//! (decision D71). The two agree wherever the rows are contiguous (tested).

use std::ops::Range;

use crate::error::IpError;
use crate::patch::{PatchSection, PatchType};

use neff_isa::{SLOT_BYTES, SLOT_SHIFT};

use super::{DeviceAddr, EngineLayout, IpHit, NeffIp, RawPatchRow};

/// `get_neff_ip` as printed in spec 004 §3: `neff_ip = 1`, `address = base_address`; for each row
/// of `section` in list order, stop once `address >= device_ip`, else INSERT adds `count << 6`
/// to the address, MODIFY adds 0x40 and one NEFF instruction, DELETE adds `count` NEFF
/// instructions; finally the `(device_ip - address) >> 6` un-patched run is added.
///
/// Signed arithmetic (the runtime's register math): inside an INSERT span the final run is
/// negative and the result can be below 1; that is the printed walk's behaviour, kept as is.
pub fn get_neff_ip_literal(
    rows: &[RawPatchRow],
    section: PatchSection,
    base_address: DeviceAddr,
    device_ip: DeviceAddr,
) -> Result<i64, IpError> {
    let mut neff_ip: i64 = 1;
    let mut address = i128::from(base_address.0);
    let target = i128::from(device_ip.0);
    for (row, p) in rows.iter().enumerate() {
        if p.section != section as u32 {
            continue;
        }
        if address >= target {
            break;
        }
        match PatchType::from_u32(p.kind) {
            Some(PatchType::Insert) => address += i128::from(p.count) << SLOT_SHIFT,
            Some(PatchType::Modify) => {
                address += 1 << SLOT_SHIFT;
                neff_ip += 1;
            }
            Some(PatchType::Delete) => neff_ip += i64::from(p.count),
            None => return Err(IpError::InvalidPatchType { row, kind: p.kind }),
        }
    }
    let run = (target - address) >> SLOT_SHIFT;
    Ok(neff_ip + i64::try_from(run).unwrap_or(i64::MIN))
}

/// `kbin_patch_device_ip_to_neff_ip` as printed in spec 004 §3: MAIN is probed first with the
/// bounds `main.base - 0x40 <= device_ip < main.base + main.len`, then the FUNCTION buffer; an
/// address in neither is the spec's out-of-bounds error.
///
/// For FUNCTION the spec adds "neff_ip(function_buffer) + neff_ip(its MAIN base)"; neffkit reads
/// the second term as the MAIN instruction count, `get_neff_ip(MAIN, main_end) - 1`, so function
/// instructions continue the source stream's numbering (decision D71).
pub fn device_ip_to_neff_ip_literal(
    rows: &[RawPatchRow],
    layout: &EngineLayout,
    device_ip: DeviceAddr,
) -> Result<i64, IpError> {
    let main = layout.main_range();
    let first_main = DeviceAddr(main.start.0.saturating_sub(SLOT_BYTES as u64));
    if first_main <= device_ip && device_ip < main.end {
        return get_neff_ip_literal(rows, PatchSection::Main, main.start, device_ip);
    }
    let functions = layout.function_range();
    if functions.contains(&device_ip) {
        let local = get_neff_ip_literal(rows, PatchSection::Function, functions.start, device_ip)?;
        let main_next = get_neff_ip_literal(rows, PatchSection::Main, main.start, main.end)?;
        return Ok(local + main_next - 1);
    }
    Err(IpError::OutOfBounds { device_ip })
}

/// The positioned `get_neff_ip` (decision D71), neffkit's linear reference: before a row is
/// replayed, the cursor moves to the row's device address `row_base + offset`, counting the
/// pass-through slots on the way; a row past `device_ip` ends the walk. A device IP inside an
/// INSERT span answers the NEFF instruction the inserted slots precede, flagged `inserted`.
///
/// Returns `(neff_ip, inserted)` for one section `[start, end)`. INSERTed glue that no NEFF
/// instruction of the section follows has no NEFF instruction to answer:
/// [`IpError::NoNeffInstruction`] (decision D71). Rows must not go backwards within the section (a row before the cursor is
/// [`IpError::RowOutOfOrder`]).
pub fn get_neff_ip(
    rows: &[RawPatchRow],
    section: PatchSection,
    row_base: DeviceAddr,
    range: Range<DeviceAddr>,
    device_ip: DeviceAddr,
) -> Result<(NeffIp, bool), IpError> {
    let (row_base, start) = (row_base.0, range.start.0);
    let (ip, inserted) = walk_to(rows, section, row_base, start, device_ip.0)?;
    if inserted {
        let (next, _) = walk_to(rows, section, row_base, start, range.end.0)?;
        if ip >= next {
            return Err(IpError::NoNeffInstruction { device_ip });
        }
        return Ok((NeffIp(ip), true));
    }
    Ok((NeffIp(ip), false))
}

/// The positioned replay up to `device_ip`, without the trailing-glue check.
fn walk_to(
    rows: &[RawPatchRow],
    section: PatchSection,
    row_base: u64,
    start: u64,
    device_ip: u64,
) -> Result<(u64, bool), IpError> {
    if device_ip < start {
        return Err(IpError::OutOfBounds {
            device_ip: DeviceAddr(device_ip),
        });
    }
    let mut neff_ip: u64 = 1;
    let mut address = start;
    for (row, p) in rows.iter().enumerate() {
        if p.section != section as u32 {
            continue;
        }
        let kind =
            PatchType::from_u32(p.kind).ok_or(IpError::InvalidPatchType { row, kind: p.kind })?;
        let row_addr = row_base + u64::from(p.offset);
        if row_addr > device_ip {
            break;
        }
        if row_addr < address {
            return Err(IpError::RowOutOfOrder {
                row,
                offset: p.offset,
            });
        }
        neff_ip += (row_addr - address) >> SLOT_SHIFT;
        address = row_addr;
        match kind {
            PatchType::Insert => {
                let end = row_addr + (u64::from(p.count) << SLOT_SHIFT);
                if device_ip < end {
                    return Ok((neff_ip, true));
                }
                address = end;
            }
            PatchType::Modify => {
                if device_ip < row_addr + SLOT_BYTES as u64 {
                    return Ok((neff_ip, false));
                }
                address = row_addr + SLOT_BYTES as u64;
                neff_ip += 1;
            }
            PatchType::Delete => neff_ip += u64::from(p.count),
        }
    }
    Ok((neff_ip + ((device_ip - address) >> SLOT_SHIFT), false))
}

/// The positioned `kbin_patch_device_ip_to_neff_ip` (decision D71): MAIN `[core start, core end)`
/// first, then FUNCTION `[functions start, end)`; function instructions are numbered after
/// MAIN's; the slot before MAIN, which the runtime's `main.base - 0x40` probe takes in, is
/// [`IpError::BeforeMain`] (decision D291); anything else is the spec's out-of-bounds error.
pub fn device_ip_to_neff_ip(
    rows: &[RawPatchRow],
    layout: &EngineLayout,
    device_ip: DeviceAddr,
) -> Result<IpHit, IpError> {
    let main = layout.main_range();
    if main.contains(&device_ip) {
        let (neff_ip, inserted) = get_neff_ip(
            rows,
            PatchSection::Main,
            layout.main_row_base(),
            main,
            device_ip,
        )?;
        return Ok(IpHit {
            neff_ip,
            section: PatchSection::Main,
            inserted,
        });
    }
    if device_ip < main.start && main.start.0 - device_ip.0 <= SLOT_BYTES as u64 {
        // The runtime's window starts at main.base - 0x40 (decision D291).
        return Err(IpError::BeforeMain {
            device_ip,
            main_start: main.start,
        });
    }
    let functions = layout.function_range();
    if functions.contains(&device_ip) {
        let (local, inserted) = get_neff_ip(
            rows,
            PatchSection::Function,
            layout.function_row_base(),
            functions,
            device_ip,
        )?;
        let (main_next, _) = walk_to(
            rows,
            PatchSection::Main,
            layout.main_row_base().0,
            main.start.0,
            main.end.0,
        )?;
        return Ok(IpHit {
            neff_ip: NeffIp(local.0 + main_next - 1),
            section: PatchSection::Function,
            inserted,
        });
    }
    Err(IpError::OutOfBounds { device_ip })
}
