//! Shadow state of one memory for the race detector ([`super::race`]): for every byte run, the
//! last write and the reads since it (at most one per agent), as an interval map whose runs
//! split only where accesses begin or end and merge again when neighbours agree — memory grows
//! with the number of distinct access boundaries, not with the bytes (decision D680).

use std::collections::BTreeMap;

use super::race::Clock;

/// Who accessed: an agent (engine or DMA queue), its epoch, and the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Tag {
    /// The agent (index in the detector's agent list).
    pub(crate) agent: u32,
    /// The agent's clock at the access.
    pub(crate) epoch: u32,
    /// The instruction (index in the detector's instruction list).
    pub(crate) inst: u32,
}

/// The state of a byte run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct State {
    write: Option<Tag>,
    /// Sorted by agent, one per agent.
    reads: Vec<Tag>,
}

/// An earlier access the current one is not ordered after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The earlier access.
    pub(crate) prior: Tag,
    /// Whether the earlier access wrote.
    pub(crate) prior_write: bool,
    /// The bytes both touch.
    pub(crate) start: usize,
    /// One past the last byte.
    pub(crate) end: usize,
}

/// Whether `t` happened before an access by `agent` whose clock is `clock`.
fn ordered(t: &Tag, agent: u32, clock: &Clock) -> bool {
    t.agent == agent || clock.get(t.agent) >= t.epoch
}

/// One memory's shadow: `start -> (end, state)` over disjoint runs.
#[derive(Debug, Default)]
pub(crate) struct Shadow {
    runs: BTreeMap<usize, (usize, State)>,
}

