//! Tensor id -> mem ref resolution for the collective column (spec 001 §3: build_enc_op_list_args
//! "resolves input0/input1/output mem-refs by tensor id, enforces MR-list symmetry, computes
//! per-element byte sizes"; decision D285).
//!
//! A tensor id is a `var_id` of the subgraph's mem_ref_set (spec 004 §2 step 3). A `pointer` var
//! resolves through `referenced_var_id`; a `dge-table` var, the one def.json var that is a list of
//! mem refs (reference §3.3), resolves to the list of the vars it names; anything else is one mem
//! ref.

use super::error::LowerErrorKind;
use super::resources::{LowerResources, LowerVar};
use neff_kelf::VarType;

/// What one tensor id resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedTensor {
    /// One mem ref: the var after following pointers.
    Single(u32),
    /// A mem-ref list: the vars a `dge-table` names, in order.
    List(Vec<u32>),
}

impl ResolvedTensor {
    /// "one mem ref" / "a list of N mem refs", for the symmetry error.
    fn describe(&self) -> String {
        match self {
            Self::Single(_) => "one mem ref".into(),
            Self::List(l) => format!("a list of {} mem refs", l.len()),
        }
    }

    /// Every var the tensor touches.
    fn vars(&self) -> &[u32] {
        match self {
            Self::Single(v) => std::slice::from_ref(v),
            Self::List(l) => l,
        }
    }
}

/// The var `id` of the mem_ref_set, following `pointer` vars (at most one hop per var, so a
/// cycle ends). `operand`/`tensor_id` name the slot field in errors.
fn follow<'r>(
    res: &'r LowerResources,
    operand: &'static str,
    tensor_id: u32,
    id: u32,
) -> Result<&'r LowerVar, LowerErrorKind> {
    let unknown = |var_id| LowerErrorKind::UnknownTensor {
        operand,
        tensor_id,
        var_id,
        vars: res.vars.len(),
    };
    let mut var = res.var(id).ok_or_else(|| unknown(id))?;
    for _ in 0..res.vars.len() {
        if var.ty != VarType::Pointer {
            return Ok(var);
        }
        let next = var
            .referenced_var_id
            .ok_or_else(|| LowerErrorKind::PointerWithoutTarget {
                operand,
                tensor_id,
                name: var.name.clone(),
            })?;
        var = res.var(next).ok_or_else(|| unknown(next))?;
    }
    Err(LowerErrorKind::PointerCycle { operand, tensor_id })
}

/// Resolves `tensor_id` (the slot's `operand` field) to its mem ref or mem-ref list.
pub(super) fn resolve(
    res: &LowerResources,
    operand: &'static str,
    tensor_id: u32,
) -> Result<ResolvedTensor, LowerErrorKind> {
    let var = follow(res, operand, tensor_id, tensor_id)?;
    match &var.dge_list {
        Some(list) => list
            .iter()
            .map(|&id| follow(res, operand, tensor_id, id).map(|v| v.var_id))
            .collect::<Result<Vec<_>, _>>()
            .map(ResolvedTensor::List),
        None => Ok(ResolvedTensor::Single(var.var_id)),
    }
}

/// MR-list symmetry: input and output are both one mem ref, or both lists of the same length.
pub(super) fn check_symmetry(
    input: &ResolvedTensor,
    output: &ResolvedTensor,
    (input_id, output_id): (u32, u32),
) -> Result<(), LowerErrorKind> {
    let same = match (input, output) {
        (ResolvedTensor::Single(_), ResolvedTensor::Single(_)) => true,
        (ResolvedTensor::List(a), ResolvedTensor::List(b)) => a.len() == b.len(),
        _ => false,
    };
    if same {
        return Ok(());
    }
    Err(LowerErrorKind::MrListAsymmetry {
        input_tensor_id: input_id,
        input: input.describe(),
        output_tensor_id: output_id,
        output: output.describe(),
    })
}

/// Every mem ref of `tensor` that declares a size must hold `need` bytes (the operand's elements
/// times the element size, past its offset); a var without a size (`SB`) is not checked.
pub(super) fn check_fits(
    res: &LowerResources,
    operand: &'static str,
    tensor_id: u32,
    tensor: &ResolvedTensor,
    need: u64,
) -> Result<(), LowerErrorKind> {
    for &id in tensor.vars() {
        if let Some(v) = res.var(id)
            && v.size != 0
            && v.size < need
        {
            return Err(LowerErrorKind::TensorTooSmall {
                operand,
                tensor_id,
                name: v.name.clone(),
                size: v.size,
                need,
            });
        }
    }
    Ok(())
}
