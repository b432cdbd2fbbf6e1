//! A dependency list stored twice, as spec 002 §2 requires: an insertion-ordered list (the
//! serialization order `toJson` walks) and a membership set (the spec's `tbb::concurrent_unordered_set`).

use std::collections::HashSet;

use crate::edge::Edge;

/// Lists at most this long answer membership by a scan of the ordered list (bounded, so still O(1));
/// longer ones materialise the hash set. Keeps a million small instructions from owning a million
/// hash tables.
const SET_THRESHOLD: usize = 16;

/// The two views of one edge class (normal or loop-carried), kept consistent by construction:
/// every edge of the list is in the set and every member of the set is in the list (spec 002 §2
/// "Dependencies are stored twice": writing one view only loses an edge or miscounts).
///
/// A list read from JSON may hold the same edge twice (the file said so, and bytes are the truth);
/// [`DepList::insert`] never adds a duplicate, and the verifier reports the ones a file carries.
#[derive(Clone, Debug, Default)]
pub struct DepList {
    list: Vec<Edge>,
    set: Option<HashSet<Edge>>,
}

impl DepList {
    /// An empty list.
    pub fn new() -> DepList {
        DepList::default()
    }

    /// Adds `edge` unless present; returns whether it was added (the set's insert result).
    pub fn insert(&mut self, edge: Edge) -> bool {
        if self.contains(&edge) {
            return false;
        }
        self.push_unchecked(edge);
        true
    }

    /// Appends without the membership test: the reader's path, which must keep a duplicate a file
    /// carries so the verifier can report it.
    pub(crate) fn push_unchecked(&mut self, edge: Edge) {
        self.list.push(edge);
        if let Some(set) = &mut self.set {
            set.insert(edge);
        } else if self.list.len() > SET_THRESHOLD {
            self.set = Some(self.list.iter().copied().collect());
        }
    }

    /// O(1) membership (a bounded scan for short lists, the hash set beyond).
    pub fn contains(&self, edge: &Edge) -> bool {
        match &self.set {
            Some(set) => set.contains(edge),
            None => self.list.contains(edge),
        }
    }

    /// The edges in insertion (serialization) order.
    pub fn as_slice(&self) -> &[Edge] {
        &self.list
    }

    /// Number of entries in the ordered list (the spec's `numDependencies()` for a list without
    /// duplicates).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Number of distinct edges (the size of the set view).
    pub fn distinct_len(&self) -> usize {
        match &self.set {
            Some(set) => set.len(),
            None => {
                let mut seen: Vec<Edge> = Vec::with_capacity(self.list.len());
                for e in &self.list {
                    if !seen.contains(e) {
                        seen.push(*e);
                    }
                }
                seen.len()
            }
        }
    }
}

impl PartialEq for DepList {
    /// Equal when the ordered lists are equal (the set is derived from the list).
    fn eq(&self, other: &DepList) -> bool {
        self.list == other.list
    }
}

impl Eq for DepList {}

impl DepList {
    /// Rewrites every edge (the reader's forward-reference pass), rebuilding the set view.
    pub(crate) fn retarget(&mut self, f: impl Fn(Edge) -> Edge) {
        if !self
            .list
            .iter()
            .any(|e| matches!(e.target, crate::EdgeTarget::Unknown(_)))
        {
            return;
        }
        for e in &mut self.list {
            *e = f(*e);
        }
        if self.set.is_some() {
            self.set = Some(self.list.iter().copied().collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeKind, InstId};

    #[test]
    fn set_and_list_stay_consistent_past_the_threshold() {
        let mut deps = DepList::new();
        for i in 0..40u32 {
            assert!(deps.insert(Edge::new(InstId(i), EdgeKind::Flow)));
            assert!(!deps.insert(Edge::new(InstId(i), EdgeKind::Flow)));
        }
        assert!(deps.insert(Edge::new(InstId(3), EdgeKind::Anti)));
        assert_eq!(deps.len(), 41);
        assert_eq!(deps.distinct_len(), 41);
        assert!(deps.contains(&Edge::new(InstId(39), EdgeKind::Flow)));
        assert!(!deps.contains(&Edge::new(InstId(39), EdgeKind::Output)));
        assert_eq!(deps.as_slice()[0], Edge::new(InstId(0), EdgeKind::Flow));
    }
}
