//! A generator of random BIR programs: valid by construction (acyclic normal dependencies, opcodes
//! on valid engines with operands they take, unique names), plus [`plant`] to inject one fault of a
//! chosen [`Fault`] kind. Property tests and the benchmark use it.
//!
//! ```
//! use neff_bir::generate::{GenConfig, program};
//! let p = program(&GenConfig { seed: 7, instructions: 200, ..GenConfig::default() });
//! assert_eq!(p.len(), 200);
//! assert!(neff_bir::verify(&p).is_empty());
//! ```

mod fault;
mod rng;

pub use fault::{Fault, plant};

use serde_json::{Map, Value, json};

use crate::argument::{ArgKind, Argument, OperandList};
use crate::edge_kind::EdgeKind;
use crate::engine::{Engine, EngineKind};
use crate::ids::{BlockId, InstId};
use crate::instruction::Instruction;
use crate::instruction_type::{InstructionType, Opcode};
use crate::program::Program;
use rng::Rng;

/// Shape of a generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Seed; equal seeds give equal programs.
    pub seed: u64,
    /// Number of instructions.
    pub instructions: usize,
    /// Number of functions (`sg0000`, ...).
    pub functions: usize,
    /// Top-level blocks per function.
    pub blocks_per_function: usize,
    /// At most this many normal dependencies per instruction (on earlier instructions).
    pub max_deps: usize,
    /// Roughly one instruction in this many opens a nested loop (0 = no loops).
    pub loop_every: usize,
    /// Add loop-carried dependencies now and then.
    pub loop_carried: bool,
    /// Fill `scheduled_start` / `scheduled_end`.
    pub schedule: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            seed: 0,
            instructions: 100,
            functions: 1,
            blocks_per_function: 2,
            max_deps: 3,
            loop_every: 40,
            loop_carried: true,
            schedule: true,
        }
    }
}

/// Generates a valid program (the verifier finds nothing).
pub fn program(cfg: &GenConfig) -> Program {
    let mut rng = Rng::new(cfg.seed);
    let mut p = Program::new();
    p.attributes = Some(json!({"neuron_core_id": 0}));
    p.arch = Some(json!("gen3"));
    p.version = Some(json!(2));
    let functions = cfg.functions.max(1);
    let blocks = cfg.blocks_per_function.max(1);
    let per_block = cfg.instructions.div_ceil(functions * blocks).max(1);
    let mut made = 0usize;
    for f in 0..functions {
        let fi = p.add_function(format!("sg{f:04}"));
        p.functions[fi].attributes = Some(json!([]));
        p.functions[fi].allocations = Some(json!([]));
        let first_of_function = p.len();
        for b in 0..blocks {
            let Ok(block) = p.add_block(fi, format!("Block{}", b + 1)) else {
                return p;
            };
            let mut in_block = 0;
            while in_block < per_block && made < cfg.instructions {
                let (target, count) = if cfg.loop_every > 0 && rng.one_in(cfg.loop_every) {
                    let Some(body) = open_loop(&mut p, block, made) else {
                        return p;
                    };
                    (body, 1 + rng.below(4))
                } else {
                    (block, 1)
                };
                for _ in 0..count.min(cfg.instructions - made) {
                    let Some(id) = add_random(&mut p, &mut rng, target, made) else {
                        return p;
                    };
                    add_deps(&mut p, &mut rng, cfg, id, first_of_function);
                    if cfg.schedule {
                        let start = made as i64 * 2;
                        p.insts[id.index()].schedule.scheduled_start = Some(start);
                        p.insts[id.index()].schedule.scheduled_end =
                            Some(start + 1 + rng.below(4) as i64);
                    }
                    made += 1;
                    in_block += 1;
                }
            }
        }
    }
    p
}

fn open_loop(p: &mut Program, block: BlockId, n: usize) -> Option<BlockId> {
    let mut fields = Map::new();
    fields.insert(
        "LoopAxis".into(),
        json!({"name": format!("i{n}"), "lb": 0, "ub": 8, "stride": 1}),
    );
    let lp = p.add_loop(block, fields).ok()?;
    p.add_loop_block(lp, format!("Loop{n}")).ok()
}

