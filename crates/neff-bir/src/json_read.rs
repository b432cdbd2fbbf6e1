//! The JSON reader: the `createFromJson` path of spec 002 §4 (opcode string -> constructor ->
//! fields), over the whole document form of reference §5.1.
//!
//! It streams with serde (no intermediate `Value` tree for the typed parts), tracks the JSON pointer
//! of the value being read so every error names it, keeps unknown keys in order, and resolves edge
//! targets by name once the whole document is read (forward references are allowed).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::argument::{ApDim, ArgKind, Argument};
use crate::edge::{Edge, EdgeTarget};
use crate::edge_kind::EdgeKind;
use crate::engine::Engine;
use crate::error::{JsonError, escape_pointer_token};
use crate::ids::{BlockId, LoopId};
use crate::instruction::Instruction;
use crate::instruction_type::InstructionType;
use crate::program::{BlockParent, Program};

/// The opcode string of a nested loop entry (reference §5.1).
pub const LOOP_OPCODE: &str = "Loop";

/// Reads a BIR document from JSON bytes.
pub fn from_slice(bytes: &[u8]) -> Result<Program, JsonError> {
    let reader = Reader {
        path: RefCell::new(Vec::new()),
        prog: RefCell::new(Program::new()),
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result = DocSeed(&reader)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    if let Err(err) = result {
        return Err(JsonError {
            pointer: reader.pointer(),
            message: err.to_string(),
        });
    }
    let mut prog = reader.prog.into_inner();
    resolve_targets(&mut prog);
    prog.rebuild_descendents();
    Ok(prog)
}

/// Reads a BIR document from a JSON string.
pub fn from_str(text: &str) -> Result<Program, JsonError> {
    from_slice(text.as_bytes())
}

/// One reference token of the pointer being read.
enum Seg {
    Key(&'static str),
    Owned(String),
    Index(usize),
}

struct Reader {
    path: RefCell<Vec<Seg>>,
    prog: RefCell<Program>,
}

impl Reader {
    fn push(&self, seg: Seg) {
        self.path.borrow_mut().push(seg);
    }

    fn pop(&self) {
        self.path.borrow_mut().pop();
    }

    fn pointer(&self) -> String {
        let mut out = String::new();
        for seg in self.path.borrow().iter() {
            out.push('/');
            match seg {
                Seg::Key(k) => out.push_str(&escape_pointer_token(k)),
                Seg::Owned(k) => out.push_str(&escape_pointer_token(k)),
                Seg::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }

    /// Reads the value of `key` with `seed`, the pointer extended by `key` while it does; on error
    /// the pointer is left at the failing value.
    fn value_seed<'de, A: MapAccess<'de>, S: DeserializeSeed<'de>>(
        &self,
        map: &mut A,
        key: &'static str,
        seed: S,
    ) -> Result<S::Value, A::Error> {
        self.push(Seg::Key(key));
        let v = map.next_value_seed(seed)?;
        self.pop();
        Ok(v)
    }

    fn value<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
        &self,
        map: &mut A,
        key: &'static str,
    ) -> Result<T, A::Error> {
        self.value_seed(map, key, std::marker::PhantomData::<T>)
    }
}

/// A map key, borrowed from the input when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Drives a JSON array, one seeded element at a time, with the index on the pointer.
fn read_seq<'de, A: SeqAccess<'de>, S: DeserializeSeed<'de>>(
    r: &Reader,
    seq: &mut A,
    mut seed: impl FnMut(usize) -> S,
    mut sink: impl FnMut(S::Value),
) -> Result<(), A::Error> {
    let mut i = 0usize;
    loop {
        r.push(Seg::Index(i));
        match seq.next_element_seed(seed(i))? {
            Some(v) => sink(v),
            None => {
                r.pop();
                return Ok(());
            }
        }
        r.pop();
        i += 1;
    }
}

macro_rules! map_visitor {
    ($ty:ident, $expect:literal) => {
        impl<'de> DeserializeSeed<'de> for $ty<'_> {
            type Value = <Self as Visitor<'de>>::Value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_map(self)
            }
        }
    };
}

macro_rules! seq_visitor {
    ($ty:ident) => {
        impl<'de> DeserializeSeed<'de> for $ty<'_> {
            type Value = <Self as Visitor<'de>>::Value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_seq(self)
            }
        }
    };
}

