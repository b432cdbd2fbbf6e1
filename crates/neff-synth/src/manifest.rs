//! The JSON manifests of a synthetic NEFF, copying the shape of the verbatim real ones
//! (reference §3.1 trn1, §3.2 trn2): `neff.json` (one `__kelf` node) -> `kelf-0.json` ->
//! `sgNN/def.json` (engine refs, `dma_queue`, `var`) -> `sgNN/<Engine>.json` (`instr`, `dma`).
//! Keys are written in the compilers' sorted order.

use serde_json::{Value, json};

use neff_isa::EngineType as Engine;

use crate::debug_info;
use crate::engine::{QUEUE_SEMAPHORES, dma_queue, queue_semaphore_base};
use crate::options::SynthTarget;
use crate::shape::Shape;
use crate::stream::StreamStats;

/// Bytes of each I/O tensor var (`in0`, `in1`, `out`): 128 partitions x 2 tiles x 4096 bytes.
pub const IO_VAR_BYTES: u64 = 1 << 20;
/// The var a collective reduces from: `in0` (a collective's input tensor id is a var_id that must
/// resolve to a mem ref large enough, neff-load decision D285).
pub const CC_INPUT_VAR: u32 = 1;
/// The var a collective writes: `out`.
pub const CC_OUTPUT_VAR: u32 = 3;
/// Bytes of one DMA tile row (`from_sizes[0]`), 4096 bytes = 1024 fp32.
const TILE_ROW: u64 = 4096;
/// SBUF partition stride in DMA address space (reference §3.3: 262144).
const SB_PARTITION_STRIDE: u64 = 262_144;

/// The subgraph folder name, `sg00`.. (reference §2).
pub fn subgraph_name(sg: u32) -> String {
    format!("sg{sg:02}")
}

/// `kelf-0.json` (reference §3.1: `{"graphs": [...], "version": "0.5", "target": ...}`).
pub fn kelf(subgraphs: u32, target: SynthTarget) -> Value {
    let graphs: Vec<Value> = (0..subgraphs)
        .map(|sg| json!({"definition": format!("{}/def.json", subgraph_name(sg)), "name": subgraph_name(sg)}))
        .collect();
    json!({"graphs": graphs, "version": "0.5", "target": target.name()})
}

/// `neff.json`: the TVM-style graph with inputs `in0`, `in1` and one `__kelf` node producing
/// `out` (reference §3.1 verbatim shape).
pub fn neff_json() -> Value {
    let elems = IO_VAR_BYTES / 4;
    json!({
        "nodes": [
            {"op": "null", "name": "in0", "inputs": [], "output_names": ["in0"], "is_param": "0"},
            {"op": "null", "name": "in1", "inputs": [], "output_names": ["in1"], "is_param": "0"},
            {"op": "tvm_op", "name": "sg_coreV10", "attrs": {"func_name": "__kelf", "flatten_data": "0",
                "num_inputs": "2", "kelf": "kelf-0.json", "num_outputs": "1"},
             "inputs": [[0, 0, 0], [1, 0, 0]], "output_names": ["out"]}
        ],
        "arg_nodes": [0, 1],
        "heads": [[2, 0, 0]],
        "attrs": {
            "shape": ["list_shape", [[elems], [elems], [elems]]],
            "storage_id": ["list_int", [0, 1, 2]],
            "dltype": ["list_str", ["float32", "float32", "float32"]]
        },
        "node_row_ptr": [0, 1, 2, 3],
        "metadata": {"signatures": {"default": {
            "inputs": {"in0": {"id": 0, "dtype": "float32", "shape": [elems]},
                       "in1": {"id": 1, "dtype": "float32", "shape": [elems]}},
            "outputs": {}}}}
    })
}

/// `info.json` (reference §3.1 shape; the tool version names neffkit).
pub fn info_json() -> Value {
    let mut per_node = vec![0u8; 64];
    per_node[0] = 1;
    json!({"tool_version": concat!("neffkit-synth ", env!("CARGO_PKG_VERSION")), "kelp_version": "Dynamic",
           "name": "file.neff", "num_tpb": 1, "num_tpb_requested": 1, "num_tpb_per_node": per_node})
}

/// `act_info.json`: the PWP table index with no sets (reference §3.1 keys).
pub fn act_info_json() -> Value {
    json!({"pwp_file_keys": ["bkt_bin", "ctrl_bin", "profile_json"], "act_func_sets": []})
}

