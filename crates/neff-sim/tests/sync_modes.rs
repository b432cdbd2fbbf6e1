//! Every wait mode and every update mode of neff-isa, executed: PE updates `$S[5]` (or `$E[4]`)
//! with one mode, ACT waits with another, and ACT issues exactly when the condition first
//! holds — at PE's issue for a `_READ` update, at its completion for a `_COMPLETE` one.

use neff_isa::EngineType;
use neff_isa::builder::{add_mov32_imm, add_nop, get_event_semaphore_wait_update as ev};
use neff_load::model::{LoadOptions, SubgraphInput, load_streams};
use neff_lower::LowerResources;
use neff_sim::cost::{CostClass, CostModel, Linear};
use neff_sim::{SimOptions, SimResult, simulate};

const SEM: u8 = 5;
const EVT: u8 = 4;

/// A NOP carrying `events` (wait, update packed by `get_event_semaphore_wait_update`).
fn nop(events: u64) -> Vec<u8> {
    let mut b = Vec::new();
    add_nop(&mut b, 0, Some(events));
    b
}

fn run(pe: &[Vec<u8>], act: &[Vec<u8>]) -> SimResult {
    let pe: Vec<u8> = pe.concat();
    let act: Vec<u8> = act.concat();
    let resources = LowerResources::default();
    let engines = [
        (EngineType::Pe, pe.as_slice()),
        (EngineType::Act, act.as_slice()),
    ];
    let input = SubgraphInput {
        name: "sg00",
        engines: &engines,
        resources: &resources,
        content: Default::default(),
    };
    let model = load_streams(&[input], &LoadOptions::default()).expect("load");
    let opts = SimOptions {
        record: true,
        cost: with_nop_latency(),
        ..SimOptions::default()
    };
    simulate(&model, &opts).expect("simulate")
}

/// The fitted costs with a NOP (class SYNC) taking 100 ns from issue to completion and 92 ns
/// to the next issue on every engine: these tests are about when an update lands (issue or
/// completion), which needs the two apart, and need ACT waiting before PE updates, which the
/// same preamble costs on both engines guarantee (the fitted SYNC rows differ per engine:
/// D741's release-timed samples give Activation its own).
fn with_nop_latency() -> CostModel {
    let mut cost = CostModel::default();
    for r in &mut cost.table.rows {
        if r.class == CostClass::Sync {
            r.cost.latency = Linear {
                base_ns: 100.0,
                per_unit_ns: 0.0,
            };
            r.cost.dispatch = Linear {
                base_ns: 92.0,
                per_unit_ns: 0.0,
            };
        }
    }
    cost
}

