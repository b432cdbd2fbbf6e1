//! `sgNN/def.json`, the per-subgraph section table (spec 004 §1; every key of reference §3.3 is
//! typed, the rest kept verbatim so the member writes back unchanged).

use std::collections::BTreeMap;

use neff_isa::EngineType;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::dma_queue::DmaQueue;
use crate::error::{KelfError, Result};
use crate::json_reader::{At, Obj, as_u64_list, parse_json};
use crate::var::Var;

/// The per-engine keys of def.json: `<eng>` (engine JSON), `<eng>_instr` (.bin), `<eng>_dbg`
/// and `<eng>_asm_dbg` (debug protobuf lists).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineRefs {
    /// `<eng>`: the engine JSON member (relative to the subgraph folder).
    pub json: Option<String>,
    /// `<eng>_instr`: the instruction stream member.
    pub instr: Option<String>,
    /// `<eng>_dbg`: backend debug-info members.
    pub dbg: Option<Vec<String>>,
    /// `<eng>_asm_dbg`: per-slot debug-info members.
    pub asm_dbg: Option<Vec<String>>,
}

/// `cc_streams` (collective streams).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CcStreams {
    /// `num_streams` (0 in real single-core NEFFs; the runtime seeds 1 when the key is absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_streams: Option<u32>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `fp8_conversion_config` (trn2, reference §3.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fp8ConversionConfig {
    /// `emax_fp8_e4m3` (8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emax_fp8_e4m3: Option<i64>,
    /// `emax_fp8_e5m2` (15).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emax_fp8_e5m2: Option<i64>,
    /// `fp8_range_extension`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp8_range_extension: Option<bool>,
    /// `fp8_sis`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp8_sis: Option<bool>,
    /// `fp8_sns`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp8_sns: Option<bool>,
    /// `ocp_sat`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocp_sat: Option<bool>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One `runtime_statebuffer_reservation[]` entry: an SB carveout (spec 004 §2 `sb_carveouts`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SbReservation {
    /// `base_partition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_partition: Option<u64>,
    /// `offset` (bytes per partition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// `partitions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u64>,
    /// `size` (bytes per partition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `type` (`evtaccel`).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A parsed def.json.
#[derive(Debug, Clone, PartialEq)]
pub struct DefJson {
    /// `name` (`"definition"`).
    pub name: Option<String>,
    /// `version` (`"0.6"`).
    pub version: Option<String>,
    /// `#rank_world_size` (trn2).
    pub rank_world_size: Option<i64>,
    /// Per-engine keys, indexed by [`EngineType::index`].
    pub engines: [EngineRefs; 5],
    /// `dma_dbg`.
    pub dma_dbg: Option<Vec<String>>,
    /// `debug_info`; kept as written.
    pub debug_info: Option<Value>,
    /// `cc_streams`.
    pub cc_streams: Option<CcStreams>,
    /// `dma_queue`, by queue name (sorted, the runtime's `std::map` order).
    pub dma_queue: Option<BTreeMap<String, DmaQueue>>,
    /// `var`, by var name.
    pub var: Option<BTreeMap<String, Var>>,
    /// `neff_features` (e.g. `neff_feature_vnc`).
    pub neff_features: Option<Vec<String>>,
    /// `runtime_event_count` (12).
    pub runtime_event_count: Option<u64>,
    /// `runtime_semaphore_count` (3).
    pub runtime_semaphore_count: Option<u64>,
    /// `runtime_statebuffer_reservation` (the SB carveouts).
    pub runtime_statebuffer_reservation: Option<Vec<SbReservation>>,
    /// `fp8_conversion_config`.
    pub fp8_conversion_config: Option<Fp8ConversionConfig>,
    /// `replica_groups`: lists of ranks (the sample: `[[]]`, one trivial group; spec 003 §7.1).
    pub replica_groups: Option<Vec<Vec<u64>>>,
    /// `src_target_pairs`: `[src, target]` rank pairs (decision D39).
    pub src_target_pairs: Option<Vec<Vec<u64>>>,
    /// `ucode_libs`: members of GPSIMD ucode libraries (decision D39).
    pub ucode_libs: Option<Vec<String>>,
    /// Keys neffkit does not interpret, kept verbatim.
    pub extra: Map<String, Value>,
}

