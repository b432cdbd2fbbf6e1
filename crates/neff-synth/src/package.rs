//! Assembling the NEFF: streams + manifests -> members -> neff-container's [`NeffBuilder`]
//! (reference §2 member layout, §1.2 header values).
//!
//! Memory: each engine stream is generated straight into its final buffer and the builder
//! borrows it, so a 1 GiB-stream NEFF peaks at the streams plus the builder's tar copy plus
//! the compressed payload (about 2.3x the stream bytes), never three full copies.

use std::borrow::Cow;
use std::path::Path;

use neff_container::{MemberOrder, NeffBuilder};
use neff_isa::{EngineType as Engine, SLOT_BYTES, SplitMix64};

use crate::debug_info;
use crate::error::SynthError;
use crate::manifest;
use crate::options::{SynthOptions, SynthTarget};
use crate::shape::Shape;
use crate::stream::{self, StreamStats, SubgraphSpec};

/// deflate level of the payload: 1, what the real files' gzip header says (XFL = 4 "fastest",
/// reference §1.2 notes; decision D111).
pub const COMPRESSION_LEVEL: u32 = 1;

/// The members of a synthetic NEFF and what its streams hold.
#[derive(Debug, Clone)]
pub struct Package {
    /// `(path, bytes)` in the order they are written.
    pub members: Vec<(String, Vec<u8>)>,
    /// Per subgraph, per engine (eng_type order) stream statistics.
    pub stats: Vec<[StreamStats; 5]>,
    /// The options it was made from.
    pub options: SynthOptions,
    /// The shape it was made with.
    pub shape: Shape,
}

/// A summary for callers that print what was generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Engine-stream slots in total.
    pub slots: u64,
    /// Engine-stream bytes in total (`slots * 64`).
    pub stream_bytes: u64,
    /// Bytes of the NEFF file.
    pub file_bytes: u64,
    /// DMA triggers (0xC1 / 0xD4) in total.
    pub dma: u64,
    /// Collective triggers in total.
    pub collectives: u64,
    /// Labels in total.
    pub labels: u64,
    /// Branches in total.
    pub branches: u64,
    /// Function calls in total.
    pub calls: u64,
}

impl Package {
    /// Generates every member of the NEFF `options` describes.
    pub fn new(options: &SynthOptions) -> Result<Self, SynthError> {
        Self::shaped(options, &Shape::default())
    }