/// The document object.
struct DocSeed<'r>(&'r Reader);
map_visitor!(DocSeed, "a BIR document object");

impl<'de> Visitor<'de> for DocSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a BIR document object {attributes, functions, arch, version}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let r = self.0;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match &*key {
                "attributes" => {
                    let v = r.value(&mut map, "attributes")?;
                    r.prog.borrow_mut().attributes = Some(v);
                }
                "functions" => r.value_seed(&mut map, "functions", FunctionsSeed(r))?,
                "arch" => {
                    let v = r.value(&mut map, "arch")?;
                    r.prog.borrow_mut().arch = Some(v);
                }
                "version" => {
                    let v = r.value(&mut map, "version")?;
                    r.prog.borrow_mut().version = Some(v);
                }
                _ => {
                    let v: Value = map.next_value()?;
                    r.prog.borrow_mut().extras.insert(key.into_owned(), v);
                }
            }
        }
        Ok(())
    }
}

struct FunctionsSeed<'r>(&'r Reader);
seq_visitor!(FunctionsSeed);

impl<'de> Visitor<'de> for FunctionsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of functions")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let r = self.0;
        read_seq(
            r,
            &mut seq,
            |_| FunctionSeed {
                r,
                index: usize::MAX,
            },
            |()| {},
        )
    }
}

/// One function; the function is created when its object starts (`index` is then set).
struct FunctionSeed<'r> {
    r: &'r Reader,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for FunctionSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(mut self, d: D) -> Result<(), D::Error> {
        self.index = self.r.prog.borrow_mut().add_function(String::new());
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FunctionSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a function object {name, attributes, allocations, blocks}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let r = self.r;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match &*key {
                "name" => {
                    let v: String = r.value(&mut map, "name")?;
                    r.prog.borrow_mut().functions[self.index].name = v;
                }
                "attributes" => {
                    let v = r.value(&mut map, "attributes")?;
                    r.prog.borrow_mut().functions[self.index].attributes = Some(v);
                }
                "allocations" => {
                    let v = r.value(&mut map, "allocations")?;
                    r.prog.borrow_mut().functions[self.index].allocations = Some(v);
                }
                "blocks" => {
                    let seed = BlocksSeed {
                        r,
                        owner: BlockOwner::Function(self.index),
                    };
                    r.value_seed(&mut map, "blocks", seed)?;
                }
                _ => {
                    let v: Value = map.next_value()?;
                    r.prog.borrow_mut().functions[self.index]
                        .extras
                        .insert(key.into_owned(), v);
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum BlockOwner {
    Function(usize),
    Loop(LoopId),
}

struct BlocksSeed<'r> {
    r: &'r Reader,
    owner: BlockOwner,
}
seq_visitor!(BlocksSeed);

impl<'de> Visitor<'de> for BlocksSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of blocks")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let r = self.r;
        let mut i = 0usize;
        loop {
            r.push(Seg::Index(i));
            // Peek-free: create the block only when an element is there, by reading it through a
            // seed that creates the block first thing.
            let seed = BlockSeed {
                r,
                owner: self.owner,
                index: i,
            };
            if seq.next_element_seed(seed)?.is_none() {
                r.pop();
                return Ok(());
            }
            r.pop();
            i += 1;
        }
    }
}

struct BlockSeed<'r> {
    r: &'r Reader,
    owner: BlockOwner,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for BlockSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let id = {
            let mut prog = self.r.prog.borrow_mut();
            let made = match self.owner {
                BlockOwner::Function(f) => prog.add_block(f, String::new()),
                BlockOwner::Loop(l) => prog.add_loop_block(l, String::new()),
            };
            made.map_err(de::Error::custom)?
        };
        debug_assert!(matches!(
            self.r.prog.borrow().block(id).map(|b| b.parent),
            Some(BlockParent::Function { index, .. } | BlockParent::Loop { index, .. }) if index == self.index
        ));
        d.deserialize_map(BlockBody { r: self.r, id })
    }
}

struct BlockBody<'r> {
    r: &'r Reader,
    id: BlockId,
}

impl<'de> Visitor<'de> for BlockBody<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a block object {name, instructions}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let r = self.r;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match &*key {
                "name" => {
                    let v: String = r.value(&mut map, "name")?;
                    r.prog.borrow_mut().blocks[self.id.index()].name = v;
                }
                "instructions" => {
                    r.value_seed(&mut map, "instructions", ItemsSeed { r, block: self.id })?
                }
                _ => {
                    let v: Value = map.next_value()?;
                    r.prog.borrow_mut().blocks[self.id.index()]
                        .extras
                        .insert(key.into_owned(), v);
                }
            }
        }
        Ok(())
    }
}

