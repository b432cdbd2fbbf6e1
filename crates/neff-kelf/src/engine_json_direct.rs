//! The engine JSON read straight from its bytes (issue 34, decision D530): no `serde_json::Value`
//! tree, no per-key map lookups, keys borrowed from the input where they have no escapes.
//!
//! This is the fast path of [`EngineJson::parse`]. It accepts exactly what the located reader
//! (`EngineJson::read` over `json_reader`) accepts and builds the same value: every scalar goes
//! through the same conversion (`Number::as_u64`, `as_i64`, the u32 range, the dtype table), a
//! repeated key keeps its last value, unknown keys land in `extra` in document order. Whatever it
//! refuses — a type error, a missing key, a syntax error — the caller re-reads through the located
//! reader, which names the member and JSON pointer. The two readers are held equal by tests on
//! every shared fixture and on mutated manifests (`engine_json` tests).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::dma_block::{DmaBlock, DmaDesc, DmaDescRare};
use crate::dtype::KbinDtype;
use crate::engine_json::{DveTables, EngineJson};
use crate::json_reader::{At, Obj};

/// Reads `bytes` as an engine JSON, or `None` when the located reader must say why not.
pub(crate) fn parse(bytes: &[u8]) -> Option<EngineJson> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = de.deserialize_map(EngineVisitor).ok()?;
    de.end().ok()?;
    Some(value)
}

/// A key, borrowed when the input holds it without escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The located reader's `as_u64`: a JSON number that is a non-negative integer.
fn u64_of<E: de::Error>(n: Number) -> Result<u64, E> {
    n.as_u64()
        .ok_or_else(|| E::custom("not an unsigned integer"))
}

/// The located reader's `as_u32`.
fn u32_of<E: de::Error>(n: Number) -> Result<u32, E> {
    u64_of(n).and_then(|v| u32::try_from(v).map_err(|_| E::custom("not a u32")))
}

fn next_u64<'de, A: MapAccess<'de>>(m: &mut A) -> Result<u64, A::Error> {
    u64_of(m.next_value::<Number>()?)
}

fn next_u32<'de, A: MapAccess<'de>>(m: &mut A) -> Result<u32, A::Error> {
    u32_of(m.next_value::<Number>()?)
}

fn next_u64_list<'de, A: MapAccess<'de>>(m: &mut A) -> Result<Vec<u64>, A::Error> {
    let ns: Vec<Number> = m.next_value()?;
    ns.into_iter().map(u64_of).collect()
}

fn next_i64_list<'de, A: MapAccess<'de>>(m: &mut A) -> Result<Vec<i64>, A::Error> {
    let ns: Vec<Number> = m.next_value()?;
    ns.into_iter()
        .map(|n| {
            n.as_i64()
                .ok_or_else(|| de::Error::custom("not an integer"))
        })
        .collect()
}

/// A `*_dtype` key: a string of the dtype table (spec 004 §4).
fn next_dtype<'de, A: MapAccess<'de>>(m: &mut A) -> Result<String, A::Error> {
    let name: String = m.next_value()?;
    match KbinDtype::from_name(&name) {
        Some(_) => Ok(name),
        None => Err(de::Error::custom("unknown dtype")),
    }
}

/// An unknown key, kept verbatim; a repeated key keeps its first place and its last value, as
/// the `Value` map the located reader builds does.
fn keep<'de, A: MapAccess<'de>>(
    m: &mut A,
    extra: &mut Map<String, Value>,
    key: Cow<'de, str>,
) -> Result<(), A::Error> {
    let v: Value = m.next_value()?;
    extra.insert(key.into_owned(), v);
    Ok(())
}

struct EngineVisitor;

