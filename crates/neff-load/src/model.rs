//! The loaded model (spec 000 §3.2, §10): per subgraph, per engine, the staged image, its eib
//! ranges, `ib_addrs`, `ib_functions`, and the model-level `kbin_patch_info`; plus the indexed IP
//! map for each engine and lowering's side artifacts (collective op lists, DMA descriptors).
//!
//! The pipeline per engine is the spec's, with one block type throughout: identify functions,
//! assemble ([`crate::image::assemble`], which lowers each block straight into the image with
//! [`crate::lower::translate_block_into`]; a report-only load keeps MAIN's verbatim runs as views
//! of the stream, decision D830), check that no pseudo survived (neff-isa's validator), stage at
//! the [`DeviceModel`]'s alignment, index the IP map.

use neff_isa::{ByteOffset, EngineType, SLOT_BYTES};

use crate::device::{DeviceMemory, IbAddrs, InstBlock, stage};
use crate::device_model::{DeviceModel, RegionModel};
use crate::error::LoadError;
use crate::image::{
    AssemblyContext, CodeRange, EXPANSION_SLACK, EngineImage, IMAGE_HEADROOM, assemble,
};
use crate::ipmap::{DeviceAddr, EngineLayout, IpMap};
use crate::lower::{
    CollectiveOpList, GeneratedDescriptor, ImageBuf, LowerContext, LowerOptions, LowerResources,
    check_lowered_buf,
};
use crate::patch::EnginePatches;
use crate::program::{Block, Function, identify_functions};
use crate::runtime_model::RuntimeContent;
use crate::setup::{kbin_engine_order, setup_block, setup_order};
use rayon::prelude::*;

/// Options of a load.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadOptions {
    /// The one device model: HBM window, `seq_instr_block_size`, and every address lowering
    /// writes (docs/device-model.md).
    pub device: DeviceModel,
    /// Global-config options of lowering (`dbg_cc_nop`).
    pub lower: LowerOptions,
    /// PREAMBLE / POSTAMBLE constants.
    pub assembly: AssemblyContext,
    /// Pad blocks entered at a label to a cache block (decision D70).
    pub cache_align_labels: bool,
    /// Keep no image's bytes (a report-only load, e.g. `neff load` without `--out`):
    /// [`EngineImage::bytes`] is then empty and the image length is [`InstBlock::inst_len`]. Each
    /// image is assembled with MAIN's verbatim runs as views of its engine stream, never copied,
    /// and checked part by part (decision D830): peak memory is the package, not the package
    /// plus the largest image.
    pub drop_image_bytes: bool,
}

/// One engine of one loaded subgraph.
#[derive(Debug, Clone)]
pub struct LoadedEngine {
    /// The engine.
    pub engine: EngineType,
    /// The assembled image (bytes, eib, FUNCTION range, rows, block places).
    pub image: EngineImage,
    /// The staged `inst_block` header.
    pub block: InstBlock,
    /// `ib_addrs[eng]`.
    pub ib_addrs: IbAddrs,
    /// The indexed device IP <-> NEFF IP map.
    pub ipmap: IpMap,
    /// The collectives' ENC op lists (spec 001 §3), in stream order.
    pub op_lists: Vec<CollectiveOpList>,
    /// The DMA descriptors DIRECT2D slots generated, in stream order.
    pub descriptors: Vec<GeneratedDescriptor>,
    /// Bytes after the last whole 64-byte slot of the source stream (`size & 63`): kept in the
    /// kbin but not counted as an instruction (spec 004 §2, `ninstr = size >> 6`), so not lowered
    /// or staged; non-zero means the caller should warn (decision D77).
    pub trailing_bytes: usize,
    /// What the NEFF held for this engine: a stream, an empty one or none (spec 003 §10.5:
    /// missing and empty engines load an empty program, with a load WARN).
    pub source: EngineSource,
}