struct ItemsSeed<'r> {
    r: &'r Reader,
    block: BlockId,
}
seq_visitor!(ItemsSeed);

impl<'de> Visitor<'de> for ItemsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of instructions and loops")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (r, block) = (self.r, self.block);
        read_seq(r, &mut seq, |_| ItemSeed { r, block }, |()| {})
    }
}

/// One entry of `"instructions"`: an instruction, or a loop when its opcode is `"Loop"`.
struct ItemSeed<'r> {
    r: &'r Reader,
    block: BlockId,
}
map_visitor!(ItemSeed, "an instruction object");

/// What an entry is known to be so far.
enum ItemState {
    /// No `"opcode"` yet: keys are buffered as values.
    Pending(Vec<(String, Value)>),
    Inst(Box<Instruction>),
    Loop(LoopId),
}

impl<'de> Visitor<'de> for ItemSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an instruction object with an \"opcode\"")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let r = self.r;
        let mut state = ItemState::Pending(Vec::new());
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if key == "opcode" {
                let opcode: String = r.value(&mut map, "opcode")?;
                let ItemState::Pending(buffered) =
                    std::mem::replace(&mut state, ItemState::Pending(Vec::new()))
                else {
                    return Err(de::Error::custom("duplicate key \"opcode\""));
                };
                state = self.start(&opcode).map_err(de::Error::custom)?;
                for (k, v) in buffered {
                    r.push(Seg::Owned(k.clone()));
                    self.field(&mut state, &k, v).map_err(de::Error::custom)?;
                    r.pop();
                }
                continue;
            }
            match &mut state {
                ItemState::Pending(buffered) => {
                    let v: Value = map.next_value()?;
                    buffered.push((key.into_owned(), v));
                }
                _ => {
                    let key_static = known_key(&key);
                    match key_static {
                        Some(k) => r.push(Seg::Key(k)),
                        None => r.push(Seg::Owned(key.to_string())),
                    }
                    map.next_value_seed(FieldSeed {
                        item: &self,
                        state: &mut state,
                        key: &key,
                    })?;
                    r.pop();
                }
            }
        }
        self.finish(state).map_err(de::Error::custom)
    }
}

/// The header keys, as static strings for the pointer without allocating.
fn known_key(key: &str) -> Option<&'static str> {
    crate::json_write::HEADER_KEYS
        .iter()
        .copied()
        .find(|k| *k == key)
        .or(match key {
            "blocks" => Some("blocks"),
            _ => None,
        })
}

impl ItemSeed<'_> {
    /// The opcode is known: construct the instruction (or register the loop).
    fn start(&self, opcode: &str) -> Result<ItemState, String> {
        if opcode == LOOP_OPCODE {
            let mut prog = self.r.prog.borrow_mut();
            return prog
                .add_loop(self.block, Map::new())
                .map(ItemState::Loop)
                .map_err(|e| e.to_string());
        }
        Ok(ItemState::Inst(Box::new(Instruction::new(
            String::new(),
            InstructionType::from_name(opcode),
        ))))
    }

    /// A buffered key, replayed once the opcode is known.
    fn field(
        &self,
        state: &mut ItemState,
        key: &str,
        value: Value,
    ) -> Result<(), serde_json::Error> {
        FieldSeed {
            item: self,
            state,
            key,
        }
        .deserialize(value)
    }

    fn finish(&self, state: ItemState) -> Result<(), String> {
        match state {
            ItemState::Pending(_) => Err("missing key \"opcode\"".to_owned()),
            ItemState::Loop(_) => Ok(()),
            ItemState::Inst(mut inst) => {
                if inst.is_dma_trigger() {
                    inst.dma_blocks = inst.op_fields.shift_remove("dma_blocks");
                }
                let mut prog = self.r.prog.borrow_mut();
                prog.push(self.block, *inst)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
        }
    }
}

/// Reads the value of one key of an instruction or loop into the right slot.
struct FieldSeed<'a, 'r> {
    item: &'a ItemSeed<'r>,
    state: &'a mut ItemState,
    key: &'a str,
}

