//! Calls that return (decision D290): the return-address mechanism spec 000 and 001 name but do
//! not lay out.
//!
//! Spec 000 §7.3 makes 0xD3 "the INSERT source for function calls"; spec 001 §2 lists
//! `itf_translate_function_return_instr` ("return-addr branch") among the callers of the branch
//! and ALU builders; `itf_function_t` holds `return_reg_lo/hi` (+260/+261, spec 000 §3). neffkit's
//! sequence, built only from those builders:
//!
//! - a call `0xD3 f` at image offset `O` becomes two slots: the INSERTed `add_mov32_imm(reg_f,
//!   R - Q_f)` at `O` and `add_br_rel(entry_f - (O + 64))` with the call's events at `O + 64`,
//!   where `R = O + 128` is the return point (the slot after the call) and `Q_f` the image
//!   offset of `f`'s first 0xD2;
//! - `f`'s first 0xD2 (at `Q_f`) becomes `add_br_rel_reg(reg_f)`: PC-relative by the register,
//!   landing on `R`; every other 0xD2 of `f` becomes `add_br_rel(Q_f - Q)` to it (1 -> 1).
//!
//! Each function has its own return register, so a call inside a function does not overwrite
//! its caller's return; a call cycle would, and is refused (the sequencer has no stack).

use std::collections::{BTreeMap, HashMap};

use neff_isa::EngineType;

use crate::error::LoadError;
use crate::program::Program;

/// The first return register: function `k` (func_id >= 1) returns through register
/// `RETURN_REG_BASE + k - 1`, above the 32 registers compiler output uses (reference §4.5:
/// register 31 is a DGE offset register in moe_v6b; decision D290).
pub const RETURN_REG_BASE: u8 = 0x40;

/// `itf_function_t.return_reg_lo` of function `func_id` (>= 1). One register suffices: the
/// relative return fits 32 bits (spec 001 §2 reach), so `return_reg_hi` is not used.
pub fn return_reg(engine: EngineType, func_id: u32) -> Result<u8, LoadError> {
    u8::try_from(u32::from(RETURN_REG_BASE) + func_id.saturating_sub(1)).map_err(|_| {
        LoadError::TooManyFunctions {
            engine,
            func_id,
            max: u32::from(u8::MAX - RETURN_REG_BASE) + 1,
        }
    })
}

/// What image assembly notes about calls and returns while it places blocks.
#[derive(Debug, Default)]
pub struct CallSites {
    /// func_id -> image offset of its first 0xD2 (`Q_f`).
    pub first_return: HashMap<u32, usize>,
    /// Image offset of every 0xD2 of a function (func_id != 0) -> its func_id.
    pub return_owner: HashMap<usize, u32>,
    /// (caller func_id, callee name) of every call.
    pub calls: Vec<(u32, String)>,
}

impl CallSites {
    /// Refuses a call cycle (a function reaching itself through calls): its return register
    /// would be overwritten before it returns. Names the first function on a cycle.
    pub fn check_acyclic(&self, engine: EngineType, program: &Program) -> Result<(), LoadError> {
        let id_of = |name: &str| program.function_by_name(name).map(|f| f.func_id);
        let mut edges: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (caller, callee) in &self.calls {
            if let Some(c) = id_of(callee) {
                edges.entry(*caller).or_default().push(c);
            }
        }
        // Depth-first colouring: 1 = on the current path, 2 = done.
        let mut colour: HashMap<u32, u8> = HashMap::new();
        for &start in edges.keys() {
            let mut stack = vec![(start, 0usize)];
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                colour.insert(node, 1);
                let succ = edges.get(&node).map_or(&[][..], Vec::as_slice);
                if let Some(&s) = succ.get(*next) {
                    *next += 1;
                    match colour.get(&s) {
                        Some(1) => {
                            let name = program.functions[s as usize].name.clone();
                            return Err(LoadError::RecursiveCall {
                                engine,
                                function: name,
                            });
                        }
                        Some(_) => {}
                        None => stack.push((s, 0)),
                    }
                } else {
                    colour.insert(node, 2);
                    stack.pop();
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_register_per_function_up_to_0xff() {
        assert_eq!(return_reg(EngineType::Pe, 1).unwrap(), 0x40);
        assert_eq!(return_reg(EngineType::Pe, 192).unwrap(), 0xFF);
        assert!(matches!(
            return_reg(EngineType::Pe, 193),
            Err(LoadError::TooManyFunctions { max: 192, .. })
        ));
    }
}