/// What a NEFF holds for one engine (spec 003 §10.5: "Missing engines ship a 0-byte .bin ->
/// empty-placeholder instr_set + a load WARN"; spec 000 §9: the sample's act/dve/sp.bin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineSource {
    /// A stream of at least one slot (or a partial one).
    Stream,
    /// A 0-byte stream.
    Empty,
    /// No stream at all: the kbin's engine slot is filled with an empty program (spec 004 §2).
    Missing,
}

impl EngineSource {
    /// The load WARN for an empty or missing program (spec 003 §10.5), `None` for a stream.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Self::Stream => None,
            Self::Empty => Some(
                "the instruction stream is empty (0 bytes): the engine loads an empty program, \
                 only its PREAMBLE and POSTAMBLE (spec 003 §10.5)",
            ),
            Self::Missing => Some(
                "the NEFF has no instruction stream for this engine: it loads an empty program, \
                 only its PREAMBLE and POSTAMBLE (spec 003 §10.5)",
            ),
        }
    }
}

impl LoadedEngine {
    /// `ib_functions[eng]`.
    pub fn ib_functions(&self) -> CodeRange {
        self.image.functions
    }

    /// The layout the IP maps read.
    pub fn layout(&self) -> EngineLayout {
        EngineLayout {
            base: DeviceAddr(self.ib_addrs.base),
            core: self.ib_addrs.core_offset,
            functions: self.image.functions,
        }
    }
}

/// One loaded subgraph: its engines in set-up order (SP last); `kbin_patch_info` is
/// [`LoadedSubgraph::patch_info`].
#[derive(Debug, Clone)]
pub struct LoadedSubgraph {
    /// The subgraph name (`sg00`, ...).
    pub name: String,
    /// Engines in set-up order.
    pub engines: Vec<LoadedEngine>,
    /// The kbin facts lowering read (DMA queues with their rings and blocks, vars, replica
    /// groups): what a consumer of the loaded program (the simulator) needs to know which
    /// transfer a tail-pointer WRITE starts and which semaphore it raises.
    pub resources: LowerResources,
    /// What the runtime model's regions depend on: what the simulator's fit reads to say what
    /// each traced PREAMBLE slot of a capture does (D741).
    pub content: RuntimeContent,
}

impl LoadedSubgraph {
    /// The engines in `EngineType` order (PE, ACT, POOL, DVE, SP): the order every report
    /// shows them in (decision D340); [`engines`](Self::engines) keeps the set-up order.
    pub fn engines_by_type(&self) -> impl Iterator<Item = &LoadedEngine> {
        EngineType::ALL.into_iter().filter_map(|e| self.engine(e))
    }

    /// The engine `e`, if the subgraph has it.
    pub fn engine(&self, e: EngineType) -> Option<&LoadedEngine> {
        self.engines.iter().find(|x| x.engine == e)
    }

    /// `model_t.kbin_patch_info.eng_patch[e]` (spec 000 §3): engine `e`'s rows. The runtime keeps
    /// a copy per model; here they are stored once, in the engine's image
    /// ([`EngineImage::patches`]).
    pub fn patch_info(&self, e: EngineType) -> Option<&EnginePatches> {
        self.engine(e).map(|x| &x.image.patches)
    }
}

/// A whole loaded NEFF.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    /// Every subgraph, in the NEFF's order.
    pub subgraphs: Vec<LoadedSubgraph>,
    /// The device memory after staging.
    pub memory: DeviceMemory,
    /// The device model the images were built for: the addresses their records write (DMA
    /// tail pointers, the collective doorbell, semaphore registers).
    pub device: DeviceModel,
}