impl<'de> Visitor<'de> for EngineVisitor {
    type Value = EngineJson;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an engine JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<EngineJson, A::Error> {
        let mut e = EngineJson {
            name: None,
            instr: None,
            dma: None,
            act_info: None,
            act_semaphore: None,
            activation_function_sets: None,
            dve_tables: None,
            extra: Map::new(),
        };
        while let Some(Key(k)) = m.next_key()? {
            match &*k {
                "name" => e.name = Some(m.next_value()?),
                "instr" => e.instr = Some(m.next_value()?),
                "dma" => e.dma = Some(m.next_value_seed(Blocks)?),
                "act_info" => e.act_info = Some(m.next_value()?),
                "act_semaphore" => e.act_semaphore = Some(next_u32(&mut m)?),
                "activation_function_sets" => e.activation_function_sets = Some(m.next_value()?),
                // A handful of entries in DVE.json only: read by the located reader.
                "dve_tables" => {
                    let v: Vec<Value> = m.next_value()?;
                    let tables = v
                        .iter()
                        .map(|t| Obj::new(t, At::root("")).and_then(DveTables::read))
                        .collect::<crate::error::Result<_>>()
                        .map_err(|_| de::Error::custom("dve_tables"))?;
                    e.dve_tables = Some(tables);
                }
                _ => keep(&mut m, &mut e.extra, k)?,
            }
        }
        Ok(e)
    }
}

/// `dma[]`.
struct Blocks;

impl<'de> DeserializeSeed<'de> for Blocks {
    type Value = Vec<DmaBlock>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<DmaBlock>, D::Error> {
        d.deserialize_seq(SeqOf(|| BlockVisitor, |b| b))
    }
}

/// A sequence whose elements are maps read by the visitor `make()` returns, each kept as
/// `wrap` makes it (an element is wrapped as it is read: a vector of `Arc`s grows by pointers,
/// not by whole descriptors moved into `Arc`s afterwards).
struct SeqOf<F, W>(F, W);

impl<'de, F, V, W, T> Visitor<'de> for SeqOf<F, W>
where
    F: Fn() -> V,
    V: Visitor<'de>,
    W: Fn(V::Value) -> T,
{
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of objects")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
        let mut out = Vec::with_capacity(s.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = s.next_element_seed(MapSeed((self.0)()))? {
            out.push((self.1)(v));
        }
        out.shrink_to_fit();
        Ok(out)
    }
}

/// Deserializes one map with the visitor it holds.
struct MapSeed<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for MapSeed<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_map(self.0)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = DmaBlock;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dma block object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<DmaBlock, A::Error> {
        let (mut id, mut desc) = (None, None);
        let mut b = DmaBlock {
            id: 0,
            queue: None,
            instance_name: None,
            semaphore: None,
            event: None,
            function_start: None,
            section_start_desc: None,
            remote_semaphores: None,
            comment: None,
            desc: Vec::new(),
            extra: Map::new(),
        };
        while let Some(Key(k)) = m.next_key()? {
            match &*k {
                "id" => id = Some(next_u64(&mut m)?),
                "queue" => b.queue = Some(m.next_value()?),
                "instance_name" => b.instance_name = Some(m.next_value()?),
                "semaphore" => b.semaphore = Some(next_u32(&mut m)?),
                "event" => b.event = Some(next_u32(&mut m)?),
                "function_start" => b.function_start = Some(m.next_value()?),
                "section_start_desc" => b.section_start_desc = Some(m.next_value()?),
                "remote_semaphores" => b.remote_semaphores = Some(m.next_value()?),
                "#comment" => b.comment = Some(m.next_value()?),
                "desc" => desc = Some(m.next_value_seed(Descs)?),
                _ => keep(&mut m, &mut b.extra, k)?,
            }
        }
        b.id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        b.desc = desc.ok_or_else(|| de::Error::missing_field("desc"))?;
        Ok(b)
    }
}

/// `desc[]`, each descriptor shared (`Arc`) with the kbin descriptors lowered from it.
struct Descs;

impl<'de> DeserializeSeed<'de> for Descs {
    type Value = Vec<Arc<DmaDesc>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(SeqOf(|| DescVisitor, Arc::new))
    }
}

struct DescVisitor;

