//! The simulator's benchmark workload, shared by the criterion bench (`benches/sim_rate.rs`), the
//! quick measurement (`examples/sim_rate.rs`) and the loop test: a synthetic subgraph in which
//! every engine runs a loop (ALU counter + COMPARE_BRANCH back to a label) around a body of
//! compute instructions, engines handing work on through semaphore credits (wait `>= 1` and
//! subtract 1 at issue; add 1 at completion), SP moving one DMA transfer per iteration.

use neff_isa::EngineType;
use neff_isa::builder::{add_add32_imm, add_ins, add_nop, get_event_semaphore_wait_update as ev};
use neff_load::model::{LoadOptions, LoadedModel, SubgraphInput, load_streams};
use neff_lower::{LowerQueue, LowerResources};

/// Loop counter register.
const COUNTER: u8 = 1;
const WAIT_GE: u8 = 5;
const SUB_READ: u8 = 7;
const INC_COMPLETE: u8 = 19;

/// A compute slot of `opcode` streaming `n` elements (TENSOR3D source at +0x10, D190).
fn compute(opcode: u8, n: u16, events: u64) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[0] = opcode;
    s[1] = 0x10;
    s[4..12].copy_from_slice(&events.to_le_bytes());
    s[0x14..0x16].copy_from_slice(&1u16.to_le_bytes());
    s[0x1a..0x1c].copy_from_slice(&n.to_le_bytes());
    s[0x1c..0x1e].copy_from_slice(&1u16.to_le_bytes());
    s[0x1e..0x20].copy_from_slice(&1u16.to_le_bytes());
    s[0x20] = 0x0a;
    s[0x22] = 128;
    s
}

/// A source COMPARE_BRANCH `if $R[reg] < imm goto label` (REL_IMM, the label id in
/// br_immediate; lowering resolves it, D53).
fn branch_lt(reg: u8, imm: u32, label: u32) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..2].copy_from_slice(&[0xa9, 0x10]);
    s[0x0c] = 5; // LT_IMM
    s[0x0d] = 8; // INT32
    s[0x0e] = 3; // REL_IMM
    s[0x10..0x14].copy_from_slice(&imm.to_le_bytes());
    s[0x20] = reg;
    s[0x30..0x34].copy_from_slice(&label.to_le_bytes());
    s
}

fn label(id: u32) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..2].copy_from_slice(&[0xcc, 0x10]);
    s[0x0c..0x10].copy_from_slice(&id.to_le_bytes());
    s
}

fn dma_trigger(queue: &str) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..2].copy_from_slice(&[0xc1, 0x10]);
    s[0x0c..0x0c + queue.len()].copy_from_slice(queue.as_bytes());
    s
}

/// `body` wrapped in `iterations` turns of a counted loop.
fn looped(body: &[[u8; 64]], iterations: u32) -> Vec<u8> {
    let mut out = Vec::new();
    add_ins(&mut out, 0, &label(1));
    for s in body {
        let at = out.len();
        add_ins(&mut out, at, s);
    }
    let at = out.len();
    add_add32_imm(&mut out, at, COUNTER, COUNTER, 1, None);
    let at = out.len();
    add_ins(&mut out, at, &branch_lt(COUNTER, iterations, 1));
    out
}

/// Credit protocol on semaphore `s`: consume one (wait `>= 1`, subtract 1 at issue).
fn take(s: u8) -> u64 {
    ev(WAIT_GE, s, SUB_READ, s, 1)
}

/// Produce one on `s` at completion.
fn give(s: u8) -> u64 {
    ev(0, 0, INC_COMPLETE, s, 0)
}

fn nop() -> [u8; 64] {
    let mut v = Vec::new();
    add_nop(&mut v, 0, None);
    v.try_into().expect("one slot")
}

/// The engine streams and the resources (one SP-owned dynamic queue `q0` raising `$S[20]`).
pub(crate) fn streams(iterations: u32) -> (Vec<(EngineType, Vec<u8>)>, LowerResources) {
    let pe = [
        compute(0x01, 128, 0),
        compute(0x02, 128, 0),
        compute(0x01, 128, 0),
        compute(0x02, 128, give(1)),
    ];
    let act = [
        compute(0x21, 256, take(1)),
        compute(0x21, 256, 0),
        compute(0x21, 256, give(2)),
    ];
    let dve = [
        compute(0x43, 128, take(2)),
        compute(0x43, 128, 0),
        nop(),
        compute(0x43, 128, give(3)),
    ];
    let pool = [{
        let mut n = nop();
        n[4..12].copy_from_slice(&take(3).to_le_bytes());
        n
    }];
    let sp = [dma_trigger("q0"), {
        let mut n = nop();
        n[4..12].copy_from_slice(&take(20).to_le_bytes());
        n
    }];
    let engines = vec![
        (EngineType::Pe, looped(&pe, iterations)),
        (EngineType::Act, looped(&act, iterations)),
        (EngineType::Dve, looped(&dve, iterations)),
        (EngineType::Pool, looped(&pool, iterations)),
        (EngineType::Sp, looped(&sp, iterations)),
    ];
    let resources = LowerResources {
        queues: vec![LowerQueue {
            name: "q0".into(),
            owner: Some(EngineType::Sp),
            ty: "in".into(),
            semaphores: vec![20],
            rings: 1,
            blocks: vec![],
        }],
        arch: 2,
        ..LowerResources::default()
    };
    (engines, resources)
}

/// The loaded workload.
pub(crate) fn model(iterations: u32) -> LoadedModel {
    let (engines, resources) = streams(iterations);
    let refs: Vec<(EngineType, &[u8])> = engines.iter().map(|(e, b)| (*e, b.as_slice())).collect();
    let input = SubgraphInput {
        name: "sg00",
        engines: &refs,
        resources: &resources,
        content: Default::default(),
    };
    load_streams(&[input], &LoadOptions::default()).expect("the workload loads")
}

/// NEFF instructions the workload executes.
pub(crate) fn neff_instructions(iterations: u32) -> u64 {
    // Loop bodies plus the ALU and the branch of each engine, per iteration.
    u64::from(iterations) * (4 + 3 + 4 + 1 + 2 + 5 * 2)
}
