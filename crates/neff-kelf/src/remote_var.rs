//! The remote-variable rebind of multi-subgraph (multi-vTPB) models (spec 004 §3 note,
//! `kelf_resolve_vtpb_remote_variables`): after gen_kbin, each remote variable's mem ref is bound
//! to the var of the subgraph it lives on. The spec gives the role ("regex-matches remote-variable
//! names, and rebinds each var_id ... across the vTPB core range") but not the pattern; neffkit's
//! pattern is decision D38.

use crate::error::{KelfError, Result};
use crate::kbin::Kbin;
use crate::mem_ref::RemoteBinding;
use crate::var::VarType;

/// Splits a remote-variable name `<base>_sg<N>` into `(base, N)` (decision D38; neuronx-cc names
/// per-subgraph vars with an `_sg<NNNN>` suffix, reference §3.2 `identity_82_sg0000`).
pub fn split_remote_name(name: &str) -> Option<(&str, usize)> {
    let (base, digits) = name.rsplit_once("_sg")?;
    if base.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((base, digits.parse().ok()?))
}

/// Binds every `remote-variable` mem ref of every kbin: `<base>_sg<N>` names subgraph N (its
/// index in the kelf), where the var is looked up by the full name, then by `<base>`; the target
/// must exist and not itself be remote. Any failure is the runtime's "Failed to resolve remote
/// variables for subgraphs 0 to n-1".
pub fn resolve_remote_variables(kbins: &mut [Kbin<'_>]) -> Result<()> {
    let last = kbins.len().saturating_sub(1);
    let mut bindings = Vec::new();
    for (ki, k) in kbins.iter().enumerate() {
        for m in k
            .mem_refs
            .iter()
            .filter(|m| m.ty == VarType::RemoteVariable)
        {
            let fail = |reason: String| KelfError::UnresolvedRemoteVariable {
                first: 0,
                last,
                subgraph: k.name.clone(),
                name: m.name.clone(),
                reason,
            };
            let (base, sg) = split_remote_name(&m.name)
                .ok_or_else(|| fail("name does not end in _sg<N> (decision D38)".into()))?;
            let target = kbins
                .get(sg)
                .ok_or_else(|| fail(format!("subgraph {sg} does not exist")))?;
            let var = target
                .mem_ref_named(&m.name)
                .filter(|t| t.ty != VarType::RemoteVariable)
                .or_else(|| target.mem_ref_named(base))
                .filter(|t| t.ty != VarType::RemoteVariable)
                .ok_or_else(|| {
                    fail(format!(
                        "{} has no local var `{}` or `{base}`",
                        target.name, m.name
                    ))
                })?;
            let binding = RemoteBinding {
                subgraph: sg,
                subgraph_name: target.name.clone(),
                var_id: var.var_id,
                name: var.name.clone(),
            };
            bindings.push((ki, m.var_id as usize, binding));
        }
    }
    for (ki, vid, b) in bindings {
        if let Some(m) = kbins.get_mut(ki).and_then(|k| k.mem_refs.get_mut(vid)) {
            m.remote = Some(b);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_names_split_on_the_last_sg_suffix() {
        assert_eq!(split_remote_name("x_sg0001"), Some(("x", 1)));
        assert_eq!(split_remote_name("a_sg2_sg0003"), Some(("a_sg2", 3)));
        assert_eq!(split_remote_name("x_sg"), None);
        assert_eq!(split_remote_name("_sg1"), None);
        assert_eq!(split_remote_name("x_sgab"), None);
    }
}
