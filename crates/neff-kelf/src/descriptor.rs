//! The kelf descriptor (spec 004 §1, `kelf::kelf::load`): `{version, target, graphs[{name,
//! definition}]}`, found as `kelf-a.json` (spec) or as the member named by neff.json's `__kelf`
//! node `attrs.kelf` (real NEFFs: `kelf-0.json`, reference §3).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{KelfError, Location, Result};
use crate::json_reader::{At, Obj, parse_json};
use crate::source::MemberSource;
use crate::target::Target;

/// The descriptor member name of the spec's sample (spec 004 §1).
pub const SPEC_DESCRIPTOR: &str = "kelf-a.json";
/// The TVM-style graph that real NEFFs use to name their descriptor (reference §3).
pub const NEFF_JSON: &str = "neff.json";

/// One subgraph entry of the descriptor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphRef {
    /// The subgraph name (`sg00`).
    pub name: String,
    /// The def.json member path (`sg00/def.json`).
    pub definition: String,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The parsed kelf descriptor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KelfDescriptor {
    /// The format version (`"0.5"` in real NEFFs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The `target` as written (a name or a number); see [`KelfDescriptor::target`].
    pub target: Value,
    /// The subgraphs, in descriptor order.
    pub graphs: Vec<GraphRef>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl KelfDescriptor {
    /// Parses the descriptor member `member`.
    pub fn parse(member: &str, bytes: &[u8]) -> Result<Self> {
        let v = parse_json(member, bytes)?;
        let o = Obj::new(&v, At::root(member))?;
        let target = o
            .raw("target")
            .cloned()
            .ok_or_else(|| o.missing("target"))?;
        let graphs = o
            .opt_list("graphs", |g, at| {
                let g = Obj::new(g, at)?;
                Ok(GraphRef {
                    name: g.req_str("name")?,
                    definition: g.req_str("definition")?,
                    extra: g.extra(&["name", "definition"]),
                })
            })?
            .ok_or_else(|| o.missing("graphs"))?;
        Ok(Self {
            version: o.opt_str("version")?,
            target,
            graphs,
            extra: o.extra(&["version", "target", "graphs"]),
        })
    }

    /// The target arch; zero or unknown is "Invalid target" (spec 004 §2 step 5).
    pub fn target(&self, member: &str) -> Result<Target> {
        Target::from_json(&self.target, Location::new(member, "/target"))
    }

    /// The descriptor as JSON (value-equal to the member it was parsed from).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Finds the descriptor member: neff.json's first node with `attrs.func_name == "__kelf"` names
/// it in `attrs.kelf` (real NEFFs); otherwise `kelf-a.json` (the spec). Decision D32.
pub fn locate_descriptor(src: &impl MemberSource) -> Result<String> {
    if let Some(bytes) = src.member(NEFF_JSON) {
        let v = parse_json(NEFF_JSON, bytes)?;
        let nodes = v.get("nodes").and_then(Value::as_array);
        for (i, node) in nodes.into_iter().flatten().enumerate() {
            let attrs = node.get("attrs");
            let func = attrs
                .and_then(|a| a.get("func_name"))
                .and_then(Value::as_str);
            if func != Some("__kelf") {
                continue;
            }
            let at = Location::new(NEFF_JSON, format!("/nodes/{i}/attrs/kelf"));
            let name = attrs.and_then(|a| a.get("kelf")).and_then(Value::as_str);
            let name = name.ok_or(KelfError::MissingKey {
                at: at.clone(),
                key: "kelf",
            })?;
            if src.member(name).is_none() {
                return Err(KelfError::MissingMember {
                    member: name.to_owned(),
                    named_at: at,
                });
            }
            return Ok(name.to_owned());
        }
    }
    if src.member(SPEC_DESCRIPTOR).is_some() {
        return Ok(SPEC_DESCRIPTOR.to_owned());
    }
    Err(KelfError::NoDescriptor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const REAL: &str = r#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}, {"definition": "sg01/def.json", "name": "sg01"}], "version": "0.5", "target": "cayman"}"#;

    #[test]
    fn parses_the_real_trn2_descriptor_of_reference_3_2() {
        let d = KelfDescriptor::parse("kelf-0.json", REAL.as_bytes()).unwrap();
        assert_eq!(d.version.as_deref(), Some("0.5"));
        assert_eq!(d.target("kelf-0.json").unwrap(), Target::Cayman);
        let names: Vec<_> = d
            .graphs
            .iter()
            .map(|g| (&*g.name, &*g.definition))
            .collect();
        assert_eq!(
            names,
            [("sg00", "sg00/def.json"), ("sg01", "sg01/def.json")]
        );
        let original: Value = serde_json::from_str(REAL).unwrap();
        assert_eq!(d.to_value(), original);
    }

    #[test]
    fn unknown_keys_survive() {
        let src =
            r#"{"graphs":[{"name":"a","definition":"a/def.json","x":1}],"target":"sunda","z":[1]}"#;
        let d = KelfDescriptor::parse("kelf-a.json", src.as_bytes()).unwrap();
        assert_eq!(d.to_value(), serde_json::from_str::<Value>(src).unwrap());
    }

    #[test]
    fn neff_json_kelf_node_wins_over_kelf_a() {
        let mut m: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        m.insert("kelf-a.json".into(), REAL.into());
        assert_eq!(locate_descriptor(&m).unwrap(), "kelf-a.json");
        m.insert("kelf-0.json".into(), REAL.into());
        let neff = r#"{"nodes":[{"op":"null","name":"x"},{"op":"tvm_op","attrs":{"func_name":"__kelf","kelf":"kelf-0.json"}}]}"#;
        m.insert("neff.json".into(), neff.into());
        assert_eq!(locate_descriptor(&m).unwrap(), "kelf-0.json");
        m.remove("kelf-0.json");
        let e = locate_descriptor(&m).unwrap_err().to_string();
        assert_eq!(
            e,
            "member `kelf-0.json` not found in the NEFF (named at neff.json#/nodes/1/attrs/kelf)"
        );
        assert_eq!(
            locate_descriptor(&BTreeMap::new()),
            Err(KelfError::NoDescriptor)
        );
    }
}
