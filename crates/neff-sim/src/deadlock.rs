//! A deadlock: no engine can issue, no transfer or completion is pending, and some engine is
//! not done. For each blocked engine: the instruction, what it waits for and the current value,
//! and who could still change it; then the wait cycle among the blocked engines, named.

use neff_isa::text::print_slot;
use neff_isa::{Dialect, EngineType, Slot};
use serde::Serialize;

use crate::decode::EngineProgram;
use crate::machine::Machine;
use crate::op::{OpKind, Region};
use crate::sync_state::SyncObject;

/// The report of a deadlock.
#[derive(Debug, Clone, Serialize)]
pub struct Deadlock {
    /// The subgraph.
    pub subgraph: String,
    /// When the last thing happened, ns.
    pub at_ns: u64,
    /// Every engine that is not done.
    pub blocked: Vec<BlockedEngine>,
    /// The wait cycle: engines, each waiting on the next, the first repeated at the end
    /// (empty when the engines wait on something nobody can change); serialized as their keys.
    #[serde(serialize_with = "crate::engine_name::serialize_all")]
    pub cycle: Vec<EngineType>,
    /// One line saying it.
    pub message: String,
}

/// One blocked engine.
#[derive(Debug, Clone, Serialize)]
pub struct BlockedEngine {
    /// The engine.
    #[serde(serialize_with = "crate::engine_name::serialize")]
    pub engine: EngineType,
    /// The region of the blocked instruction.
    pub region: Region,
    /// Its NEFF slot, for MAIN and FUNCTION instructions.
    pub slot: Option<u32>,
    /// Its image byte offset.
    pub offset: u32,
    /// Its disassembly.
    pub text: String,
    /// What it waits for.
    pub waits: Vec<WaitFor>,
}

/// One condition a blocked instruction waits for.
#[derive(Debug, Clone, Serialize)]
pub struct WaitFor {
    /// The object (`$S[22]`).
    pub object: String,
    /// The condition (`$S[22] > 0`).
    pub condition: String,
    /// The current value (1/0 for an event).
    pub value: i64,
    /// The engines and queues that could still change it (`pe`, `queue q_gradient_in (pool)`).
    pub writers: Vec<String>,
}

/// Who can change an object: an engine directly, or a queue an engine triggers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Writer {
    Engine(usize),
    Queue { queue: u16, by: usize },
}

