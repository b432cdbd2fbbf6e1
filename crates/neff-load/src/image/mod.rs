//! `ib_create_one_block` (spec 000 §6-§7): one engine's device image, assembled by buffer
//! concatenation in the fixed physical order
//! `[PREAMBLE (MODEL_SWITCH inside)][MAIN][POSTAMBLE][FUNCTION*]`, with the engine's patch list
//! (whole-region INSERTs for PREAMBLE and POSTAMBLE, the blocks' rows for MAIN and FUNCTION) and
//! the eib ranges.

pub mod call;
pub mod eib;
pub mod fixup;
pub mod function;
pub mod postamble;
pub mod preamble;
pub mod runtime;
pub mod special;

use neff_isa::{EngineType, SLOT_BYTES, SLOT_SHIFT};

use crate::error::LoadError;
use crate::lower::ImageBuf;
use crate::patch::{EnginePatches, PatchSection, PatchType};
use crate::physical_core::PhysicalCore;
use crate::program::Program;
use crate::runtime_model::{LearnedRuntime, RuntimeContent, RuntimeRegions};

pub use eib::{CodeRange, Eib};
pub use function::LowerBlockFn;

/// Headroom of the output buffer over the source (spec 000 §6.1: `src_size + 65984`).
pub const IMAGE_HEADROOM: usize = 0x10100;
/// The image reserve's allowance for lowering growth: `src_size / 8` more bytes (one record in
/// eight becoming two) before the buffer has to grow.
pub const EXPANSION_SLACK: usize = 8;
/// Rows reserved for the MAIN and FUNCTION block lists (spec 000 §6.1: 0x400).
pub const BLOCK_PATCH_RESERVE: usize = 0x400;
/// Rows the driver reserves in the model list (spec 000 §2 stage 4: `kbin_patch_allocate(.., 8)`).
pub const MODEL_PATCH_RESERVE: usize = 8;

/// Everything assembly needs besides the blocks: the device-side constants the PREAMBLE and
/// POSTAMBLE sequences use (decision D74; docs/device-model.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssemblyContext {
    /// Base of the engine control registers the PREAMBLE writes.
    pub csr_base: u64,
    /// Whether the NEFF carries ucode (Q7) libraries: POOL then loads them in its PREAMBLE.
    pub has_ucode_libs: bool,
    /// Device address of the ucode library image (POOL IMEM load source).
    pub ucode_lib_addr: u64,
    /// Its length in bytes.
    pub ucode_lib_len: u32,
    /// The IO-queue set the model switches to.
    pub ioq_set: u32,
    /// The argument table the model swaps in.
    pub args_table: u32,
    /// The semaphore the engines meet at in a sync barrier.
    pub barrier_semaphore: u8,
    /// How many engines take part in a barrier.
    pub barrier_participants: u32,
    /// The semaphore the inference-wait gate waits on.
    pub start_semaphore: u8,
    /// The model's semaphores the POSTAMBLE resets (`pcb_sems`).
    pub pcb_semaphores: Vec<u8>,
    /// One (re-arm register, descriptor count) per ring the engine owns (`add_dma_bundle_rearm`).
    pub rearm_rings: Vec<(u64, u32)>,
    /// Whether the architecture has the indirect-DMA bound check (POOL POSTAMBLE).
    pub dma_indirect_bound_check: bool,
    /// The bound-check violation counter register.
    pub bound_check_addr: u64,
    /// Cache block size a `requires_cache_align` block is padded to.
    pub cache_align: usize,
    /// `None`: the spec's PREAMBLE / POSTAMBLE (the steps above). `Some`: the runtime model's
    /// regions for a subgraph with this content (decision D170), and the fields above unused.
    pub runtime: Option<RuntimeContent>,
    /// Under the runtime model, the regions learned from a capture (decision D463): an engine
    /// whose content they cover gets the runtime's own PREAMBLE and POSTAMBLE bytes.
    pub learned: Option<std::sync::Arc<LearnedRuntime>>,
    /// Under the runtime model, the physical core the regions are moved to from the frame core's
    /// windows they are learned and built in (decision D816); `None`: not moved.
    pub core: Option<PhysicalCore>,
}