impl Shadow {
    /// Runs held (the detector's memory).
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }

    /// Splits the run containing `at` so that a run starts at `at`.
    fn split(&mut self, at: usize) {
        let Some((_, (e, st))) = self.runs.range_mut(..at).next_back() else {
            return;
        };
        if *e > at {
            // D823: the run found is cut where it lies (one tree search, not three).
            let tail = (std::mem::replace(e, at), st.clone());
            self.runs.insert(at, tail);
        }
    }

    /// Checks the access of `[start, end)` by `tag` (whose agent's clock is `clock`) against
    /// the earlier accesses, pushes each unordered one to `out`, then records it.
    pub(crate) fn access(
        &mut self,
        start: usize,
        end: usize,
        write: bool,
        tag: Tag,
        clock: &Clock,
        out: &mut Vec<Conflict>,
    ) {
        if start >= end {
            return;
        }
        self.split(start);
        self.split(end);
        let mut conflict = |prior: &Tag, prior_write: bool, s: usize, e: usize| {
            if ordered(prior, tag.agent, clock) {
                return;
            }
            match out.last_mut() {
                Some(c) if c.prior == *prior && c.prior_write == prior_write && c.end == s => {
                    c.end = e;
                }
                _ => out.push(Conflict {
                    prior: *prior,
                    prior_write,
                    start: s,
                    end: e,
                }),
            }
        };
        for (&s, (e, st)) in self.runs.range(start..end) {
            if let Some(w) = &st.write {
                conflict(w, true, s, *e);
            }
            if write {
                for r in &st.reads {
                    conflict(r, false, s, *e);
                }
            }
        }
        if write {
            self.write(start, end, tag);
        } else {
            self.read(start, end, tag);
        }
        self.merge_around(start, end);
    }

    /// Makes `[start, end)` one run written by `tag` (the runs inside it already split at its
    /// ends).
    fn write(&mut self, start: usize, end: usize, tag: Tag) {
        let st = State {
            write: Some(tag),
            reads: Vec::new(),
        };
        // D823: one run exactly over the bytes (an element written again) takes the new state
        // in place: one tree search, not a removal and an insertion.
        let mut inside = self.runs.range_mut(start..end);
        if let (Some((&s, run)), None) = (inside.next(), inside.next())
            && s == start
            && run.0 == end
        {
            run.1 = st;
            return;
        }
        let keys: Vec<usize> = self.runs.range(start..end).map(|(&k, _)| k).collect();
        for k in keys {
            self.runs.remove(&k);
        }
        self.runs.insert(start, (end, st));
    }

    /// Adds the read `tag` to every run of `[start, end)`, creating runs over untouched gaps.
    fn read(&mut self, start: usize, end: usize, tag: Tag) {
        let mut at = start;
        let mut gaps = Vec::new();
        for (&s, (e, st)) in self.runs.range_mut(start..end) {
            if s > at {
                gaps.push((at, s));
            }
            match st.reads.binary_search_by_key(&tag.agent, |r| r.agent) {
                Ok(i) => st.reads[i] = tag,
                Err(i) => st.reads.insert(i, tag),
            }
            at = *e;
        }
        if at < end {
            gaps.push((at, end));
        }
        for (s, e) in gaps {
            let st = State {
                write: None,
                reads: vec![tag],
            };
            self.runs.insert(s, (e, st));
        }
    }

    /// Merges adjacent runs with equal states from the run before `start` to the run at `end`.
    fn merge_around(&mut self, start: usize, end: usize) {
        // D823: one walk, backwards from the run at `end` to the run before `start` (one tree
        // search), decides the merges: each run's end and state read where the walk is, not
        // looked up again per key; the tree changes only for the merges. `cur` is the run after
        // the one the walk is at (grown by the merges so far).
        let mut merges: Vec<(usize, usize, usize)> = Vec::new();
        let mut cur: Option<(usize, usize, &State)> = None;
        for (&k, (e, st)) in self.runs.range(..=end).rev() {
            cur = match cur {
                Some((c, ce, cst)) if *e == c && st == cst => {
                    merges.push((k, c, ce));
                    Some((k, ce, st))
                }
                _ => Some((k, *e, st)),
            };
            if k < start {
                break;
            }
        }
        for (c, k, e) in merges {
            self.runs.remove(&k);
            if let Some(run) = self.runs.get_mut(&c) {
                run.0 = e;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(agent: u32, epoch: u32) -> Tag {
        Tag {
            agent,
            epoch,
            inst: agent * 100 + epoch,
        }
    }

    /// Agent 1 writes bytes 0..8; agent 2, not ordered after it, reads 4..12: a conflict on
    /// exactly 4..8. Once agent 2's clock covers the write, none.
    #[test]
    fn an_unordered_read_after_a_write_conflicts_on_the_common_bytes() {
        let mut sh = Shadow::default();
        let mut out = Vec::new();
        sh.access(0, 8, true, tag(1, 1), &Clock::default(), &mut out);
        assert!(out.is_empty());
        sh.access(4, 12, false, tag(2, 1), &Clock::default(), &mut out);
        assert_eq!(
            out,
            [Conflict {
                prior: tag(1, 1),
                prior_write: true,
                start: 4,
                end: 8
            }]
        );
        let mut ordered = Clock::default();
        ordered.set(1, 1);
        out.clear();
        sh.access(0, 12, false, tag(2, 2), &ordered, &mut out);
        assert!(out.is_empty());
    }

    /// Adjacent bf16 elements written by two agents do not conflict (byte precision), and
    /// a write replaces the runs it covers by one.
    #[test]
    fn adjacent_bytes_do_not_conflict_and_runs_merge() {
        let mut sh = Shadow::default();
        let mut out = Vec::new();
        sh.access(0, 2, true, tag(1, 1), &Clock::default(), &mut out);
        sh.access(2, 4, true, tag(2, 1), &Clock::default(), &mut out);
        assert!(out.is_empty());
        assert_eq!(sh.len(), 2);
        let mut c = Clock::default();
        c.set(1, 1);
        c.set(2, 1);
        sh.access(0, 4, true, tag(3, 1), &c, &mut out);
        assert!(out.is_empty());
        assert_eq!(sh.len(), 1);
    }

    /// A write after an unordered read conflicts; reads of one agent over many runs merge.
    #[test]
    fn a_write_after_an_unordered_read_conflicts() {
        let mut sh = Shadow::default();
        let mut out = Vec::new();
        for i in 0..16 {
            sh.access(
                i * 4,
                i * 4 + 4,
                false,
                tag(1, 1),
                &Clock::default(),
                &mut out,
            );
        }
        assert_eq!(sh.len(), 1);
        sh.access(8, 12, true, tag(2, 1), &Clock::default(), &mut out);
        assert_eq!(out.len(), 1);
        assert!(!out[0].prior_write);
        assert_eq!((out[0].start, out[0].end), (8, 12));
    }

    /// D823: over random accesses of three agents to 64 bytes, the shadow holds, byte for
    /// byte, what a per-byte model holds (the last write, one read per agent since it), its
    /// neighbouring runs never equal (merged), and it reports the conflicts the per-byte model
    /// finds on the same bytes.
    #[test]
    fn runs_hold_what_a_per_byte_model_holds() {
        let mut rng = neff_rng::SplitMix64::new(823);
        for _ in 0..200 {
            let (mut sh, mut bytes) = (Shadow::default(), vec![State::default(); 64]);
            for step in 0..40u32 {
                let start = rng.below(64) as usize;
                let end = (start + 1 + rng.below(16) as usize).min(64);
                let write = rng.below(2) == 0;
                let t = tag(rng.below(3), step + 1);
                let mut clock = Clock::default();
                for a in 0..3 {
                    clock.set(a, rng.below(step + 2));
                }
                let mut out = Vec::new();
                sh.access(start, end, write, t, &clock, &mut out);
                let mut want = Vec::new();
                for (b, st) in bytes.iter_mut().enumerate().take(end).skip(start) {
                    let mut priors: Vec<(Tag, bool)> =
                        st.write.iter().map(|w| (*w, true)).collect();
                    if write {
                        priors.extend(st.reads.iter().map(|r| (*r, false)));
                    }
                    for (p, w) in priors {
                        if !ordered(&p, t.agent, &clock) {
                            want.push((p, w, b));
                        }
                    }
                    if write {
                        *st = State {
                            write: Some(t),
                            reads: Vec::new(),
                        };
                    } else {
                        match st.reads.binary_search_by_key(&t.agent, |r| r.agent) {
                            Ok(i) => st.reads[i] = t,
                            Err(i) => st.reads.insert(i, t),
                        }
                    }
                }
                let mut got: Vec<(Tag, bool, usize)> = out
                    .iter()
                    .flat_map(|c| (c.start..c.end).map(move |b| (c.prior, c.prior_write, b)))
                    .collect();
                got.sort();
                want.sort();
                assert_eq!(got, want);
                let mut held = vec![State::default(); 64];
                let mut last: Option<(usize, &State)> = None;
                for (&s, (e, st)) in &sh.runs {
                    for h in &mut held[s..*e] {
                        *h = st.clone();
                    }
                    if let Some((le, lst)) = last {
                        assert!(le != s || lst != st, "unmerged neighbours at {s}");
                    }
                    last = Some((*e, st));
                }
                assert_eq!(held, bytes);
            }
        }
    }
}