/// The DVE table members `(name, size)` of a target (reference §2 member lists).
pub fn dve_tables(target: SynthTarget) -> &'static [(&'static str, usize)] {
    match target {
        SynthTarget::Sunda => &[
            ("default_control_table.bin", 2048),
            ("default_datapath_table.bin", 8192),
            ("default_opcode_table.bin", 2048),
        ],
        SynthTarget::Cayman => &[
            ("default_control_fast_table.bin", 4096),
            ("default_control_slow_table.bin", 4096),
            ("default_datapath_table.bin", 16384),
            ("default_opcode_table.bin", 1024),
        ],
    }
}

/// `sgNN/def.json`: engine refs, the queues of the engines that DMA, the vars, and (when any
/// stream triggers collectives) one trivial replica group and one cc stream; with
/// `shape.debug_info` the `<eng>_asm_dbg` / `<eng>_dbg` / `dma_dbg` lists of reference §3.1.
pub fn def_json(target: SynthTarget, stats: &[StreamStats; 5], shape: &Shape) -> Value {
    let mut o = serde_json::Map::new();
    if target == SynthTarget::Cayman {
        o.insert("#rank_world_size".into(), json!(0));
    }
    let collectives = stats.iter().any(|s| s.collectives > 0);
    let mut engines: Vec<Engine> = Engine::ALL.to_vec();
    engines.sort_by_key(|e| e.key());
    let mut entries: Vec<(String, Value)> = Vec::new();
    for e in engines {
        entries.push((
            e.key().into(),
            json!(format!("{}.json", e.real_file_stem())),
        ));
        entries.push((
            format!("{}_instr", e.key()),
            json!(format!("{}.bin", e.real_file_stem())),
        ));
        if shape.debug_info {
            entries.push((
                format!("{}_asm_dbg", e.key()),
                json!([debug_info::asm_member(e)]),
            ));
            entries.push((
                format!("{}_dbg", e.key()),
                json!([debug_info::backend_member(e)]),
            ));
        }
    }
    if shape.debug_info {
        entries.push(("dma_dbg".into(), json!([debug_info::DMA_BACKEND_MEMBER])));
    }
    entries.push((
        "cc_streams".into(),
        json!({"num_streams": u32::from(collectives)}),
    ));
    entries.push(("debug_info".into(), json!({})));
    entries.push(("dma_queue".into(), dma_queues(target)));
    if target == SynthTarget::Cayman {
        entries.push((
            "fp8_conversion_config".into(),
            json!({"emax_fp8_e4m3": 8, "emax_fp8_e5m2": 15, "fp8_range_extension": true,
                   "fp8_sis": false, "fp8_sns": false, "ocp_sat": true}),
        ));
    }
    entries.push(("name".into(), json!("definition")));
    entries.push(("neff_features".into(), json!([])));
    if collectives {
        entries.push(("replica_groups".into(), json!([[]])));
    }
    entries.push(("runtime_event_count".into(), json!(12)));
    entries.push((
        "runtime_semaphore_count".into(),
        json!(crate::engine::RUNTIME_SEMAPHORES),
    ));
    if target == SynthTarget::Cayman {
        entries.push((
            "runtime_statebuffer_reservation".into(),
            json!([{"base_partition": 0, "offset": 229368, "partitions": 128, "size": 8, "type": "evtaccel"}]),
        ));
    }
    entries.push(("var".into(), vars(target, shape.extra_vars)));
    entries.push(("version".into(), json!("0.6")));
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    o.extend(entries);
    Value::Object(o)
}

/// `dma_queue`: one queue per DMA-issuing engine, 16 queues, its 16 semaphores (reference
/// §3.1 trn1 `type: in`; §3.2 trn2 `type: dynamic`, Pool's with `dynamic_dma`).
fn dma_queues(target: SynthTarget) -> Value {
    let mut queues = serde_json::Map::new();
    let mut owned: Vec<(&str, Engine)> = Engine::ALL
        .iter()
        .filter_map(|&e| dma_queue(e, target).map(|q| (q, e)))
        .collect();
    owned.sort();
    for (name, e) in owned {
        let base = queue_semaphore_base(e);
        let set: Vec<u8> = (base..base + QUEUE_SEMAPHORES).collect();
        let q = match target {
            SynthTarget::Sunda => json!({"fabric_path": "main", "num_queues": 16, "owner": e.key(),
                                         "semaphore_set": set, "type": "in"}),
            SynthTarget::Cayman if e == Engine::Pool => json!({
                "dynamic_dma": {"SB_scratch_partition_offset": 0, "SB_scratch_partition_size": 16384},
                "fabric_path": "main", "num_queues": 16, "owner": e.key(), "semaphore_set": set, "type": "dynamic"}),
            SynthTarget::Cayman => {
                json!({"fabric_path": "main", "num_queues": 16, "owner": e.key(),
                                          "semaphore_set": set, "type": "dynamic"})
            }
        };
        queues.insert(name.into(), q);
    }
    Value::Object(queues)
}

