//! def.json `var` entries (reference §3.3): the variables (tensors, buffers, tables) the kbin's
//! mem_ref_set is built from (spec 004 §2 step 3).

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{KelfError, Result};
use crate::json_reader::{Obj, as_u32};

/// The `type` of a var (reference §3.3), plus remote variables (spec 004 §2 `remote_variable`
/// mem refs; spelling is decision D34).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum VarType {
    /// `state-buffer`: the on-chip SBUF (`SB`, var_id 0 in neuronx-cc output).
    #[serde(rename = "state-buffer")]
    StateBuffer,
    /// `input`: a model input tensor in HBM.
    #[serde(rename = "input")]
    Input,
    /// `output`: a model output tensor in HBM.
    #[serde(rename = "output")]
    Output,
    /// `file`: an HBM constant loaded from a member (`file_name`).
    #[serde(rename = "file")]
    File,
    /// `tmp-buf`: private scratch.
    #[serde(rename = "tmp-buf")]
    TmpBuf,
    /// `virtual`: a window into a shared scratchpad (`backing_variable_off`).
    #[serde(rename = "virtual")]
    Virtual,
    /// `pointer`: refers to another var (`referenced_var_id`).
    #[serde(rename = "pointer")]
    Pointer,
    /// `dge-table`: a descriptor-generation table (`list`), used by PSEUDO_DMA_DIRECT2D.
    #[serde(rename = "dge-table")]
    DgeTable,
    /// `remote-variable`: a var of another subgraph's vTPB, rebound after gen_kbin by
    /// `kelf_resolve_vtpb_remote_variables` (spec 004 §3 note; decision D38).
    #[serde(rename = "remote-variable")]
    RemoteVariable,
}

impl VarType {
    /// Every var type, in declaration order.
    pub const ALL: [VarType; 9] = [
        Self::StateBuffer,
        Self::Input,
        Self::Output,
        Self::File,
        Self::TmpBuf,
        Self::Virtual,
        Self::Pointer,
        Self::DgeTable,
        Self::RemoteVariable,
    ];

    /// The def.json spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::StateBuffer => "state-buffer",
            Self::Input => "input",
            Self::Output => "output",
            Self::File => "file",
            Self::TmpBuf => "tmp-buf",
            Self::Virtual => "virtual",
            Self::Pointer => "pointer",
            Self::DgeTable => "dge-table",
            Self::RemoteVariable => "remote-variable",
        }
    }

    /// Parses the def.json spelling (exact).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl fmt::Display for VarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `var.<name>` entry of def.json (reference §3.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Var {
    /// `type` (required).
    #[serde(rename = "type")]
    pub ty: VarType,
    /// `var_id` (required, unique; the mem_ref_set index).
    pub var_id: u32,
    /// `size` in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `alignment` in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alignment: Option<u64>,
    /// `fabric_path` (`main` | `alt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric_path: Option<String>,
    /// `file_name`: the member holding a `file` var's bytes (.npy or raw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// `backing_variable_off`: a `virtual` var's offset in its backing scratchpad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backing_variable_off: Option<u64>,
    /// `referenced_var_id`: a `pointer` var's target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub referenced_var_id: Option<u32>,
    /// `list`: a `dge-table`'s entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<Vec<u64>>,
    /// `ops`: seen empty in real NEFFs; kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<Vec<Value>>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

const KNOWN: [&str; 10] = [
    "type",
    "var_id",
    "size",
    "alignment",
    "fabric_path",
    "file_name",
    "backing_variable_off",
    "referenced_var_id",
    "list",
    "ops",
];

impl Var {
    /// Reads one var object; an unknown `type` is an error (decision D34).
    pub(crate) fn read(o: Obj<'_, '_>) -> Result<Self> {
        let ty_name = o.req_str("type")?;
        let ty = VarType::from_name(&ty_name).ok_or_else(|| KelfError::UnknownVarType {
            at: o.at.key("type").loc(),
            ty: ty_name,
        })?;
        let var_id = match o.raw("var_id") {
            Some(v) => as_u32(v, o.at.key("var_id"))?,
            None => return Err(o.missing("var_id")),
        };
        Ok(Self {
            ty,
            var_id,
            size: o.opt_u64("size")?,
            alignment: o.opt_u64("alignment")?,
            fabric_path: o.opt_str("fabric_path")?,
            file_name: o.opt_str("file_name")?,
            backing_variable_off: o.opt_u64("backing_variable_off")?,
            referenced_var_id: o.opt_u32("referenced_var_id")?,
            list: o.opt_u64_list("list")?,
            ops: o.opt_list("ops", |v, _| Ok(v.clone()))?,
            extra: o.extra(&KNOWN),
        })
    }
}
