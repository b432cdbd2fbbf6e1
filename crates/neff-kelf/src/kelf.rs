//! The kelf: a NEFF's manifests and blobs in memory (spec 004 §1) — the descriptor, and per
//! subgraph its def.json, engine JSONs and instruction streams. The PARSE half of kelf2kbin
//! (`kelf::kelf::load` + `kelf_load_from_neff`); [`crate::gen_kbin`] is the EMIT half.

use neff_isa::EngineType;

use crate::def_json::DefJson;
use crate::descriptor::{KelfDescriptor, locate_descriptor};
use crate::engine_json::EngineJson;
use crate::error::{KelfError, Location, Result};
use crate::source::MemberSource;
use crate::target::Target;

/// One engine's program in a subgraph: its JSON and its raw instruction blob (borrowed from the
/// member source; spec 004 §2: the blob is copied verbatim, never decoded here).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineProgram<'a> {
    /// The engine (`eng_name2type` of the def.json key).
    pub eng_type: EngineType,
    /// The def.json key (`pe`, `act`, `pool`, `dve`, `sp`): the `instr_sets` map key.
    pub name: String,
    /// The engine JSON member, when def.json names one.
    pub json_member: Option<String>,
    /// The parsed engine JSON.
    pub json: Option<EngineJson>,
    /// The instruction-stream member (`sg00/PE.bin`).
    pub instr_member: String,
    /// Where the stream was named (engine JSON `instr` or def.json `<eng>_instr`).
    pub instr_named_at: Location,
    /// The stream's bytes.
    pub instr: &'a [u8],
}

/// One subgraph (`sgNN`) of the kelf, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph<'a> {
    /// The subgraph name from the descriptor (`sg00`).
    pub name: String,
    /// The def.json member (`sg00/def.json`).
    pub def_member: String,
    /// The folder relative member names resolve against (`sg00`; empty at the root).
    pub dir: String,
    /// The parsed def.json.
    pub def: DefJson,
    /// The engine programs in `instr_sets` order: alphabetical by def.json key (act, dve, pe,
    /// pool, sp), the order gen_kbin fills slots in (spec 004 §2 step 1).
    pub engines: Vec<EngineProgram<'a>>,
    /// Non-fatal findings of the parse (e.g. a stream whose file stem names another engine).
    pub warnings: Vec<String>,
}

impl Graph<'_> {
    /// The member path of `name` relative to this subgraph's folder.
    pub fn member_path(&self, name: &str) -> String {
        join(&self.dir, name)
    }

    /// The program of engine `e`, if the subgraph has one.
    pub fn engine(&self, e: EngineType) -> Option<&EngineProgram<'_>> {
        self.engines.iter().find(|p| p.eng_type == e)
    }
}

/// A parsed kelf: the descriptor and every subgraph.
#[derive(Debug, Clone, PartialEq)]
pub struct Kelf<'a> {
    /// The descriptor member (`kelf-a.json` or `kelf-0.json`).
    pub descriptor_member: String,
    /// The parsed descriptor.
    pub descriptor: KelfDescriptor,
    /// The target arch (checked: zero/unknown is "Invalid target").
    pub target: Target,
    graphs: Vec<Graph<'a>>,
}

/// `dir/name`, or `name` at the root.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Fetches a member named by a manifest, or the missing-member error pointing at the name.
fn fetch<'a>(src: &'a impl MemberSource, member: &str, named_at: &Location) -> Result<&'a [u8]> {
    src.member(member).ok_or_else(|| KelfError::MissingMember {
        member: member.to_owned(),
        named_at: named_at.clone(),
    })
}