/// The name of extra var `k` ([`Shape::extra_vars`]).
pub fn extra_var(k: u64) -> String {
    format!("tmp{k:06}")
}

/// `var`: SB (var 0), inputs `in0`/`in1`, output `out`, on trn2 the `dge-table` the DIRECT2D
/// slots index (reference §3.2 `DGETable0 {list: [1, 2, 3]}`), then `extra` `tmp-buf` vars of
/// [`IO_VAR_BYTES`] each, ids following.
fn vars(target: SynthTarget, extra: u32) -> Value {
    let mut v = json!({
        "SB": {"type": "state-buffer", "var_id": 0},
        "in0": {"ops": [], "size": IO_VAR_BYTES, "type": "input", "var_id": 1},
        "in1": {"ops": [], "size": IO_VAR_BYTES, "type": "input", "var_id": 2},
        "out": {"ops": [], "size": IO_VAR_BYTES, "type": "output", "var_id": 3}
    });
    if target == SynthTarget::Cayman
        && let Value::Object(m) = &mut v
    {
        let mut all: Vec<(String, Value)> = std::mem::take(m).into_iter().collect();
        all.push((
            "DGETable0".into(),
            json!({"list": [1, 2, 3], "type": "dge-table", "var_id": 4}),
        ));
        all.sort_by(|a, b| a.0.cmp(&b.0));
        m.extend(all);
    }
    if extra > 0
        && let Value::Object(m) = &mut v
    {
        let first = m.len() as u64;
        let mut all: Vec<(String, Value)> = std::mem::take(m).into_iter().collect();
        all.extend((0..u64::from(extra)).map(|k| {
            let var =
                json!({"ops": [], "size": IO_VAR_BYTES, "type": "tmp-buf", "var_id": first + k});
            (extra_var(k), var)
        }));
        all.sort_by(|a, b| a.0.cmp(&b.0));
        m.extend(all);
    }
    v
}

/// `sgNN/<Engine>.json`: `dma` blocks (trn1 engines with a queue: ids `0..stats.dma_blocks()`,
/// the ids the triggers name), `instr`, `name`, and the engine's tables.
pub fn engine_json(
    engine: Engine,
    target: SynthTarget,
    stats: &StreamStats,
    shape: &Shape,
) -> Value {
    let blocks: Vec<Value> = match (target, dma_queue(engine, target)) {
        (SynthTarget::Sunda, Some(queue)) => (0..stats.dma_blocks())
            .map(|id| dma_block(engine, queue, id, shape))
            .collect(),
        _ => Vec::new(),
    };
    let mut o = serde_json::Map::new();
    match engine {
        Engine::Act => {
            o.insert("act_info".into(), json!("act_info.json"));
            o.insert("act_semaphore".into(), json!(12));
            o.insert("activation_function_sets".into(), json!([]));
            o.insert("dma".into(), json!(blocks));
        }
        Engine::Dve => {
            o.insert("dma".into(), json!(blocks));
            let tables = dve_tables(target);
            let t = match target {
                SynthTarget::Sunda => {
                    json!([{"control_table": tables[0].0, "datapath_table": tables[1].0,
                                              "opcode_table": tables[2].0}])
                }
                SynthTarget::Cayman => {
                    json!([{"control_fast_table": tables[0].0, "control_slow_table": tables[1].0,
                                               "datapath_table": tables[2].0, "opcode_table": tables[3].0}])
                }
            };
            o.insert("dve_tables".into(), t);
        }
        _ => {
            o.insert("dma".into(), json!(blocks));
        }
    }
    o.insert(
        "instr".into(),
        json!(format!("{}.bin", engine.real_file_stem())),
    );
    o.insert(
        "name".into(),
        json!(format!("{}.json", engine.real_file_stem())),
    );
    Value::Object(o)
}

/// Partitions (rows) of one DMA tile.
const TILE_ROWS: u64 = 128;

