//! The loaded model (spec 000 §3.2, §10): per subgraph, per engine, the staged image, its eib
//! ranges, `ib_addrs`, `ib_functions`, and the model-level `kbin_patch_info`; plus the indexed IP
//! map for each engine.

use neff_isa::EngineType;

use crate::device::{DeviceMemory, IbAddrs, InstBlock, stage};
use crate::error::LoadError;
use crate::image::{AssemblyContext, CodeRange, EngineImage, create_one_block};
use crate::ipmap::{EngineLayout, IpMap};
use crate::patch::PatchInfo;
use crate::program::identify_functions;
use crate::setup::{BlockTranslator, setup_functions_one_eng, setup_order};

/// Options of a load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// Base of the HBM window images are staged in.
    pub hbm_base: u64,
    /// Its size in bytes.
    pub hbm_size: u64,
    /// `seq_instr_block_size[5]` per engine type (spec 000 §8).
    pub seq_instr_block_size: [u64; EngineType::COUNT],
    /// PREAMBLE / POSTAMBLE constants.
    pub assembly: AssemblyContext,
    /// Pad blocks entered at a label to a cache block (decision D70).
    pub cache_align_labels: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            hbm_base: 0x40_0000_0000,
            hbm_size: 16 << 30,
            seq_instr_block_size: [0x8000; EngineType::COUNT],
            assembly: AssemblyContext::default(),
            cache_align_labels: false,
        }
    }
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
}

impl LoadedEngine {
    /// `ib_functions[eng]`.
    pub fn ib_functions(&self) -> CodeRange {
        self.image.functions
    }

    /// The layout the IP maps read.
    pub fn layout(&self) -> EngineLayout {
        EngineLayout {
            base: self.ib_addrs.base,
            core: (
                self.ib_addrs.core_offset.offset,
                self.ib_addrs.core_offset.size,
            ),
            functions: (self.image.functions.offset, self.image.functions.size),
        }
    }
}

/// One loaded subgraph: its engines in set-up order (SP last) and `kbin_patch_info`.
#[derive(Debug, Clone)]
pub struct LoadedSubgraph {
    /// The subgraph name (`sg00`, ...).
    pub name: String,
    /// Engines in set-up order.
    pub engines: Vec<LoadedEngine>,
    /// `model_t.kbin_patch_info` (`eng_patch[5]`).
    pub patch_info: PatchInfo,
}

impl LoadedSubgraph {
    /// The engine `e`, if the subgraph has it.
    pub fn engine(&self, e: EngineType) -> Option<&LoadedEngine> {
        self.engines.iter().find(|x| x.engine == e)
    }
}

/// A whole loaded NEFF.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    /// Every subgraph, in the NEFF's order.
    pub subgraphs: Vec<LoadedSubgraph>,
    /// The device memory after staging.
    pub memory: DeviceMemory,
}

/// One subgraph's input: its name and each engine's source stream, in kbin order.
#[derive(Debug, Clone, Copy)]
pub struct SubgraphInput<'a> {
    /// The subgraph name.
    pub name: &'a str,
    /// (engine, its `.bin` bytes), in kbin order.
    pub engines: &'a [(EngineType, &'a [u8])],
}

/// Makes the block translator of one subgraph (lowering needs the subgraph's resources).
pub type TranslatorFactory<'t> =
    dyn Fn(&str) -> Result<Box<dyn BlockTranslator + 't>, LoadError> + 't;

