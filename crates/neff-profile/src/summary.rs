//! The first answers a performance engineer wants of a profile (issue 28 item 3), from either
//! reader's rows: span per subgraph, per engine busy / waiting / idle, DMA per queue, the top
//! instructions by time.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use neff_isa::EngineType;

use crate::instruction::ProfiledInstruction;
use crate::read::Profile;
use crate::row_stream::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};

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
    /// Rows that arrived after a later-starting row of their track was already counted (more
    /// than [`REORDER`] apart): their busy and waiting time is approximate. 0 on every capture
    /// seen.
    pub out_of_order: u64,
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

/// Rows a track holds back to put them in start order (rows arrive in end order; reference
/// §3). A row starting before one already released is counted in
/// [`SubgraphSummary::out_of_order`] and folded in as it comes.
pub const REORDER: usize = 4096;

/// One interval of a track, with what its order needs: the arrival number breaks start ties
/// as a stable sort would.
type Item = (u64, u64, u64, u64);

/// Busy (union) and waiting time of one track, from its intervals in start order.
#[derive(Debug, Default)]
struct Track {
    /// Held rows in start order (rows arrive nearly sorted: an insert from the back is a step
    /// or two, where a heap paid log n per row).
    held: VecDeque<Item>,
    count: u64,
    /// The current merged interval and the busy time before it.
    cur: Option<(u64, u64)>,
    busy: u64,
    /// The first interval released: its start and wait (the gap before it is known only when
    /// the subgraph's start is, at the end).
    first: Option<(u64, u64)>,
    prev_end: u64,
    waiting: u64,
    released_start: u64,
    late: u64,
}

impl Track {
    /// Adds `[start, end)` that waited `wait` ns on events.
    fn push(&mut self, start: u64, end: u64, wait: u64) {
        let item = (start, self.count, end, wait);
        let at = self
            .held
            .iter()
            .rposition(|x| (x.0, x.1) <= (start, item.1))
            .map_or(0, |p| p + 1);
        self.held.insert(at, item);
        self.count += 1;
        if self.held.len() > REORDER {
            self.release_one();
        }
    }

    fn release_one(&mut self) {
        let Some((start, _, end, wait)) = self.held.pop_front() else {
            return;
        };
        if self.first.is_some() && start < self.released_start {
            self.late += 1;
        }
        self.released_start = self.released_start.max(start);
        self.cur = match self.cur {
            Some((cs, ce)) if start <= ce => Some((cs.min(start), ce.max(end))),
            Some((cs, ce)) => {
                self.busy += ce - cs;
                Some((start, end))
            }
            None => Some((start, end)),
        };
        match self.first {
            None => {
                self.first = Some((start, wait));
                self.prev_end = end;
            }
            Some(_) => {
                self.waiting += start.saturating_sub(self.prev_end).min(wait);
                self.prev_end = self.prev_end.max(end);
            }
        }
    }

    /// Busy and waiting ns, given the subgraph's start.
    fn finish(&mut self, sg_start: u64) -> (u64, u64) {
        while !self.held.is_empty() {
            self.release_one();
        }
        let busy = self.busy + self.cur.map_or(0, |(s, e)| e - s);
        let first_wait = self
            .first
            .map_or(0, |(s, w)| s.saturating_sub(sg_start).min(w));
        (busy, self.waiting + first_wait)
    }
}

/// One subgraph being summarised.
#[derive(Debug, Default)]
struct Building {
    start: Option<u64>,
    end: u64,
    neff: Option<(u64, u64)>,
    engines: [Track; EngineType::COUNT],
    counts: [u64; EngineType::COUNT],
    queues: BTreeMap<u64, (QueueTime, Track)>,
}

/// Top rows by duration: longest first, then subgraph, timestamp, arrival.
type TopKey = (u64, Reverse<String>, Reverse<u64>, Reverse<u64>);

/// A top-list row, ordered by its key alone (the key is unique: it holds the arrival number).
#[derive(Debug)]
struct Ranked(TopKey, ProfiledInstruction);

impl PartialEq for Ranked {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ranked {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.cmp(&o.0)
    }
}

/// The summary and top list of a row stream, in bounded memory (issue 28 item 3): a
/// [`RowSink`], so a capture is summarised while it decodes.
#[derive(Debug, Default)]
pub struct SummaryBuilder {
    subgraphs: BTreeMap<String, Building>,
    /// DMA queue names by (subgraph, engine, queue), from a capture's facts.
    queue_names: BTreeMap<(String, u64, u64), String>,
    top_n: usize,
    top: BinaryHeap<Reverse<Ranked>>,
    seen: u64,
}

impl SummaryBuilder {
    /// A builder keeping the `top` longest NEFF instructions, naming DMA queues from `facts`.
    pub fn new(top: usize, facts: Option<&crate::capture::CaptureFacts>) -> Self {
        let queue_names = facts
            .into_iter()
            .flat_map(|c| c.subgraphs.iter())
            .flat_map(|s| {
                s.dma_queues
                    .iter()
                    .map(|q| ((s.name.clone(), q.dma_engine, q.queue), q.name.clone()))
            })
            .collect();
        Self {
            top_n: top,
            queue_names,
            ..Self::default()
        }
    }

