//! Hammering the concurrent dependency collector: many threads add edges at once (duplicates and
//! all); after the merge the ordered lists equal a sequential canonical reference, every time.

use neff_bir::generate::{GenConfig, program};
use neff_bir::{DepCollector, Edge, EdgeKind, InstId, ModelError, Program};

fn base() -> Program {
    program(&GenConfig {
        seed: 3,
        instructions: 600,
        max_deps: 0,
        loop_carried: false,
        ..GenConfig::default()
    })
}

/// Deterministic edge set: (inst, former, kind, loop_carried), with repeats.
fn edges() -> Vec<(u32, u32, EdgeKind, bool)> {
    let mut out = Vec::new();
    let mut x: u64 = 12345;
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let inst = ((x >> 33) % 600) as u32;
        let former = ((x >> 13) % 600) as u32;
        if inst == former {
            continue;
        }
        let kind = EdgeKind::ALL[1 + ((x >> 7) % 4) as usize];
        out.push((inst, former, kind, (x >> 3).is_multiple_of(5)));
    }
    out
}

fn merged(threads: usize) -> Program {
    let mut p = base();
    let collector = DepCollector::new(&p);
    let all = edges();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (collector, all) = (&collector, &all);
            s.spawn(move || {
                // each thread walks the whole list from a different start: heavy contention and
                // every edge added several times
                for k in 0..all.len() {
                    let (i, f, kind, lc) = all[(k + t * 997) % all.len()];
                    collector.add(InstId(i), InstId(f), kind, lc).unwrap();
                }
            });
        }
    });
    collector.merge_into(&mut p).unwrap();
    p
}

fn sequential_reference() -> Program {
    let mut p = base();
    let mut all = edges();
    all.sort_by_key(|&(i, f, k, lc)| (i, lc, f, k));
    for (i, f, kind, lc) in all {
        p.add_dependency(InstId(i), InstId(f), kind, lc).unwrap();
    }
    p
}

#[test]
fn concurrent_insertion_is_deterministic_and_complete() {
    let reference = sequential_reference();
    for threads in [1, 4, 8] {
        let p = merged(threads);
        assert_eq!(p, reference, "{threads} threads");
    }
    let total: usize = reference
        .insts()
        .map(|(_, i)| i.schedule.dependencies.len())
        .sum();
    assert!(total > 10_000);
    // sets and lists agree
    for (_, inst) in reference.insts() {
        let deps = &inst.schedule.dependencies;
        assert_eq!(deps.len(), deps.distinct_len());
        for e in deps.as_slice() {
            assert!(deps.contains(e));
        }
    }
}

#[test]
fn collector_rejects_self_edges_and_unknown_ids() {
    let p = base();
    let c = DepCollector::new(&p);
    assert!(matches!(
        c.add(InstId(5), InstId(5), EdgeKind::Flow, false),
        Err(ModelError::SelfEdge(_))
    ));
    assert_eq!(
        c.add(InstId(5), InstId(6000), EdgeKind::Flow, false),
        Err(ModelError::NoSuchInstruction(InstId(6000)))
    );
    let _ = Edge::new(InstId(0), EdgeKind::Flow);
}

#[test]
fn add_dependency_rejects_self_edges_and_wide_kinds() {
    let mut p = base();
    assert!(matches!(
        p.add_dependency(InstId(1), InstId(1), EdgeKind::Flow, false),
        Err(ModelError::SelfEdge(_))
    ));
    assert!(
        p.add_dependency_bits(InstId(2), InstId(1), 9, false)
            .is_err()
    );
    assert!(
        p.add_dependency_bits(InstId(2), InstId(1), 6, false)
            .is_err()
    );
    assert_eq!(
        p.add_dependency_bits(InstId(2), InstId(1), 4, false),
        Ok(true)
    );
    assert_eq!(
        p.add_dependency(InstId(2), InstId(1), EdgeKind::Flow, false),
        Ok(false)
    );
    assert_eq!(p.inst(InstId(1)).unwrap().schedule.descendents, [InstId(2)]);
}