/// Loads every subgraph (spec 000 §2 `sequencer_setup_instr` per subgraph): identify, lower with
/// `translator(subgraph)`, assemble, stage, resolve, index.
pub fn load_streams<'t>(
    subgraphs: &[SubgraphInput<'_>],
    translator: &TranslatorFactory<'t>,
    options: &LoadOptions,
) -> Result<LoadedModel, LoadError> {
    let mut memory = DeviceMemory::new(options.hbm_base, options.hbm_size);
    let mut out = Vec::with_capacity(subgraphs.len());
    for sg in subgraphs {
        let tr = translator(sg.name)?;
        // The kbin always has five engine slots (spec 004 §2); an engine the input lacks is an
        // empty program, still assembled (spec 000 §9: act/dve/sp.bin are 0 bytes).
        let mut kbin_order: Vec<EngineType> = sg.engines.iter().map(|(e, _)| *e).collect();
        for e in EngineType::ALL {
            if !kbin_order.contains(&e) {
                kbin_order.push(e);
            }
        }
        let mut engines = Vec::with_capacity(kbin_order.len());
        let mut patch_info = PatchInfo::default();
        for engine in setup_order(&kbin_order)? {
            let stream = sg
                .engines
                .iter()
                .find(|(e, _)| *e == engine)
                .map_or(&[][..], |x| x.1);
            let loaded = load_engine(engine, stream, tr.as_ref(), options, &mut memory)?;
            *patch_info.engine_mut(engine) = loaded.image.patches.clone();
            engines.push(loaded);
        }
        out.push(LoadedSubgraph {
            name: sg.name.to_string(),
            engines,
            patch_info,
        });
    }
    Ok(LoadedModel {
        subgraphs: out,
        memory,
    })
}

/// One engine: stages 2-5 of spec 000 §2 plus the IP index.
pub fn load_engine(
    engine: EngineType,
    stream: &[u8],
    translator: &dyn BlockTranslator,
    options: &LoadOptions,
    memory: &mut DeviceMemory,
) -> Result<LoadedEngine, LoadError> {
    let program = identify_functions(engine, stream, options.cache_align_labels)?;
    let translated = setup_functions_one_eng(&program, stream, translator)?;
    let image = create_one_block(&program, &translated, &options.assembly)?;
    let block_size = options.seq_instr_block_size[engine.index()];
    let (block, ib_addrs) = stage(memory, &image, block_size)?;
    let layout = EngineLayout {
        base: ib_addrs.base,
        core: (ib_addrs.core_offset.offset, ib_addrs.core_offset.size),
        functions: (image.functions.offset, image.functions.size),
    };
    let ipmap = IpMap::from_locations(image.patches.locations(), &layout)
        .map_err(|source| LoadError::Ip { engine, source })?;
    Ok(LoadedEngine {
        engine,
        image,
        block,
        ib_addrs,
        ipmap,
    })
}

/// Loads every subgraph of a parsed NEFF (spec 004 §1 `kelf_load` -> one kbin per subgraph, then
/// spec 000 §2 per kbin), lowering each block with `translator(kbin)`.
pub fn load_kelf_with<'t>(
    kelf: &neff_kelf::Kelf<'_>,
    options: &LoadOptions,
    translator: &TranslatorFactory<'t>,
) -> Result<LoadedModel, LoadError> {
    let kbins = kelf.kbins().map_err(|e| LoadError::Input(e.to_string()))?;
    let streams: Vec<Vec<(EngineType, &[u8])>> = kbins
        .iter()
        .map(|k| k.engines.iter().map(|s| (s.eng_type, s.instr)).collect())
        .collect();
    let inputs: Vec<SubgraphInput<'_>> = kbins
        .iter()
        .zip(&streams)
        .map(|(k, e)| SubgraphInput {
            name: &k.name,
            engines: e,
        })
        .collect();
    load_streams(&inputs, translator, options)
}

/// [`load_kelf_with`] with the [`crate::setup::PassThrough`] translator (labels consumed, every
/// other slot 1->1).
pub fn load(kelf: &neff_kelf::Kelf<'_>, options: &LoadOptions) -> Result<LoadedModel, LoadError> {
    let pass = |_: &str| -> Result<Box<dyn BlockTranslator>, LoadError> {
        Ok(Box::new(crate::setup::PassThrough))
    };
    load_kelf_with(kelf, options, &pass)
}
