//! A NEFF's inputs and outputs, with dtype and shape: the inputs from `neff.json`
//! (`metadata.signatures.default.inputs`, ordered by `id`; else the subgraphs' tensor maps), the
//! outputs from each subgraph's `tensor_map.json` (`kind: "output"`; `neff.json` lists only
//! inputs there). The byte size of each is checked against its `def.json` var (decision D484).

use neff_container::Neff;
use neff_isa::Dtype;
use neff_kelf::{KbinDtype, Kelf, VarType};
use serde_json::Value;

use super::convert;
use super::error::RunError;

/// One input or output tensor.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TensorSpec {
    /// Its name (the def.json var).
    pub name: String,
    /// The element type.
    #[serde(serialize_with = "dtype_name")]
    pub dtype: Dtype,
    /// The shape.
    pub shape: Vec<u64>,
}

fn dtype_name<S: serde::Serializer>(d: &Dtype, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(convert::manifest_name(*d))
}

impl TensorSpec {
    /// Elements.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Bytes (`None` on overflow or a dtype without width).
    pub fn bytes(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(self.dtype.size()? as u64, |a, &d| a.checked_mul(d))
    }
}

/// Inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Signature {
    /// The inputs, in the order neff.json numbers them.
    pub inputs: Vec<TensorSpec>,
    /// The outputs.
    pub outputs: Vec<TensorSpec>,
}

fn manifest(member: &str, reason: impl Into<String>) -> RunError {
    RunError::Manifest {
        member: member.into(),
        reason: reason.into(),
    }
}

fn parse_dtype(member: &str, at: &str, v: Option<&Value>) -> Result<Dtype, RunError> {
    let s = v
        .and_then(Value::as_str)
        .ok_or_else(|| manifest(member, format!("{at}: no `dtype` string")))?;
    KbinDtype::from_name(s)
        .map(convert::from_kbin)
        .ok_or_else(|| manifest(member, format!("{at}: unknown dtype `{s}`")))
}

fn parse_shape(member: &str, at: &str, v: Option<&Value>) -> Result<Vec<u64>, RunError> {
    let a = v
        .and_then(Value::as_array)
        .ok_or_else(|| manifest(member, format!("{at}: no shape array")))?;
    a.iter()
        .map(|d| {
            d.as_u64()
                .ok_or_else(|| manifest(member, format!("{at}: shape entry {d} is not a count")))
        })
        .collect()
}

fn json(neff: &Neff<'_>, member: &str) -> Result<Option<Value>, RunError> {
    let Some(b) = neff.member(member) else {
        return Ok(None);
    };
    serde_json::from_slice(b)
        .map(Some)
        .map_err(|e| manifest(member, format!("not JSON: {e}")))
}

/// The tensor map entries of `kind` in every subgraph, first occurrence of each name.
fn from_tensor_maps(
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    kind: &str,
) -> Result<Vec<TensorSpec>, RunError> {
    let mut out: Vec<TensorSpec> = Vec::new();
    for g in kelf.graphs() {
        let member = g.member_path("tensor_map.json");
        let Some(map) = json(neff, &member)? else {
            continue;
        };
        let Some(obj) = map.as_object() else {
            return Err(manifest(&member, "not an object"));
        };
        for (name, t) in obj {
            if t.get("kind").and_then(Value::as_str) != Some(kind)
                || out.iter().any(|s| &s.name == name)
            {
                continue;
            }
            let at = format!("/{name}");
            out.push(TensorSpec {
                name: name.clone(),
                dtype: parse_dtype(&member, &at, t.get("dtype"))?,
                shape: parse_shape(&member, &at, t.get("tf_shape"))?,
            });
        }
    }
    Ok(out)
}

/// The inputs neff.json's default signature lists, by `id`.
fn from_neff_json(neff: &Neff<'_>) -> Result<Option<Vec<TensorSpec>>, RunError> {
    let member = neff_kelf::NEFF_JSON;
    let Some(v) = json(neff, member)? else {
        return Ok(None);
    };
    let Some(inputs) = v
        .pointer("/metadata/signatures/default/inputs")
        .and_then(Value::as_object)
    else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for (name, t) in inputs {
        let at = format!("/metadata/signatures/default/inputs/{name}");
        let id = t.get("id").and_then(Value::as_u64).unwrap_or(u64::MAX);
        out.push((
            id,
            TensorSpec {
                name: name.clone(),
                dtype: parse_dtype(member, &at, t.get("dtype"))?,
                shape: parse_shape(member, &at, t.get("shape"))?,
            },
        ));
    }
    out.sort_by_key(|(id, _)| *id);
    Ok(Some(out.into_iter().map(|(_, s)| s).collect()))
}

/// Checks `s` against the def.json var of the same name in every subgraph that has it.
fn check_var(kelf: &Kelf<'_>, s: &TensorSpec) -> Result<(), RunError> {
    for g in kelf.graphs() {
        let Some(var) = g.def.var.as_ref().and_then(|v| v.get(&s.name)) else {
            continue;
        };
        if let (Some(size), Some(bytes)) = (var.size, s.bytes())
            && size != bytes
        {
            return Err(manifest(
                &g.def_member,
                format!(
                    "/var/{}: size {size} bytes, but its signature {} {:?} is {bytes} bytes",
                    s.name,
                    convert::manifest_name(s.dtype),
                    s.shape
                ),
            ));
        }
    }
    Ok(())
}

/// A NEFF with neither `neff.json` nor any `tensor_map.json` (the spec sample): its def.json
/// `input` / `output` vars, as bytes (u8, one dimension of the var's size) — nothing else names
/// their dtype or shape (decision D855).
fn from_def_vars(kelf: &Kelf<'_>, ty: VarType) -> Vec<TensorSpec> {
    let mut out: Vec<TensorSpec> = Vec::new();
    for g in kelf.graphs() {
        for (name, var) in g.def.var.iter().flatten() {
            if var.ty == ty && !out.iter().any(|s| &s.name == name) {
                out.push(TensorSpec {
                    name: name.clone(),
                    dtype: Dtype::Uint8,
                    shape: vec![var.size.unwrap_or(0)],
                });
            }
        }
    }
    out
}

/// Whether `neff` has a `neff.json` or any subgraph a `tensor_map.json`.
fn has_manifests(neff: &Neff<'_>, kelf: &Kelf<'_>) -> bool {
    neff.member(neff_kelf::NEFF_JSON).is_some()
        || kelf
            .graphs()
            .iter()
            .any(|g| neff.member(&g.member_path("tensor_map.json")).is_some())
}

/// The inputs and outputs of `neff`.
pub fn signature(neff: &Neff<'_>, kelf: &Kelf<'_>) -> Result<Signature, RunError> {
    if !has_manifests(neff, kelf) {
        return Ok(Signature {
            inputs: from_def_vars(kelf, VarType::Input),
            outputs: from_def_vars(kelf, VarType::Output),
        });
    }
    let inputs = match from_neff_json(neff)? {
        Some(i) => i,
        None => from_tensor_maps(neff, kelf, "input")?,
    };
    let outputs = from_tensor_maps(neff, kelf, "output")?;
    for s in inputs.iter().chain(&outputs) {
        check_var(kelf, s)?;
    }
    Ok(Signature { inputs, outputs })
}