/// The writers of `obj` among engines that are not done: instructions updating it, range
/// clears and semaphore writes covering it, triggers whose transfers raise it.
fn writers(m: &Machine<'_>, obj: SyncObject) -> Vec<Writer> {
    let mut out = Vec::new();
    for (e, prog) in m.programs.iter().enumerate() {
        if m.engines[e].done {
            continue;
        }
        for op in &prog.ops {
            let direct = prog.updates(op).iter().flatten().any(|u| u.object() == obj)
                || matches!((prog.kind(op), obj), (OpKind::RangeClear { first, last }, SyncObject::Semaphore(s)) if (first..=last).contains(&s))
                || matches!((prog.kind(op), obj), (OpKind::SemWrite { idx, .. }, SyncObject::Semaphore(s)) if idx == s);
            if direct && !out.contains(&Writer::Engine(e)) {
                out.push(Writer::Engine(e));
            }
            if let (
                OpKind::DmaStart {
                    queue,
                    ring,
                    descriptor,
                    ..
                },
                SyncObject::Semaphore(s),
            ) = (prog.kind(op), obj)
                && raises(m, prog, queue, ring, descriptor, s)
            {
                let w = Writer::Queue { queue, by: e };
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// Whether a trigger of `(queue, ring)` can raise semaphore `s`.
fn raises(
    m: &Machine<'_>,
    prog: &EngineProgram,
    queue: u16,
    ring: u16,
    descriptor: Option<u32>,
    s: u8,
) -> bool {
    if let Some(i) = descriptor {
        return m
            .subgraph
            .engine(prog.engine)
            .and_then(|le| le.descriptors.get(i as usize))
            .is_some_and(|d| d.semaphore == s);
    }
    let Some(q) = m.subgraph.resources.queues.get(usize::from(queue)) else {
        return false;
    };
    let ring_sem = q.semaphores.get(usize::from(ring)).copied();
    let blocks = q.blocks.iter().filter(|b| b.ring == usize::from(ring));
    ring_sem == Some(u32::from(s))
        || blocks
            .clone()
            .any(|b| b.semaphore.or(ring_sem) == Some(u32::from(s)))
}

/// The report, when the machine stopped with engines not done.
pub(crate) fn report(m: &Machine<'_>, at: u64) -> Option<Deadlock> {
    let stuck: Vec<usize> = (0..m.engines.len())
        .filter(|&e| !m.engines[e].done)
        .collect();
    if stuck.is_empty() {
        return None;
    }
    let names = |w: &Writer| match *w {
        Writer::Engine(e) => m.programs[e].engine.key().to_string(),
        Writer::Queue { queue, by } => format!(
            "queue {} ({})",
            m.subgraph.resources.queues[usize::from(queue)].name,
            m.programs[by].engine.key()
        ),
    };
    let mut blocked = Vec::new();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); m.engines.len()];
    for &e in &stuck {
        let prog = &m.programs[e];
        let run = &m.engines[e];
        let at = run.pc.min(prog.ops.len() - 1);
        let op = &prog.ops[at];
        let mut waits = Vec::new();
        for w in prog.waits(op) {
            let Some(obj) = w.object() else { continue };
            if w.holds(&m.sync, &run.regs) {
                continue;
            }
            let ws = writers(m, obj);
            for x in &ws {
                let to = match *x {
                    Writer::Engine(t) | Writer::Queue { by: t, .. } => t,
                };
                if !edges[e].contains(&to) {
                    edges[e].push(to);
                }
            }
            waits.push(WaitFor {
                object: obj.to_string(),
                condition: w.describe(&run.regs),
                value: value_of(m, obj),
                writers: ws.iter().map(names).collect(),
            });
        }
        blocked.push(BlockedEngine {
            engine: prog.engine,
            region: prog.region(at),
            slot: prog.slot(at),
            offset: prog.offset(at),
            text: disassemble(m, e, prog.offset(at)),
            waits,
        });
    }
    let cycle: Vec<EngineType> = find_cycle(&edges, &stuck)
        .iter()
        .map(|&e| m.programs[e].engine)
        .collect();
    let message = deadlock_message(&m.subgraph.name, &blocked, &cycle);
    Some(Deadlock {
        subgraph: m.subgraph.name.clone(),
        at_ns: at,
        blocked,
        cycle,
        message,
    })
}

fn value_of(m: &Machine<'_>, obj: SyncObject) -> i64 {
    match obj {
        SyncObject::Semaphore(i) => m.sync.sems[usize::from(i)],
        SyncObject::Event(i) => i64::from(m.sync.events[usize::from(i)]),
    }
}

/// The disassembly of the slot at `offset` of engine `e`'s image: from the image's bytes, or,
/// for a program compiled from views (D834), from the records it kept (empty for one it did
/// not keep, as for an offset past the image).
pub(crate) fn disassemble(m: &Machine<'_>, e: usize, offset: u32) -> String {
    let prog = &m.programs[e];
    let image = m
        .subgraph
        .engine(prog.engine)
        .map_or(&[][..], |le| &le.image.bytes[..]);
    let bytes = if image.is_empty() {
        prog.kept.get(offset as usize / neff_isa::SLOT_BYTES)
    } else {
        image.get(offset as usize..)
    }
    .and_then(Slot::from_slice);
    let mut s = String::new();
    if let Some(slot) = bytes {
        print_slot(&slot, Dialect::Semaphore8, &mut s);
    }
    s.trim_end_matches([';', '\n']).to_string()
}

/// A cycle in the wait graph among `stuck` engines (DFS), the first repeated at the end.
fn find_cycle(edges: &[Vec<usize>], stuck: &[usize]) -> Vec<usize> {
    fn dfs(
        v: usize,
        edges: &[Vec<usize>],
        stuck: &[usize],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        if let Some(i) = path.iter().position(|&p| p == v) {
            let mut c = path[i..].to_vec();
            c.push(v);
            return Some(c);
        }
        path.push(v);
        for &w in &edges[v] {
            if stuck.contains(&w)
                && let Some(c) = dfs(w, edges, stuck, path)
            {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    stuck
        .iter()
        .find_map(|&s| dfs(s, edges, stuck, &mut Vec::new()))
        .unwrap_or_default()
}

fn deadlock_message(sg: &str, blocked: &[BlockedEngine], cycle: &[EngineType]) -> String {
    let who: Vec<String> = blocked
        .iter()
        .map(|b| {
            let at = match b.slot {
                Some(s) => format!("slot {s}"),
                None => format!("{:?} +{:#x}", b.region, b.offset),
            };
            let on: Vec<&str> = b.waits.iter().map(|w| w.condition.as_str()).collect();
            format!("{} at {at} waits for {}", b.engine, on.join(" and "))
        })
        .collect();
    let cyc = if cycle.is_empty() {
        String::new()
    } else {
        format!("; wait cycle {}", cycle_text(cycle))
    };
    format!("{sg}: deadlock: {}{cyc}", who.join("; "))
}

/// `pool -> pe -> pool`: a wait cycle by engine keys.
pub fn cycle_text(cycle: &[EngineType]) -> String {
    let keys: Vec<&str> = cycle.iter().map(|e| e.key()).collect();
    keys.join(" -> ")
}
