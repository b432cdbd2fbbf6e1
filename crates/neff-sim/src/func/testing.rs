//! Unit-test bench of the functional model: a [`Core`] without a kelf graph, built from slots
//! written with neff-isa's payload writers, SBUF / PSUM filled and read as values, and the run
//! loop driving the slots (so an opcode's semantics are tested through the path a NEFF takes).

use neff_isa::layout::Tensor;
use neff_isa::{Dtype, EngineType, Opcode, SlotBuf};

use super::access::Access;
use super::core::{Core, VarRef};
use super::error::RunError;
use super::hbm::Hbm;
use super::run::run_cores;

/// A slot of `op` with its payload written by `write`.
pub(crate) fn slot(op: Opcode, write: impl FnOnce(&mut SlotBuf)) -> SlotBuf {
    let mut s = SlotBuf::new(op);
    write(&mut s);
    s
}

/// A contiguous pattern of `n` elements per partition from `addr` (one dimension used).
pub(crate) fn row(addr: u32, n: u16, dtype: Dtype) -> Tensor {
    Tensor {
        start_addr: addr,
        dims: 4,
        step: [1, 0, 0, 0],
        num: [n, 1, 1, 1],
        dtype: Some(dtype as u8),
    }
}

/// The bytes of `slots`, one stream.
pub(crate) fn stream(slots: &[SlotBuf]) -> Vec<u8> {
    slots.iter().flat_map(|s| s.0).collect()
}

/// Writes `values` (partition-major, `values.len() / channels` per partition) contiguously from
/// `addr` with `dtype`'s rounding.
pub(crate) fn fill(core: &mut Core<'_>, addr: u32, channels: usize, dtype: Dtype, values: &[f64]) {
    let n = (values.len() / channels) as u16;
    Access::new(&row(addr, n, dtype), channels, dtype)
        .write(&mut core.chip, values)
        .expect("fill inside the memory");
}

/// Reads `n` elements per partition of `channels` partitions from `addr`.
pub(crate) fn read(core: &Core<'_>, addr: u32, channels: usize, n: u16, dtype: Dtype) -> Vec<f64> {
    Access::new(&row(addr, n, dtype), channels, dtype)
        .read(&core.chip)
        .expect("read inside the memory")
}

/// A core whose one `engine` runs `bytes`, with `vars`.
pub(crate) fn core(engine: EngineType, bytes: &[u8], vars: Vec<VarRef>) -> Core<'_> {
    Core::new("test".into(), None, &[(engine, bytes)], vars, Vec::new())
}

/// Runs `core`'s streams to their end over `hbm`.
pub(crate) fn run(core: &mut Core<'_>, hbm: &mut Hbm) -> Result<u64, RunError> {
    run_cores(std::slice::from_mut(core), hbm, 10_000)
}