/// The top-level keys [`DefJson`] types (the per-engine ones are added by [`is_engine_key`]).
const KNOWN: [&str; 16] = [
    "name",
    "version",
    "#rank_world_size",
    "dma_dbg",
    "debug_info",
    "cc_streams",
    "dma_queue",
    "var",
    "neff_features",
    "runtime_event_count",
    "runtime_semaphore_count",
    "runtime_statebuffer_reservation",
    "fp8_conversion_config",
    "replica_groups",
    "src_target_pairs",
    "ucode_libs",
];

/// The four def.json keys of engine `e`: `<e>`, `<e>_instr`, `<e>_dbg`, `<e>_asm_dbg`.
fn engine_keys(e: EngineType) -> [String; 4] {
    let k = e.key();
    [
        k.to_owned(),
        format!("{k}_instr"),
        format!("{k}_dbg"),
        format!("{k}_asm_dbg"),
    ]
}

fn is_engine_key(key: &str) -> bool {
    EngineType::ALL
        .iter()
        .any(|e| engine_keys(*e).iter().any(|k| k == key))
}

impl DefJson {
    /// Parses the def.json member `member`. A key `<x>_instr` whose `<x>` is not an engine is the
    /// `eng_name2type` error (spec 004 §2): such a stream could never be placed in a slot.
    pub fn parse(member: &str, bytes: &[u8]) -> Result<Self> {
        let v = parse_json(member, bytes)?;
        let o = Obj::new(&v, At::root(member))?;
        for key in o.map.keys() {
            if let Some(eng) = key.strip_suffix("_instr")
                && EngineType::from_name(eng).is_none()
            {
                return Err(KelfError::UnknownEngine {
                    at: o.at.key(key).loc(),
                    name: eng.to_owned(),
                });
            }
        }
        let engines = EngineType::ALL.map(|e| read_engine_refs(&o, e));
        let [pe, act, pool, dve, sp] = engines;
        let mut extra = o.extra(&KNOWN);
        extra.retain(|k, _| !is_engine_key(k));
        Ok(Self {
            name: o.opt_str("name")?,
            version: o.opt_str("version")?,
            rank_world_size: o.opt_i64("#rank_world_size")?,
            engines: [pe?, act?, pool?, dve?, sp?],
            dma_dbg: o.opt_str_list("dma_dbg")?,
            debug_info: o.raw("debug_info").cloned(),
            cc_streams: o.opt_obj("cc_streams", |c| {
                Ok(CcStreams {
                    num_streams: c.opt_u32("num_streams")?,
                    extra: c.extra(&["num_streams"]),
                })
            })?,
            dma_queue: o
                .opt_entries("dma_queue", |_, q| DmaQueue::read(q))?
                .map(|v| v.into_iter().collect()),
            var: o
                .opt_entries("var", |_, v| Var::read(v))?
                .map(|v| v.into_iter().collect()),
            neff_features: o.opt_str_list("neff_features")?,
            runtime_event_count: o.opt_u64("runtime_event_count")?,
            runtime_semaphore_count: o.opt_u64("runtime_semaphore_count")?,
            runtime_statebuffer_reservation: o
                .opt_list("runtime_statebuffer_reservation", |v, at| {
                    read_sb_reservation(Obj::new(v, at)?)
                })?,
            fp8_conversion_config: o.opt_obj("fp8_conversion_config", read_fp8)?,
            replica_groups: o.opt_list("replica_groups", as_u64_list)?,
            src_target_pairs: o.opt_list("src_target_pairs", as_u64_list)?,
            ucode_libs: o.opt_str_list("ucode_libs")?,
            extra,
        })
    }

