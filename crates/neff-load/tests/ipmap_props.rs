//! The indexed IP map equals the positioned walk (decision D71) over random patch lists and
//! addresses; the positioned walk equals the spec's literal walk wherever rows are contiguous;
//! the reverse map inverts the forward map.

use neff_load::IpError;
use neff_load::image::CodeRange;
use neff_load::ipmap::walk::{
    device_ip_to_neff_ip, device_ip_to_neff_ip_literal, get_neff_ip, get_neff_ip_literal,
};
use neff_load::ipmap::{DeviceAddr, EngineLayout, IpCursor, IpMap, NeffIp, RawPatchRow};
use neff_lower::patch::PatchSection;
use proptest::prelude::*;

const MAIN: u32 = PatchSection::Main as u32;

/// An engine layout from its base address and its MAIN / FUNCTION `(offset, size)` in image bytes.
fn layout_at(base: u64, core: (u64, u64), functions: (u64, u64)) -> EngineLayout {
    let range = |(offset, size)| CodeRange { offset, size };
    EngineLayout {
        base: DeviceAddr(base),
        core: range(core),
        functions: range(functions),
    }
}
const FUNC: u32 = PatchSection::Function as u32;

/// A random, well-formed section: rows in order separated by pass-through gaps (in slots).
fn section_rows(section: u32, max_rows: usize) -> impl Strategy<Value = (Vec<RawPatchRow>, u32)> {
    prop::collection::vec((0u32..4, 0u32..3, 1u32..5), 0..max_rows).prop_map(move |spec| {
        let mut rows = Vec::new();
        let mut slot = 0u32;
        for (gap, kind, count) in spec {
            slot += gap;
            let count = if kind == 1 { 1 } else { count };
            rows.push(RawPatchRow {
                offset: slot * 64,
                count,
                kind,
                section,
            });
            slot += match kind {
                0 => count,
                1 => 1,
                _ => 0,
            };
        }
        (rows, slot)
    })
}

