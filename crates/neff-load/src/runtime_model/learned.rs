//! A runtime version's regions learned from one capture of it (decision D463): the PREAMBLE
//! (MODEL_SWITCH inside) and POSTAMBLE bytes the runtime wrote around each engine's program, kept
//! per engine and per content key, so that another NEFF loads with that runtime's own bytes.
//!
//! A capture's streams are the runtime's loaded images (reference-ntff §4): the runtime segments
//! that start a stream are its PREAMBLE, those that end it its POSTAMBLE (decision D840). What
//! decides a region's content is the subgraph's content (decision D464: [`VariantKey`]), never
//! the file it came from. A NEFF whose engine has a key no learned stream has, and that no
//! learned stream can be turned into, gets the rules' regions ([`super::RuntimeRegions::new`])
//! when the capture is of the runtime the rules were read from ([`rules::RULES_RUNTIME`]), and
//! an [`Unlearned`] error otherwise (decision D842).
//!
//! neffkit does not read captures here (neff-profile does, once): the caller hands over each
//! stream as a [`CapturedStream`].

use std::borrow::Cow;
use std::ops::Range;

use neff_isa::{EngineType, SLOT_BYTES};

use super::unlearned::{Unlearned, UnlearnedWhy};
use super::variant::{QueuePlace, RULES_QUEUE_PLACE, variant_of};
use super::{RuntimeContent, dge_slot, rules, table_block, table_queue};

pub use super::stream::{CapturedSegment, CapturedStream};
pub use super::variant::{Confirmed, LearnedVariant, TeacherQueueBlock, VariantKey};

/// Why a capture's stream cannot teach its regions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LearnError {
    /// No runtime segment at slot 0, or no runtime segment ending the program.
    #[error(
        "{subgraph} {engine}: the capture's runtime segments do not frame a PREAMBLE and a POSTAMBLE"
    )]
    NoRegions {
        /// Subgraph name.
        subgraph: String,
        /// The engine.
        engine: EngineType,
    },
    /// The POSTAMBLE's last slot is no COMPARE_BRANCH back into the PREAMBLE.
    #[error("{subgraph} {engine}: POSTAMBLE slot {slot} is not a branch back into the PREAMBLE")]
    NoBranchBack {
        /// Subgraph name.
        subgraph: String,
        /// The engine.
        engine: EngineType,
        /// The stream slot.
        slot: usize,
    },
    /// Two streams with one key hold regions of different lengths: the key misses a fact.
    #[error(
        "{engine}: streams {first} and {second} have one content key ({key}) but PREAMBLE / \
         POSTAMBLE lengths {a:?} and {b:?} slots: this runtime's regions depend on a fact the key \
         does not hold"
    )]
    Conflict {
        /// The engine.
        engine: EngineType,
        /// The key.
        key: VariantKey,
        /// The subgraph of the stream learned first.
        first: String,
        /// The subgraph of the other.
        second: String,
        /// The first stream's PREAMBLE and POSTAMBLE slots.
        a: (usize, usize),
        /// The other's.
        b: (usize, usize),
    },
    /// Two streams with one key and one length hold different opcodes: the key misses a fact.
    #[error(
        "{engine}: streams {first} and {second} have one content key ({key}) and lengths but \
         different opcodes at {region} slot {slot}: this runtime's regions depend on a fact the \
         key does not hold"
    )]
    OpcodeConflict {
        /// The engine.
        engine: EngineType,
        /// The key.
        key: VariantKey,
        /// The subgraph of the stream learned first.
        first: String,
        /// The subgraph of the other.
        second: String,
        /// PREAMBLE or POSTAMBLE.
        region: &'static str,
        /// The first slot of that region whose opcode differs.
        slot: usize,
    },
    /// Two captures merged into one runtime (decision D850) name different runtime versions or
    /// show different relocation windows.
    #[error("{first} and {second} cannot teach one runtime: {what}")]
    Mismatch {
        /// The capture learned first.
        first: String,
        /// The other.
        second: String,
        /// What differs.
        what: String,
    },
    /// No capture to learn from.
    #[error("no capture to learn a runtime from")]
    NoCapture,
    /// The capture ran a subgraph the NEFF given for it does not have.
    #[error("the capture's subgraph {subgraph} is not in the NEFF it is said to have run")]
    NoSubgraph {
        /// Subgraph name.
        subgraph: String,
    },
}