    fn sg(&mut self, name: &str) -> &mut Building {
        if !self.subgraphs.contains_key(name) {
            self.subgraphs.insert(name.to_string(), Building::default());
        }
        self.subgraphs.get_mut(name).expect("inserted")
    }

    /// The summaries (name order) and the top instructions (longest first).
    pub fn finish(self) -> (Vec<SubgraphSummary>, Vec<ProfiledInstruction>) {
        let summaries = self
            .subgraphs
            .into_iter()
            .map(|(name, mut b)| {
                let start_ns = b.start.unwrap_or(0);
                let end_ns = b.end.max(start_ns);
                let mut engines = [EngineTime::default(); EngineType::COUNT];
                let mut late = 0;
                for e in EngineType::ALL {
                    let t = &mut b.engines[e.index()];
                    let (busy, waiting) = t.finish(start_ns);
                    late += t.late;
                    engines[e.index()] = EngineTime {
                        instructions: b.counts[e.index()],
                        busy_ns: busy,
                        waiting_ns: waiting,
                        idle_ns: (end_ns - start_ns).saturating_sub(busy + waiting),
                    };
                }
                let queues = b
                    .queues
                    .into_values()
                    .map(|(mut q, mut t)| {
                        q.busy_ns = t.finish(0).0;
                        late += t.late;
                        q
                    })
                    .collect();
                SubgraphSummary {
                    name,
                    start_ns,
                    end_ns,
                    neff_span_ns: b.neff.map(|(lo, hi)| hi - lo),
                    engines,
                    queues,
                    out_of_order: late,
                }
            })
            .collect();
        let mut top: Vec<_> = self.top.into_iter().map(|Reverse(x)| x).collect();
        top.sort_by(|a, b| b.0.cmp(&a.0));
        (summaries, top.into_iter().map(|r| r.1).collect())
    }
}

impl RowSink for SummaryBuilder {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        let end = r.timestamp + r.duration;
        let b = self.sg(r.subgraph);
        b.start = Some(b.start.map_or(r.timestamp, |s| s.min(r.timestamp)));
        b.end = b.end.max(end);
        if r.neff_slot.is_some() {
            b.neff = Some(b.neff.map_or((r.timestamp, end), |(lo, hi)| {
                (lo.min(r.timestamp), hi.max(end))
            }));
        }
        if let Some(e) = r.engine {
            b.counts[e.index()] += 1;
            b.engines[e.index()].push(r.timestamp, end, r.evt_wait_time.unwrap_or(0));
        }
        self.seen += 1;
        if r.neff_slot.is_none() || self.top_n == 0 {
            return;
        }
        let key = (
            r.duration,
            Reverse(r.subgraph.to_string()),
            Reverse(r.timestamp),
            Reverse(self.seen),
        );
        let full = self.top.len() >= self.top_n;
        if full && self.top.peek().is_some_and(|Reverse(r)| r.0 >= key) {
            return;
        }
        self.top
            .push(Reverse(Ranked(key, crate::row_stream::owned(r))));
        if self.top.len() > self.top_n {
            self.top.pop();
        }
    }

    fn dma(&mut self, d: &DmaView<'_>) {
        let name = self
            .queue_names
            .get(&(d.subgraph.to_string(), d.dma_engine, d.dma_queue))
            .cloned();
        let b = self.sg(d.subgraph);
        let (q, t) = b.queues.entry(d.dma_queue).or_default();
        q.queue = d.dma_queue;
        if q.name.is_none() {
            q.name = name;
        }
        q.transfers += 1;
        q.bytes += d.size;
        t.push(d.timestamp, d.timestamp + d.duration, 0);
    }

    fn semaphore(&mut self, _: &SemaphoreView<'_>) {}
    fn throttle(&mut self, _: &ThrottleView<'_>) {}
}

impl Profile {
    /// The summary of every subgraph, in name order.
    pub fn summary(&self) -> Vec<SubgraphSummary> {
        let mut b = SummaryBuilder::new(0, self.capture.as_ref());
        self.rows(&mut b);
        b.finish().0
    }

    /// The `n` longest NEFF instructions (those with a NEFF slot; the runtime's own waits are
    /// not the kernel's), longest first (ties by subgraph, timestamp).
    pub fn top_instructions(&self, n: usize) -> Vec<ProfiledInstruction> {
        let mut b = SummaryBuilder::new(n, None);
        self.rows(&mut b);
        b.finish().1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(iv: &[(u64, u64)]) -> u64 {
        let mut t = Track::default();
        for &(s, e) in iv {
            t.push(s, e, 0);
        }
        t.finish(0).0
    }

    #[test]
    fn busy_is_the_union_of_overlapping_intervals() {
        assert_eq!(busy(&[(5, 20), (0, 10), (30, 40)]), 30);
        assert_eq!(busy(&[]), 0);
        assert_eq!(busy(&[(3, 3)]), 0);
    }

    #[test]
    fn rows_held_back_come_out_in_start_order() {
        // More rows than REORDER, arriving reversed in blocks smaller than it: exact.
        let mut t = Track::default();
        for block in 0..4u64 {
            for i in (0..1000u64).rev() {
                let s = block * 10_000 + i * 10;
                t.push(s, s + 5, 0);
            }
        }
        assert_eq!(t.finish(0).0, 4000 * 5);
        assert_eq!(t.late, 0);
    }
}
