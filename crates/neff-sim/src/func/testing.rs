//! Unit-test bench of the functional model: a [`Core`] without a kelf graph, built from slots
//! written with neff-isa's payload writers, SBUF / PSUM filled and read as values, and the run
//! loop driving the slots (so an opcode's semantics are tested through the path a NEFF takes).

use neff_isa::layout::{ADDR8_VAR, Addr8, Pattern, Tensor};
use neff_isa::payload::DmaDirect2dMut;
use neff_isa::{Dtype, EngineType, Opcode, SlotBuf};
use neff_kelf::VarType;

use super::access::Access;
use super::core::{Core, VarRef};
use super::error::RunError;
use super::hbm::Hbm;
use super::race::{Detector, RaceReport};
use super::run::{Observers, run_cores};

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
    Core::new(
        "test".into(),
        None,
        &[(engine, bytes)],
        vars,
        Vec::new(),
        Default::default(),
    )
}

/// Runs `core`'s streams to their end over `hbm`.
pub(crate) fn run(core: &mut Core<'_>, hbm: &mut Hbm) -> Result<u64, RunError> {
    run_cores(
        std::slice::from_mut(core),
        hbm,
        10_000,
        &mut Observers::default(),
    )
}

/// Runs `core`'s streams with the race detector and returns the races it found.
pub(crate) fn run_races(core: &mut Core<'_>, hbm: &mut Hbm) -> Result<RaceReport, RunError> {
    let mut obs = Observers {
        races: Some(Detector::default()),
        ..Observers::default()
    };
    run_cores(std::slice::from_mut(core), hbm, 10_000, &mut obs)?;
    Ok(obs.races.map(Detector::finish).unwrap_or_default())
}

/// A var of a core built by a test.
pub(crate) fn var(id: u32, name: &str, ty: VarType, buffer: Option<usize>) -> VarRef {
    VarRef {
        id,
        name: name.into(),
        ty,
        buffer,
    }
}

/// The vars of the DMA tests: the state buffer (var 0) and DRAM input `x` (var 1, buffer 0).
pub(crate) fn vars() -> Vec<VarRef> {
    vec![
        var(0, "SB", VarType::StateBuffer, None),
        var(1, "x", VarType::Input, Some(0)),
    ]
}

/// DRAM holding `x` = `values` (fp32).
pub(crate) fn dram(values: &[f32]) -> Hbm {
    let mut hbm = Hbm::default();
    let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    hbm.add(None, "x", || bytes);
    hbm
}

/// A DIRECT2D from DRAM var 1 (`x`, offset `from`) to the state buffer (var 0), `num`
/// elements of fp32 each way, `step` bytes apart; it raises semaphore 3 by 1.
pub(crate) fn direct2d(
    from: u32,
    src_step: [u32; 2],
    dst_step: [u32; 2],
    num: [u16; 2],
) -> SlotBuf {
    let pat = |step: [u32; 2]| Pattern {
        dims: 2,
        step: [step[0], step[1], 0, 0],
        num: [num[0], num[1], 0, 0],
    };
    let addr = |immediate, entry| Addr8 {
        immediate,
        entry,
        b6: 0,
        mode: ADDR8_VAR,
    };
    slot(Opcode::PSEUDO_DMA_DIRECT2D, |b| {
        DmaDirect2dMut(b)
            .dge_op(0u8)
            .semaphore(3)
            .sem_increment(1)
            .src(addr(from, 1))
            .dst(addr(0, 0))
            .src_elem_size(4)
            .dst_elem_size(4)
            .src_pattern(pat(src_step))
            .dst_pattern(pat(dst_step))
            .src_dtype(Dtype::Float32 as u8)
            .dst_dtype(Dtype::Float32 as u8);
    })
}
