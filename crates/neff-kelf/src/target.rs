//! The kbin target: the architecture generation the engines validate against (spec 004 §2 step 5,
//! `kbin.target` @+416, an `al_hal_tpb_arch_type`).

use std::fmt;

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
    /// The `al_hal_tpb_arch_type` number written to `kbin.target`.
    pub const fn arch(self) -> u32 {
        self as u32
    }

    /// The target of an `al_hal_tpb_arch_type` number (2, 3 or 4).
    pub const fn from_arch(arch: u32) -> Option<Self> {
        match arch {
            2 => Some(Self::Sunda),
            3 => Some(Self::Cayman),
            4 => Some(Self::Mariana),
            _ => None,
        }
    }

    /// The descriptor spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sunda => "sunda",
            Self::Cayman => "cayman",
            Self::Mariana => "mariana",
        }
    }

    /// Maps a descriptor `target` (a name, case-insensitive, or the arch number) to a target;
    /// zero and anything unknown are the runtime's "Invalid target" (spec 004 §2 step 5).
    pub fn from_json(v: &Value, at: Location) -> Result<Self> {
        let invalid = |t: String| KelfError::InvalidTarget {
            at: at.clone(),
            target: t,
        };
        match v {
            Value::String(s) => match s.to_ascii_lowercase().as_str() {
                "sunda" => Ok(Self::Sunda),
                "cayman" => Ok(Self::Cayman),
                "mariana" => Ok(Self::Mariana),
                _ => Err(invalid(format!("{s:?}"))),
            },
            Value::Number(n) => match n.as_u64() {
                Some(2) => Ok(Self::Sunda),
                Some(3) => Ok(Self::Cayman),
                Some(4) => Ok(Self::Mariana),
                _ => Err(invalid(n.to_string())),
            },
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