/// One subgraph's input: its name, each engine's source stream in kbin order, and the kbin facts
/// lowering reads.
#[derive(Debug, Clone, Copy)]
pub struct SubgraphInput<'a> {
    /// The subgraph name.
    pub name: &'a str,
    /// (engine, its `.bin` bytes), in kbin order.
    pub engines: &'a [(EngineType, &'a [u8])],
    /// The subgraph's queues, vars, replica groups (from [`LowerResources::from_kbin`]).
    pub resources: &'a LowerResources,
    /// What the runtime model's regions depend on ([`RuntimeContent::from_kbin`]).
    pub content: RuntimeContent,
}

/// Loads every subgraph (spec 000 §2 `sequencer_setup_instr` per subgraph): identify, lower,
/// assemble, check, stage, resolve, index.
pub fn load_streams(
    subgraphs: &[SubgraphInput<'_>],
    options: &LoadOptions,
) -> Result<LoadedModel, LoadError> {
    load_streams_with_progress(subgraphs, options, &|_| {})
}

/// [`load_streams`], calling `progress(source_bytes)` as each engine's image is built (from any
/// thread; the sum over a load is the total source stream length).
///
/// Engines and subgraphs are independent until staging (spec 000 §2: each engine's image is
/// built from its own stream), so identify / lower / assemble / check run in parallel (rayon);
/// staging (one bump allocator, set-up order) and IP indexing then run in the spec's order, so
/// addresses, images and the first error reported are those of the sequential load.
pub fn load_streams_with_progress(
    subgraphs: &[SubgraphInput<'_>],
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<LoadedModel, LoadError> {
    let streams: Vec<&[(EngineType, &[u8])]> = subgraphs.iter().map(|sg| sg.engines).collect();
    load_inner(subgraphs, &streams, options, progress, false).map(|(model, _)| model)
}

/// [`load_kbins_with_progress`] for a caller that reads each image once, right after the load
/// (the simulator decodes them, D834): every image is assembled as [`LoadOptions::drop_image_bytes`]
/// assembles it, MAIN's verbatim runs views of the engine stream (D830), and handed back beside
/// the model instead of dropped — per subgraph, in the order of its
/// [`LoadedSubgraph::engines`]. The model's [`EngineImage::bytes`] are empty, as in a report-only
/// load; the views borrow the package (`'s`), so the images never cost a second copy of it and
/// are freed with it.
pub fn load_kbins_viewing<'s>(
    kbins: &[neff_kelf::Kbin<'s>],
    options: &LoadOptions,
) -> Result<(LoadedModel, Vec<Vec<ImageBuf<'s>>>), LoadError> {
    let (streams, resources) = kbin_parts(kbins);
    let inputs = subgraph_inputs(kbins, &streams, &resources);
    let streams: Vec<&[(EngineType, &'s [u8])]> = streams.iter().map(Vec::as_slice).collect();
    load_inner(&inputs, &streams, options, &|_| {}, true)
}

/// Each kbin's engine streams, and what lowering reads of it.
type KbinParts<'s> = (Vec<Vec<(EngineType, &'s [u8])>>, Vec<LowerResources>);

/// The engine streams and lowering resources of each of `kbins`.
fn kbin_parts<'s>(kbins: &[neff_kelf::Kbin<'s>]) -> KbinParts<'s> {
    let streams = kbins
        .iter()
        .map(|k| k.engines.iter().map(|s| (s.eng_type, s.instr)).collect())
        .collect();
    let resources = kbins.iter().map(LowerResources::from_kbin).collect();
    (streams, resources)
}

/// One [`SubgraphInput`] per kbin, from its [`kbin_parts`].
fn subgraph_inputs<'a, 's>(
    kbins: &'a [neff_kelf::Kbin<'s>],
    streams: &'a [Vec<(EngineType, &'s [u8])>],
    resources: &'a [LowerResources],
) -> Vec<SubgraphInput<'a>> {
    kbins
        .iter()
        .zip(streams)
        .zip(resources)
        .map(|((k, e), r)| SubgraphInput {
            name: &k.name,
            engines: e,
            resources: r,
            content: RuntimeContent::from_kbin(k),
        })
        .collect()
}