    /// The per-engine refs of `e`.
    pub fn engine(&self, e: EngineType) -> &EngineRefs {
        &self.engines[e.index()]
    }

    /// The JSON form (value-equal to the member it was parsed from).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "name", &self.name);
        put(&mut m, "version", &self.version);
        put(&mut m, "#rank_world_size", &self.rank_world_size);
        for e in EngineType::ALL {
            let r = self.engine(e);
            let [k, ki, kd, ka] = engine_keys(e);
            put(&mut m, &k, &r.json);
            put(&mut m, &ki, &r.instr);
            put(&mut m, &kd, &r.dbg);
            put(&mut m, &ka, &r.asm_dbg);
        }
        put(&mut m, "dma_dbg", &self.dma_dbg);
        put(&mut m, "debug_info", &self.debug_info);
        put(&mut m, "cc_streams", &self.cc_streams);
        put(&mut m, "dma_queue", &self.dma_queue);
        put(&mut m, "var", &self.var);
        put(&mut m, "neff_features", &self.neff_features);
        put(&mut m, "runtime_event_count", &self.runtime_event_count);
        put(
            &mut m,
            "runtime_semaphore_count",
            &self.runtime_semaphore_count,
        );
        put(
            &mut m,
            "runtime_statebuffer_reservation",
            &self.runtime_statebuffer_reservation,
        );
        put(&mut m, "fp8_conversion_config", &self.fp8_conversion_config);
        put(&mut m, "replica_groups", &self.replica_groups);
        put(&mut m, "src_target_pairs", &self.src_target_pairs);
        put(&mut m, "ucode_libs", &self.ucode_libs);
        m.extend(self.extra.clone());
        Value::Object(m)
    }
}

/// Inserts `key: value` when the value is present.
fn put<T: Serialize>(m: &mut Map<String, Value>, key: &str, v: &Option<T>) {
    if let Some(v) = v
        && let Ok(v) = serde_json::to_value(v)
    {
        m.insert(key.to_owned(), v);
    }
}

fn read_engine_refs(o: &Obj<'_, '_>, e: EngineType) -> Result<EngineRefs> {
    let [k, ki, kd, ka] = engine_keys(e);
    Ok(EngineRefs {
        json: o.opt_str(&k)?,
        instr: o.opt_str(&ki)?,
        dbg: o.opt_str_list(&kd)?,
        asm_dbg: o.opt_str_list(&ka)?,
    })
}

fn read_sb_reservation(o: Obj<'_, '_>) -> Result<SbReservation> {
    Ok(SbReservation {
        base_partition: o.opt_u64("base_partition")?,
        offset: o.opt_u64("offset")?,
        partitions: o.opt_u64("partitions")?,
        size: o.opt_u64("size")?,
        ty: o.opt_str("type")?,
        extra: o.extra(&["base_partition", "offset", "partitions", "size", "type"]),
    })
}

fn read_fp8(o: Obj<'_, '_>) -> Result<Fp8ConversionConfig> {
    Ok(Fp8ConversionConfig {
        emax_fp8_e4m3: o.opt_i64("emax_fp8_e4m3")?,
        emax_fp8_e5m2: o.opt_i64("emax_fp8_e5m2")?,
        fp8_range_extension: o.opt_bool("fp8_range_extension")?,
        fp8_sis: o.opt_bool("fp8_sis")?,
        fp8_sns: o.opt_bool("fp8_sns")?,
        ocp_sat: o.opt_bool("ocp_sat")?,
        extra: o.extra(&[
            "emax_fp8_e4m3",
            "emax_fp8_e5m2",
            "fp8_range_extension",
            "fp8_sis",
            "fp8_sns",
            "ocp_sat",
        ]),
    })
}