/// One random instruction from a palette of concrete opcodes, on a valid engine with operands it
/// takes.
fn add_random(p: &mut Program, rng: &mut Rng, block: BlockId, n: usize) -> Option<InstId> {
    let t = |name: &str| Argument::physical_2d(name, "float32", 128, 512);
    let (opcode, engine): (InstructionType, EngineKind) = match rng.below(10) {
        0 => (Opcode::Matmult.into(), EngineKind::Pe),
        1 => (Opcode::Activation.into(), EngineKind::Activation),
        2 => (Opcode::TensorScalar.into(), EngineKind::Dve),
        3 => (Opcode::TensorCopy.into(), EngineKind::Pool),
        4 => (Opcode::Load.into(), EngineKind::Dma),
        5 => (Opcode::Save.into(), EngineKind::Dma),
        6 => (Opcode::RegisterMove.into(), EngineKind::Sp),
        7 => (Opcode::DmaTrigger.into(), EngineKind::Sp),
        8 if rng.one_in(8) => (
            InstructionType::from_name("FutureOp"),
            EngineKind::Unassigned,
        ),
        _ => (Opcode::TensorTensor.into(), EngineKind::Dve),
    };
    let mut inst = Instruction::new(format!("i{n}"), opcode.clone());
    inst.engine = Engine::Known(engine);
    match opcode.opcode() {
        Some(Opcode::RegisterMove) => {
            let mut r = Argument::new(ArgKind::RegisterAccess);
            r.dtype = Some("int32".into());
            r.regref = Some(format!("r{}", n % 8));
            inst.add_operand(OperandList::Ins, r.clone());
            r.regref = Some(format!("r{}", (n + 1) % 8));
            inst.add_operand(OperandList::Outs, r);
        }
        Some(Opcode::DmaTrigger) => {
            inst.dma_blocks = Some(json!([{"queue": format!("q{}", n % 4), "descs": [n]}]));
        }
        Some(Opcode::TensorScalar) => {
            inst.add_operand(OperandList::Ins, t(&format!("t{}", n % 97)));
            inst.add_operand(OperandList::Outs, t(&format!("t{}", (n + 1) % 97)));
            for (k, v) in [
                ("op0", json!("multiply")),
                ("const0", json!(1.5)),
                ("reverse0", json!(false)),
                ("op1", json!("add")),
                ("const1", json!(rng.below(100))),
                ("reverse1", json!(false)),
            ] {
                inst.op_fields.insert(k.into(), v);
            }
        }
        _ => {
            inst.add_operand(OperandList::Ins, t(&format!("t{}", n % 97)));
            if rng.one_in(2) {
                inst.add_operand(
                    OperandList::Ins,
                    Argument::imm("float32", json!(rng.below(10))),
                );
            }
            inst.add_operand(OperandList::Outs, t(&format!("t{}", (n + 3) % 97)));
            if rng.one_in(4) {
                inst.op_fields.insert("acc".into(), Value::from("Idle"));
            }
        }
    }
    p.push(block, inst).ok()
}

fn random_kind(rng: &mut Rng) -> EdgeKind {
    [
        EdgeKind::Flow,
        EdgeKind::Flow,
        EdgeKind::Anti,
        EdgeKind::Output,
        EdgeKind::Ordered,
    ][rng.below(5)]
}

/// Normal edges only to earlier instructions of the same function (so acyclic); loop-carried edges
/// anywhere in the function but the instruction itself.
fn add_deps(p: &mut Program, rng: &mut Rng, cfg: &GenConfig, id: InstId, first: usize) {
    let earlier = id.index() - first;
    if earlier == 0 {
        return;
    }
    for _ in 0..rng.below(cfg.max_deps + 1) {
        let back = 1 + rng.below(earlier.min(64));
        let former = InstId((id.index() - back) as u32);
        let kind = random_kind(rng);
        let _ = p.add_dependency(id, former, kind, false);
    }
    if cfg.loop_carried && rng.one_in(16) {
        let former = InstId((first + rng.below(earlier)) as u32);
        let _ = p.add_dependency(id, former, random_kind(rng), true);
    }
}
