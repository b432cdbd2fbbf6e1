//! A learned runtime as a JSON file (decision D850): what [`LearnedRuntime`] holds — each
//! engine's PREAMBLE and POSTAMBLE slots per content key, the teacher's queue blocks, the rules
//! its words confirm — written so that a runtime learned from captures can be kept and loaded
//! without them. The runtime model's built-in 2.30.51 regions are such a file
//! ([`super::builtin`]).
//!
//! Slots are 128 hex digits each, one per line of the pretty-printed file, so that a change to
//! the file reads slot by slot in a diff. Reading checks every field and names it by its JSON
//! pointer (`/variants/3/preamble/12`).

use std::ops::Range;

use neff_isa::{EngineType, SLOT_BYTES};
use serde::{Deserialize, Serialize};

use super::learned::LearnedRuntime;
use super::queue_block::StaticQueue;
use super::variant::{Confirmed, LearnedVariant, TeacherQueueBlock, VariantKey};

/// The `format` string of the files this module writes and reads.
pub const FORMAT: &str = "neffkit learned runtime 1";

/// Why a learned-runtime file does not read.
#[derive(Debug, thiserror::Error)]
pub enum SavedError {
    /// Not JSON of the file's shape (serde_json says where: line and column).
    #[error("not a learned-runtime file: {0}")]
    Json(#[from] serde_json::Error),
    /// A field holds a value the runtime model cannot take.
    #[error("{pointer}: {why}")]
    Invalid {
        /// The field's JSON pointer.
        pointer: String,
        /// What is wrong with it.
        why: String,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedRuntime {
    format: String,
    version: String,
    capture: String,
    /// `[start, end)` of the relocation window, `0x` hex.
    window: [String; 2],
    taught_pseudos: Option<Vec<u8>>,
    variants: Vec<SavedVariant>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedVariant {
    engine: String,
    subgraph: String,
    tables: bool,
    dge_table: bool,
    static_queues: u8,
    data_queues: u8,
    program_start: usize,
    model_switch: [usize; 2],
    confirmed_masks: bool,
    confirmed_counts: bool,
    table_sets: Vec<usize>,
    queue_block: Option<SavedQueueBlock>,
    preamble: Vec<String>,
    postamble: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedQueueBlock {
    queue_index: u8,
    queue_data: bool,
    queue_blocks: u16,
    preamble: [usize; 2],
    postamble: [usize; 2],
    builder_confirmed: bool,
    cut_confirmed: Option<bool>,
}

/// `runtime` as the file's JSON text (pretty-printed, a newline at the end).
pub fn to_json(runtime: &LearnedRuntime) -> String {
    let saved = SavedRuntime {
        format: FORMAT.to_owned(),
        version: runtime.version.clone(),
        capture: runtime.capture.clone(),
        window: [
            format!("{:#x}", runtime.window.start),
            format!("{:#x}", runtime.window.end),
        ],
        taught_pseudos: runtime.taught_pseudos.clone(),
        variants: runtime.variants.iter().map(saved_variant).collect(),
    };
    // Serialising plain strings, numbers and vectors cannot fail.
    let mut text = serde_json::to_string_pretty(&saved).unwrap_or_default();
    text.push('\n');
    text
}

fn saved_variant(v: &LearnedVariant) -> SavedVariant {
    let slots = |bytes: &[u8]| -> Vec<String> {
        bytes
            .chunks_exact(SLOT_BYTES)
            .map(|s| s.iter().map(|b| format!("{b:02x}")).collect())
            .collect()
    };
    let pair = |r: &Range<usize>| [r.start, r.end];
    SavedVariant {
        engine: v.engine.key().to_owned(),
        subgraph: v.subgraph.clone(),
        tables: v.key.tables,
        dge_table: v.key.dge_table,
        static_queues: v.key.static_queues,
        data_queues: v.key.data_queues,
        program_start: v.program_start,
        model_switch: pair(&v.model_switch),
        confirmed_masks: v.confirmed.masks,
        confirmed_counts: v.confirmed.counts,
        table_sets: v.table_sets.clone(),
        queue_block: v.queue_block.as_ref().map(|b| SavedQueueBlock {
            queue_index: b.queue.index,
            queue_data: b.queue.data,
            queue_blocks: b.queue.blocks,
            preamble: pair(&b.preamble),
            postamble: pair(&b.postamble),
            builder_confirmed: b.builder_confirmed,
            cut_confirmed: b.cut_confirmed,
        }),
        preamble: slots(&v.preamble),
        postamble: slots(&v.postamble),
    }
}

/// Reads a learned-runtime file's JSON text; every field is checked, an error names the first
/// wrong one by its JSON pointer.
pub fn from_json(text: &str) -> Result<LearnedRuntime, SavedError> {
    let saved: SavedRuntime = serde_json::from_str(text)?;
    if saved.format != FORMAT {
        return Err(invalid(
            "/format".into(),
            format!("`{}`, expected `{FORMAT}`", saved.format),
        ));
    }
    let [start, end] = &saved.window;
    let window = hex_u64("/window/0", start)?..hex_u64("/window/1", end)?;
    if window.start > window.end {
        return Err(invalid("/window".into(), "starts after its end".into()));
    }
    let variants = saved
        .variants
        .into_iter()
        .enumerate()
        .map(|(i, v)| variant(&format!("/variants/{i}"), v))
        .collect::<Result<_, _>>()?;
    Ok(LearnedRuntime {
        version: saved.version,
        capture: saved.capture,
        window,
        variants,
        taught_pseudos: saved.taught_pseudos,
    })
}

fn invalid(pointer: String, why: String) -> SavedError {
    SavedError::Invalid { pointer, why }
}

fn hex_u64(pointer: &str, s: &str) -> Result<u64, SavedError> {
    s.strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| invalid(pointer.into(), format!("`{s}` is not a 0x hex u64")))
}

fn variant(at: &str, v: SavedVariant) -> Result<LearnedVariant, SavedError> {
    let engine = v
        .engine
        .parse::<EngineType>()
        .map_err(|e| invalid(format!("{at}/engine"), e.to_string()))?;
    let preamble = slot_bytes(&format!("{at}/preamble"), &v.preamble)?;
    let postamble = slot_bytes(&format!("{at}/postamble"), &v.postamble)?;
    let pre_slots = v.preamble.len();
    let model_switch = range(&format!("{at}/model_switch"), v.model_switch, pre_slots)?;
    if v.program_start >= pre_slots {
        return Err(invalid(
            format!("{at}/program_start"),
            format!(
                "slot {} is not in the {pre_slots}-slot PREAMBLE",
                v.program_start
            ),
        ));
    }
    if postamble.is_empty() {
        return Err(invalid(
            format!("{at}/postamble"),
            "empty: a POSTAMBLE ends in its branch back".into(),
        ));
    }
    let queue_block = v
        .queue_block
        .map(|b| -> Result<_, SavedError> {
            Ok(TeacherQueueBlock {
                queue: StaticQueue {
                    index: b.queue_index,
                    data: b.queue_data,
                    blocks: b.queue_blocks,
                },
                preamble: range(&format!("{at}/queue_block/preamble"), b.preamble, pre_slots)?,
                postamble: range(
                    &format!("{at}/queue_block/postamble"),
                    b.postamble,
                    v.postamble.len(),
                )?,
                builder_confirmed: b.builder_confirmed,
                cut_confirmed: b.cut_confirmed,
            })
        })
        .transpose()?;
    Ok(LearnedVariant {
        engine,
        subgraph: v.subgraph,
        key: VariantKey {
            tables: v.tables,
            dge_table: v.dge_table,
            static_queues: v.static_queues,
            data_queues: v.data_queues,
        },
        preamble,
        program_start: v.program_start,
        model_switch,
        postamble,
        queue_block,
        confirmed: Confirmed {
            masks: v.confirmed_masks,
            counts: v.confirmed_counts,
        },
        table_sets: v.table_sets,
    })
}

/// `[start, end)` of slots inside a region of `len` slots.
fn range(at: &str, [start, end]: [usize; 2], len: usize) -> Result<Range<usize>, SavedError> {
    if start > end || end > len {
        return Err(invalid(
            at.into(),
            format!("[{start}, {end}) is not a range of the region's {len} slots"),
        ));
    }
    Ok(start..end)
}

/// The bytes of a region's hex slots, each exactly one slot.
fn slot_bytes(at: &str, slots: &[String]) -> Result<Vec<u8>, SavedError> {
    let mut bytes = Vec::with_capacity(slots.len().saturating_mul(SLOT_BYTES));
    for (i, s) in slots.iter().enumerate() {
        match neff_isa::text::parse_hex_bytes(s) {
            Some(b) if b.len() == SLOT_BYTES => bytes.extend_from_slice(&b),
            _ => {
                return Err(invalid(
                    format!("{at}/{i}"),
                    format!("not a slot: {SLOT_BYTES} bytes as hex digits"),
                ));
            }
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> LearnedRuntime {
        let slot = |op: u8| {
            let mut s = vec![0u8; SLOT_BYTES];
            s[0] = op;
            s
        };
        LearnedRuntime {
            version: "2.30.51".into(),
            capture: "a capture".into(),
            window: 0x8005_0000_0000..0x8006_0000_0000,
            variants: vec![LearnedVariant {
                engine: EngineType::Pool,
                subgraph: "sg00".into(),
                key: VariantKey {
                    tables: false,
                    dge_table: true,
                    static_queues: 1,
                    data_queues: 0,
                },
                preamble: [slot(0xa5), slot(0xab), slot(0xb1)].concat(),
                program_start: 1,
                model_switch: 2..2,
                postamble: [slot(0xa5), slot(0xb2)].concat(),
                queue_block: Some(TeacherQueueBlock {
                    queue: StaticQueue {
                        index: 3,
                        data: false,
                        blocks: 1,
                    },
                    preamble: 0..2,
                    postamble: 0..1,
                    builder_confirmed: true,
                    cut_confirmed: None,
                }),
                confirmed: Confirmed {
                    masks: true,
                    counts: false,
                },
                table_sets: vec![0],
            }],
            taught_pseudos: Some(vec![0xcc, 0xd4]),
        }
    }

    #[test]
    fn a_runtime_reads_back_as_written() {
        let r = runtime();
        let text = to_json(&r);
        assert_eq!(from_json(&text).unwrap(), r);
        assert_eq!(to_json(&from_json(&text).unwrap()), text);
    }

    #[test]
    fn a_wrong_field_is_named_by_its_pointer() {
        let text = to_json(&runtime());
        let cases = [
            (
                text.replacen("\"pool\"", "\"tpb\"", 1),
                "/variants/0/engine",
            ),
            (text.replacen("\"a5", "\"zz", 1), "/variants/0/preamble/0"),
            (
                text.replacen("\"b2", "\"b2ff", 1),
                "/variants/0/postamble/1",
            ),
            (
                text.replacen("\"program_start\": 1", "\"program_start\": 3", 1),
                "/variants/0/program_start",
            ),
            (text.replacen("0x8006", "0xzz", 1), "/window/1"),
            (text.replacen("runtime 1", "runtime 9", 1), "/format"),
        ];
        for (bad, pointer) in cases {
            match from_json(&bad) {
                Err(SavedError::Invalid { pointer: p, .. }) => assert_eq!(p, pointer),
                other => panic!("{pointer}: {other:?}"),
            }
        }
        assert!(matches!(
            from_json("{\"format\": 1}"),
            Err(SavedError::Json(_))
        ));
    }
}
