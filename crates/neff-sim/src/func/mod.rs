//! The functional model: what a NEFF computes, not when (`neff run`, `neffkit.run`; issue 32,
//! docs/run.md). DRAM holds the NEFF's tensors (inputs and outputs by their def.json vars,
//! constants from the NEFF's own `.npy` members); each subgraph runs on its own core with
//! SBUF, PSUM, the PE array's weights and 256 semaphores; every engine executes its `.bin`
//! stream in order, gated by the semaphores ([`run`] module docs). Each opcode family has its
//! semantics in one file; dtype conversion is in [`convert`]. An opcode or a field value without
//! semantics stops the run with its subgraph, engine and slot — never a silent zero.
//!
//! ```
//! # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff")).unwrap();
//! let neff = neff_container::Neff::parse(&bytes)?;
//! let kelf = neff_kelf::Kelf::from_neff(&neff)?;
//! let sig = neff_sim::func::signature(&neff, &kelf)?;
//! println!("{} inputs, {} outputs", sig.inputs.len(), sig.outputs.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod access;
mod activate;
mod alu;
mod collective;
mod control;
pub mod convert;
mod copy;
mod core;
mod dma;
mod elementwise;
mod error;
mod hbm;
mod host;
mod memory;
mod pe;
mod race;
mod random;
mod run;
mod select;
mod shadow;
mod signature;
#[cfg(test)]
mod testing;
mod trace;
mod trace_time;
mod work;

use std::collections::BTreeMap;

use neff_container::Neff;
use neff_isa::EngineType;
use neff_kelf::{Kelf, VarType};

pub use error::{RunError, SlotAt};
pub use host::{HostTensor, NpyError, host_dtype};
pub use memory::{PARTITIONS, PSUM_PARTITION_BYTES, SBUF_PARTITION_BYTES};
pub use race::{Agent, MAX_RACES, Race, RaceAccess, RaceKind, RaceReport};
pub use random::random_inputs;
pub use signature::{Signature, TensorSpec, signature};
pub use trace::{MAX_TRACE_WRITES, TRACE_FIRST, Trace, TraceWrite};
pub use work::{ClassWork, OpClass, Work};

use self::core::{Core, VarRef};
use self::hbm::Hbm;

/// Slots a run may issue before it is stopped as a runaway.
pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

/// A finished run.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// One tensor per output of the signature, in its order.
    pub outputs: Vec<(String, HostTensor)>,
    /// Slots issued, every core together.
    pub steps: u64,
    /// The arithmetic the run did, every core together (what the benchmark's rates divide).
    pub work: Work,
    /// The races found (empty when [`RunOptions::races`] is off).
    pub races: RaceReport,
    /// The writes to the traced tensors ([`RunOptions::trace`]).
    pub trace: Trace,
}

fn manifest(member: &str, reason: impl Into<String>) -> RunError {
    RunError::Manifest {
        member: member.into(),
        reason: reason.into(),
    }
}

/// An input given that the signature does not declare, as the error naming it.
fn extra_input<'a>(
    sig: &Signature,
    mut names: impl Iterator<Item = &'a String>,
) -> Result<(), RunError> {
    match names.find(|k| !sig.inputs.iter().any(|s| &s.name == *k)) {
        Some(extra) => {
            let known: Vec<&str> = sig.inputs.iter().map(|s| s.name.as_str()).collect();
            Err(RunError::ExtraInput {
                name: extra.clone(),
                known: known.join(", "),
            })
        }
        None => Ok(()),
    }
}

/// Input `s`'s device bytes from `t` (`None`: not given), checked against its dtype and shape;
/// `convert` turns the host tensor into device bytes (borrowing or consuming it).
fn bind_one<T: std::borrow::Borrow<HostTensor>>(
    s: &TensorSpec,
    t: Option<T>,
    convert: impl FnOnce(T) -> Option<Vec<u8>>,
) -> Result<Vec<u8>, RunError> {
    let dtype = convert::manifest_name(s.dtype).to_string();
    let Some(t) = t else {
        return Err(RunError::MissingInput {
            name: s.name.clone(),
            dtype,
            shape: s.shape.clone(),
        });
    };
    let (shape_ok, got) = {
        let h = t.borrow();
        (
            h.shape == s.shape,
            format!("{} of shape {:?}", convert::manifest_name(h.dtype), h.shape),
        )
    };
    shape_ok
        .then(|| convert(t))
        .flatten()
        .ok_or_else(|| RunError::BadInput {
            name: s.name.clone(),
            dtype: if host_dtype(s.dtype) == s.dtype {
                dtype.clone()
            } else {
                format!("{dtype} (as float32)")
            },
            shape: s.shape.clone(),
            got,
        })
}