/// A runtime version's regions, learned from one capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedRuntime {
    /// The runtime version the capture names (`2.30.51`).
    pub version: String,
    /// What the capture is called in errors (its path; [`Self::named`]).
    pub capture: String,
    /// The device memory window the runtime allocated its images in (decision D465): the 4 GiB
    /// window holding the capture's stream bases. Addresses inside it depend on what else the
    /// runtime had loaded, so a comparison takes any two of them as a relocation.
    pub window: Range<u64>,
    /// Every engine's regions per key seen.
    pub variants: Vec<LearnedVariant>,
    /// The pseudo-instruction opcodes the capture's NEFF uses, when recorded
    /// ([`super::learn_capture`]): the MAIN forms its streams confirm (decision D845).
    pub taught_pseudos: Option<Vec<u8>>,
}

/// Holds every located queue block's cut against the teacher's stream of the same engine and
/// tables without a static queue, where there is one (decision D844).
fn confirm_cuts(variants: &mut [LearnedVariant]) {
    for i in 0..variants.len() {
        let v = &variants[i];
        let confirmed = variants
            .iter()
            .find(|o| {
                o.engine == v.engine && o.key.static_queues == 0 && o.key.tables == v.key.tables
            })
            .and_then(|o| v.cut_matches(o));
        if let Some(b) = variants[i].queue_block.as_mut() {
            b.cut_confirmed = confirmed;
        }
    }
}

/// The first slot whose opcode differs between two variants of one length (decision D840), and
/// its region.
fn first_opcode_difference(
    a: &LearnedVariant,
    b: &LearnedVariant,
) -> Option<(&'static str, usize)> {
    let first = |x: &[u8], y: &[u8]| {
        (x.chunks_exact(SLOT_BYTES).zip(y.chunks_exact(SLOT_BYTES))).position(|(p, q)| p[0] != q[0])
    };
    first(&a.preamble, &b.preamble)
        .map(|i| ("PREAMBLE", i))
        .or_else(|| first(&a.postamble, &b.postamble).map(|i| ("POSTAMBLE", i)))
}

/// A variant's PREAMBLE and POSTAMBLE slots.
fn lengths(v: &LearnedVariant) -> (usize, usize) {
    (
        v.preamble.len() / SLOT_BYTES,
        v.postamble.len() / SLOT_BYTES,
    )
}

/// Adds one stream's regions to `variants`: a new key is kept; a key seen before must have the
/// same lengths and opcodes (else the key misses a fact: [`LearnError::Conflict`],
/// [`LearnError::OpcodeConflict`]), and the first stream's bytes stay.
fn add_variant(variants: &mut Vec<LearnedVariant>, v: LearnedVariant) -> Result<(), LearnError> {
    let Some(x) = variants
        .iter_mut()
        .find(|x| x.engine == v.engine && x.key == v.key)
    else {
        variants.push(v);
        return Ok(());
    };
    if lengths(x) != lengths(&v) {
        return Err(LearnError::Conflict {
            engine: v.engine,
            key: v.key,
            a: lengths(x),
            b: lengths(&v),
            first: x.subgraph.clone(),
            second: v.subgraph,
        });
    }
    if let Some((region, slot)) = first_opcode_difference(x, &v) {
        return Err(LearnError::OpcodeConflict {
            engine: v.engine,
            key: v.key,
            first: x.subgraph.clone(),
            second: v.subgraph,
            region,
            slot,
        });
    }
    // D841: a data-word rule holds for a key when every stream follows it.
    x.confirmed = x.confirmed.and(v.confirmed);
    // D844: another count of table sets with the same lengths.
    for n in v.table_sets {
        if !x.table_sets.contains(&n) {
            x.table_sets.push(n);
        }
    }
    Ok(())
}

/// The size of the relocation window (decision D465).
pub const RELOCATION_WINDOW: u64 = 1 << 32;

impl LearnedRuntime {
    /// Learns from a capture's subgraphs, each with its NEFF subgraph's content and its streams.
    pub fn learn<'a>(
        version: impl Into<String>,
        subgraphs: impl IntoIterator<Item = (String, RuntimeContent, Vec<CapturedStream<'a>>)>,
    ) -> Result<Self, LearnError> {
        let mut variants: Vec<LearnedVariant> = Vec::new();
        let mut low = u64::MAX;
        for (name, content, streams) in subgraphs {
            for s in &streams {
                low = low.min(s.device_base);
                add_variant(&mut variants, variant_of(&name, s, &content)?)?;
            }
        }
        confirm_cuts(&mut variants);
        let start = if low == u64::MAX {
            0
        } else {
            low & !(RELOCATION_WINDOW - 1)
        };
        Ok(Self {
            version: version.into(),
            capture: "the capture".to_owned(),
            window: start..start.saturating_add(RELOCATION_WINDOW),
            variants,
            taught_pseudos: None,
        })
    }