impl Default for AssemblyContext {
    fn default() -> Self {
        Self {
            csr_base: 0x0010_4000_0000,
            has_ucode_libs: false,
            ucode_lib_addr: 0,
            ucode_lib_len: 0,
            ioq_set: 0,
            args_table: 0,
            barrier_semaphore: 31,
            barrier_participants: EngineType::COUNT as u32,
            start_semaphore: 30,
            pcb_semaphores: Vec::new(),
            rearm_rings: Vec::new(),
            dma_indirect_bound_check: true,
            bound_check_addr: 0x0010_4000_f000,
            cache_align: 128,
            runtime: None,
            learned: None,
            core: None,
        }
    }
}

/// Where one block landed (`itf_block_t` +160 / +176).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacedBlock {
    /// Owning function.
    pub function_id: u32,
    /// Block index within the function.
    pub block_id: u32,
    /// Source byte window `[begin, end)`.
    pub source: (usize, usize),
    /// `block_preamble_offset`: the cache-align padding before the block.
    pub block_preamble_offset: CodeRange,
    /// `block_offset`: the block's translated records in the image.
    pub block_offset: CodeRange,
}

/// One engine's assembled image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineImage {
    /// The engine.
    pub engine: EngineType,
    /// The image bytes (`final_instr_buf`, `inst_len` bytes).
    pub bytes: Vec<u8>,
    /// PREAMBLE, MODEL_SWITCH and core (MAIN) ranges.
    pub eib: Eib,
    /// The POSTAMBLE range (`offset_0` to the FUNCTION section).
    pub postamble: CodeRange,
    /// `ib_functions[eng]`: the FUNCTION range.
    pub functions: CodeRange,
    /// `program_start_offset`: where the reset branch returns.
    pub program_start: usize,
    /// The engine's rows: PREAMBLE INSERT, MAIN rows, POSTAMBLE INSERT, FUNCTION rows.
    pub patches: EnginePatches,
    /// Every block's place.
    pub blocks: Vec<PlacedBlock>,
    /// Source slots of the engine stream.
    pub source_slots: usize,
    /// Under the runtime model, every slot of its PREAMBLE and POSTAMBLE (traced or opaque).
    pub runtime: Option<RuntimeRegions>,
}

impl EngineImage {
    /// The lowered slots: MAIN's and the functions' records (what lowering wrote; the PREAMBLE
    /// and POSTAMBLE are glue, not lowered source).
    pub fn lowered_slots(&self) -> u64 {
        (self.eib.core.size + self.functions.size) >> SLOT_SHIFT
    }
}

/// `ib_create_one_block`: assembles `program` into one image (spec 000 §6.2 (A)-(D), §6.3,
/// §6.4), each block lowered by `lower` straight into the image buffer in image order (MAIN's
/// blocks after the PREAMBLE, the functions' after the POSTAMBLE), so each record is written once
/// (decision D76).
///
/// The buffer is reserved once (spec 000 §6.1: `src_size + 0x10100`, plus [`EXPANSION_SLACK`]
/// for pseudos that become several records); reserved but untouched capacity costs no memory.
pub fn create_one_block<'s>(
    program: &Program,
    lower: &mut LowerBlockFn<'_, 's>,
    ctx: &AssemblyContext,
) -> Result<EngineImage, LoadError> {
    create_one_block_in(program, lower, ctx, Vec::new())
}

/// [`create_one_block`] building the image in `buf` (cleared first, its capacity reused, every
/// run copied): the whole image as one owned buffer. A load that keeps no image bytes uses
/// [`assemble`] with a borrowing buffer instead (decision D830).
pub fn create_one_block_in<'s>(
    program: &Program,
    lower: &mut LowerBlockFn<'_, 's>,
    ctx: &AssemblyContext,
    mut buf: Vec<u8>,
) -> Result<EngineImage, LoadError> {
    let src_size = program.functions.last().map_or(0, |f| f.end);
    buf.clear();
    buf.reserve(src_size + src_size / EXPANSION_SLACK + IMAGE_HEADROOM);
    let (mut image, buf) = assemble(program, lower, ctx, ImageBuf::from_vec(buf))?;
    image.bytes = buf.into_vec();
    Ok(image)
}

