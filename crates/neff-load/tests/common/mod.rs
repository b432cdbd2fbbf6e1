//! Test helpers written apart from the assembler: a small stream generator and the independent
//! image checker (STYLE.md: "every pass-through source slot appears byte-identical in the image
//! and maps back to its own NEFF IP").
#![allow(dead_code)]

use neff_load::DeviceAddr;
use std::collections::HashMap;

use neff_isa::EngineType;
use neff_kelf::VarType;
use neff_load::model::LoadedEngine;
use neff_lower::{LowerQueue, LowerResources, LowerVar};

/// One 64-byte slot with `op`, inst_word_len 0x10 and a payload tag making it unique.
pub(crate) fn slot(op: u8, tag: u32) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[0] = op;
    s[1] = 0x10;
    s[0x20..0x24].copy_from_slice(&tag.to_le_bytes());
    s
}

/// A slot carrying a name at +12 (0xD1 begin, 0xD3 call).
pub(crate) fn named(op: u8, name: &str) -> [u8; 64] {
    let mut s = slot(op, 0);
    s[12..12 + name.len()].copy_from_slice(name.as_bytes());
    s
}

/// A 0xCC label with id at +12.
pub(crate) fn label(id: u32) -> [u8; 64] {
    let mut s = slot(0xCC, 0);
    s[12..16].copy_from_slice(&id.to_le_bytes());
    s
}

/// 0xDF PSEUDO_INST EXIT (sub-op 1 at +12).
pub(crate) fn exit() -> [u8; 64] {
    let mut s = slot(0xDF, 0);
    s[12] = 1;
    s
}

/// A PSEUDO_DMA_TRIGGER (0xC1) of `queue` (name at +0x0C, 8-byte events dialect; spec 003 §5).
pub(crate) fn dma_trigger(queue: &str, tag: u32) -> [u8; 64] {
    let mut s = slot(0xC1, 0);
    s[0x0C..0x0C + queue.len()].copy_from_slice(queue.as_bytes());
    s[0x34..0x38].copy_from_slice(&tag.to_le_bytes());
    s
}

/// The sample's PSEUDO_TRIGGER_COLLECTIVE (spec 003 §7.1): wait `$S[10]>0`, SEM_INC_COMPLETE of
/// `$S[22]`, ALL_REDUCE ADD of 32 fp32; `tag` in the reserved bytes at +0x24 makes it unique.
pub(crate) fn collective(tag: u32) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..12].copy_from_slice(&[0xc8, 0x10, 0, 0, 0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0]);
    s[0x0c..0x10].copy_from_slice(&[0x04, 0x0a, 0, 0]);
    s[0x10] = 3;
    s[0x14] = 4;
    s[0x18] = 0x20;
    s[0x20] = 1;
    s[0x24..0x28].copy_from_slice(&tag.to_le_bytes());
    s
}

/// A COMPARE_BRANCH (0xA9) in RELATIVE_IMMEDIATE mode (+0x0E = 3) naming `label` at +0x30.
pub(crate) fn branch_to(label: u32) -> [u8; 64] {
    let mut s = slot(0xA9, 0);
    s[0x0E] = 3;
    s[0x30..0x34].copy_from_slice(&label.to_le_bytes());
    s
}

/// A def.json var of `size` bytes (no pointer, no list).
pub(crate) fn var(var_id: u32, name: &str, ty: VarType, size: u64) -> LowerVar {
    LowerVar {
        var_id,
        name: name.into(),
        ty,
        size,
        placement: 0,
        referenced_var_id: None,
        dge_list: None,
    }
}

/// The sample's def.json vars (spec 000 §9): input 0, SB 1, output 2, gradient_in 3 and
/// gradient_out 4, each 32 fp32 = 128 bytes but SB.
pub(crate) fn sample_vars() -> Vec<LowerVar> {
    vec![
        var(0, "input", VarType::Input, 128),
        var(1, "SB", VarType::StateBuffer, 0),
        var(2, "output", VarType::Output, 128),
        var(3, "gradient_in", VarType::TmpBuf, 128),
        var(4, "gradient_out", VarType::TmpBuf, 128),
    ]
}

/// Resources with one POOL-owned queue `q0` (one ring, no blocks) and one trivial group.
pub(crate) fn resources() -> LowerResources {
    LowerResources {
        queues: vec![LowerQueue {
            name: "q0".into(),
            owner: Some(EngineType::Pool),
            ty: "in".into(),
            semaphores: vec![10],
            rings: 1,
            blocks: vec![],
        }],
        vars: sample_vars(),
        replica_groups: vec![vec![]],
        arch: 2,
        ..LowerResources::default()
    }
}

/// Whether the checker expects the slot to pass through unchanged: a device opcode (outside the
/// pseudo band 0xC1..0xDF) that is not a branch lowering may retarget (0xA9, 0xB5).
pub(crate) fn is_plain(op: u8) -> bool {
    !(0xC1..=0xDF).contains(&op) && op != 0xA9 && op != 0xB5
}

/// The independent check for one engine: for every plain source slot (1-based index i) there
/// is a device address A, increasing with i, whose image bytes equal the slot's bytes (byte 3's
/// low bit ignored inside FUNCTION, where spec 000 §7.2's OR pass sets it) and whose forward
/// map answers NEFF IP i. Returns how many slots were checked.
pub(crate) fn check_engine(source: &[u8], e: &LoadedEngine) -> usize {
    let img = &e.image.bytes;
    let base = e.ib_addrs.base;
    let core = e.ib_addrs.core_offset;
    let fns = e.image.functions;
    let in_fn = |o: usize| (fns.offset as usize..fns.end() as usize).contains(&o);
    let key = |bytes: &[u8], o: usize| {
        let mut k = bytes.to_vec();
        if in_fn(o) {
            k[3] &= !1;
        }
        k
    };
    let mut index: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    let ranges = [
        (core.offset as usize, core.end() as usize),
        (fns.offset as usize, fns.end() as usize),
    ];
    for (s, t) in ranges {
        for o in (s..t).step_by(64) {
            index.entry(key(&img[o..o + 64], o)).or_default().push(o);
        }
    }
    let mut last = 0usize;
    let mut checked = 0;
    for (i, src) in source.chunks_exact(64).enumerate() {
        if !is_plain(src[0]) {
            continue;
        }
        let ip = i as u64 + 1;
        let mut k = src.to_vec();
        let cands = index.get(&k).cloned().unwrap_or_default();
        k[3] &= !1;
        let cands_fn = index.get(&k).cloned().unwrap_or_default();
        let found = cands
            .iter()
            .chain(cands_fn.iter().filter(|&&o| in_fn(o)))
            .copied()
            .filter(|&o| o >= last)
            .find(|&o| {
                e.ipmap
                    .neff_ip(DeviceAddr(base + o as u64))
                    .map(|h| h.neff_ip.0)
                    == Ok(ip)
            });
        let o = found.unwrap_or_else(|| {
            panic!(
                "{:?}: source slot {i} (NEFF IP {ip}, op {:#x}) not found in the image",
                e.engine, src[0]
            )
        });
        last = o + 64;
        checked += 1;
    }
    checked
}
