//! The device address of a byte of a variable, for the var-addressed pseudos whose real record
//! carries an address (PSEUDO_TENSOR_LOAD / STORE, decision D157): the var comes from the kbin
//! mem refs ([`super::LowerResources::vars`]), its base from the device model.
//!
//! The state buffer is at [`DeviceModel::state_buffer_base`]: the profiles show the runtime
//! resolving SB var offsets to `0x8020_0000_0000 + offset` (baseline_attention DMA
//! `dst_var_id=0 dst_var_offset=227320` -> `dst_addr_imm=0x8020000377f8`, and seven more pairs).
//! HBM vars sit at [`DeviceModel::tensor_base`] plus the var's placement (var_id order, aligned;
//! neffkit has no allocator, so any fixed non-overlapping placement is the model's to choose).

use super::context::LowerContext;
use super::error::LowerErrorKind;
use crate::device_model::{DeviceModel, DeviceModelError, RegionModel};
use neff_kelf::VarType;

/// The address of byte `offset` of var `var_id`.
pub(super) fn var_address(
    ctx: &LowerContext<'_>,
    var_id: u32,
    offset: u32,
) -> Result<u64, LowerErrorKind> {
    let var = ctx
        .resources
        .var(var_id)
        .ok_or(LowerErrorKind::UnknownVar { var_id })?;
    if var.size != 0 && u64::from(offset) >= var.size {
        return Err(LowerErrorKind::VarOffsetOutOfRange {
            name: var.name.clone(),
            offset,
            size: var.size,
        });
    }
    let device: &DeviceModel = ctx.device;
    let base = match var.ty {
        VarType::StateBuffer => Some(device.state_buffer_base),
        // Runtime 2.30.51 resolves every virtual var to one scratchpad (decision D462).
        VarType::Virtual if device.regions == RegionModel::Runtime => Some(device.scratch_base),
        _ => device.tensor_base.checked_add(var.placement),
    };
    base.and_then(|b| b.checked_add(u64::from(offset)))
        .ok_or(LowerErrorKind::Device(DeviceModelError::AddressOverflow {
            what: "variable",
        }))
}
