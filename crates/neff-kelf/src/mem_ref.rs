//! The kbin mem_ref_set (spec 004 §2 step 3): one memory reference per def.json var, indexed by
//! var_id, with `nmem == vars`.

use crate::error::{KelfError, Result};
use crate::var::{Var, VarType};
use std::collections::BTreeMap;

/// Where a remote variable was rebound (spec 004 §3 note, decision D38).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteBinding {
    /// The index of the subgraph (vTPB) holding the real var.
    pub subgraph: usize,
    /// That subgraph's name.
    pub subgraph_name: String,
    /// The var's id there.
    pub var_id: u32,
    /// The var's name there.
    pub name: String,
}

/// One memory reference (`kbin_mem_ref_t`).
#[derive(Debug, Clone, PartialEq)]
pub struct MemRef {
    /// The var_id: also this entry's index in the set.
    pub var_id: u32,
    /// The var name.
    pub name: String,
    /// The var type.
    pub ty: VarType,
    /// The size in bytes (0 when the var declares none, e.g. `SB`).
    pub size: u64,
    /// The full var entry.
    pub var: Var,
    /// For a remote variable, its binding after `resolve_remote_variables`.
    pub remote: Option<RemoteBinding>,
}

/// Builds the set from def.json `var`: `mem[var_id]` for an array of `nvars` entries, so ids must
/// be exactly 0..nvars (spec 004 §2: `calloc(152 * nvars)`, `mem[vid]`, assert `nmem == nvars`;
/// decision D35). A duplicate id names both vars; a gap names the missing id.
pub fn build_mem_refs(member: &str, vars: &BTreeMap<String, Var>) -> Result<Vec<MemRef>> {
    let n = vars.len();
    let mut by_id: BTreeMap<u64, &str> = BTreeMap::new();
    for (name, v) in vars {
        if let Some(first) = by_id.insert(u64::from(v.var_id), name) {
            return Err(KelfError::DuplicateVarId {
                member: member.to_owned(),
                var_id: u64::from(v.var_id),
                first: first.to_owned(),
                second: name.clone(),
            });
        }
    }
    if let Some((&var_id, name)) = by_id.iter().find(|(id, _)| **id >= n as u64) {
        let missing = (0..n as u64)
            .find(|id| !by_id.contains_key(id))
            .unwrap_or(0);
        return Err(KelfError::MissingVarId {
            member: member.to_owned(),
            missing,
            count: n,
            name: (*name).to_owned(),
            var_id,
        });
    }
    let mut set: Vec<MemRef> = vars
        .iter()
        .map(|(name, v)| MemRef {
            var_id: v.var_id,
            name: name.clone(),
            ty: v.ty,
            size: v.size.unwrap_or(0),
            var: v.clone(),
            remote: None,
        })
        .collect();
    set.sort_by_key(|m| m.var_id);
    debug_assert!(set.iter().enumerate().all(|(i, m)| m.var_id as usize == i));
    Ok(set)
}