impl<'de> DeserializeSeed<'de> for FieldSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let r = self.item.r;
        match self.state {
            ItemState::Pending(_) => Err(de::Error::custom("internal: field before opcode")),
            ItemState::Loop(id) => {
                let id = *id;
                if self.key == "blocks" {
                    return BlocksSeed {
                        r,
                        owner: BlockOwner::Loop(id),
                    }
                    .deserialize(d);
                }
                let v = Value::deserialize(d)?;
                r.prog.borrow_mut().loops[id.index()]
                    .fields
                    .insert(self.key.to_owned(), v);
                Ok(())
            }
            ItemState::Inst(inst) => inst_field(r, inst, self.key, d),
        }
    }
}

/// One header or per-opcode key of an instruction (spec 002 §4 header keys, decision D93).
fn inst_field<'de, D: Deserializer<'de>>(
    r: &Reader,
    inst: &mut Instruction,
    key: &str,
    d: D,
) -> Result<(), D::Error> {
    match key {
        "name" => inst.name = String::deserialize(d)?,
        "optin_passes" => inst.optin_passes = u64::deserialize(d)?,
        "engine" => inst.engine = Engine::from_name(&KeySeed.deserialize(d)?),
        "engine_id" => inst.engine_id = i64::deserialize(d)?,
        "loopnest" => inst.loopnest = Vec::deserialize(d)?,
        "predicates" => inst.predicates = Vec::deserialize(d)?,
        "ins" => inst.ins = ArgsSeed(r).deserialize(d)?,
        "indirection_ins" => inst.indirection_ins = ArgsSeed(r).deserialize(d)?,
        "outs" => inst.outs = ArgsSeed(r).deserialize(d)?,
        "order" => inst.schedule.order = Vec::deserialize(d)?,
        "dependencies" => EdgesSeed {
            r,
            sink: EdgeSink::Deps(&mut inst.schedule.dependencies),
        }
        .deserialize(d)?,
        "loop_carried_dependencies" => EdgesSeed {
            r,
            sink: EdgeSink::Deps(&mut inst.schedule.loop_carried),
        }
        .deserialize(d)?,
        "unroll_dependencies" => EdgesSeed {
            r,
            sink: EdgeSink::Vec(&mut inst.schedule.unroll),
        }
        .deserialize(d)?,
        "scheduled_start" => inst.schedule.scheduled_start = Some(i64::deserialize(d)?),
        "scheduled_end" => inst.schedule.scheduled_end = Some(i64::deserialize(d)?),
        "sync_info" => inst.schedule.sync_info = Some(Value::deserialize(d)?),
        "debug" => inst.schedule.debug = Some(Value::deserialize(d)?),
        _ => {
            let v = Value::deserialize(d)?;
            inst.op_fields.insert(key.to_owned(), v);
        }
    }
    Ok(())
}

struct ArgsSeed<'r>(&'r Reader);
seq_visitor!(ArgsSeed);

impl<'de> Visitor<'de> for ArgsSeed<'_> {
    type Value = Vec<Argument>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of arguments")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Argument>, A::Error> {
        let r = self.0;
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(64));
        read_seq(r, &mut seq, |_| ArgSeed(r), |a| out.push(a))?;
        Ok(out)
    }
}

struct ArgSeed<'r>(&'r Reader);
map_visitor!(ArgSeed, "an argument object");

impl<'de> Visitor<'de> for ArgSeed<'_> {
    type Value = Argument;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an argument object with a \"kind\"")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Argument, A::Error> {
        let r = self.0;
        let mut arg = Argument::new(ArgKind::Unknown("".into()));
        let mut has_kind = false;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match &*key {
                "kind" => {
                    arg.kind = ArgKind::from_name(&r.value_seed(&mut map, "kind", KeySeed)?);
                    has_kind = true;
                }
                "ap" => arg.ap = Some(r.value::<_, Vec<ApDim>>(&mut map, "ap")?),
                "dtype" => arg.dtype = Some(r.value(&mut map, "dtype")?),
                "offset" => arg.offset = Some(r.value(&mut map, "offset")?),
                "memsetref" => arg.memsetref = Some(r.value(&mut map, "memsetref")?),
                "memref" => arg.memref = Some(r.value(&mut map, "memref")?),
                "regref" => arg.regref = Some(r.value(&mut map, "regref")?),
                _ => {
                    let v: Value = map.next_value()?;
                    arg.extras.insert(key.into_owned(), v);
                }
            }
        }
        if !has_kind {
            return Err(de::Error::custom("argument without \"kind\""));
        }
        Ok(arg)
    }
}