    /// The same, the capture called `capture` in errors.
    pub fn named(self, capture: impl Into<String>) -> Self {
        Self {
            capture: capture.into(),
            ..self
        }
    }

    /// One runtime learned from several captures of it, in order (decision D850): every key any
    /// shows; a key two show must have one length and opcode sequence in both (else
    /// [`LearnError::Conflict`] / [`LearnError::OpcodeConflict`]), and the first capture's bytes
    /// are kept. Each variant's subgraph is named with its capture (`attn_v6 sg00`). The
    /// captures must name one runtime version and show one relocation window.
    pub fn merged(runtimes: impl IntoIterator<Item = Self>) -> Result<Self, LearnError> {
        let mut merged: Option<Self> = None;
        for r in runtimes {
            let Self {
                version,
                capture,
                window,
                variants,
                taught_pseudos,
            } = r;
            let acc = merged.get_or_insert_with(|| Self {
                version: version.clone(),
                capture: capture.clone(),
                window: window.clone(),
                variants: Vec::new(),
                taught_pseudos: Some(Vec::new()),
            });
            if acc.version != version || acc.window != window {
                return Err(LearnError::Mismatch {
                    first: acc.capture.clone(),
                    second: capture,
                    what: if acc.version == version {
                        format!("relocation windows {:#x?} and {window:#x?}", acc.window)
                    } else {
                        format!("runtime versions {} and {version}", acc.version)
                    },
                });
            }
            for mut v in variants {
                v.subgraph = format!("{capture} {}", v.subgraph);
                add_variant(&mut acc.variants, v)?;
            }
            acc.taught_pseudos = match (acc.taught_pseudos.take(), taught_pseudos) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    a.sort_unstable();
                    a.dedup();
                    Some(a)
                }
                _ => None,
            };
        }
        let mut merged = merged.ok_or(LearnError::NoCapture)?;
        confirm_cuts(&mut merged.variants);
        Ok(merged)
    }

    /// Whether the rules ([`rules`], [`super::queue_block`]) were read from this runtime
    /// version's captures, so that they may stand in where the capture teaches nothing
    /// (decision D842).
    pub fn rules_apply(&self) -> bool {
        self.version == rules::RULES_RUNTIME
    }

    /// The regions learned for `engine` in a subgraph with `content`: a stream's with that key
    /// (its queue block rebuilt for another queue, D857), else one whose engine owned a static
    /// queue the content has none of, with its blocks taken out (decision D468), else one without
    /// queues with a block built for each of the content's queues (D582, D857), else the form
    /// with the other DGE-table fact (D851), else the form with tables, its table block cut
    /// (D858); each with the PREAMBLE's DGE queue masks written for `content`'s dynamic queues
    /// (decision D770) and its two modelled queue-14 DMA counts (decision D771), each where the
    /// teacher follows that rule (D841).
    ///
    /// `Ok(None)`: nothing learned fits, and the rules' regions stand in (the capture is of
    /// [`rules::RULES_RUNTIME`]). `Err`: nothing learned fits a capture of another version
    /// (decision D842).
    pub fn variant(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Result<Option<Cow<'_, LearnedVariant>>, Box<Unlearned>> {
        // D851 stands in for a key no stream shows, never for a refused derivation: a teacher
        // whose block the learner misreads stays refused.
        // D858 likewise: an engine seen with tables only gets its table block cut.
        let v = match self
            .learned_variant(engine, content)
            .or_else(|why| match why {
                UnlearnedWhy::NoKey { .. } => self.dge_flipped(engine, content).ok_or(why),
                why => Err(why),
            })
            .or_else(|why| match why {
                UnlearnedWhy::NoKey { .. } => self.tables_cut(engine, content).ok_or(why),
                why => Err(why),
            }) {
            Ok(v) => v,
            Err(_) if self.rules_apply() => return Ok(None),
            Err(why) => {
                return Err(Box::new(Unlearned {
                    capture: self.capture.clone(),
                    version: self.version.clone(),
                    engine,
                    key: VariantKey::of(engine, content),
                    why,
                }));
            }
        };
        let masked = (v.confirmed.masks)
            .then(|| content.dge_queues.rewrite(engine, &v.preamble))
            .flatten();
        let counted = (v.confirmed.counts)
            .then(|| {
                table_queue::rewrite(engine, content, masked.as_deref().unwrap_or(&v.preamble))
            })
            .flatten();
        Ok(Some(match counted.or(masked) {
            Some(preamble) => Cow::Owned(LearnedVariant {
                preamble,
                ..v.into_owned()
            }),
            None => v,
        }))
    }

    /// The regions of a content without tables made from those of the engine with tables (one
    /// set), learned or made by D851, its table block cut where the learned regions confirm it
    /// (decision D858). `None` for an engine that loads no tables, or when nothing confirms it.
    fn tables_cut(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Option<Cow<'_, LearnedVariant>> {
        if rules::table_load(engine, content) {
            return None;
        }
        let with = match engine {
            EngineType::Act => RuntimeContent {
                activation_function_sets: 1,
                ..*content
            },
            EngineType::Dve => RuntimeContent {
                dve_table_sets: 1,
                ..*content
            },
            _ => return None,
        };
        let v = match self.learned_variant(engine, &with) {
            Ok(v) => v,
            Err(UnlearnedWhy::NoKey { .. }) => self.dge_flipped(engine, &with)?,
            Err(_) => return None,
        };
        table_block::without_tables(&self.variants, &v).map(Cow::Owned)
    }

    /// [`Self::learned_variant`] of the content with the other DGE-table fact, its START block's
    /// DGE load put in or taken out (decision D851), where the learned regions confirm that slot.
    fn dge_flipped(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Option<Cow<'_, LearnedVariant>> {
        let other = RuntimeContent {
            dge_table: !content.dge_table,
            ..*content
        };
        let v = self.learned_variant(engine, &other).ok()?;
        // The rules' START block places the load for the runtime they were read from.
        let rules_from_end = self.rules_apply().then(|| {
            let with = RuntimeContent {
                dge_table: true,
                ..*content
            };
            let r = super::RuntimeRegions::new(engine, &with);
            let at = r
                .preamble
                .iter()
                .position(|s| s.op() == Some(super::RuntimeOp::LoadDgeRegisters));
            at.map(|i| r.preamble.len() - i)
        });
        dge_slot::with_dge_table(
            &self.variants,
            &v,
            content.dge_table,
            rules_from_end.flatten(),
        )
        .map(Cow::Owned)
    }

    /// [`Self::variant`] as learned, the masks those of the capture.
    fn learned_variant(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Result<Cow<'_, LearnedVariant>, UnlearnedWhy> {
        let key = VariantKey::of(engine, content);
        let sets = rules::table_sets(engine, content);
        let qs = &content.static_queues_of(engine);
        match self.fitting(engine, sets, |v| v.key == key) {
            Ok(v) => return Ok(self.with_own_queue(v, qs)),
            Err(UnlearnedWhy::NoKey { .. }) => {}
            Err(e) => return Err(e),
        }
        let same_rest =
            |v: &LearnedVariant| v.key.tables == key.tables && v.key.dge_table == key.dge_table;
        if key.static_queues == 0 {
            // D468: a learned engine's one static queue taken out.
            let v = self.fitting(engine, sets, |v| same_rest(v) && v.key.static_queues != 0)?;
            return self.cut(v).map(Cow::Owned);
        }
        // D582: the static queues the learned engine lacked get their blocks built; D857: two
        // or more, one block each, in def.json order (runtime 2.30.51's rules only: no capture
        // shows two).
        if qs.len() != usize::from(key.static_queues) || (qs.len() > 1 && !self.rules_apply()) {
            return Err(UnlearnedWhy::ManyQueues {
                queues: key.static_queues,
            });
        }
        let v = self.fitting(engine, sets, |v| same_rest(v) && v.key.static_queues == 0)?;
        let place = self.queue_place(qs)?;
        v.with_static_queues(self.window.start, qs, place)
            .map(Cow::Owned)
            .ok_or(UnlearnedWhy::NoRoomForBlock {
                subgraph: v.subgraph.clone(),
                place,
            })
    }

    /// `v` (learned with the content's key) for the content's static queue `qs`: as learned, the
    /// teacher's ring bases kept, when its block is of that very queue (index, kind, and a `data`
    /// queue's blocks) or not located; else its block cut and `qs`'s built in its place
    /// (decision D857: a block holds its queue's registers and count), where the builder
    /// reproduces the teacher's block.
    fn with_own_queue<'a>(
        &self,
        v: &'a LearnedVariant,
        qs: &[super::queue_block::StaticQueue],
    ) -> Cow<'a, LearnedVariant> {
        let rebuilt = v.queue_block.as_ref().and_then(|b| {
            let q = qs.first().filter(|_| qs.len() == 1)?;
            // The block count is written only for a `data` queue (D582).
            let same = q.index == b.queue.index
                && q.data == b.queue.data
                && (!q.data || q.blocks == b.queue.blocks);
            if same || !b.builder_confirmed {
                return None;
            }
            let place = v.queue_place()?;
            v.without_static_queues()?
                .with_static_queues(self.window.start, qs, place)
        });
        rebuilt.map_or(Cow::Borrowed(v), Cow::Owned)
    }

    /// The first variant of `engine` that `pred` accepts and whose table sets fit `sets` (decision
    /// D844): under 2.30.51 any count (D467); under another version the count itself, unless
    /// the capture showed two counts with one length.
    fn fitting(
        &self,
        engine: EngineType,
        sets: usize,
        pred: impl Fn(&LearnedVariant) -> bool,
    ) -> Result<&LearnedVariant, UnlearnedWhy> {
        let of_engine = || self.variants.iter().filter(move |v| v.engine == engine);
        let mut candidates = of_engine().filter(|v| pred(v)).peekable();
        if candidates.peek().is_none() {
            return Err(UnlearnedWhy::NoKey {
                seen: of_engine().map(|v| v.key).collect(),
            });
        }
        let fits = |v: &LearnedVariant| {
            self.rules_apply() || v.table_sets.contains(&sets) || v.table_sets.len() > 1
        };
        let mut taught = Vec::new();
        for v in candidates {
            if fits(v) {
                return Ok(v);
            }
            taught.extend_from_slice(&v.table_sets);
        }
        Err(UnlearnedWhy::TableSets {
            taught,
            wanted: sets,
        })
    }

    /// `v` without its static queue's blocks (D468, D840): under another version than 2.30.51
    /// only where the cut is confirmed — by the teacher's queue-less stream of the engine, else by
    /// the builder reproducing the block (decision D844).
    fn cut(&self, v: &LearnedVariant) -> Result<LearnedVariant, UnlearnedWhy> {
        let no_block = || UnlearnedWhy::NoBlockToCut {
            subgraph: v.subgraph.clone(),
            key: v.key,
        };
        let b = v.queue_block.as_ref().ok_or_else(no_block)?;
        if !self.rules_apply() && !b.cut_confirmed.unwrap_or(b.builder_confirmed) {
            return Err(UnlearnedWhy::UnconfirmedCut {
                subgraph: v.subgraph.clone(),
                slots: b.preamble.len(),
                contradicted: b.cut_confirmed == Some(false),
            });
        }
        v.without_static_queues().ok_or_else(no_block)
    }

    /// Where built queue blocks go, and whether the builder may make them (decision D840): the
    /// place of a teacher's block of a queue of the same kind (`data` or not) whose bytes the
    /// builder reproduces; else, for a capture of [`rules::RULES_RUNTIME`], that runtime's
    /// place (D468); else none. Queues of both kinds must have one place (decision D857: their
    /// blocks go one after the other).
    fn queue_place(
        &self,
        qs: &[super::queue_block::StaticQueue],
    ) -> Result<QueuePlace, UnlearnedWhy> {
        let place_of = |data: bool| {
            let taught = self.variants.iter().find_map(|v| {
                let b = v.queue_block.as_ref()?;
                (b.builder_confirmed && b.queue.data == data)
                    .then(|| v.queue_place())
                    .flatten()
            });
            taught.or_else(|| self.rules_apply().then_some(RULES_QUEUE_PLACE))
        };
        let mut place = None;
        for q in qs {
            let p = place_of(q.data).ok_or(UnlearnedWhy::NoBlockToCopy {
                queue: q.index,
                data: q.data,
            })?;
            if place.is_some_and(|x| x != p) {
                return Err(UnlearnedWhy::ManyQueues {
                    queues: u8::try_from(qs.len()).unwrap_or(u8::MAX),
                });
            }
            place = Some(p);
        }
        place.ok_or(UnlearnedWhy::ManyQueues { queues: 0 })
    }
}
