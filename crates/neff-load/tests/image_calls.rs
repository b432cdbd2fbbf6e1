//! Calls that return (spec 000 §7.3, spec 001 §2; decision D290): the assembled image, walked
//! slot by slot by an interpreter written from spec 001 §2's record layouts alone, runs the code
//! after every call.

mod common;

use neff_load::DeviceAddr;
use std::collections::HashMap;

use common::{exit, named, resources, slot};
use neff_isa::EngineType;
use neff_load::LoadError;
use neff_load::ipmap::NeffIp;
use neff_load::model::{LoadOptions, LoadedEngine, LoadedModel, SubgraphInput, load_streams};
use neff_lower::patch::PatchSection;

fn load(stream: &[u8]) -> Result<LoadedModel, LoadError> {
    let res = resources();
    let engines = [(EngineType::Pool, stream)];
    let sg = [SubgraphInput {
        name: "sg00",
        engines: &engines,
        resources: &res,
        content: Default::default(),
    }];
    load_streams(&sg, &LoadOptions::default())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Runs MAIN from its first slot to the POSTAMBLE: CTRL_BR (0xA9) always-compare branches in
/// REL_IMM (3, offset at +0x30) and REL_REGISTER (4, register number at +0x30) mode; CTRL_AL
/// (0xA8) with an immediate source writes the immediate (+0x18) to the destination register
/// (+0x14); every other slot falls through. Returns the non-zero tag (+0x20) of every 0xA0 /
/// 0xA4 run.
fn run(e: &LoadedEngine) -> Vec<u32> {
    let b = &e.image.bytes;
    let mut pc = e.image.eib.core.offset as usize;
    let stop = e.image.postamble.offset as usize;
    let mut regs: HashMap<u8, u32> = HashMap::new();
    let mut tags = Vec::new();
    for _ in 0..1000 {
        if pc == stop {
            return tags;
        }
        let s = &b[pc..pc + 64];
        match s[0] {
            0xA9 => {
                assert_eq!(s[0x0C], 0, "always-compare at {pc:#x}");
                let rel = match s[0x0E] {
                    3 => u32_at(s, 0x30) as i32,
                    4 => regs[&s[0x30]] as i32,
                    m => panic!("target mode {m} at {pc:#x}"),
                };
                pc = (pc as i64 + i64::from(rel)) as usize;
                continue;
            }
            0xA8 => {
                regs.insert(s[0x14], u32_at(s, 0x18));
            }
            // Tagged slots only (a function's entry marker is an untagged NOP).
            0xA0 | 0xA4 if u32_at(s, 0x20) != 0 => tags.push(u32_at(s, 0x20)),
            _ => {}
        }
        pc += 64;
    }
    panic!("no POSTAMBLE after 1000 slots; ran {tags:?}");
}

/// MAIN calls f, then g; f calls g; g has two returns (the second after a label, unreached by
/// straight-line code). Tags: MAIN 1 2 3, f 4 5, g 6 7.
fn program() -> Vec<u8> {
    [
        slot(0xB1, 0),
        slot(0xA0, 1),
        named(0xD3, "f"),
        slot(0xA4, 2),
        named(0xD3, "g"),
        slot(0xA0, 3),
        exit(),
        named(0xD1, "f"),
        slot(0xA4, 4),
        named(0xD3, "g"),
        slot(0xA0, 5),
        named(0xD2, "f"),
        named(0xD1, "g"),
        slot(0xA0, 6),
        named(0xD2, "g"),
        common::label(1),
        slot(0xA0, 7),
        named(0xD2, "g"),
    ]
    .concat()
}

#[test]
fn the_code_after_each_call_runs() {
    let model = load(&program()).unwrap();
    let e = model.subgraphs[0].engine(EngineType::Pool).unwrap();
    // MAIN, into f, f into g and back, back into MAIN, into g and back, exit.
    assert_eq!(run(e), [1, 4, 6, 5, 2, 6, 3]);
}

#[test]
fn calls_insert_one_slot_and_map_back_to_the_call() {
    let model = load(&program()).unwrap();
    let e = model.subgraphs[0].engine(EngineType::Pool).unwrap();
    let b = &e.image.bytes;
    let core = e.image.eib.core.offset as usize;
    // MAIN: B1 A0 [mov, br] A4 [mov, br] A0 exit = 9 device slots for 7 source slots.
    assert_eq!(e.image.eib.core.size, 9 * 64);
    let base = e.ib_addrs.base;
    for (mov, call_ip, after_ip) in [(core + 2 * 64, 3, 4), (core + 5 * 64, 5, 6)] {
        assert_eq!(b[mov], 0xA8, "return-address slot at {mov:#x}");
        // The inserted slot is glue before the call: it answers the call's NEFF IP.
        let hit = e.ipmap.neff_ip(DeviceAddr(base + mov as u64)).unwrap();
        assert_eq!((hit.neff_ip, hit.inserted), (NeffIp(call_ip), true));
        let hit = e.ipmap.neff_ip(DeviceAddr(base + mov as u64 + 64)).unwrap();
        assert_eq!((hit.neff_ip, hit.inserted), (NeffIp(call_ip), false));
        let hit = e
            .ipmap
            .neff_ip(DeviceAddr(base + mov as u64 + 128))
            .unwrap();
        assert_eq!(
            (hit.neff_ip, hit.section),
            (NeffIp(after_ip), PatchSection::Main)
        );
    }
    // g's second return branches to its first, which returns through g's register.
    let fns = e.image.functions.offset as usize;
    let rets: Vec<usize> = (fns..b.len())
        .step_by(64)
        .filter(|&o| b[o] == 0xA9 && b[o + 0x0E] == 4)
        .collect();
    assert_eq!(
        rets.len(),
        2,
        "one register return per returning function (f, g)"
    );
    let g_first = rets[1];
    let last = b.len() - 64;
    assert_eq!((b[last], b[last + 0x0E]), (0xA9, 3));
    assert_eq!(
        last as i64 + i64::from(u32_at(b, last + 0x30) as i32),
        g_first as i64
    );
    assert_eq!(
        b[g_first + 0x30],
        0x40 + 1,
        "g is function 2: register 0x41"
    );
}

#[test]
fn a_call_cycle_is_refused() {
    let src = [
        slot(0xA0, 1),
        named(0xD3, "f"),
        exit(),
        named(0xD1, "f"),
        named(0xD3, "g"),
        named(0xD2, "f"),
        named(0xD1, "g"),
        named(0xD3, "f"),
        named(0xD2, "g"),
    ]
    .concat();
    let e = load(&src).unwrap_err();
    assert!(matches!(e, LoadError::RecursiveCall { .. }), "{e}");
    assert!(
        e.to_string().contains("calls itself through a call cycle"),
        "{e}"
    );
    // A function calling itself directly, too.
    let src = [
        named(0xD3, "f"),
        named(0xD1, "f"),
        named(0xD3, "f"),
        named(0xD2, "f"),
    ]
    .concat();
    assert!(matches!(load(&src), Err(LoadError::RecursiveCall { .. })));
}