    /// Generates every member of the NEFF `options` describes, shaped by `shape`.
    pub fn shaped(options: &SynthOptions, shape: &Shape) -> Result<Self, SynthError> {
        options.check()?;
        shape.check(options)?;
        let target = options.target;
        let mut members: Vec<(String, Vec<u8>)> = Vec::new();
        let mut all_stats = Vec::new();
        let json = |v: &serde_json::Value| serde_json::to_vec(v).unwrap_or_default();
        members.push(("info.json".into(), json(&manifest::info_json())));
        members.push((
            "kelf-0.json".into(),
            json(&manifest::kelf(options.subgraphs, target)),
        ));
        for sg in 0..options.subgraphs {
            let dir = manifest::subgraph_name(sg);
            let spec = SubgraphSpec {
                target,
                slots: shape.slots(options),
                functions: options.functions,
                seeds: Engine::ALL.map(|e| {
                    SplitMix64::derive(options.seed, &[u64::from(sg), e.index() as u64]).next_u64()
                }),
            };
            let streams = stream::generate(&spec);
            let stats = streams.each_ref().map(|s| s.stats);
            let mut sg_members = Vec::new();
            for (e, s) in Engine::ALL.into_iter().zip(streams) {
                sg_members.push((
                    format!("{dir}/{}.json", e.real_file_stem()),
                    json(&manifest::engine_json(e, target, &s.stats, shape)),
                ));
                if shape.debug_info {
                    let slots = s.bytes.len() as u64 / SLOT_BYTES as u64;
                    let asm = debug_info::asm(e, slots);
                    sg_members.push((format!("{dir}/{}", debug_info::asm_member(e)), asm));
                    let backend = debug_info::backend(e, slots);
                    sg_members.push((format!("{dir}/{}", debug_info::backend_member(e)), backend));
                }
                sg_members.push((format!("{dir}/{}.bin", e.real_file_stem()), s.bytes));
            }
            if shape.debug_info {
                let dma = debug_info::dma_backend();
                sg_members.push((format!("{dir}/{}", debug_info::DMA_BACKEND_MEMBER), dma));
            }
            sg_members.push((
                format!("{dir}/def.json"),
                json(&manifest::def_json(target, &stats, shape)),
            ));
            sg_members.push((
                format!("{dir}/act_info.json"),
                json(&manifest::act_info_json()),
            ));
            for (name, size) in manifest::dve_tables(target) {
                sg_members.push((format!("{dir}/{name}"), vec![0u8; *size]));
            }
            sg_members.sort_by(|a, b| a.0.cmp(&b.0));
            members.extend(sg_members);
            all_stats.push(stats);
        }
        members.push(("neff.json".into(), json(&manifest::neff_json())));
        if target == SynthTarget::Sunda {
            members.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Ok(Self {
            members,
            stats: all_stats,
            options: options.clone(),
            shape: shape.clone(),
        })
    }

    /// A builder borrowing the members, with the header of the imitated generation: trn1 NEFF
    /// version 1, trn2 version 2 (reference §1.2), a uuid drawn from the seed, level-1 deflate,
    /// members in the order given (sorted; trn2 puts `neff.json` last, reference §2).
    pub fn builder(&self) -> Result<NeffBuilder<'_>, SynthError> {
        let mut b = NeffBuilder::new();
        for (path, bytes) in &self.members {
            b.add(path, Cow::Borrowed(bytes.as_slice()))?;
        }
        let mut rng = SplitMix64::derive(self.options.seed, &[u64::MAX]);
        b.set_uuid(uuid::Builder::from_random_bytes(rng.bytes16()).into_uuid());
        b.set_order(MemberOrder::Insertion);
        b.set_compression_level(COMPRESSION_LEVEL);
        b.header_mut().neff_version_major = match self.options.target {
            SynthTarget::Sunda => 1,
            SynthTarget::Cayman => 2,
        };
        Ok(b)
    }

    /// Totals over all streams; `file_bytes` is filled by the caller that built the file.
    pub fn summary(&self) -> Summary {
        let slots =
            u64::from(self.options.subgraphs) * self.shape.slots(&self.options).iter().sum::<u64>();
        let mut s = Summary {
            slots,
            stream_bytes: slots * SLOT_BYTES as u64,
            file_bytes: 0,
            dma: 0,
            collectives: 0,
            labels: 0,
            branches: 0,
            calls: 0,
        };
        for st in self.stats.iter().flatten() {
            s.dma += st.dma;
            s.collectives += st.collectives;
            s.labels += st.labels;
            s.branches += st.branches;
            s.calls += st.calls;
        }
        s
    }
}

/// The bytes of the NEFF `options` describes. Equal options give equal bytes.
pub fn generate(options: &SynthOptions) -> Result<Vec<u8>, SynthError> {
    let package = Package::new(options)?;
    Ok(package.builder()?.build()?)
}

/// Writes the NEFF `options` describes to `path` atomically (temporary file + rename, via
/// neff-container) and returns what it holds.
pub fn write_to(options: &SynthOptions, path: &Path) -> Result<Summary, SynthError> {
    write_shaped(options, &Shape::default(), path)
}

/// [`write_to`] with the real-shaped parts of `shape`.
pub fn write_shaped(
    options: &SynthOptions,
    shape: &Shape,
    path: &Path,
) -> Result<Summary, SynthError> {
    let package = Package::shaped(options, shape)?;
    let mut summary = package.summary();
    let bytes = package.builder()?.build()?;
    drop(package);
    neff_container::write_atomic(path, &bytes)?;
    summary.file_bytes = bytes.len() as u64;
    Ok(summary)
}
