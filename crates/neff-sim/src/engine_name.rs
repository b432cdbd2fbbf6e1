//! `EngineType` as its short key (`pe`, `act`, `pool`, `dve`, `sp`) in serde output.

use neff_isa::EngineType;
use serde::{Deserialize, Deserializer, Serializer};

/// Serializes the engine as its key.
pub fn serialize<S: Serializer>(e: &EngineType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(e.key())
}

/// Serializes engines as a list of their keys.
pub fn serialize_all<S: Serializer>(es: &[EngineType], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(es.iter().map(|e| e.key()))
}

/// Reads an engine name (any spelling `EngineType::from_name` accepts).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<EngineType, D::Error> {
    let name = String::deserialize(d)?;
    EngineType::from_name(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown engine `{name}`")))
}