/// One DMA block (reference §3.1 SP.json / Pool.json shape): SP loads an input tile into SB,
/// the others store an SB tile to `out`; completion on the queue's semaphore `base + id % 16`.
/// With [`Shape::descs`] > 1 the tile moves as one descriptor per partition row (rows past
/// 128 start over), and with extra vars every descriptor but the first moves to or from one
/// (decision D520).
fn dma_block(engine: Engine, queue: &str, id: u64, shape: &Shape) -> Value {
    let n = u64::from(shape.descs());
    let desc: Vec<Value> = (0..n)
        .map(|k| dma_desc(engine, id, k, n, shape.extra_vars))
        .collect();
    json!({
        "#comment": format!("I-{}-{}-block-1", 4 + id / 2, id % 2),
        "desc": desc,
        "id": id,
        "queue": queue,
        "semaphore": u64::from(queue_semaphore_base(engine)) + id % u64::from(QUEUE_SEMAPHORES)
    })
}

/// Descriptor `k` of `n` of block `id`: the whole tile when `n` is 1, else partition row
/// `k % 128` of it.
fn dma_desc(engine: Engine, id: u64, k: u64, n: u64, extra: u32) -> Value {
    let (rows, row) = if n == 1 {
        (TILE_ROWS, 0)
    } else {
        (1, k % TILE_ROWS)
    };
    let io_off = (id / 2 % 2) * TILE_ROW * TILE_ROWS + row * TILE_ROW;
    let sb_off = (id % 8) * 16384 + row * SB_PARTITION_STRIDE;
    let io_var = |plain: &str| match extra {
        0 => plain.to_owned(),
        _ if k == 0 => plain.to_owned(),
        _ => extra_var((id * n + k) % u64::from(extra)),
    };
    let io = |var: String| (var, io_off, json!([1, TILE_ROW]));
    let sb = ("SB".to_owned(), sb_off, json!([1, SB_PARTITION_STRIDE]));
    let (from, to) = if engine == Engine::Sp {
        (
            io(io_var(if id.is_multiple_of(2) { "in0" } else { "in1" })),
            sb,
        )
    } else {
        (sb, io(io_var("out")))
    };
    json!({
        "from": from.0, "from_dtype": "float32", "from_off": from.1, "from_sizes": [TILE_ROW, rows],
        "from_steps": from.2, "num_tiling_dimensions": 1, "op": "copy",
        "to": to.0, "to_dtype": "float32", "to_off": to.1, "to_sizes": [TILE_ROW, rows], "to_steps": to.2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kelf_matches_the_real_shape() {
        let k = kelf(1, SynthTarget::Sunda);
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#"{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"version":"0.5","target":"sunda"}"#
        );
    }

    #[test]
    fn sunda_def_has_the_real_queues_and_sorted_keys() {
        let d = def_json(
            SynthTarget::Sunda,
            &[StreamStats::default(); 5],
            &Shape::default(),
        );
        assert_eq!(d["dma_queue"]["qSPIO0"]["semaphore_set"][0], 8);
        assert_eq!(d["dma_queue"]["qPoolIO0"]["owner"], "pool");
        assert_eq!(d["sp_instr"], "SP.bin");
        assert_eq!(d["act"], "Activation.json");
        let keys: Vec<&String> = d.as_object().unwrap().keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(d.get("replica_groups").is_none());
    }

    #[test]
    fn cayman_def_has_dynamic_queues_and_a_dge_table() {
        let mut stats = [StreamStats::default(); 5];
        stats[0].collectives = 1;
        let d = def_json(SynthTarget::Cayman, &stats, &Shape::default());
        assert_eq!(d["dma_queue"]["qPoolDynamic"]["type"], "dynamic");
        assert_eq!(d["dma_queue"]["qActDynamicHW"]["semaphore_set"][15], 55);
        assert_eq!(d["var"]["DGETable0"]["list"], json!([1, 2, 3]));
        assert_eq!(d["replica_groups"], json!([[]]));
        assert_eq!(d["cc_streams"]["num_streams"], 1);
    }

    #[test]
    fn sp_blocks_load_inputs_into_sb() {
        let stats = StreamStats {
            dma: 3,
            ..StreamStats::default()
        };
        let j = engine_json(Engine::Sp, SynthTarget::Sunda, &stats, &Shape::default());
        let dma = j["dma"].as_array().unwrap();
        assert_eq!(dma.len(), 3);
        assert_eq!(dma[1]["id"], 1);
        assert_eq!(dma[1]["queue"], "qSPIO0");
        assert_eq!(dma[1]["semaphore"], 9);
        assert_eq!(dma[1]["desc"][0]["from"], "in1");
        assert_eq!(dma[1]["desc"][0]["to"], "SB");
        assert!(
            engine_json(Engine::Pool, SynthTarget::Cayman, &stats, &Shape::default())["dma"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
}