/// Rows with offsets rebased to the section's row base and a layout that holds them.
fn engine() -> impl Strategy<Value = (Vec<RawPatchRow>, EngineLayout)> {
    (
        section_rows(MAIN, 40),
        section_rows(FUNC, 20),
        0u64..8,
        0u64..6,
        0u64..5,
    )
        .prop_map(|((main, main_slots), (func, fn_slots), pre, tail, post)| {
            let pre_bytes = pre * 64;
            let core = (pre_bytes, u64::from(main_slots) * 64 + tail * 64);
            let fn_off = core.0 + core.1 + post * 64;
            let functions = if fn_slots == 0 {
                (fn_off, 0)
            } else {
                (fn_off, u64::from(fn_slots) * 64)
            };
            let mut rows: Vec<RawPatchRow> = main
                .into_iter()
                .map(|mut r| {
                    r.offset += pre_bytes as u32;
                    r
                })
                .collect();
            rows.extend(func);
            (rows, layout_at(0x4000_0000, core, functions))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn indexed_equals_positioned_walk((rows, layout) in engine(), probe in 0u64..0x3000) {
        let map = IpMap::new(&rows, &layout).unwrap();
        let addr = layout.base.plus(probe);
        let walked = device_ip_to_neff_ip(&rows, &layout, addr);
        let indexed = map.neff_ip(addr);
        prop_assert_eq!(walked, indexed);
    }

    /// The cursor walk answers what the search answers, address after ascending address, and
    /// after a step back.
    #[test]
    fn cursor_equals_search((rows, layout) in engine(), probes in proptest::collection::vec(0u64..0x3000, 1..40)) {
        let map = IpMap::new(&rows, &layout).unwrap();
        let mut sorted = probes.clone();
        sorted.sort_unstable();
        let mut cursor = IpCursor::default();
        for p in sorted.into_iter().chain(probes) {
            let addr = layout.base.plus(p);
            prop_assert_eq!(map.neff_ip_next(&mut cursor, addr), map.neff_ip(addr));
        }
    }

    #[test]
    fn reverse_inverts_forward((rows, layout) in engine(), probe in 0u64..0x3000) {
        let map = IpMap::new(&rows, &layout).unwrap();
        let addr = layout.base.plus(probe);
        if let Ok(hit) = map.neff_ip(addr) {
            let r = map.device_range(hit.neff_ip).unwrap().expect("an answered IP has a range");
            prop_assert!(r.start <= addr && addr < r.end, "{addr} not in {r:?}");
            prop_assert_eq!(r.section, hit.section);
            for a in (r.start.0..r.end.0).step_by(64) {
                prop_assert_eq!(map.neff_ip(DeviceAddr(a)).unwrap().neff_ip, hit.neff_ip);
            }
        }
    }

    #[test]
    fn literal_equals_positioned_where_rows_are_contiguous(
        spec in prop::collection::vec((0u32..3, 1u32..5), 0..30),
        probe in 0u64..200,
    ) {
        // Contiguous rows: each starts where the previous ended, the first at the section start.
        let mut rows = Vec::new();
        let mut slot = 0u32;
        for (kind, count) in spec {
            let count = if kind == 1 { 1 } else { count };
            rows.push(RawPatchRow { offset: slot * 64, count, kind, section: MAIN });
            slot += match kind { 0 => count, 1 => 1, _ => 0 };
        }
        let base = 0x1000u64;
        let addr = base + probe * 64;
        // Agreement domain (decision D71): not strictly inside an INSERT span (the literal
        // final run goes negative there) and not at a DELETE row's own address (the literal
        // `address >= device_ip` break precedes the DELETE arm).
        let excluded = rows.iter().any(|r| {
            let ra = base + u64::from(r.offset);
            (r.kind == 0 && ra < addr && addr < ra + u64::from(r.count) * 64)
                || (r.kind == 2 && ra == addr)
        });
        // Skipped rather than `prop_assume!`d: ~5% of draws land here, which exhausts proptest's
        // global-reject budget at large PROPTEST_CASES (a flake).
        if excluded {
            return Ok(());
        }
        let (base, addr) = (DeviceAddr(base), DeviceAddr(addr));
        let literal = get_neff_ip_literal(&rows, PatchSection::Main, base, addr).unwrap();
        let (positioned, _) = get_neff_ip(&rows, PatchSection::Main, base, base..base.plus(0x10000), addr).unwrap();
        prop_assert_eq!(literal, positioned.0 as i64);
    }
}

#[test]
fn collective_expansion_maps_back_to_ip_1() {
    // spec 000 §9: one 0xC8 slot expanded to N=4 -> INSERT(MAIN, 3) at the core start.
    let core = (0x400u64, 4 * 64u64);
    let layout = layout_at(0x10_0000, core, (0x800, 0));
    let rows = [
        RawPatchRow {
            offset: 0,
            count: 16,
            kind: 0,
            section: PatchSection::Preamble as u32,
        },
        RawPatchRow {
            offset: 0x400,
            count: 3,
            kind: 0,
            section: MAIN,
        },
        RawPatchRow {
            offset: 0x500,
            count: 8,
            kind: 0,
            section: PatchSection::Postamble as u32,
        },
    ];
    let map = IpMap::new(&rows, &layout).unwrap();
    for pc in (0x10_0400..0x10_0500).step_by(64) {
        assert_eq!(map.neff_ip(DeviceAddr(pc)).unwrap().neff_ip, NeffIp(1));
        assert_eq!(
            device_ip_to_neff_ip(&rows, &layout, DeviceAddr(pc))
                .unwrap()
                .neff_ip,
            NeffIp(1)
        );
    }
    // The last of the N slots is the source's own slot: the literal walk agrees there.
    assert_eq!(
        device_ip_to_neff_ip_literal(&rows, &layout, DeviceAddr(0x10_04c0)).unwrap(),
        1
    );
    let err = map.neff_ip(DeviceAddr(0x10_0500)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "device_ip 0x100500 is out of bounds of main and function buffer"
    );
    assert!(
        map.neff_ip(DeviceAddr(0x10_0000)).is_err(),
        "the preamble is never resolved"
    );
}

#[test]
fn invalid_patch_type_is_an_error_in_every_form() {
    let layout = layout_at(0, (0, 0x400), (0x400, 0));
    let rows = [RawPatchRow {
        offset: 0,
        count: 1,
        kind: 7,
        section: MAIN,
    }];
    assert!(IpMap::new(&rows, &layout).is_err());
    assert!(device_ip_to_neff_ip(&rows, &layout, DeviceAddr(0x40)).is_err());
    assert!(device_ip_to_neff_ip_literal(&rows, &layout, DeviceAddr(0x40)).is_err());
}

#[test]
fn deleted_instruction_has_no_device_range_and_functions_follow_main() {
    // MAIN: [A][label deleted][B]; FUNCTION: [F0][F1] with a MODIFY at F1.
    let layout = layout_at(0x8000, (0x40, 0x80), (0x100, 0x80));
    let rows = [
        RawPatchRow {
            offset: 0x80,
            count: 1,
            kind: 2,
            section: MAIN,
        },
        RawPatchRow {
            offset: 0x40,
            count: 1,
            kind: 1,
            section: FUNC,
        },
    ];
    let map = IpMap::new(&rows, &layout).unwrap();
    assert_eq!(map.main_count(), 3);
    assert_eq!(map.neff_ip(DeviceAddr(0x8040)).unwrap().neff_ip, NeffIp(1));
    assert_eq!(map.neff_ip(DeviceAddr(0x8080)).unwrap().neff_ip, NeffIp(3));
    assert_eq!(map.device_range(NeffIp(2)).unwrap(), None);
    assert_eq!(map.neff_ip(DeviceAddr(0x8100)).unwrap().neff_ip, NeffIp(4));
    assert_eq!(map.neff_ip(DeviceAddr(0x8140)).unwrap().neff_ip, NeffIp(5));
    assert_eq!(
        map.device_range(NeffIp(5)).unwrap().unwrap().start,
        DeviceAddr(0x8140)
    );
    assert!(map.device_range(NeffIp(6)).is_err());
}

/// Regression (flaky `reverse_inverts_forward`, decision D71 amended): a FUNCTION section made only
/// of INSERT rows has no NEFF instruction, so an address in its glue has no NEFF IP. Walk and
/// index both answer `NoNeffInstruction`, and the reverse map gives no range to such glue.
#[test]
fn glue_with_no_following_instruction_has_no_neff_ip() {
    let layout = layout_at(0x4000_0000, (0, 0x80), (0x80, 0xc0));
    // MAIN: [MODIFY][pass-through]; FUNCTION: INSERT(1) then INSERT(2), nothing else.
    let rows = [
        RawPatchRow {
            offset: 0,
            count: 1,
            kind: 1,
            section: MAIN,
        },
        RawPatchRow {
            offset: 0,
            count: 1,
            kind: 0,
            section: FUNC,
        },
        RawPatchRow {
            offset: 0x40,
            count: 2,
            kind: 0,
            section: FUNC,
        },
    ];
    let map = IpMap::new(&rows, &layout).unwrap();
    assert_eq!(map.main_count(), 2);
    for pc in (0x4000_0080..0x4000_0140).step_by(64) {
        let msg = format!(
            "device_ip {pc:#x} is inserted glue with no following NEFF instruction in its section"
        );
        assert_eq!(map.neff_ip(DeviceAddr(pc)).unwrap_err().to_string(), msg);
        assert_eq!(
            device_ip_to_neff_ip(&rows, &layout, DeviceAddr(pc))
                .unwrap_err()
                .to_string(),
            msg
        );
    }
    // MAIN keeps answering; the last MAIN instruction's range stops at the MAIN end.
    let r = map.device_range(NeffIp(2)).unwrap().unwrap();
    assert_eq!((r.start.0, r.end.0), (0x4000_0040, 0x4000_0080));
    assert!(map.device_range(NeffIp(3)).is_err());
}

/// Regression: MAIN made only of INSERT glue (no NEFF instruction) answers no IP, and FUNCTION
/// instructions are numbered from 1 (MAIN holds none).
#[test]
fn main_of_only_glue_has_no_neff_ip() {
    let layout = layout_at(0x1000, (0, 0x80), (0x80, 0x40));
    let rows = [RawPatchRow {
        offset: 0,
        count: 2,
        kind: 0,
        section: MAIN,
    }];
    let map = IpMap::new(&rows, &layout).unwrap();
    assert_eq!(map.main_count(), 0);
    for pc in [0x1000, 0x1040] {
        assert!(matches!(
            map.neff_ip(DeviceAddr(pc)),
            Err(neff_load::IpError::NoNeffInstruction { .. })
        ));
        assert!(matches!(
            device_ip_to_neff_ip(&rows, &layout, DeviceAddr(pc)),
            Err(neff_load::IpError::NoNeffInstruction { .. })
        ));
    }
    assert_eq!(map.neff_ip(DeviceAddr(0x1080)).unwrap().neff_ip, NeffIp(1));
    let r = map.device_range(NeffIp(1)).unwrap().unwrap();
    assert_eq!(
        (r.start.0, r.end.0, r.section),
        (0x1080, 0x10c0, PatchSection::Function)
    );
}

/// The walk's edges (spec 004 §3; decision D291): the runtime probes MAIN from `main.base - 0x40`
/// and finds a section by its first patch row.
#[test]
fn the_slot_before_main_and_sections_without_rows() {
    let layout = layout_at(0x10_0000, (0x400, 4 * 64), (0x800, 2 * 64));
    let main_start = layout.main_range().start.0;
    // MAIN with a MODIFY row, FUNCTION without rows.
    let rows = [RawPatchRow {
        offset: 0x440,
        count: 1,
        kind: 1,
        section: MAIN,
    }];
    let map = IpMap::new(&rows, &layout).unwrap();
    // The literal walk takes the slot before MAIN in and answers NEFF IP 0 there ...
    assert_eq!(
        device_ip_to_neff_ip_literal(&rows, &layout, DeviceAddr(main_start - 0x40)).unwrap(),
        0
    );
    // ... which no instruction has: the index and the positioned walk say so, by name; one slot
    // further back is plain out of bounds.
    for ip in [main_start - 0x40, main_start - 1] {
        let e = map.neff_ip(DeviceAddr(ip)).unwrap_err();
        assert_eq!(
            e,
            device_ip_to_neff_ip(&rows, &layout, DeviceAddr(ip)).unwrap_err()
        );
        assert_eq!(
            e,
            IpError::BeforeMain {
                device_ip: DeviceAddr(ip),
                main_start: DeviceAddr(main_start)
            }
        );
    }
    assert!(matches!(
        map.neff_ip(DeviceAddr(main_start - 0x41)),
        Err(IpError::OutOfBounds { .. })
    ));
    // MAIN has a row: the runtime answers there too.
    let hit = map.neff_ip(DeviceAddr(main_start)).unwrap();
    assert_eq!((hit.neff_ip, map.runtime_error(&hit)), (NeffIp(1), None));
    // FUNCTION has none: neffkit maps it 1:1, the runtime would fail to find section 3.
    let hit = map.neff_ip(DeviceAddr(0x10_0800)).unwrap();
    assert_eq!(hit.neff_ip, NeffIp(5));
    assert_eq!(
        map.runtime_error(&hit).unwrap().to_string(),
        "Failed to find section 3 in the patch list"
    );
    // No MAIN row at all: every answer carries the runtime's section-2 failure.
    let map = IpMap::new(&[], &layout).unwrap();
    for ip in [main_start, 0x10_0800] {
        let hit = map.neff_ip(DeviceAddr(ip)).unwrap();
        assert_eq!(
            map.runtime_error(&hit),
            Some(IpError::SectionNotFound { section: 2 })
        );
    }
}
