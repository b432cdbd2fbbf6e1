//! A NEFF's debug info, loaded: per subgraph the asm and BIR (backend) layers named by def.json,
//! the module layers under `debug_info/`, and the KLR source maps (D233). Loading never fails:
//! every problem is a [`DebugWarning`] and the part concerned is left out.

use neff_isa::{EngineType, SLOT_BYTES};
use neff_kelf::{DefJson, KelfDescriptor, MemberSource, locate_descriptor};

use crate::asm_layer::AsmLayer;
use crate::klr::{KernelDebugInfo, KlrMap};
use crate::layer::Layer;
use crate::warning::DebugWarning;

/// The member that lists the KLR source maps of NKI kernels (D232).
pub const KERNEL_DEBUG_INFO: &str = "kernel_debug_info.json";

/// The folder of the module-level layers (Penguin, HLO, framework, stack frames).
pub const MODULE_DIR: &str = "debug_info";

/// The debug info of one subgraph (`sgNN`).
#[derive(Clone, Debug)]
pub struct GraphDebug {
    /// The subgraph name (`sg00`).
    pub name: String,
    /// The asm layer of each engine, indexed by [`EngineType::index`]: one record per slot, read
    /// as its slot -> BIR id map (D782).
    pub asm: [Option<AsmLayer>; EngineType::COUNT],
    /// The BIR layers: one per engine (def.json `<eng>_dbg`) and the DMA blocks (`dma_dbg`), in
    /// that order.
    pub backend: Vec<BirLayer>,
}

/// A BIR (backend) layer and what it holds.
#[derive(Clone, Debug)]
pub struct BirLayer {
    /// The engine whose instructions it holds (the def.json `<eng>_dbg` key naming it); `None`
    /// for the DMA blocks (`dma_dbg`).
    pub engine: Option<EngineType>,
    /// The layer.
    pub layer: Layer,
}

impl GraphDebug {
    /// The BIR record with id `id` and the layer holding it (ids are unique across a subgraph's
    /// BIR layers: asm records and dependencies name them without saying the engine).
    pub fn bir(&self, id: u64) -> Option<(&Layer, &crate::wire::RecordFields)> {
        self.backend
            .iter()
            .find_map(|b| b.layer.get(id).map(|r| (&b.layer, r)))
    }

    /// The asm layer of engine `e`.
    pub fn asm(&self, e: EngineType) -> Option<&AsmLayer> {
        self.asm[e.index()].as_ref()
    }
}

/// One KLR kernel: its entry in `kernel_debug_info.json` and its flattened map.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The member holding the tree.
    pub member: String,
    /// `kernel_name`.
    pub name: Option<String>,
    /// `parent_tensorizer_id`: the Penguin record its BIR instructions point up to.
    pub parent_tensorizer_id: Option<u64>,
    /// Instruction name -> source site.
    pub map: KlrMap,
}

/// Everything the debug-info members of a NEFF say.
#[derive(Clone, Debug, Default)]
pub struct DebugInfo {
    /// The subgraphs, in descriptor order.
    pub graphs: Vec<GraphDebug>,
    /// The module layers under `debug_info/` (Penguin, HLO, framework, stack frames).
    pub module: Vec<Layer>,
    /// The KLR kernels.
    pub kernels: Vec<Kernel>,
    /// What could not be read.
    pub warnings: Vec<DebugWarning>,
}

impl DebugInfo {
    /// Reads every debug-info member of a NEFF's members. Absent or bad members are warnings.
    pub fn load(src: &impl MemberSource) -> DebugInfo {
        let mut info = DebugInfo::default();
        info.load_graphs(src);
        info.load_module(src);
        info.load_kernels(src);
        info
    }

    /// The subgraph called `name`.
    pub fn graph(&self, name: &str) -> Option<&GraphDebug> {
        self.graphs.iter().find(|g| g.name == name)
    }

    /// Whether no debug-info member was read.
    pub fn is_empty(&self) -> bool {
        let no_layer = |g: &GraphDebug| g.backend.is_empty() && g.asm.iter().all(Option::is_none);
        self.graphs.iter().all(no_layer) && self.module.is_empty() && self.kernels.is_empty()
    }

    fn warn(&mut self, member: &str, message: impl Into<String>) {
        self.warnings.push(DebugWarning::new(member, message));
    }