/// The load of [`load_streams_with_progress`], the engine streams `streams[i]` of subgraph `i`
/// given apart so that their lifetime `'s` can outlive `subgraphs`; with `views`, each image's
/// borrowing buffer is returned beside the model (see [`load_kbins_viewing`]).
fn load_inner<'s>(
    subgraphs: &[SubgraphInput<'_>],
    streams: &[&[(EngineType, &'s [u8])]],
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
    views: bool,
) -> Result<(LoadedModel, Vec<Vec<ImageBuf<'s>>>), LoadError> {
    options.device.validate()?;
    let mut memory = DeviceMemory::for_model(&options.device);
    let mut contexts = Vec::with_capacity(subgraphs.len());
    let mut contents = Vec::with_capacity(subgraphs.len());
    let mut jobs: Vec<(usize, EngineType, &'s [u8])> = Vec::new();
    for (si, (sg, engines)) in subgraphs.iter().zip(streams).enumerate() {
        let mut ctx = LowerContext::new(sg.resources, &options.device, sg.name);
        ctx.options = options.lower;
        // D816: the records of a subgraph on another core than the frame's are moved there.
        ctx.core = options.device.core_of(si);
        // The first subgraph (vTPB 0, the CC-top core) owns the collectives (decision D286).
        ctx.ccop_owner = si == 0;
        contexts.push(ctx);
        contents.push(sg.content);
        // The kbin always has five engine slots (spec 004 §2); an engine the input lacks is an
        // empty program, still assembled (spec 003 §10.5, spec 000 §9: act/dve/sp.bin are 0 bytes).
        let present: Vec<EngineType> = engines.iter().map(|(e, _)| *e).collect();
        for engine in setup_order(&kbin_engine_order(&present))? {
            let stream = engines
                .iter()
                .find(|(e, _)| *e == engine)
                .map_or(&[][..], |x| x.1);
            jobs.push((si, engine, stream));
        }
    }
    // Largest streams first keeps both cores busy to the end; results go back in job order.
    let mut by_size: Vec<usize> = (0..jobs.len()).collect();
    by_size.sort_by_key(|&j| std::cmp::Reverse(jobs[j].2.len()));
    let mut built: Vec<(usize, Result<BuiltEngine<'s>, LoadError>)> = by_size
        .into_par_iter()
        .map(|j| {
            let (si, engine, stream) = jobs[j];
            let r = build_engine(engine, stream, &contexts[si], contents[si], options, views)
                .map_err(|e| e.in_subgraph(subgraphs[si].name));
            progress(stream.len() as u64);
            (j, r)
        })
        .collect();
    built.sort_by_key(|(j, _)| *j);
    // Issue 15 item 6: every engine that failed to build is reported, not only the first.
    if built.iter().filter(|(_, r)| r.is_err()).count() > 1 {
        let errors = built.into_iter().filter_map(|(_, r)| r.err()).collect();
        return Err(LoadError::Engines(errors));
    }
    let mut out: Vec<LoadedSubgraph> = subgraphs
        .iter()
        .map(|sg| LoadedSubgraph {
            name: sg.name.to_string(),
            engines: Vec::new(),
            resources: sg.resources.clone(),
            content: sg.content,
        })
        .collect();
    let mut images: Vec<Vec<ImageBuf<'s>>> = subgraphs.iter().map(|_| Vec::new()).collect();
    for ((si, engine, _), (_, b)) in jobs.iter().zip(built) {
        let mut b = b?;
        if let Some(view) = b.view.take() {
            images[*si].push(view);
        }
        let mut loaded = finish_engine(*engine, b, options, &mut memory)?;
        if !streams[*si].iter().any(|(e, _)| e == engine) {
            loaded.source = EngineSource::Missing;
        }
        out[*si].engines.push(loaded);
    }
    let model = LoadedModel {
        subgraphs: out,
        memory,
        device: options.device.clone(),
    };
    Ok((model, images))
}

/// One engine built but not staged: its image (bytes possibly dropped), length, side tables, and
/// for [`load_kbins_viewing`] the image as views of its stream.
struct BuiltEngine<'s> {
    image: EngineImage,
    view: Option<ImageBuf<'s>>,
    len: u64,
    trailing_bytes: usize,
    op_lists: Vec<CollectiveOpList>,
    descriptors: Vec<GeneratedDescriptor>,
}

/// One engine: stages 2-5 of spec 000 §2 plus the post-assembly check and the IP index. Under
/// the runtime model the subgraph is taken to have no table sets and no DGE table
/// ([`RuntimeContent::default`]); [`load_streams`] reads them from its input.
pub fn load_engine(
    engine: EngineType,
    stream: &[u8],
    ctx: &LowerContext<'_>,
    options: &LoadOptions,
    memory: &mut DeviceMemory,
) -> Result<LoadedEngine, LoadError> {
    let content = RuntimeContent::default();
    let built = build_engine(engine, stream, ctx, content, options, false)?;
    finish_engine(engine, built, options, memory)
}

/// Identify, lower, assemble and check one engine (independent of every other engine), for the
/// physical core `ctx` names (decision D816); with `view`, the image is kept as the borrowing
/// buffer it was assembled in ([`load_kbins_viewing`]).
fn build_engine<'s>(
    engine: EngineType,
    stream: &'s [u8],
    ctx: &LowerContext<'_>,
    content: RuntimeContent,
    options: &LoadOptions,
    view: bool,
) -> Result<BuiltEngine<'s>, LoadError> {
    // spec 004 §2: the engine has `size >> 6` instructions; a partial trailing slot is not one
    // (decision D77: a warning, carried out in `LoadedEngine::trailing_bytes`).
    let trailing_bytes = stream.len() % SLOT_BYTES;
    let stream = &stream[..stream.len() - trailing_bytes];
    let program = identify_functions(engine, stream, options.cache_align_labels)?;
    let mut assembly = engine_assembly(engine, ctx, &options.assembly)?;
    if options.device.regions == RegionModel::Runtime {
        assembly.runtime = Some(content);
        assembly.learned.clone_from(&options.device.learned);
        assembly.core = ctx.core;
    }
    let (mut op_lists, mut descriptors) = (Vec::new(), Vec::new());
    // Each block is lowered into the image and its side tables dropped once placed; only the
    // op lists and descriptors outlive assembly (one flat list each per engine).
    let mut lower = |f: &Function, b: &Block, buf: &mut ImageBuf<'s>| {
        let mut lb = setup_block(engine, stream, ctx, f, b, buf)?;
        op_lists.append(&mut lb.op_lists);
        descriptors.append(&mut lb.descriptors);
        Ok(lb)
    };
    // A report-only load keeps MAIN's verbatim runs as views of the stream: the image is never
    // whole, so its largest engine costs no second copy of its stream (D830); so does a load
    // that hands its images over as views (D834).
    let borrow = options.drop_image_bytes || view;
    let buf = if borrow {
        ImageBuf::borrowing()
    } else {
        let src_size = program.functions.last().map_or(0, |f| f.end);
        ImageBuf::from_vec(Vec::with_capacity(
            src_size + src_size / EXPANSION_SLACK + IMAGE_HEADROOM,
        ))
    };
    let (mut image, buf) = assemble(&program, &mut lower, &assembly, buf)?;
    // spec 001 §1 NOTE: after assembly no pseudo may survive, placeholders included.
    check_lowered_buf(&buf, false).map_err(|(i, kind)| LoadError::Unlowered {
        engine,
        offset: ByteOffset((i * SLOT_BYTES) as u64),
        reason: kind.to_string(),
    })?;
    let len = buf.len() as u64;
    let view = if view {
        Some(buf)
    } else {
        if !options.drop_image_bytes {
            image.bytes = buf.into_vec();
        }
        None
    };
    Ok(BuiltEngine {
        image,
        view,
        len,
        trailing_bytes,
        op_lists,
        descriptors,
    })
}

/// Stage one built engine at the next aligned address (set-up order) and index its IP map.
fn finish_engine(
    engine: EngineType,
    built: BuiltEngine<'_>,
    options: &LoadOptions,
    memory: &mut DeviceMemory,
) -> Result<LoadedEngine, LoadError> {
    let BuiltEngine {
        image,
        view: _,
        len,
        trailing_bytes,
        op_lists,
        descriptors,
    } = built;
    let source = if image.source_slots == 0 && trailing_bytes == 0 {
        EngineSource::Empty
    } else {
        EngineSource::Stream
    };
    let (block, ib_addrs) = stage(memory, &image, len, &options.device)?;
    let layout = EngineLayout {
        base: DeviceAddr(ib_addrs.base),
        core: ib_addrs.core_offset,
        functions: image.functions,
    };
    let ipmap = IpMap::from_locations(image.patches.locations(), &layout)
        .map_err(|source| LoadError::Ip { engine, source })?;
    Ok(LoadedEngine {
        engine,
        image,
        block,
        ib_addrs,
        ipmap,
        op_lists,
        descriptors,
        trailing_bytes,
        source,
    })
}

/// The assembly constants of one engine: `base` with, when it lists no rings itself, the
/// POSTAMBLE's re-arm list (spec 000 §8.1 :44-82, "each ring in qset") taken from the queues the
/// engine owns — every ring of each, at the device model's re-arm register, re-armed with the
/// descriptors its blocks put on it (decision D74).
fn engine_assembly(
    engine: EngineType,
    ctx: &LowerContext<'_>,
    base: &AssemblyContext,
) -> Result<AssemblyContext, LoadError> {
    let mut out = base.clone();
    if !out.rearm_rings.is_empty() {
        return Ok(out);
    }
    for (qi, q) in ctx.resources.queues.iter().enumerate() {
        if q.owner != Some(engine) {
            continue;
        }
        for ring in 0..q.rings.max(1) {
            let ndesc: u32 = q
                .blocks
                .iter()
                .filter(|b| b.ring == ring)
                .map(|b| b.ndesc)
                .sum();
            out.rearm_rings
                .push((ctx.device.ring_rearm_addr(qi, ring)?, ndesc));
        }
    }
    Ok(out)
}

/// Loads every subgraph of a parsed NEFF (spec 004 §1 `kelf_load` -> one kbin per subgraph, then
/// spec 000 §2 per kbin), lowering with each kbin's resources ([`LowerResources::from_kbin`]).
pub fn load(kelf: &neff_kelf::Kelf<'_>, options: &LoadOptions) -> Result<LoadedModel, LoadError> {
    load_with_progress(kelf, options, &|_| {})
}

/// [`load`], reporting built source bytes to `progress` (see [`load_streams_with_progress`]).
pub fn load_with_progress(
    kelf: &neff_kelf::Kelf<'_>,
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<LoadedModel, LoadError> {
    let kbins = kelf.kbins().map_err(|e| LoadError::Input(e.to_string()))?;
    load_kbins_with_progress(&kbins, options, progress)
}

/// [`load_with_progress`] from kbins the caller already built: `neff load` builds them first,
/// to size its progress bar and report every subgraph's kelf problem, and lowering a kelf to
/// kbins twice was a third of its time on a real-shaped NEFF (issue 34).
pub fn load_kbins_with_progress(
    kbins: &[neff_kelf::Kbin<'_>],
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<LoadedModel, LoadError> {
    let (streams, resources) = kbin_parts(kbins);
    let inputs = subgraph_inputs(kbins, &streams, &resources);
    load_streams_with_progress(&inputs, options, progress)
}
