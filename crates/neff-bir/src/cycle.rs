//! Ordering over the normal (non-loop-carried) dependency graph: topological order, one cycle's
//! members, and the longest dependency chain. Loop-carried edges point to the previous iteration and
//! never close a cycle (spec 002 §5); self-edges are the verifier's separate finding.

use crate::edge::EdgeTarget;
use crate::ids::InstId;
use crate::program::Program;

/// The normal dependency edges as compressed adjacency ("inst depends on target"), resolved
/// targets only, self-edges left out.
struct DepGraph {
    start: Vec<u32>,
    targets: Vec<u32>,
}

impl DepGraph {
    fn new(prog: &Program) -> DepGraph {
        let mut start = Vec::with_capacity(prog.len() + 1);
        let mut targets = Vec::with_capacity(prog.edge_count());
        start.push(0);
        for (id, inst) in prog.insts() {
            for e in inst.schedule.dependencies.as_slice() {
                if let EdgeTarget::Inst(t) = e.target
                    && t != id
                    && t.index() < prog.len()
                {
                    targets.push(t.0);
                }
            }
            start.push(targets.len() as u32);
        }
        DepGraph { start, targets }
    }

    fn deps(&self, i: usize) -> &[u32] {
        &self.targets[self.start[i] as usize..self.start[i + 1] as usize]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }
}

/// A topological order (every instruction after the ones it depends on), or `None` when the normal
/// dependencies have a cycle. Ties are broken by arena order, so the result is deterministic.
pub fn topo_order(prog: &Program) -> Option<Vec<InstId>> {
    let g = DepGraph::new(prog);
    let n = g.len();
    let mut indeg = vec![0u32; n];
    let mut succ_start = vec![0u32; n + 1];
    for (i, d) in indeg.iter_mut().enumerate() {
        *d = g.deps(i).len() as u32;
        for &t in g.deps(i) {
            succ_start[t as usize + 1] += 1;
        }
    }
    for i in 0..n {
        succ_start[i + 1] += succ_start[i];
    }
    let mut fill = succ_start.clone();
    let mut succ = vec![0u32; g.targets.len()];
    for i in 0..n {
        for &t in g.deps(i) {
            succ[fill[t as usize] as usize] = i as u32;
            fill[t as usize] += 1;
        }
    }
    let mut order: Vec<InstId> = (0..n)
        .filter(|&i| indeg[i] == 0)
        .map(|i| InstId(i as u32))
        .collect();
    let mut head = 0;
    while head < order.len() {
        let i = order[head].index();
        head += 1;
        for &s in &succ[succ_start[i] as usize..succ_start[i + 1] as usize] {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                order.push(InstId(s));
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// The members of one cycle among the normal dependencies, in dependency order (each member depends
/// on the next, the last on the first), or `None` if there is none. Iterative DFS: no recursion
/// depth limit on a million instructions.
pub fn find_cycle(prog: &Program) -> Option<Vec<InstId>> {
    const WHITE: u8 = 0;
    const GRAY: u8 = 1;
    const BLACK: u8 = 2;
    let g = DepGraph::new(prog);
    let n = g.len();
    let mut color = vec![WHITE; n];
    // (node, next dependency index)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..n {
        if color[root] != WHITE {
            continue;
        }
        color[root] = GRAY;
        stack.push((root as u32, 0));
        while let Some(top) = stack.last_mut() {
            let (node, next) = (top.0 as usize, top.1 as usize);
            let deps = g.deps(node);
            if next == deps.len() {
                color[node] = BLACK;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let t = deps[next] as usize;
            match color[t] {
                WHITE => {
                    color[t] = GRAY;
                    stack.push((t as u32, 0));
                }
                GRAY => {
                    let from = stack
                        .iter()
                        .position(|&(s, _)| s as usize == t)
                        .unwrap_or(0);
                    return Some(stack[from..].iter().map(|&(s, _)| InstId(s)).collect());
                }
                _ => {}
            }
        }
    }
    None
}

/// The number of instructions on the longest chain of normal dependencies (`None` if cyclic).
pub(crate) fn critical_path(prog: &Program) -> Option<usize> {
    let order = topo_order(prog)?;
    let g = DepGraph::new(prog);
    let mut len = vec![0usize; g.len()];
    let mut best = 0;
    for id in order {
        let i = id.index();
        let l = 1 + g
            .deps(i)
            .iter()
            .map(|&t| len[t as usize])
            .max()
            .unwrap_or(0);
        len[i] = l;
        best = best.max(l);
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeKind, Instruction, Opcode};

    fn chain(n: usize) -> (Program, Vec<InstId>) {
        let mut p = Program::new();
        let f = p.add_function("f");
        let b = p.add_block(f, "b").unwrap();
        let ids: Vec<_> = (0..n)
            .map(|i| {
                p.push(b, Instruction::new(format!("i{i}"), Opcode::NoOp))
                    .unwrap()
            })
            .collect();
        for w in ids.windows(2) {
            p.add_dependency(w[1], w[0], EdgeKind::Flow, false).unwrap();
        }
        (p, ids)
    }

    #[test]
    fn chain_has_no_cycle_and_full_critical_path() {
        let (p, ids) = chain(5);
        assert_eq!(topo_order(&p), Some(ids));
        assert_eq!(find_cycle(&p), None);
        assert_eq!(critical_path(&p), Some(5));
    }

    #[test]
    fn closing_the_chain_reports_its_members() {
        let (mut p, ids) = chain(4);
        p.add_dependency(ids[0], ids[3], EdgeKind::Anti, false)
            .unwrap();
        let mut cycle = find_cycle(&p).unwrap();
        cycle.sort();
        assert_eq!(cycle, ids);
        assert_eq!(topo_order(&p), None);
    }

    #[test]
    fn loop_carried_edges_do_not_close_cycles() {
        let (mut p, ids) = chain(3);
        p.add_dependency(ids[0], ids[2], EdgeKind::Flow, true)
            .unwrap();
        assert_eq!(find_cycle(&p), None);
    }
}