/// The bytes of a `file` var: its `.npy` member's data (C order), which must be the var's size.
fn file_bytes(neff: &Neff<'_>, member: &str, size: u64) -> Result<Vec<u8>, RunError> {
    let b = neff
        .member(member)
        .ok_or_else(|| manifest(member, "the member a file var names is not in the NEFF"))?;
    let (_, _, data) = host::npy_payload(b).map_err(|e| manifest(member, e.0))?;
    if data.len() as u64 != size {
        return Err(manifest(
            member,
            format!("{} data bytes for a var of {size}", data.len()),
        ));
    }
    Ok(data.to_vec())
}

/// Builds the cores and DRAM of `kelf`, inputs bound; each core's SBUF and PSUM in huge pages
/// when `huge_pages` (D825).
fn setup<'k>(
    neff: &Neff<'_>,
    kelf: &'k Kelf<'k>,
    mut inputs: BTreeMap<String, Vec<u8>>,
    (max_var_bytes, huge_pages): (u64, bool),
) -> Result<(Vec<Core<'k>>, Hbm), RunError> {
    let mut hbm = Hbm::default();
    let mut cores = Vec::new();
    for (ci, g) in kelf.graphs().iter().enumerate() {
        let mut vars = Vec::new();
        let mut dge_table = Vec::new();
        for (name, v) in g.def.var.iter().flatten() {
            let size = v.size.unwrap_or(0);
            if size > max_var_bytes {
                return Err(manifest(
                    &g.def_member,
                    format!("/var/{name}: {size} bytes is over the limit of {max_var_bytes}"),
                ));
            }
            let buffer = match v.ty {
                VarType::StateBuffer => None,
                VarType::DgeTable => {
                    dge_table = v.list.clone().unwrap_or_default();
                    None
                }
                // The bound bytes move into DRAM (no second copy of a large input).
                VarType::Input => Some(hbm.add(None, name, || {
                    inputs
                        .remove(name)
                        .unwrap_or_else(|| vec![0; size as usize])
                })),
                VarType::Output => Some(hbm.add(None, name, || vec![0; size as usize])),
                VarType::File => {
                    let f = v.file_name.as_deref().ok_or_else(|| {
                        manifest(
                            &g.def_member,
                            format!("/var/{name}: a file var without file_name"),
                        )
                    })?;
                    let b = file_bytes(neff, &g.member_path(f), size)?;
                    Some(hbm.add(Some(ci), name, || b))
                }
                _ => Some(hbm.add(Some(ci), name, || vec![0; size as usize])),
            };
            vars.push(VarRef {
                id: v.var_id,
                name: name.clone(),
                ty: v.ty,
                buffer,
            });
        }
        let streams: Vec<_> = EngineType::ALL
            .iter()
            .filter_map(|&t| g.engine(t))
            .map(|p| (p.eng_type, p.instr))
            .collect();
        cores.push(Core::new(
            g.name.clone(),
            Some(g),
            &streams,
            vars,
            dge_table,
            memory::OnChip::new(huge_pages),
        ));
    }
    Ok((cores, hbm))
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Slots a run may issue.
    pub max_steps: u64,
    /// The largest def.json var the run allocates (bytes).
    pub max_var_bytes: u64,
    /// Check for races (D680): accesses of the same bytes no semaphore or event orders.
    pub races: bool,
    /// DRAM tensors (def.json var names) whose every write is traced (D682).
    pub trace: Vec<String>,
    /// Hold each core's SBUF and PSUM in an anonymous mapping of transparent huge pages, faulted
    /// in when the core is made (Linux; D825): ~38 MB resident per core from the start, and no
    /// first-touch faults inside the run. `false` keeps them in vectors the kernel maps 4 KiB at a
    /// time on first touch (a host that forbids or meters mappings). Either gives the same
    /// outputs.
    pub huge_pages: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            max_steps: DEFAULT_MAX_STEPS,
            max_var_bytes: 1 << 32,
            races: true,
            trace: Vec::new(),
            huge_pages: true,
        }
    }
}

