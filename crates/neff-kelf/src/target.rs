//! The kbin target: the architecture generation the engines validate against (spec 004 §2 step 5,
//! `kbin.target` @+416, an `al_hal_tpb_arch_type`).

use std::fmt;

use neff_isa::Generation;
use serde_json::Value;

use crate::error::{KelfError, Location, Result};

/// The NeuronCore architecture a kelf targets. The numbers are `al_hal_tpb_arch_type` values and the
/// names the kelf descriptor's `target` strings (reference §3: "sunda" on trn1, "cayman" on trn2);
/// the mapping is decision D30.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[repr(u32)]
pub enum Target {
    /// NeuronCore v2 (trn1, inf2), "sunda".
    Sunda = 2,
    /// NeuronCore v3 (trn2), "cayman".
    Cayman = 3,
    /// NeuronCore v4, "mariana".
    Mariana = 4,
}

impl Target {
    /// The generation, whose number and code name neff-isa's one table gives (decision D422).
    pub const fn generation(self) -> Generation {
        match self {
            Self::Sunda => Generation::V2,
            Self::Cayman => Generation::V3,
            Self::Mariana => Generation::V4,
        }
    }

    /// The kbin target of a generation: sunda, cayman or mariana.
    pub const fn from_generation(g: Generation) -> Option<Self> {
        match g {
            Generation::V2 => Some(Self::Sunda),
            Generation::V3 => Some(Self::Cayman),
            Generation::V4 => Some(Self::Mariana),
            _ => None,
        }
    }

    /// The `al_hal_tpb_arch_type` number written to `kbin.target`.
    pub const fn arch(self) -> u32 {
        self.generation().number()
    }

    /// The target of an `al_hal_tpb_arch_type` number (2, 3 or 4).
    pub const fn from_arch(arch: u32) -> Option<Self> {
        match Generation::from_number(arch) {
            Some(g) => Self::from_generation(g),
            None => None,
        }
    }

    /// The descriptor spelling.
    pub const fn name(self) -> &'static str {
        self.generation().code_name()
    }

    /// Maps a descriptor `target` (a name, case-insensitive, or the arch number) to a target;
    /// zero and anything unknown are the runtime's "Invalid target" (spec 004 §2 step 5).
    pub fn from_json(v: &Value, at: Location) -> Result<Self> {
        let invalid = |t: String| KelfError::InvalidTarget {
            at: at.clone(),
            target: t,
        };
        match v {
            Value::String(s) => Generation::from_code_name(s)
                .and_then(Self::from_generation)
                .ok_or_else(|| invalid(format!("{s:?}"))),
            Value::Number(n) => n
                .as_u64()
                .and_then(|a| u32::try_from(a).ok())
                .and_then(Self::from_arch)
                .ok_or_else(|| invalid(n.to_string())),
            other => Err(invalid(crate::json_reader::describe(other))),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at() -> Location {
        Location::new("kelf-0.json", "/target")
    }

    #[test]
    fn real_target_names_map_to_arch_numbers() {
        assert_eq!(Target::from_json(&json!("sunda"), at()).unwrap().arch(), 2);
        assert_eq!(Target::from_json(&json!("cayman"), at()).unwrap().arch(), 3);
        assert_eq!(
            Target::from_json(&json!("Mariana"), at()).unwrap().arch(),
            4
        );
        assert_eq!(Target::from_json(&json!(3), at()).unwrap(), Target::Cayman);
        for t in [Target::Sunda, Target::Cayman, Target::Mariana] {
            assert_eq!(Target::from_arch(t.arch()), Some(t));
        }
        assert_eq!(Target::from_arch(0), None);
        assert_eq!(Target::from_arch(5), None);
    }

    #[test]
    fn zero_and_unknown_targets_are_invalid() {
        let e = Target::from_json(&json!(0), at()).unwrap_err().to_string();
        assert!(
            e.starts_with("kelf-0.json#/target: Invalid target = 0"),
            "{e}"
        );
        assert!(Target::from_json(&json!("tonga"), at()).is_err());
        assert!(Target::from_json(&json!(null), at()).is_err());
    }
}