    /// The subgraphs of the kelf descriptor, each from the members its def.json names.
    fn load_graphs(&mut self, src: &impl MemberSource) {
        let desc = locate_descriptor(src).and_then(|m| {
            let bytes = src.member(&m).unwrap_or_default();
            KelfDescriptor::parse(&m, bytes)
        });
        let desc = match desc {
            Ok(d) => d,
            Err(e) => return self.warn("kelf", format!("no subgraph debug info read ({e})")),
        };
        for g in &desc.graphs {
            let Some(bytes) = src.member(&g.definition) else {
                self.warn(&g.definition, "missing; its debug info is not read");
                continue;
            };
            match DefJson::parse(&g.definition, bytes) {
                Ok(def) => {
                    let graph = self.load_graph(src, &g.name, &g.definition, &def);
                    self.graphs.push(graph);
                }
                Err(e) => self.warn(&g.definition, format!("debug info not read ({e})")),
            }
        }
    }

    fn load_graph(
        &mut self,
        src: &impl MemberSource,
        name: &str,
        def_member: &str,
        def: &DefJson,
    ) -> GraphDebug {
        let dir = def_member.rsplit_once('/').map_or("", |(d, _)| d);
        let mut graph = GraphDebug {
            name: name.to_owned(),
            asm: Default::default(),
            backend: Vec::new(),
        };
        for e in EngineType::ALL {
            let refs = def.engine(e);
            let asm = refs.asm_dbg.as_deref().unwrap_or_default();
            if asm.len() > 1 {
                self.warn(
                    def_member,
                    format!(
                        "{}_asm_dbg names {} members; the first is read",
                        e.key(),
                        asm.len()
                    ),
                );
            }
            if let Some(m) = asm.first() {
                let layer = self.decoded(src, &join(dir, m), AsmLayer::decode);
                if let (Some(l), Some(instr)) = (&layer, &refs.instr) {
                    self.check_slot_count(src, l, &join(dir, instr));
                }
                graph.asm[e.index()] = layer;
            }
            for m in refs.dbg.as_deref().unwrap_or_default() {
                let layer = self.bir_layer(src, &join(dir, m));
                graph.backend.extend(layer.map(|layer| BirLayer {
                    engine: Some(e),
                    layer,
                }));
            }
        }
        for m in def.dma_dbg.as_deref().unwrap_or_default() {
            let layer = self.bir_layer(src, &join(dir, m));
            graph.backend.extend(layer.map(|layer| BirLayer {
                engine: None,
                layer,
            }));
        }
        graph
    }

    /// The asm layer has one record per 64-byte slot of the stream (D230); a difference is said.
    fn check_slot_count(&mut self, src: &impl MemberSource, asm: &AsmLayer, stream: &str) {
        let Some(bytes) = src.member(stream) else {
            return;
        };
        let (records, slots) = (asm.len(), bytes.len() / SLOT_BYTES);
        if records != slots {
            let msg = format!("{records} asm records for the {slots} slots of {stream}");
            self.warn(&asm.member, msg);
        }
    }

    /// Decodes member `member` with `decode`, or warns (missing, or not decodable).
    fn decoded<T>(
        &mut self,
        src: &impl MemberSource,
        member: &str,
        decode: impl FnOnce(&str, &[u8]) -> Result<T, DebugWarning>,
    ) -> Option<T> {
        let Some(bytes) = src.member(member) else {
            self.warn(member, "named by def.json but missing");
            return None;
        };
        decode(member, bytes)
            .map_err(|w| self.warnings.push(w))
            .ok()
    }

    /// Decodes member `member` as a whole layer, or warns.
    fn layer(&mut self, src: &impl MemberSource, member: &str) -> Option<Layer> {
        self.decoded(src, member, Layer::decode)
    }

    /// A BIR layer: as [`Self::layer`], and its ids must be unique (asm records name them).
    fn bir_layer(&mut self, src: &impl MemberSource, member: &str) -> Option<Layer> {
        let l = self.layer(src, member)?;
        if l.duplicate_ids() > 0 {
            let n = l.duplicate_ids();
            self.warn(
                member,
                format!("{n} BIR records repeat an id; the last is used"),
            );
        }
        Some(l)
    }

    /// Every `debug_info/*` member: the Penguin, HLO, framework and stack-frame layers.
    fn load_module(&mut self, src: &impl MemberSource) {
        let paths: Vec<String> = src
            .paths()
            .into_iter()
            .filter(|p| {
                p.strip_prefix(MODULE_DIR)
                    .is_some_and(|r| r.starts_with('/'))
            })
            .map(str::to_owned)
            .collect();
        for p in paths {
            if let Some(l) = self.layer(src, &p) {
                self.module.push(l);
            }
        }
    }

