//! gen_kbin (spec 004 §2): lowers one parsed subgraph into its [`Kbin`], in the runtime's fixed
//! order — engine -> dma -> mem_ref -> act -> dve -> replica/src-target/ucode/sb/fp8/cc -> target.

use std::collections::BTreeMap;

use crate::engine_slot::EngineSlot;
use crate::error::{KelfError, Result};
use crate::kbin::{ActFunctionSets, Kbin};
use crate::kbin_dma::{Descriptors, build_dma_with};
use crate::kelf::{Graph, Kelf};
use crate::mem_ref::build_mem_refs;
use crate::remote_var::resolve_remote_variables;
use neff_isa::EngineType;

/// Lowers subgraph `graph` of `kelf` (spec 004 §1 `kelf::kelf::get_kbin` + §2 gen_kbin).
pub fn gen_kbin<'a>(kelf: &Kelf<'a>, graph: &str) -> Result<Kbin<'a>> {
    lower(kelf, kelf.graph(graph)?, Descriptors::Keep)
}

/// What [`Kelf::kbins_all`] finds, from [`Kelf::check_kbins`].
#[derive(Debug, Clone, PartialEq)]
pub struct KbinCheck {
    /// Per subgraph in descriptor order, whether [`gen_kbin`] lowers it.
    pub lowers: Vec<bool>,
    /// Every problem [`Kelf::kbins_all`] reports, in its order.
    pub problems: Vec<KelfError>,
}

impl<'a> Kelf<'a> {
    /// Every subgraph's kbin, in descriptor order, then the remote-variable rebind across them
    /// (spec 004 §1 `kelf_load` -> `kelf_nn`, then `kelf_resolve_vtpb_remote_variables`).
    /// Each kbin carries its subgraph name (`kelf_nn.sg_names`).
    pub fn kbins(&self) -> Result<Vec<Kbin<'a>>> {
        let (kbins, problems) = self.kbins_all();
        match problems.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(kbins),
        }
    }

    /// [`Kelf::kbins`] that lowers every subgraph even when one fails (issue 15 item 6): the
    /// kbins when nothing is wrong (else empty), and every problem, in descriptor order. The
    /// remote-variable rebind needs every kbin, so it runs only when all lowered.
    pub fn kbins_all(&self) -> (Vec<Kbin<'a>>, Vec<KelfError>) {
        let mut kbins = Vec::with_capacity(self.graphs().len());
        let mut problems = Vec::new();
        for g in self.graphs() {
            match lower(self, g, Descriptors::Keep) {
                Ok(k) => kbins.push(k),
                Err(e) => problems.push(e),
            }
        }
        if problems.is_empty()
            && let Err(e) = resolve_remote_variables(&mut kbins)
        {
            problems.push(e);
        }
        if !problems.is_empty() {
            kbins.clear();
        }
        (kbins, problems)
    }

    /// [`Kelf::kbins_all`]'s verdict without building the DMA descriptors (issue 34: `neff
    /// info` prints none of them): every check of the lowering runs (each descriptor's vars are
    /// looked up), but no descriptor is kept.
    pub fn check_kbins(&self) -> KbinCheck {
        let mut kbins = Vec::with_capacity(self.graphs().len());
        let mut lowers = Vec::with_capacity(self.graphs().len());
        let mut problems = Vec::new();
        for g in self.graphs() {
            let lowered = lower(self, g, Descriptors::Check);
            lowers.push(lowered.is_ok());
            match lowered {
                Ok(k) => kbins.push(k),
                Err(e) => problems.push(e),
            }
        }
        if problems.is_empty()
            && let Err(e) = resolve_remote_variables(&mut kbins)
        {
            problems.push(e);
        }
        KbinCheck { lowers, problems }
    }

    /// [`Kelf::kbins`], keeping only `subgraph`'s when given, which must exist (the selection of
    /// `neff kbin --subgraph` and the Python package's `subgraph=`).
    pub fn kbins_of(&self, subgraph: Option<&str>) -> Result<Vec<Kbin<'a>>> {
        let mut kbins = self.kbins()?;
        if let Some(name) = subgraph {
            kbins.retain(|k| k.name == name);
            if kbins.is_empty() {
                return Err(KelfError::NoSuchSubgraph {
                    name: name.to_owned(),
                    known: self.graphs().iter().map(|g| g.name.clone()).collect(),
                });
            }
        }
        Ok(kbins)
    }
}

/// The straight-line fill of spec 004 §2.
fn lower<'a>(kelf: &Kelf<'a>, g: &Graph<'a>, descs: Descriptors) -> Result<Kbin<'a>> {
    let mut warnings = g.warnings.clone();
    // (1) engine fill in instr_sets (alphabetical) order; the slot keeps the true eng_type.
    let engines = g
        .engines
        .iter()
        .enumerate()
        .map(|(slot, p)| {
            let (s, w) = EngineSlot::fill(slot, p.eng_type, &p.name, &p.instr_member, p.instr);
            warnings.extend(w);
            s
        })
        .collect();
    // (2) DMA fill, descriptor vars resolved by name in def.json `var`; then (3) the mem_ref_set:
    // the spec's order, so an input wrong in both reports the DMA error first (decision D287).
    let none = BTreeMap::new();
    let vars = g.def.var.as_ref().unwrap_or(&none);
    let dma_queues = build_dma_with(g, vars, descs)?;
    let mem_refs = build_mem_refs(&g.def_member, vars)?;
    // (4) inline members.
    let act = g.engine(EngineType::Act).and_then(|p| p.json.as_ref());
    let act_function_sets = act.and_then(|j| {
        let sets = j.activation_function_sets.clone().unwrap_or_default();
        (!sets.is_empty()).then_some(ActFunctionSets {
            sets,
            semaphore: j.act_semaphore,
        })
    });
    let dve = g.engine(EngineType::Dve).and_then(|p| p.json.as_ref());
    let def = &g.def;
    Ok(Kbin {
        name: g.name.clone(),
        engines,
        dma_queues,
        mem_refs,
        act_function_sets,
        dve_tables: dve.and_then(|j| j.dve_tables.clone()).unwrap_or_default(),
        replica_groups: def.replica_groups.clone().unwrap_or_default(),
        src_target_pairs: def.src_target_pairs.clone().unwrap_or_default(),
        ucode_libs: def
            .ucode_libs
            .iter()
            .flatten()
            .map(|l| g.member_path(l))
            .collect(),
        sb_carveouts: def
            .runtime_statebuffer_reservation
            .clone()
            .unwrap_or_default(),
        fp8_conversion_config: def.fp8_conversion_config.clone(),
        // construct_kbin seeds CCSTMI.num_streams = 1; the parse overrides it when present.
        cc_num_streams: def
            .cc_streams
            .as_ref()
            .and_then(|c| c.num_streams)
            .unwrap_or(1),
        warnings,
        // (5) target last; zero/unknown was already refused when the descriptor was read.
        target: kelf.target,
    })
}