/// [`create_one_block`] into `buf`, returning the image without its bytes
/// ([`EngineImage::bytes`] empty) and the buffer that holds them: a borrowing buffer
/// ([`ImageBuf::borrowing`]) keeps MAIN's runs of real opcodes as views of the engine stream, so
/// a load that only reports on the image never copies them (decision D830). The FUNCTION section
/// is always copied: the function marker pass rewrites every one of its records.
pub fn assemble<'s>(
    program: &Program,
    lower: &mut LowerBlockFn<'_, 's>,
    ctx: &AssemblyContext,
    mut buf: ImageBuf<'s>,
) -> Result<(EngineImage, ImageBuf<'s>), LoadError> {
    let engine = program.engine;
    let src_size = program.functions.last().map_or(0, |f| f.end);
    let mut patches = EnginePatches::with_array_count(MODEL_PATCH_RESERVE);
    let mut asm = function::Assembly::default();

    // (A) PREAMBLE: one whole-region INSERT at offset 0 (:1169).
    let learned = match (ctx.runtime, ctx.learned.as_deref()) {
        (Some(c), Some(l)) => l
            .variant(engine, &c)
            .map_err(|source| LoadError::Unlearned {
                subgraph: String::new(),
                source,
            })?,
        _ => None,
    };
    let learned = learned.as_deref();
    let regions = match learned {
        Some(v) => Some(RuntimeRegions::learned(v)),
        None => ctx.runtime.map(|c| RuntimeRegions::new(engine, &c)),
    };
    let (pre_bytes, model_switch, program_start) = match (&regions, learned) {
        (_, Some(v)) => runtime::learned_preamble(v),
        (None, None) => {
            let p = preamble::build_preamble(engine, ctx);
            let ms = CodeRange::span(p.model_switch_offset, p.program_start_offset);
            (p.bytes, ms, p.program_start_offset)
        }
        (Some(r), None) => runtime::build_preamble(r),
    };
    let mut pre_bytes = pre_bytes;
    if let Some(core) = ctx.core {
        PhysicalCore::FRAME.move_words(core, &mut pre_bytes);
    }
    buf.extend_from_slice(&pre_bytes);
    patches.append(
        0,
        buf.len() as u64,
        PatchType::Insert,
        PatchSection::Preamble,
    );
    let preamble_end = buf.len();

    // (B) MAIN = function 0, section base 0; its rows spliced with kbin_patch_extend (:1185).
    let mut main_rows = EnginePatches::with_array_count(BLOCK_PATCH_RESERVE);
    if let Some(f0) = program.functions.first() {
        asm.add_function(engine, &mut buf, f0, lower, &mut main_rows, 0, ctx)?;
    }
    patches.extend(&main_rows);

    // (C) POSTAMBLE + reset branch: one whole-region INSERT (:1188-1202).
    let offset_0 = buf.len();
    match (&regions, learned) {
        (_, Some(v)) => buf.extend_from_slice(&v.postamble_at(offset_0 / SLOT_BYTES)),
        (None, None) => postamble::append_postamble(engine, &mut buf, program_start, ctx)?,
        (Some(r), None) => runtime::append_postamble(r, buf.tail()),
    }
    if let Some(core) = ctx.core {
        // D816: the POSTAMBLE, just appended to the owned tail, moved to the subgraph's core.
        let n = buf.len() - offset_0;
        let tail = buf.tail();
        let at = tail.len().saturating_sub(n);
        PhysicalCore::FRAME.move_words(core, &mut tail[at..]);
    }
    patches.append(
        offset_0 as u32,
        (buf.len() - offset_0) as u64,
        PatchType::Insert,
        PatchSection::Postamble,
    );

    // (D) FUNCTION*: rows rebased to function_section_offset (:1205-1215).
    let function_section_offset = buf.len();
    buf.set_borrowing(false);
    let mut fn_rows = EnginePatches::with_array_count(BLOCK_PATCH_RESERVE);
    for f in program.functions.iter().skip(1) {
        asm.add_function(
            engine,
            &mut buf,
            f,
            lower,
            &mut fn_rows,
            function_section_offset,
            ctx,
        )?;
    }
    // §6.3 post-process (0xD3 / 0xD2 / 0xDF); label branches were resolved per function.
    fixup::post_process(engine, program, &mut buf, &asm, offset_0)?;
    let functions = CodeRange::span(function_section_offset, buf.len()); // :1340
    patches.extend(&fn_rows); // :1329

    let eib = Eib {
        preamble: CodeRange::span(0, preamble_end),
        model_switch,
        core: CodeRange::span(preamble_end, offset_0),
    };
    let image = EngineImage {
        engine,
        bytes: Vec::new(),
        eib,
        postamble: CodeRange::span(offset_0, function_section_offset),
        functions,
        program_start,
        patches,
        blocks: asm.placed,
        source_slots: src_size / SLOT_BYTES,
        runtime: regions,
    };
    Ok((image, buf))
}
