//! The per-engine JSON (`PE.json`, `pe.json`, ...; reference §3.3): `{name, instr, dma[]}` plus the
//! Activation keys (`act_info`, `act_semaphore`, `activation_function_sets`) and DVE `dve_tables`.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dma_block::DmaBlock;
use crate::error::Result;
use crate::json_reader::{At, Obj, parse_json};

/// One `dve_tables[]` entry: trn1 has one `control_table`, trn2 a fast/slow pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DveTables {
    /// `control_table` (trn1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_table: Option<String>,
    /// `control_fast_table` (trn2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_fast_table: Option<String>,
    /// `control_slow_table` (trn2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_slow_table: Option<String>,
    /// `datapath_table`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datapath_table: Option<String>,
    /// `opcode_table`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opcode_table: Option<String>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The table keys of a `dve_tables[]` entry, each naming a member.
const DVE_KNOWN: [&str; 5] = [
    "control_table",
    "control_fast_table",
    "control_slow_table",
    "datapath_table",
    "opcode_table",
];

impl DveTables {
    pub(crate) fn read(o: Obj<'_, '_>) -> Result<Self> {
        Ok(Self {
            control_table: o.opt_str("control_table")?,
            control_fast_table: o.opt_str("control_fast_table")?,
            control_slow_table: o.opt_str("control_slow_table")?,
            datapath_table: o.opt_str("datapath_table")?,
            opcode_table: o.opt_str("opcode_table")?,
            extra: o.extra(&DVE_KNOWN),
        })
    }

    /// The (key, member name) pairs present, in a fixed order.
    pub fn tables(&self) -> Vec<(&'static str, &str)> {
        let all = [
            &self.control_table,
            &self.control_fast_table,
            &self.control_slow_table,
            &self.datapath_table,
            &self.opcode_table,
        ];
        DVE_KNOWN
            .iter()
            .zip(all)
            .filter_map(|(k, v)| v.as_deref().map(|v| (*k, v)))
            .collect()
    }
}

/// A parsed engine JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineJson {
    /// `name` (the JSON's own file name in real NEFFs, `pe_array_json` in the spec's sample).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `instr`: the .bin member (relative to the subgraph folder) holding the instruction stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instr: Option<String>,
    /// `dma[]`: static DMA blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dma: Option<Vec<DmaBlock>>,
    /// Activation `act_info`: the PWP table-set index member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act_info: Option<String>,
    /// Activation `act_semaphore` (12 in all real files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act_semaphore: Option<u32>,
    /// Activation `activation_function_sets[]`: the set names shipped with the NEFF.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation_function_sets: Option<Vec<String>>,
    /// DVE `dve_tables[]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dve_tables: Option<Vec<DveTables>>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

const KNOWN: [&str; 7] = [
    "name",
    "instr",
    "dma",
    "act_info",
    "act_semaphore",
    "activation_function_sets",
    "dve_tables",
];

impl EngineJson {
    /// Parses the engine JSON member `member`.
    pub fn parse(member: &str, bytes: &[u8]) -> Result<Self> {
        // D530: straight from the bytes; what that refuses, the located reader explains.
        match crate::engine_json_direct::parse(bytes) {
            Some(e) => Ok(e),
            None => Self::parse_located(member, bytes),
        }
    }

    /// [`EngineJson::parse`] through the `Value` tree, every error naming its JSON pointer.
    pub(crate) fn parse_located(member: &str, bytes: &[u8]) -> Result<Self> {
        let v = parse_json(member, bytes)?;
        Self::read(Obj::new(&v, At::root(member))?)
    }

    fn read(o: Obj<'_, '_>) -> Result<Self> {
        Ok(Self {
            name: o.opt_str("name")?,
            instr: o.opt_str("instr")?,
            dma: o.opt_list("dma", |v, at| DmaBlock::read(Obj::new(v, at)?))?,
            act_info: o.opt_str("act_info")?,
            act_semaphore: o.opt_u32("act_semaphore")?,
            activation_function_sets: o.opt_str_list("activation_function_sets")?,
            dve_tables: o.opt_list("dve_tables", |v, at| DveTables::read(Obj::new(v, at)?))?,
            extra: o.extra(&KNOWN),
        })
    }