impl<'de> Visitor<'de> for DescVisitor {
    type Value = DmaDesc;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dma descriptor object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<DmaDesc, A::Error> {
        let (mut d, mut r) = (DmaDesc::default(), DmaDescRare::default());
        while let Some(Key(k)) = m.next_key()? {
            match &*k {
                "op" => d.op = Some(m.next_value()?),
                "from" => d.from = Some(m.next_value()?),
                "from_off" => d.from_off = Some(next_u64(&mut m)?),
                "from_steps" => d.from_steps = Some(next_i64_list(&mut m)?),
                "from_sizes" => d.from_sizes = Some(next_u64_list(&mut m)?),
                "from_dtype" => d.from_dtype = Some(next_dtype(&mut m)?),
                "to" => d.to = Some(m.next_value()?),
                "to_off" => d.to_off = Some(next_u64(&mut m)?),
                "to_steps" => d.to_steps = Some(next_i64_list(&mut m)?),
                "to_sizes" => d.to_sizes = Some(next_u64_list(&mut m)?),
                "to_dtype" => d.to_dtype = Some(next_dtype(&mut m)?),
                "num_tiling_dimensions" => d.num_tiling_dimensions = Some(next_u64(&mut m)?),
                "from_arr" => r.from_arr = Some(m.next_value()?),
                "scale" => r.scale = Some(m.next_value()?),
                "scale_dtype" => r.scale_dtype = Some(next_dtype(&mut m)?),
                "constant" => r.constant = Some(m.next_value()?),
                "constant_dtype" => r.constant_dtype = Some(next_dtype(&mut m)?),
                "transpose_shape" => r.transpose_shape = Some(next_u64_list(&mut m)?),
                "transpose_element_size" => r.transpose_element_size = Some(next_u64(&mut m)?),
                _ => keep(&mut m, &mut r.extra, k)?,
            }
        }
        d.rare = r.boxed();
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The located reader's answer, as the fast path must give it (`None` where it errs).
    fn located(bytes: &[u8]) -> Option<EngineJson> {
        EngineJson::parse_located("t.json", bytes).ok()
    }

    /// A trn1 Pool.json of reference §3.1 with every descriptor key the reader types.
    const POOL: &str = r##"{"dma": [{"#comment": "I-10-0-block-1", "desc": [{"from": "SB", "from_dtype": "float32", "from_off": 16384, "from_sizes": [4000, 128], "from_steps": [1, -262144], "num_tiling_dimensions": 1, "op": "copy", "to": "out", "to_dtype": "float32", "to_off": 0, "to_sizes": [4000, 128], "to_steps": [1, 4000], "scale": 0.5, "scale_dtype": "float32", "constant": null, "transpose_shape": [1, 2, 3, 4], "transpose_element_size": 2, "from_arr": [{"a": 1}], "odd": [true]}], "id": 0, "queue": "qPoolIO0", "semaphore": 24, "event": 3, "instance_name": "i", "function_start": 1, "section_start_desc": {"x": 1}, "remote_semaphores": [1], "more": "kept"}], "instr": "Pool.bin", "name": "Pool.json", "act_semaphore": 12, "activation_function_sets": ["exp"], "act_info": "a.json", "dve_tables": [{"control_table": "c.bin", "zz": 1}], "x\\u0041": {"nested": [1, 2]}}"##;

    #[test]
    fn reads_every_key_as_the_located_reader_does() {
        let fast = parse(POOL.as_bytes()).expect("the fast path reads a valid manifest");
        assert_eq!(Some(&fast), located(POOL.as_bytes()).as_ref());
        assert_eq!(
            fast.to_value(),
            serde_json::from_str::<Value>(POOL).unwrap()
        );
    }

    /// D761: the seldom-present keys, boxed, still serialize in the struct's key order after
    /// `to_dtype`'s group, the uninterpreted ones last; a plain copy descriptor boxes nothing.
    #[test]
    fn the_boxed_keys_serialize_in_place_and_a_copy_boxes_none() {
        for json in [
            POOL.as_bytes().to_vec(),
            POOL.replace("\"scale\": 0.5, ", "").into_bytes(),
        ] {
            for e in [parse(&json).unwrap(), located(&json).unwrap()] {
                let d = &e.dma.as_ref().unwrap()[0].desc[0];
                let text = serde_json::to_string(&**d).unwrap();
                let tail = text.split_once("\"num_tiling_dimensions\":1,").unwrap().1;
                let scale = if json.len() == POOL.len() {
                    "\"scale\":0.5,"
                } else {
                    ""
                };
                assert_eq!(
                    tail,
                    format!(
                        "\"from_arr\":[{{\"a\":1}}],{scale}\"scale_dtype\":\"float32\",\"constant\":null,\
                         \"transpose_shape\":[1,2,3,4],\"transpose_element_size\":2,\"odd\":[true]}}"
                    )
                );
            }
        }
        let copy = r#"{"dma": [{"id": 0, "desc": [{"op": "copy", "from": "a", "to": "b", "num_tiling_dimensions": 1}]}]}"#;
        for e in [
            parse(copy.as_bytes()).unwrap(),
            located(copy.as_bytes()).unwrap(),
        ] {
            let d = &e.dma.as_ref().unwrap()[0].desc[0];
            assert!(d.rare.is_none());
            assert_eq!(
                serde_json::to_string(&**d).unwrap(),
                r#"{"op":"copy","from":"a","to":"b","num_tiling_dimensions":1}"#
            );
        }
    }

    #[test]
    fn refuses_what_the_located_reader_refuses() {
        for bad in [
            r#"[]"#,
            r#"{"name": null}"#,
            r#"{"dma": [{"desc": []}]}"#,
            r#"{"dma": [{"id": 0}]}"#,
            r#"{"dma": [{"id": -1, "desc": []}]}"#,
            r#"{"dma": [{"id": 1.0, "desc": []}]}"#,
            r#"{"dma": [{"id": 0, "semaphore": 4294967296, "desc": []}]}"#,
            r#"{"dma": [{"id": 0, "desc": [{"to_dtype": "fp32"}]}]}"#,
            r#"{"dma": [{"id": 0, "desc": [{"from_steps": [1.5]}]}]}"#,
            r#"{"dve_tables": [{"control_table": 1}]}"#,
            r#"{"instr": "a"} x"#,
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad}");
            assert_eq!(located(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let j = br#"{"b": 1, "name": "x", "a": 2, "b": 3, "name": "y"}"#;
        let fast = parse(j).unwrap();
        assert_eq!(fast.name.as_deref(), Some("y"));
        assert_eq!(Some(fast), located(j));
    }

    #[test]
    fn every_engine_json_of_the_shared_fixtures_reads_the_same_both_ways() {
        let mut seen = 0;
        for path in neff_fixtures::REAL_NEFFS {
            let Some(bytes) = neff_fixtures::read(path) else {
                return;
            };
            let neff = neff_container::Neff::parse(&bytes).unwrap();
            for m in neff.members().filter(|m| m.path.ends_with(".json")) {
                let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(m.data) else {
                    continue;
                };
                if !o.contains_key("instr") {
                    continue;
                }
                let fast = parse(m.data).unwrap_or_else(|| panic!("{path}: {}", m.path));
                assert_eq!(Some(fast), located(m.data), "{path}: {}", m.path);
                seen += 1;
            }
        }
        assert!(seen >= 7 * 5, "{seen} engine JSONs");
    }

    /// A JSON value mutation of one descriptor field: another type, sign, size or spelling.
    fn field_value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("null".to_owned()),
            Just("\"float32\"".to_owned()),
            Just("\"bfloat16x\"".to_owned()),
            Just("-1".to_owned()),
            Just("1e3".to_owned()),
            Just("18446744073709551615".to_owned()),
            Just("18446744073709551616".to_owned()),
            Just("[1, -2]".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
            any::<u32>().prop_map(|n| n.to_string()),
        ]
    }

    proptest! {
        /// Whatever the value of whichever key, the fast path agrees with the located reader
        /// whenever it answers, and answers whenever the located reader accepts a manifest
        /// without repeated keys.
        #[test]
        fn agrees_with_the_located_reader(
            key in prop::sample::select(vec![
                "op", "from", "from_off", "from_steps", "from_sizes", "from_dtype", "to_off",
                "to_steps", "to_sizes", "to_dtype", "num_tiling_dimensions", "from_arr", "scale",
                "scale_dtype", "transpose_shape", "transpose_element_size", "unknown",
            ]),
            block_key in prop::sample::select(vec!["id", "semaphore", "event", "queue", "#comment", "desc", "other"]),
            v1 in field_value(),
            v2 in field_value(),
        ) {
            let j = format!(
                r#"{{"name": "SP.json", "dma": [{{"{block_key}": {v2}, "id": 7, "desc": [{{"{key}": {v1}, "to": "out"}}], "queue": "q"}}]}}"#
            );
            let slow = located(j.as_bytes());
            let fast = parse(j.as_bytes());
            if ["id", "queue", "desc"].contains(&block_key) {
                // A repeated key whose first value is refused: the fast path gives up where the
                // located reader reads the last one; the caller falls back, so both answer alike.
                prop_assert!(fast.is_none() || fast == slow, "{}", j);
            } else {
                prop_assert_eq!(&fast, &slow, "{}", j);
            }
        }
    }
}