impl<'de> Deserialize<'de> for ApDim {
    /// `[step, num]` (reference §5.1).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ApDim, D::Error> {
        let (step, num) = <(i64, i64)>::deserialize(d)?;
        Ok(ApDim { step, num })
    }
}

enum EdgeSink<'a> {
    Deps(&'a mut crate::dep_list::DepList),
    Vec(&'a mut Vec<Edge>),
}

struct EdgesSeed<'a, 'r> {
    r: &'r Reader,
    sink: EdgeSink<'a>,
}

impl<'de> DeserializeSeed<'de> for EdgesSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EdgesSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of {\"target\", \"kind\"} edges")
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let r = self.r;
        read_seq(
            r,
            &mut seq,
            |_| EdgeSeed(r),
            |e| match &mut self.sink {
                // Kept as written, duplicates included: the verifier reports them.
                EdgeSink::Deps(list) => list.push_unchecked(e),
                EdgeSink::Vec(v) => v.push(e),
            },
        )
    }
}

struct EdgeSeed<'r>(&'r Reader);
map_visitor!(EdgeSeed, "an edge object");

impl<'de> Visitor<'de> for EdgeSeed<'_> {
    type Value = Edge;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an edge object {\"target\": name, \"kind\": EdgeKind name}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Edge, A::Error> {
        let r = self.0;
        let mut target = None;
        let mut kind = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match &*key {
                "target" => {
                    let name = r.value_seed(&mut map, "target", KeySeed)?;
                    target = Some(r.resolve(&name));
                }
                "kind" => {
                    let name = r.value_seed(&mut map, "kind", KeySeed)?;
                    r.push(Seg::Key("kind"));
                    let k = EdgeKind::from_name(&name).ok_or_else(|| {
                        de::Error::custom(format!(
                            "unknown edge kind {name:?} (expected Invalid, Ordered, Anti, Output or Flow)"
                        ))
                    })?;
                    r.pop();
                    kind = Some(k);
                }
                // An edge is one packed word in the spec (§5): it has no room for other keys.
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key {other:?} in an edge (decision D97)"
                    )));
                }
            }
        }
        match (target, kind) {
            (Some(target), Some(kind)) => Ok(Edge { target, kind }),
            (None, _) => Err(de::Error::custom("edge without \"target\"")),
            (_, None) => Err(de::Error::custom("edge without \"kind\"")),
        }
    }
}

impl Reader {
    /// Resolves a target name seen so far; forward references stay unknown until the end.
    fn resolve(&self, name: &str) -> EdgeTarget {
        let mut prog = self.prog.borrow_mut();
        if let Some(id) = prog.find(name) {
            return EdgeTarget::Inst(id);
        }
        let k = prog.unknown_targets.len() as u32;
        prog.unknown_targets.push(name.to_owned());
        EdgeTarget::Unknown(k)
    }
}

/// Second pass: resolves forward references; names no instruction carries stay unknown (the
/// verifier reports them), renumbered densely in first-seen order.
fn resolve_targets(prog: &mut Program) {
    if prog.unknown_targets.is_empty() {
        return;
    }
    let old = std::mem::take(&mut prog.unknown_targets);
    let mut still: Vec<String> = Vec::new();
    let mut map: Vec<EdgeTarget> = Vec::with_capacity(old.len());
    let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for name in &old {
        let t = match prog.names.get(name.as_str()) {
            Some(&id) => EdgeTarget::Inst(id),
            None => {
                let k = *index.entry(name.as_str()).or_insert_with(|| {
                    still.push(name.clone());
                    (still.len() - 1) as u32
                });
                EdgeTarget::Unknown(k)
            }
        };
        map.push(t);
    }
    let fix = |e: Edge| match e.target {
        EdgeTarget::Unknown(k) => Edge {
            target: map[k as usize],
            kind: e.kind,
        },
        _ => e,
    };
    for inst in &mut prog.insts {
        let s = &mut inst.schedule;
        s.dependencies.retarget(fix);
        s.loop_carried.retarget(fix);
        for e in &mut s.unroll {
            *e = fix(*e);
        }
    }
    prog.unknown_targets = still;
}