    /// The JSON form (value-equal to the member it was parsed from).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The DMA blocks (empty when `dma` is absent).
    pub fn dma_blocks(&self) -> &[DmaBlock] {
        self.dma.as_deref().unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// trn1 `sg00/Pool.json` of reference §3.1, verbatim.
    const TRN1_POOL: &str = r##"{"dma": [{"#comment": "I-10-0-block-1", "desc": [{"from": "SB", "from_dtype": "float32", "from_off": 16384, "from_sizes": [4000, 128], "from_steps": [1, 262144], "num_tiling_dimensions": 1, "op": "copy", "to": "out", "to_dtype": "float32", "to_off": 0, "to_sizes": [4000, 128], "to_steps": [1, 4000]}], "id": 0, "queue": "qPoolIO0", "semaphore": 24}, {"#comment": "I-10-1-block-1", "desc": [{"from": "SB", "from_dtype": "float32", "from_off": 20384, "from_sizes": [4000, 128], "from_steps": [1, 262144], "num_tiling_dimensions": 1, "op": "copy", "to": "out", "to_dtype": "float32", "to_off": 512000, "to_sizes": [4000, 128], "to_steps": [1, 4000]}], "id": 1, "queue": "qPoolIO0", "semaphore": 25}], "instr": "Pool.bin", "name": "Pool.json"}"##;

    #[test]
    fn trn1_pool_json_reads_every_descriptor_field() {
        let e = EngineJson::parse("sg00/Pool.json", TRN1_POOL.as_bytes()).unwrap();
        let b = &e.dma_blocks()[1];
        assert_eq!(
            (b.id, b.queue.as_deref(), b.semaphore),
            (1, Some("qPoolIO0"), Some(25))
        );
        assert_eq!(b.comment.as_deref(), Some("I-10-1-block-1"));
        let d = &b.desc[0];
        assert_eq!(d.from_kbin_dtype().map(|t| t as u8), Some(5));
        assert_eq!(d.from_steps.as_deref(), Some(&[1, 262144][..]));
        assert_eq!(
            (d.to_off, d.to_sizes.as_deref()),
            (Some(512000), Some(&[4000, 128][..]))
        );
        assert_eq!(
            e.to_value(),
            serde_json::from_str::<Value>(TRN1_POOL).unwrap()
        );
    }

    #[test]
    fn activation_and_dve_keys_of_reference_3_2() {
        let act = r#"{"act_info":"act_info.json","act_semaphore":12,"activation_function_sets":["exp_and_others"],"dma":[],"instr":"Activation.bin","name":"Activation.json"}"#;
        let e = EngineJson::parse("sg00/Activation.json", act.as_bytes()).unwrap();
        assert_eq!(e.act_semaphore, Some(12));
        assert_eq!(
            e.activation_function_sets.as_deref(),
            Some(&["exp_and_others".to_owned()][..])
        );
        let dve = r#"{"dma":[],"dve_tables":[{"control_fast_table":"f.bin","control_slow_table":"s.bin","datapath_table":"d.bin","opcode_table":"o.bin"}],"instr":"DVE.bin","name":"DVE.json"}"#;
        let e = EngineJson::parse("sg00/DVE.json", dve.as_bytes()).unwrap();
        let tables = e.dve_tables.as_ref().unwrap()[0].tables();
        assert_eq!(tables.len(), 4);
        assert_eq!(e.to_value(), serde_json::from_str::<Value>(dve).unwrap());
    }

    #[test]
    fn unknown_dtype_names_the_pointer() {
        let j = r#"{"dma":[{"id":0,"queue":"q","desc":[{"from_dtype":"fp32"}]}]}"#;
        let e = EngineJson::parse("sg00/SP.json", j.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("sg00/SP.json#/dma/0/desc/0/from_dtype: unknown dtype `fp32`"),
            "{e}"
        );
    }
}