impl<'a> Kelf<'a> {
    /// Parses the kelf of a NEFF's members: finds the descriptor (decision D32), then each
    /// subgraph's def.json, engine JSONs and streams. Every member a manifest names must exist.
    /// The error is the first of [`Kelf::from_members_all`]'s.
    pub fn from_members<S: MemberSource>(src: &'a S) -> Result<Self> {
        let (kelf, problems) = Self::from_members_all(src);
        match (kelf, problems.into_iter().next()) {
            (_, Some(first)) => Err(first),
            (Some(kelf), None) => Ok(kelf),
            // from_members_all gives no kelf only with a problem; never reached.
            (None, None) => Err(KelfError::NoDescriptor),
        }
    }

    /// [`Kelf::from_members`] that goes on past a broken subgraph or engine (issue 15 item 6):
    /// the kelf when nothing is wrong, and every problem found, in descriptor then engine order.
    /// A broken descriptor ends the parse (there is nothing to go on with); a subgraph whose
    /// def.json is broken is skipped, and each engine of the others is read.
    pub fn from_members_all<S: MemberSource>(src: &'a S) -> (Option<Self>, Vec<KelfError>) {
        let mut problems = Vec::new();
        let descriptor = locate_descriptor(src).and_then(|member| {
            let bytes = fetch(src, &member, &Location::new(&member, ""))?;
            let descriptor = KelfDescriptor::parse(&member, bytes)?;
            let target = descriptor.target(&member)?;
            Ok((member, descriptor, target))
        });
        let (descriptor_member, descriptor, target) = match descriptor {
            Ok(d) => d,
            Err(e) => return (None, vec![e]),
        };
        let mut graphs: Vec<Graph<'a>> = Vec::with_capacity(descriptor.graphs.len().min(1024));
        for (i, g) in descriptor.graphs.iter().enumerate() {
            let at = Location::new(&descriptor_member, format!("/graphs/{i}/name"));
            if descriptor.graphs[..i].iter().any(|p| p.name == g.name) {
                problems.push(KelfError::DuplicateGraph {
                    at,
                    name: g.name.clone(),
                });
                continue;
            }
            let def_at = Location::new(&descriptor_member, format!("/graphs/{i}/definition"));
            match parse_graph(src, &g.name, &g.definition, &def_at) {
                Ok(graph) => graphs.push(graph),
                Err(mut found) => problems.append(&mut found),
            }
        }
        let kelf = problems.is_empty().then(|| Self {
            descriptor_member,
            descriptor,
            target,
            graphs,
        });
        (kelf, problems)
    }

    /// Parses the kelf of a decoded NEFF (see [`Kelf::from_members`]).
    pub fn from_neff(neff: &'a neff_container::Neff<'_>) -> Result<Self> {
        Self::from_members(neff)
    }

    /// The subgraphs in descriptor order (spec 004 §1: one kbin each).
    pub fn graphs(&self) -> &[Graph<'a>] {
        &self.graphs
    }

    /// The subgraph called `name` (spec 004 §1 `get_kbin`: `graphs.count(name) == 1`).
    pub fn graph(&self, name: &str) -> Result<&Graph<'a>> {
        self.graphs
            .iter()
            .find(|g| g.name == name)
            .ok_or_else(|| KelfError::UnknownGraph(name.into()))
    }
}

