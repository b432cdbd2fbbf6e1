//! The `neff diff --json` document (docs/json.md): [`NeffDiff`] as serde gives it, plus per
//! engine the field changes of its first changed slot pairs.

use serde_json::{Value, json};

use crate::NeffDiff;
use crate::align::Op;
use crate::operands::field_changes;

/// The JSON document. Every engine gets `changed_fields`: `[{"a", "b", "fields": [{"field",
/// "offset", "a", "b"}]}]` for its first `max_pairs` changed slot pairs, and
/// `changed_fields_truncated` when it has more (explaining every slot of a multi-million-slot
/// rewrite would dwarf the rest).
pub fn to_json(d: &NeffDiff<'_>, max_pairs: usize) -> Value {
    let mut v = serde_json::to_value(d).unwrap_or(Value::Null);
    let Some(engines) = v.get_mut("engines").and_then(Value::as_array_mut) else {
        return v;
    };
    for (e, ev) in d.engines.iter().zip(engines) {
        let mut pairs = Vec::new();
        let mut total = 0u64;
        for op in &e.alignment.ops {
            if let Op::Changed { a, b, len } = *op {
                total += u64::from(len);
                for k in 0..len {
                    if pairs.len() == max_pairs {
                        break;
                    }
                    let fields = field_changes(e.stream_a, a + k, e.stream_b, b + k, d.dialect);
                    pairs.push(json!({"a": a + k, "b": b + k, "fields": fields}));
                }
            }
        }
        let truncated = total > pairs.len() as u64;
        if let Some(obj) = ev.as_object_mut() {
            obj.insert("changed_fields".into(), Value::Array(pairs));
            obj.insert("changed_fields_truncated".into(), json!(truncated));
        }
    }
    v
}