/// (issue, completion) of `engine`'s NEFF slot `slot`, ns.
fn at(r: &SimResult, engine: EngineType, slot: u32) -> (f64, f64) {
    let tl = r.subgraphs[0].timeline.as_ref().unwrap();
    let s = tl
        .slices
        .iter()
        .find(|s| s.engine == engine && s.slot == Some(slot))
        .unwrap_or_else(|| panic!("{engine} slot {slot} never issued"));
    (s.start_ns, s.start_ns + s.dur_ns)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

/// Wait modes (immediate form) with a value that holds once `$S[5]` is 3 and not while it is
/// 10: `== 3`, `< 5`, `<= 3`; and with `$S[5]` going 0 -> 3: `> 2`, `>= 3`.
#[test]
fn every_semaphore_wait_mode_imm_and_reg() {
    for reg_form in [false, true] {
        // PE: $S[5] = 10 (SEM_WR_IMM_READ); wait for ACT's $S[6]; $S[5] = 3.
        // ACT: [$R[7] = value]; wait $S[5] >= 10 and raise $S[6]; the wait tested.
        let cases: [(u8, u32); 3] = [(1, 3), (2, 5), (3, 3)];
        for (mode, value) in cases {
            let (wait_mode, wait_value, mut act) = if reg_form {
                let mut mov = Vec::new();
                add_mov32_imm(&mut mov, 0, 7, value, None);
                (mode | 0x80, 7, vec![mov])
            } else {
                (mode, value, vec![])
            };
            act.push(nop(ev(5, SEM, 3, 6, 10)));
            act.push(nop(ev(wait_mode, SEM, 0, 0, wait_value)));
            let pe = [
                nop(ev(0, 0, 9, SEM, 10)),
                nop(ev(5, 6, 0, 0, 1)),
                nop(ev(0, 0, 9, SEM, 3)),
            ];
            let r = run(&pe, &act);
            assert!(
                r.deadlock.is_none(),
                "mode {wait_mode:#x}: {:?}",
                r.deadlock
            );
            let last = act.len() as u32 - 1;
            let (a, _) = at(&r, EngineType::Act, last);
            let (p, _) = at(&r, EngineType::Pe, 2);
            assert!(close(a, p), "mode {wait_mode:#x}: act {a} pe {p}");
        }
        for (mode, value) in [(4u8, 2u32), (5, 3)] {
            let (wait_mode, wait_value, mut act) = if reg_form {
                let mut mov = Vec::new();
                add_mov32_imm(&mut mov, 0, 7, value, None);
                (mode | 0x80, 7, vec![mov])
            } else {
                (mode, value, vec![])
            };
            act.push(nop(ev(wait_mode, SEM, 0, 0, wait_value)));
            // Five NOPs first, so ACT is waiting before PE writes.
            let mut pe = vec![nop(0); 5];
            pe.push(nop(ev(0, 0, 9, SEM, 3)));
            let r = run(&pe, &act);
            assert!(r.deadlock.is_none(), "mode {wait_mode:#x}");
            let (a, _) = at(&r, EngineType::Act, act.len() as u32 - 1);
            let (p, _) = at(&r, EngineType::Pe, 5);
            assert!(close(a, p), "mode {wait_mode:#x}: act {a} pe {p}");
        }
    }
}

/// Every semaphore update mode, read and complete forms: `$S[5]` from 10 (written first) to
/// the expected value, which ACT waits for with `==`.
#[test]
fn every_semaphore_update_mode_at_issue_or_completion() {
    // (read mode, value, expected from 10)
    let cases: [(u8, u32, u32); 5] = [(3, 0, 11), (4, 0, 9), (5, 4, 14), (7, 4, 6), (9, 2, 2)];
    for (mode, value, want) in cases {
        for complete in [false, true] {
            let m = if complete { mode + 16 } else { mode };
            let pe = [nop(ev(0, 0, 9, SEM, 10)), nop(ev(0, 0, m, SEM, value))];
            let act = [nop(ev(1, SEM, 0, 0, want))];
            let r = run(&pe, &act);
            assert!(r.deadlock.is_none(), "update {m:#x}: {:?}", r.deadlock);
            let (a, _) = at(&r, EngineType::Act, 0);
            let (pi, pc) = at(&r, EngineType::Pe, 1);
            let when = if complete { pc } else { pi };
            assert!(close(a, when), "update {m:#x}: act {a}, pe {pi}..{pc}");
            if complete {
                assert!(pc > pi, "a completion after the issue");
            }
        }
    }
}

/// Every event wait mode with both event update modes: SET_THEN_CLEAR clears on issue (a later
/// CLEAR wait holds at once), CLEAR_THEN_SET sets (a later SET wait holds at once).
#[test]
fn every_event_mode() {
    for (set_mode, complete) in [(1u8, false), (17, true)] {
        let pe = [nop(ev(0, 0, set_mode, EVT, 0))];
        let act = [
            nop(ev(7, EVT, 0, 0, 0)),  // wait set, then clear
            nop(ev(14, EVT, 0, 0, 0)), // clear: holds, just cleared
            nop(ev(15, EVT, 0, 0, 0)), // clear, then set
            nop(ev(6, EVT, 0, 0, 0)),  // set: holds, just set
        ];
        let r = run(&pe, &act);
        assert!(r.deadlock.is_none(), "{set_mode:#x}: {:?}", r.deadlock);
        let (pi, pc) = at(&r, EngineType::Pe, 0);
        let (a0, _) = at(&r, EngineType::Act, 0);
        assert!(close(a0, if complete { pc } else { pi }));
        for k in 1..4 {
            at(&r, EngineType::Act, k);
        }
    }
    // EVT_CLR (2 / 18): ACT waits for the event to be clear after PE set then cleared it.
    for clr in [2u8, 18] {
        let pe = [nop(ev(0, 0, 1, EVT, 0)), nop(ev(0, 0, clr, EVT, 0))];
        let act = [nop(ev(6, EVT, 0, 0, 0)), nop(ev(14, EVT, 0, 0, 0))];
        let r = run(&pe, &act);
        assert!(r.deadlock.is_none());
        let (pi, pc) = at(&r, EngineType::Pe, 1);
        let (a1, _) = at(&r, EngineType::Act, 1);
        assert!(close(a1, if clr > 16 { pc } else { pi }), "{clr:#x}");
    }
}

/// A wait nothing can satisfy is a deadlock of ACT alone, with no writer left.
#[test]
fn an_unsatisfiable_wait_is_reported_with_no_writer() {
    let pe = [nop(ev(0, 0, 9, SEM, 3))];
    let act = [nop(ev(1, SEM, 0, 0, 4))];
    let r = run(&pe, &act);
    let d = r.deadlock.expect("deadlock");
    assert_eq!(d.blocked.len(), 1);
    assert_eq!(d.blocked[0].engine, EngineType::Act);
    assert_eq!(d.blocked[0].waits[0].condition, "$S[5] == 4");
    assert_eq!(d.blocked[0].waits[0].value, 3);
    assert!(d.blocked[0].waits[0].writers.is_empty());
    assert!(d.cycle.is_empty());
}