    /// `kernel_debug_info.json` and the KLR files it names.
    fn load_kernels(&mut self, src: &impl MemberSource) {
        let Some(bytes) = src.member(KERNEL_DEBUG_INFO) else {
            return;
        };
        let list: KernelDebugInfo = match serde_json::from_slice(bytes) {
            Ok(l) => l,
            Err(e) => return self.warn(KERNEL_DEBUG_INFO, format!("not read ({e})")),
        };
        for f in list.debug_info_files {
            let Some(bytes) = src.member(&f.file_name) else {
                self.warn(
                    &f.file_name,
                    format!("named by {KERNEL_DEBUG_INFO} but missing"),
                );
                continue;
            };
            match KlrMap::parse(bytes) {
                Ok(map) => self.kernels.push(Kernel {
                    member: f.file_name,
                    name: f.kernel_name,
                    parent_tensorizer_id: f.parent_tensorizer_id,
                    map,
                }),
                Err(e) => self.warn(&f.file_name, format!("not a KLR debug-info tree ({e})")),
            }
        }
    }

    /// The module layer that a layer naming `parent_file` (`debug_info_penguin.dbg`) points into,
    /// for subgraph `graph` (`sg00`): the one `debug_info/<parent_file>[_sgNNNNNN]` member, or when
    /// there are several, the one whose number is the subgraph's (D233).
    pub fn module_layer(&self, parent_file: &str, graph: &str) -> Option<&Layer> {
        let mut found = self.module.iter().filter(|l| {
            let name = l.member.rsplit('/').next().unwrap_or("");
            name.strip_prefix(parent_file)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("_sg"))
        });
        let first = found.next()?;
        let Some(second) = found.next() else {
            return Some(first);
        };
        let n: u64 = graph.strip_prefix("sg")?.parse().ok()?;
        let want = format!("{parent_file}_sg{n:06}");
        [first, second]
            .into_iter()
            .chain(found)
            .find(|l| l.member.ends_with(&want))
    }
}

/// `dir/name`, or `name` at the root (def.json names resolve against its folder).
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use neff_isa::EngineType;

    use super::DebugInfo;

    /// A subgraph whose def.json names an asm member, a BIR member and a 2-slot PE stream.
    fn members(asm: &[u8], bir: Option<&[u8]>) -> BTreeMap<String, Vec<u8>> {
        let mut m = BTreeMap::new();
        let kelf =
            r#"{"target": "cayman", "graphs": [{"name": "sg00", "definition": "sg00/def.json"}]}"#;
        m.insert("kelf-a.json".into(), kelf.into());
        let def = r#"{"pe_instr": "PE.bin", "pe_asm_dbg": ["a.dbg"], "pe_dbg": ["b.dbg"]}"#;
        m.insert("sg00/def.json".into(), def.into());
        m.insert("sg00/PE.bin".into(), vec![0; 128]);
        m.insert("sg00/a.dbg".into(), asm.to_vec());
        if let Some(b) = bir {
            m.insert("sg00/b.dbg".into(), b.to_vec());
        }
        m
    }

    /// An asm file with one record naming BIR id 5; a BIR file with record {1: 5, 2: "I-1-0"}.
    const ASM_ONE: &[u8] = &[0x1a, 0x03, 0x1a, 0x01, 0x05];
    const BIR: &[u8] = &[
        0x1a, 0x09, 0x08, 0x05, 0x12, 0x05, b'I', b'-', b'1', b'-', b'0',
    ];

    #[test]
    fn fewer_asm_records_than_slots_is_said_and_the_rest_still_maps() {
        let info = DebugInfo::load(&members(ASM_ONE, Some(BIR)));
        let w: Vec<String> = info.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            w,
            ["sg00/a.dbg: 1 asm records for the 2 slots of sg00/PE.bin"]
        );
        let s = info.slot("sg00", EngineType::Pe, 0);
        assert_eq!(s.bir.map(|b| (b.id, b.name)), Some((5, "I-1-0")));
        assert!(info.slot("sg00", EngineType::Pe, 1).bir.is_none());
    }

    #[test]
    fn a_missing_or_malformed_member_is_a_warning() {
        let info = DebugInfo::load(&members(&[0x1a, 0x7f], None));
        let w: Vec<String> = info.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("sg00/a.dbg: not a debug-info protobuf"),
            "{w:?}"
        );
        assert_eq!(w[1], "sg00/b.dbg: named by def.json but missing");
        assert!(info.slot("sg00", EngineType::Pe, 0).bir.is_none());
        assert!(info.is_empty());
    }
}
