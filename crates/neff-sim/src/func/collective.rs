//! PSEUDO_TRIGGER_COLLECTIVE on one rank (decision D855): `neff run` models one NeuronCore, so
//! a collective whose replica group holds at most that rank (the sample's `[[]]`) moves its
//! input to its output — an all-reduce, all-gather, reduce-scatter, all-to-all or permute over
//! one rank is a copy (the timing model's single-rank collective is a local copy too). The
//! tensors are the vars whose `var_id` the slot's tensor ids name (spec 001 §3: the op list
//! "resolves input0/input1/output mem-refs by tensor id"), offset by the slot's element
//! offsets. A group of more ranks stops the run naming it: the other ranks' data is not there.

use neff_isa::payload::TriggerCollective;

use super::core::Core;
use super::dma::{self, End};
use super::hbm::Hbm;

/// Runs `c` on one rank: its `num_elements` elements from the input tensor to the output.
pub(crate) fn single_rank(
    core: &mut Core<'_>,
    hbm: &mut Hbm,
    c: &TriggerCollective<'_>,
) -> Result<(), String> {
    let ctype = c
        .ctype()
        .map_err(|b| format!("collective type {b:#x} has no semantics"))?;
    let group = usize::from(c.group_id());
    let ranks = core
        .graph
        .and_then(|g| g.def.replica_groups.as_ref())
        .map(|groups| groups.get(group).map(Vec::len))
        .ok_or("a collective needs the subgraph's def.json (a core without a graph)")?
        .ok_or_else(|| format!("replica group {group} is not in def.json replica_groups"))?;
    if ranks > 1 {
        return Err(format!(
            "{} over replica group {group} of {ranks} ranks: neff run models one rank, the \
             others' data is not there",
            ctype.text()
        ));
    }
    let dtype = c
        .dtype()
        .map_err(|b| format!("dtype {b:#x} has no semantics"))?;
    let size = u64::from(
        dtype
            .size()
            .ok_or_else(|| format!("dtype {} has no element size", dtype.text()))?,
    );
    let bytes = c
        .num_elements()
        .checked_mul(size)
        .ok_or("num_elements overflows")?;
    let end = |id: u32, offset_elems: u64, what: &str| -> Result<End, String> {
        let v = core
            .vars
            .iter()
            .find(|v| v.id == id)
            .ok_or_else(|| format!("{what} tensor id {id} is no var_id of def.json var"))?;
        let at = offset_elems
            .checked_mul(size)
            .ok_or_else(|| format!("{what} offset overflows"))?;
        Ok(End {
            memory: dma::named(core, &v.name)?,
            var: v.name.clone(),
            runs: vec![(at, bytes)],
            dtype,
        })
    };
    let src = end(c.input_tensor_id(), c.src_offset_elems(), "input")?;
    let dst = end(c.output_tensor_id(), c.dst_offset_elems(), "output")?;
    dma::transfer(core, hbm, &src, &dst)
}