/// Runs `neff` on `inputs` (by name; each must match the signature's dtype and shape, bf16 and
/// fp8 tensors as float32) and returns every output.
pub fn run(
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    inputs: &BTreeMap<String, HostTensor>,
    options: &RunOptions,
) -> Result<RunOutput, RunError> {
    let sig = signature(neff, kelf)?;
    extra_input(&sig, inputs.keys())?;
    let mut bound = BTreeMap::new();
    for s in &sig.inputs {
        let b = bind_one(s, inputs.get(&s.name), |t| t.to_device(s.dtype))?;
        bound.insert(s.name.clone(), b);
    }
    run_bound(neff, kelf, &sig, bound, options)
}

/// [`run`] consuming the inputs: each host tensor becomes its device bytes in its own buffer
/// ([`HostTensor::into_device`]), so a large bf16 input is not held twice.
pub fn run_owned(
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    mut inputs: BTreeMap<String, HostTensor>,
    options: &RunOptions,
) -> Result<RunOutput, RunError> {
    let sig = signature(neff, kelf)?;
    extra_input(&sig, inputs.keys())?;
    let mut bound = BTreeMap::new();
    for s in &sig.inputs {
        let b = bind_one(s, inputs.remove(&s.name), |t| t.into_device(s.dtype))?;
        bound.insert(s.name.clone(), b);
    }
    run_bound(neff, kelf, &sig, bound, options)
}

/// [`run`] on [`random_inputs`]`(sig, seed)` (the same values), each input generated and turned
/// into device bytes before the next is made: the host never holds every input as float32.
pub fn run_random(
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    seed: u64,
    options: &RunOptions,
) -> Result<RunOutput, RunError> {
    let sig = signature(neff, kelf)?;
    let mut rng = neff_rng::SplitMix64::new(seed);
    let mut bound = BTreeMap::new();
    for s in &sig.inputs {
        bound.insert(s.name.clone(), random::random_device(s, &mut rng));
    }
    run_bound(neff, kelf, &sig, bound, options)
}

/// Runs `neff` on inputs already bound to device bytes.
fn run_bound(
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    sig: &Signature,
    bound: BTreeMap<String, Vec<u8>>,
    options: &RunOptions,
) -> Result<RunOutput, RunError> {
    let (mut cores, mut hbm) = setup(
        neff,
        kelf,
        bound,
        (options.max_var_bytes, options.huge_pages),
    )?;
    if let Some(name) = (options.trace.iter()).find(|n| !hbm.buffers.iter().any(|b| &b.name == *n))
    {
        let mut known: Vec<&str> = hbm.buffers.iter().map(|b| b.name.as_str()).collect();
        known.sort_unstable();
        known.dedup();
        return Err(RunError::UnknownTrace {
            name: name.clone(),
            known: known.join(", "),
        });
    }
    let mut obs = run::Observers {
        races: options.races.then(race::Detector::default),
        trace: (!options.trace.is_empty()).then(|| trace::Tracer::new(options.trace.clone())),
        buffer: Vec::new(),
    };
    let steps = run::run_cores(&mut cores, &mut hbm, options.max_steps, &mut obs)?;
    let mut outputs = Vec::new();
    for s in &sig.outputs {
        let i = hbm
            .buffers
            .iter()
            .position(|b| b.name == s.name && b.owner.is_none())
            .ok_or_else(|| {
                manifest("def.json", format!("output `{}` has no output var", s.name))
            })?;
        let bytes = &hbm.buffers[i].bytes;
        let want = s.bytes().unwrap_or(0) as usize;
        let t = HostTensor::from_device(s.dtype, s.shape.clone(), &bytes[..want.min(bytes.len())]);
        outputs.push((s.name.clone(), t));
    }
    let mut work = Work::default();
    for c in &cores {
        work.add(&c.work);
    }
    Ok(RunOutput {
        outputs,
        steps,
        work,
        races: obs.races.map(race::Detector::finish).unwrap_or_default(),
        trace: obs.trace.map(trace::Tracer::finish).unwrap_or_default(),
    })
}