/// Parses one subgraph (spec 004 §1 `construct_kbin` -> `kelf_load_from_neff`): def.json, then
/// each engine's JSON and stream, then the members the JSONs name.
/// Every engine is read even when one fails: the error lists each problem (issue 15 item 6).
fn parse_graph<'a>(
    src: &'a impl MemberSource,
    name: &str,
    def_member: &str,
    named_at: &Location,
) -> std::result::Result<Graph<'a>, Vec<KelfError>> {
    let bytes = fetch(src, def_member, named_at).map_err(|e| vec![e])?;
    let def = DefJson::parse(def_member, bytes).map_err(|e| vec![e])?;
    // construct_kbin splits the def.json path on the last '/' into {sg_dir, basename}.
    let dir = def_member
        .rsplit_once('/')
        .map(|(d, _)| d.to_owned())
        .unwrap_or_default();
    let mut engines = Vec::new();
    let mut warnings = Vec::new();
    let mut problems = Vec::new();
    for e in EngineType::ALL {
        match parse_engine(src, &def, def_member, &dir, e, &mut warnings) {
            Ok(Some(p)) => engines.push(p),
            Ok(None) => {}
            Err(err) => problems.push(err),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    engines.sort_by(|a, b| a.name.cmp(&b.name));
    let graph = Graph {
        name: name.to_owned(),
        def_member: def_member.to_owned(),
        dir,
        def,
        engines,
        warnings,
    };
    check_named_members(src, &graph).map_err(|e| vec![e])?;
    Ok(graph)
}

/// Parses engine `e`'s JSON (def.json `<e>`) and fetches its stream: the JSON's `instr` (spec 000
/// §2 stage 1, `parse_instr`), else def.json `<e>_instr`. None when def.json names neither.
fn parse_engine<'a>(
    src: &'a impl MemberSource,
    def: &DefJson,
    def_member: &str,
    dir: &str,
    e: EngineType,
    warnings: &mut Vec<String>,
) -> Result<Option<EngineProgram<'a>>> {
    let refs = def.engine(e);
    let def_at = Location::new(def_member, "");
    let (json_member, json) = match &refs.json {
        Some(j) => {
            let m = join(dir, j);
            let bytes = fetch(src, &m, &def_at.key(e.key()))?;
            let parsed = EngineJson::parse(&m, bytes)?;
            (Some(m), Some(parsed))
        }
        None => (None, None),
    };
    let from_json = json
        .as_ref()
        .and_then(|j| j.instr.clone())
        .zip(json_member.as_ref())
        .map(|(i, m)| (i, Location::new(m, "/instr")));
    let from_def = refs
        .instr
        .clone()
        .map(|i| (i, def_at.key(&format!("{}_instr", e.key()))));
    let Some((instr_name, instr_named_at)) = from_json.or(from_def) else {
        return match json_member {
            Some(m) => Err(KelfError::MissingKey {
                at: Location::new(m, ""),
                key: "instr",
            }),
            None => Ok(None),
        };
    };
    let instr_member = join(dir, &instr_name);
    let instr = fetch(src, &instr_member, &instr_named_at)?;
    if u32::try_from(instr.len()).is_err() {
        return Err(KelfError::BlobTooLarge {
            member: instr_member,
            size: instr.len(),
        });
    }
    let stem = instr_name.rsplit('/').next().unwrap_or(&instr_name);
    let stem = stem.split('.').next().unwrap_or(stem);
    if let Some(other) = EngineType::from_name(stem).filter(|o| *o != e) {
        warnings.push(format!(
            "{instr_member}: file stem names engine {other} but def.json key is {e}"
        ));
    }
    Ok(Some(EngineProgram {
        eng_type: e,
        name: e.key().to_owned(),
        json_member,
        json,
        instr_member,
        instr_named_at,
        instr,
    }))
}

/// Checks that the members the engine JSONs and vars name exist: DVE tables, the activation
/// table index, and `file` vars' data (the runtime loads each with `load_bin_file`).
fn check_named_members(src: &impl MemberSource, g: &Graph<'_>) -> Result<()> {
    for p in &g.engines {
        let (Some(j), Some(m)) = (&p.json, &p.json_member) else {
            continue;
        };
        if let Some(info) = &j.act_info {
            fetch(src, &g.member_path(info), &Location::new(m, "/act_info"))?;
        }
        for (i, t) in j.dve_tables.iter().flatten().enumerate() {
            for (key, name) in t.tables() {
                let at = Location::new(m, format!("/dve_tables/{i}/{key}"));
                fetch(src, &g.member_path(name), &at)?;
            }
        }
    }
    for (name, v) in g.def.var.iter().flatten() {
        if let Some(f) = &v.file_name {
            let at = Location::new(&g.def_member, "")
                .key("var")
                .key(name)
                .key("file_name");
            fetch(src, &g.member_path(f), &at)?;
        }
    }
    Ok(())
}
