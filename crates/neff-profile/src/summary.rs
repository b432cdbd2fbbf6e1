//! The first answers a performance engineer wants of a profile (issue 28 item 3), from either
//! reader's rows: span per subgraph, per engine busy / waiting / idle, DMA per queue, the top
//! instructions by time.

use std::collections::BTreeMap;

use neff_isa::EngineType;

use crate::instruction::ProfiledInstruction;
use crate::read::Profile;

/// One engine of one subgraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngineTime {
    /// Instructions executed.
    pub instructions: u64,
    /// Time with at least one instruction running (the union of their intervals), ns.
    pub busy_ns: u64,
    /// Of the not-busy time, the gaps before an instruction that waited on events, each up to
    /// that instruction's `evt_wait_time`, ns.
    pub waiting_ns: u64,
    /// The rest of the span: neither busy nor waiting, ns.
    pub idle_ns: u64,
}

/// One DMA queue of one subgraph.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueueTime {
    /// The queue index.
    pub queue: u64,
    /// The queue's name, when the capture says it (`qSPDynamicHW`).
    pub name: Option<String>,
    /// Transfers.
    pub transfers: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Time with at least one transfer of the queue in flight, ns.
    pub busy_ns: u64,
}

impl QueueTime {
    /// Achieved bandwidth over the busy time, bytes per second (`None` when never busy).
    pub fn bandwidth(&self) -> Option<f64> {
        (self.busy_ns > 0).then(|| self.bytes as f64 / (self.busy_ns as f64 * 1e-9))
    }
}

/// One subgraph's summary.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubgraphSummary {
    /// The subgraph.
    pub name: String,
    /// First instruction start to last instruction end, ns (every instruction, the runtime's
    /// included).
    pub start_ns: u64,
    /// End of the last instruction, ns.
    pub end_ns: u64,
    /// First NEFF instruction start to last NEFF instruction end, ns ([`Profile::span_ns`]).
    pub neff_span_ns: Option<u64>,
    /// Per engine, in [`EngineType::ALL`] order.
    pub engines: [EngineTime; EngineType::COUNT],
    /// Per DMA queue, by queue index.
    pub queues: Vec<QueueTime>,
}

impl SubgraphSummary {
    /// The span, ns.
    pub fn span_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }

    /// The engine with the most busy time.
    pub fn busiest(&self) -> Option<(EngineType, EngineTime)> {
        EngineType::ALL
            .into_iter()
            .zip(self.engines)
            .filter(|(_, t)| t.instructions > 0)
            .max_by_key(|(_, t)| t.busy_ns)
    }
}

/// The union length of intervals `[start, end)` (sorted in place).
fn union_ns(iv: &mut [(u64, u64)]) -> u64 {
    iv.sort_unstable();
    let mut total = 0;
    let mut cur: Option<(u64, u64)> = None;
    for &(s, e) in iv.iter() {
        cur = match cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    total + cur.map_or(0, |(s, e)| e - s)
}

impl Profile {
    /// The summary of every subgraph, in name order.
    pub fn summary(&self) -> Vec<SubgraphSummary> {
        let mut names: Vec<&str> = self
            .instructions
            .iter()
            .map(|i| i.subgraph.as_str())
            .collect();
        names.extend(self.dma.iter().map(|d| d.subgraph.as_str()));
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .map(|n| self.subgraph_summary(n))
            .collect()
    }

    fn subgraph_summary(&self, name: &str) -> SubgraphSummary {
        let ins: Vec<&ProfiledInstruction> = self
            .instructions
            .iter()
            .filter(|i| i.subgraph == name)
            .collect();
        let start_ns = ins.iter().map(|i| i.timestamp).min().unwrap_or(0);
        let end_ns = ins.iter().map(|i| i.end()).max().unwrap_or(start_ns);
        let mut engines = [EngineTime::default(); EngineType::COUNT];
        for e in EngineType::ALL {
            let mut of: Vec<_> = ins.iter().filter(|i| i.engine() == Some(e)).collect();
            of.sort_by_key(|i| i.timestamp);
            let mut iv: Vec<_> = of.iter().map(|i| (i.timestamp, i.end())).collect();
            let busy = union_ns(&mut iv);
            let mut waiting = 0;
            let mut prev_end = start_ns;
            for i in &of {
                let gap = i.timestamp.saturating_sub(prev_end);
                waiting += gap.min(i.evt_wait_time.unwrap_or(0));
                prev_end = prev_end.max(i.end());
            }
            engines[e.index()] = EngineTime {
                instructions: of.len() as u64,
                busy_ns: busy,
                waiting_ns: waiting,
                idle_ns: (end_ns - start_ns).saturating_sub(busy + waiting),
            };
        }
        let names: BTreeMap<(u64, u64), &str> = self
            .capture
            .iter()
            .flat_map(|c| c.subgraphs.iter().filter(|s| s.name == name))
            .flat_map(|s| s.dma_queues.iter())
            .map(|q| ((q.dma_engine, q.queue), q.name.as_str()))
            .collect();
        let mut by_queue: BTreeMap<u64, (QueueTime, Vec<(u64, u64)>)> = BTreeMap::new();
        for d in self.dma.iter().filter(|d| d.subgraph == name) {
            let (q, iv) = by_queue.entry(d.dma_queue).or_default();
            q.queue = d.dma_queue;
            if q.name.is_none() {
                q.name = names
                    .get(&(d.dma_engine, d.dma_queue))
                    .map(|s| s.to_string());
            }
            q.transfers += 1;
            q.bytes += d.size;
            iv.push((d.timestamp, d.timestamp + d.duration));
        }
        let queues = by_queue
            .into_values()
            .map(|(mut q, mut iv)| {
                q.busy_ns = union_ns(&mut iv);
                q
            })
            .collect();
        SubgraphSummary {
            name: name.to_string(),
            start_ns,
            end_ns,
            neff_span_ns: self.span_ns(name),
            engines,
            queues,
        }
    }

    /// The `n` longest NEFF instructions (those with a NEFF slot; the runtime's own waits are
    /// not the kernel's), longest first (ties by subgraph, timestamp).
    pub fn top_instructions(&self, n: usize) -> Vec<&ProfiledInstruction> {
        let mut v: Vec<_> = self
            .instructions
            .iter()
            .filter(|i| i.compiler_pc.is_some())
            .collect();
        v.sort_by(|a, b| {
            b.duration
                .cmp(&a.duration)
                .then_with(|| a.subgraph.cmp(&b.subgraph))
                .then(a.timestamp.cmp(&b.timestamp))
        });
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_the_union_of_overlapping_intervals() {
        assert_eq!(union_ns(&mut [(0, 10), (5, 20), (30, 40)]), 30);
        assert_eq!(union_ns(&mut []), 0);
        assert_eq!(union_ns(&mut [(3, 3)]), 0);
    }
}
