//! The device address of a byte of a variable, for the var-addressed pseudos whose real record
//! carries an address (PSEUDO_TENSOR_LOAD / STORE, decision D157): the var comes from the kbin
//! mem refs ([`super::LowerResources::vars`]), its base from the device model.
//!
//! The state buffer is at [`LowerDevice::state_buffer_base`](crate::LowerDevice::state_buffer_base): the profiles show the runtime
//! resolving SB var offsets to `0x8020_0000_0000 + offset` (baseline_attention DMA
//! `dst_var_id=0 dst_var_offset=227320` -> `dst_addr_imm=0x8020000377f8`, and seven more pairs).
//! HBM vars sit at [`LowerDevice::tensor_base`](crate::LowerDevice::tensor_base) plus the var's placement (var_id order, aligned;
//! neffkit has no allocator, so any fixed non-overlapping placement is the model's to choose).

use super::context::LowerContext;
use super::error::LowerErrorKind;
use crate::device::DeviceModelError;
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
    let device = ctx.device;
    let base = match (var.ty, device.virtual_base()) {
        (VarType::StateBuffer, _) => Some(device.state_buffer_base()),
        // Runtime 2.30.51 resolves every virtual var to one scratchpad (decision D462).
        (VarType::Virtual, Some(scratch)) => Some(scratch),
        _ => device.tensor_base().checked_add(var.placement),
    };
    base.and_then(|b| b.checked_add(u64::from(offset)))
        .ok_or(LowerErrorKind::Device(DeviceModelError::AddressOverflow {
            what: "variable",
        }))
}
