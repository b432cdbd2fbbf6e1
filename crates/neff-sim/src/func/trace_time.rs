//! The simulated times of `neff run --trace`'s writes (decision D751): each write's instruction
//! (subgraph, engine, NEFF slot) is looked up in the timeline of the timing model's run of the
//! same NEFF ([`crate::simulate`] with `record`), and the write gets that instruction's issue
//! and completion times in ns.
//!
//! The functional loop issues every NEFF slot once, in stream order (D480). The timing model
//! runs the loaded image: one NEFF slot is one or more consecutive image instructions (a pseudo
//! DMA is lowered to several), the PREAMBLE / POSTAMBLE carry no NEFF slot. A slot's time is its
//! first execution there: the first stretch of consecutive slices of its engine that carry its
//! slot number, from the first one's issue to the last one's completion.

use std::collections::HashMap;

use neff_isa::EngineType;

use super::trace::Trace;
use crate::SimResult;

/// One NEFF slot's first execution: issue and completion, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    start: f64,
    end: f64,
    /// A later stretch of the same slot began: this span is final.
    closed: bool,
}

type Key<'a> = (&'a str, EngineType, u32);

/// The first execution of every NEFF slot of every subgraph in `sim`'s timelines.
fn first_spans(sim: &SimResult) -> HashMap<Key<'_>, Span> {
    let mut out: HashMap<Key<'_>, Span> = HashMap::new();
    for sg in &sim.subgraphs {
        let Some(tl) = &sg.timeline else { continue };
        // The NEFF slot of each engine's previous slice (None: outside the NEFF's program).
        let mut prev: HashMap<EngineType, u32> = HashMap::new();
        for s in &tl.slices {
            let slot = s.slot.filter(|_| s.region.is_neff());
            let last = match slot {
                Some(v) => prev.insert(s.engine, v),
                None => prev.remove(&s.engine),
            };
            let Some(slot) = slot else { continue };
            let end = s.start_ns + s.dur_ns;
            let span = out.entry((sg.name.as_str(), s.engine, slot));
            let continues = last == Some(slot);
            span.and_modify(|sp| {
                if continues && !sp.closed {
                    sp.end = sp.end.max(end);
                } else if !continues {
                    sp.closed = true;
                }
            })
            .or_insert(Span {
                start: s.start_ns,
                end,
                closed: false,
            });
        }
    }
    out
}

impl Trace {
    /// Gives every write the simulated issue and completion times (ns) of the instruction that
    /// made it, from `sim`: a recorded timeline ([`crate::SimOptions::record`]) of the same NEFF.
    /// Returns how many writes found no instruction there (their times stay `None`).
    pub fn time(&mut self, sim: &SimResult) -> usize {
        let spans = first_spans(sim);
        let mut missing = 0;
        for w in &mut self.writes {
            let found = u32::try_from(w.at.slot)
                .ok()
                .and_then(|slot| spans.get(&(w.at.subgraph.as_str(), w.at.engine, slot)));
            match found {
                Some(s) => (w.ns, w.end_ns) = (Some(s.start), Some(s.end)),
                None => missing += 1,
            }
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::CostClass;
    use crate::{Region, Slice, SubgraphResult, Timeline};

    fn slice(engine: EngineType, start: f64, slot: Option<u32>, region: Region) -> Slice {
        Slice {
            engine,
            start_ns: start,
            dur_ns: 10.0,
            offset: 0,
            slot,
            region,
            class: CostClass::Activate,
            text: String::new(),
        }
    }

    /// Pool's slot 5 is lowered to two image instructions (issue 100, done 130); a later
    /// stretch of slot 5 (a loop) does not move it; Act's slot 5 is its own; a PREAMBLE slice
    /// between two stretches of slot 7 splits them.
    #[test]
    fn a_slot_takes_its_first_stretch_of_slices() {
        use EngineType::{Act, Pool};
        let slices = vec![
            slice(Pool, 100.0, Some(5), Region::Main),
            slice(Act, 105.0, Some(5), Region::Main),
            slice(Pool, 120.0, Some(5), Region::Main),
            slice(Pool, 200.0, Some(6), Region::Main),
            slice(Pool, 300.0, Some(5), Region::Main),
            slice(Act, 400.0, Some(7), Region::Main),
            slice(Act, 410.0, None, Region::Preamble),
            slice(Act, 420.0, Some(7), Region::Main),
        ];
        let sim = SimResult {
            subgraphs: vec![SubgraphResult {
                name: "sg00".into(),
                span_ns: 0,
                main_start_ns: 0,
                total_ns: 0,
                engines: Vec::new(),
                queues: Vec::new(),
                classes: Vec::new(),
                critical_path: Vec::new(),
                deadlocked: false,
                timeline: Some(Timeline {
                    slices,
                    ..Timeline::default()
                }),
            }],
            deadlock: None,
            warnings: Vec::new(),
        };
        let spans = first_spans(&sim);
        let at = |e, s| spans.get(&("sg00", e, s)).map(|sp| (sp.start, sp.end));
        assert_eq!(at(Pool, 5), Some((100.0, 130.0)));
        assert_eq!(at(Act, 5), Some((105.0, 115.0)));
        assert_eq!(at(Pool, 6), Some((200.0, 210.0)));
        assert_eq!(at(Act, 7), Some((400.0, 410.0)));
        assert_eq!(at(Pool, 9), None);
    }
}
