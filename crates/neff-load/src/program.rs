//! `itf_identify_functions` (spec 000 §2 stage 2, §3): one engine's flat source stream split into
//! MAIN (func_id 0) and the named callable functions (func_id 1..), each split into blocks with
//! `[kbin_begin_offset, kbin_end_offset)` source byte windows.
//!
//! Rules (decision D70): a function starts at each PSEUDO_FUNCTION_BEGIN (0xD1) slot, whose name
//! is the NUL-terminated string at +12 (reference §4.2), and runs to the next 0xD1 or the end of
//! the stream; the slots before the first 0xD1 are MAIN (possibly empty). Within a function a new
//! block starts at every PSEUDO_BRANCH_LABEL (0xCC) slot, the one place a branch can land, so a
//! block is a straight-line run entered only at its top; a block also ends after each
//! 0xD2 / 0xD3 / 0xDF slot (return, call, exit), so placeholders sit at block edges. `has_ccops` marks a block holding a
//! collective pseudo (0xC7, 0xC8, 0xCB, 0xD9, 0xDB, 0xDC; spec 001 §3) and `cc_block_id`
//! numbers those blocks in stream order. `requires_cache_align` is set only on request
//! (the static stream carries no such flag).

use neff_isa::{EngineType, Opcode, SLOT_BYTES};

use crate::error::LoadError;

/// Byte offset of the function name in 0xD1/0xD2/0xD3 slots (spec 000 §6.3: `&buf[O + 12]`).
pub(crate) const NAME_OFFSET: usize = 12;
/// Longest function name read (spec 000 §6.3: a 32-byte name field).
pub(crate) const NAME_LEN: usize = 32;

/// Placeholders that end a block (PSEUDO_FUNCTION_RETURN, _CALL, PSEUDO_INST), so that
/// `ib_process_special_instr` meets them only as a block's last slot (spec 000 §7.2).
const BLOCK_ENDERS: [Opcode; 3] = [
    Opcode::PSEUDO_FUNCTION_RETURN,
    Opcode::PSEUDO_FUNCTION_CALL,
    Opcode::PSEUDO_INST,
];

/// The collective pseudo opcodes that make a block `has_ccops` (spec 001 §3, reference §4.2).
const CC_OPCODES: [Opcode; 6] = [
    Opcode::PSEUDO_TRIGGER_ALL_REDUCE,
    Opcode::PSEUDO_TRIGGER_COLLECTIVE,
    Opcode::PSEUDO_SEND_RECV,
    Opcode::PSEUDO_TRIGGER_COLLECTIVE2,
    Opcode::PSEUDO_CUR_PROCESSING_RANK_ID,
    Opcode::PSEUDO_GID_LOAD,
];

/// The opcode of the slot at byte `o`.
fn op_at(stream: &[u8], o: usize) -> Opcode {
    Opcode(stream[o])
}

/// One `itf_block_t` (spec 000 §3): a straight-line run of source slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// `function_id`: the owning function.
    pub function_id: u32,
    /// `block_id`: index within the function.
    pub block_id: u32,
    /// `cc_block_id`: index among the engine's blocks holding collectives, if this one does.
    pub cc_block_id: Option<u32>,
    /// `kbin_begin_offset`: first source byte.
    pub begin: usize,
    /// `kbin_end_offset`: one past the last source byte.
    pub end: usize,
    /// `has_ccops`.
    pub has_ccops: bool,
    /// `requires_cache_align`: pad the block's start to a cache block (spec 000 §7.2).
    pub requires_cache_align: bool,
}

impl Block {
    /// Number of source slots.
    pub fn slots(&self) -> usize {
        (self.end - self.begin) / SLOT_BYTES
    }
}

/// One `itf_function_t` (spec 000 §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// `function_name` (MAIN's is empty).
    pub name: String,
    /// `func_id`: 0 = MAIN.
    pub func_id: u32,
    /// First source byte (the 0xD1 slot for func_id != 0).
    pub begin: usize,
    /// One past the last source byte.
    pub end: usize,
    /// `block_ctx_ptrs`, in source order.
    pub blocks: Vec<Block>,
}

/// `itf_one_eng_functions_t`: one engine's functions, MAIN first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The engine.
    pub engine: EngineType,
    /// `functions[0]` is MAIN, then the named functions in stream order.
    pub functions: Vec<Function>,
    /// `num_blocks_with_collectives`.
    pub blocks_with_collectives: u32,
}

impl Program {
    /// The function called `name` (func_id != 0), the `ht_name_find` of spec 000 §6.3.
    pub fn function_by_name(&self, name: &str) -> Option<&Function> {
        self.functions.iter().skip(1).find(|f| f.name == name)
    }
}

/// Reads the NUL-terminated name at +12 of a slot (at most [`NAME_LEN`] bytes, lossy UTF-8).
pub(crate) fn slot_name(slot: &[u8]) -> String {
    let field = slot
        .get(NAME_OFFSET..(NAME_OFFSET + NAME_LEN).min(slot.len()))
        .unwrap_or(&[]);
    let len = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..len]).into_owned()
}

/// `itf_identify_functions` (spec 000 §2): splits `stream` per decision D70. With
/// `cache_align_labels`, blocks entered at a label get `requires_cache_align`.
///
/// One pass over the slots finds both the functions (at each 0xD1) and their blocks (at labels,
/// after enders), so a GiB stream is read once here.
pub(crate) fn identify_functions(
    engine: EngineType,
    stream: &[u8],
    cache_align_labels: bool,
) -> Result<Program, LoadError> {
    if !stream.len().is_multiple_of(SLOT_BYTES) {
        return Err(LoadError::RaggedStream {
            engine,
            len: stream.len(),
        });
    }
    let classes = slot_classes();
    let mut split = Splitter {
        stream,
        cache_align_labels,
        cc_next: 0,
        blocks: Vec::new(),
    };
    let mut functions = Vec::new();
    let (mut fn_begin, mut name) = (0, String::new());
    let (mut b, mut has_cc) = (0, false);
    for o in (0..stream.len()).step_by(SLOT_BYTES) {
        let c = classes[usize::from(stream[o])];
        if c == 0 {
            // Most slots: no function, no block edge, no collective. Skipping them here keeps the
            // next slot's look-up below off the common path (decision D388).
            continue;
        }
        if c & STARTS_FUNCTION != 0 {
            // The function so far ends here; MAIN may be empty (one empty block).
            split.push(b, o, has_cc);
            functions.push(split.function(functions.len(), name, fn_begin, o));
            (fn_begin, name) = (o, slot_name(&stream[o..o + SLOT_BYTES]));
            (b, has_cc) = (o, false);
        }
        if c & STARTS_BLOCK != 0 && o > b {
            split.push(b, o, has_cc);
            (b, has_cc) = (o, false);
        }
        has_cc |= c & HAS_CC != 0;
        // An ender cuts unless its function ends right after it (the next slot is 0xD1 or none).
        let next_starts_function = || {
            stream
                .get(o + SLOT_BYTES)
                .is_none_or(|&n| classes[usize::from(n)] & STARTS_FUNCTION != 0)
        };
        if c & ENDS_BLOCK != 0 && !next_starts_function() {
            split.push(b, o + SLOT_BYTES, has_cc);
            (b, has_cc) = (o + SLOT_BYTES, false);
        }
    }
    split.push(b, stream.len(), has_cc);
    functions.push(split.function(functions.len(), name, fn_begin, stream.len()));
    Ok(Program {
        engine,
        functions,
        blocks_with_collectives: split.cc_next,
    })
}

/// Slot classes [`identify_functions`] reads, by opcode byte: a 0xD1 starts a function, a
/// label starts a block, an ender ends one, a collective marks it `has_ccops`.
const STARTS_BLOCK: u8 = 1;
/// See [`STARTS_BLOCK`].
const ENDS_BLOCK: u8 = 2;
/// See [`STARTS_BLOCK`].
const HAS_CC: u8 = 4;
/// See [`STARTS_BLOCK`].
const STARTS_FUNCTION: u8 = 8;

/// The class bits of every opcode byte, from [`BLOCK_ENDERS`] and [`CC_OPCODES`] (built once).
fn slot_classes() -> &'static [u8; 256] {
    static TABLE: std::sync::OnceLock<[u8; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|b| {
            let op = Opcode(b as u8);
            let mut c = 0;
            if op == Opcode::PSEUDO_FUNCTION_BEGIN {
                c |= STARTS_FUNCTION;
            }
            if op == Opcode::PSEUDO_BRANCH_LABEL {
                c |= STARTS_BLOCK;
            }
            if BLOCK_ENDERS.contains(&op) {
                c |= ENDS_BLOCK;
            }
            if CC_OPCODES.contains(&op) {
                c |= HAS_CC;
            }
            c
        })
    })
}

/// The blocks of the function being split, and the engine-wide `cc_block_id` counter.
struct Splitter<'a> {
    stream: &'a [u8],
    cache_align_labels: bool,
    cc_next: u32,
    blocks: Vec<Block>,
}

impl Splitter<'_> {
    /// Closes the block `[b, e)` of the current function (its id is its index).
    fn push(&mut self, b: usize, e: usize, has_ccops: bool) {
        let cc_block_id = has_ccops.then(|| {
            self.cc_next += 1;
            self.cc_next - 1
        });
        self.blocks.push(Block {
            function_id: 0, // set by `function`
            block_id: u32::try_from(self.blocks.len()).unwrap_or(u32::MAX),
            cc_block_id,
            begin: b,
            end: e,
            has_ccops,
            requires_cache_align: self.cache_align_labels
                && b < e
                && op_at(self.stream, b) == Opcode::PSEUDO_BRANCH_LABEL,
        });
    }

    /// Closes function number `id` over `[begin, end)` with the blocks pushed since the last one.
    fn function(&mut self, id: usize, name: String, begin: usize, end: usize) -> Function {
        let func_id = u32::try_from(id).unwrap_or(u32::MAX);
        let mut blocks = std::mem::take(&mut self.blocks);
        for blk in &mut blocks {
            blk.function_id = func_id;
        }
        Function {
            name,
            func_id,
            begin,
            end,
            blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(op: u8, name: &str) -> [u8; 64] {
        let mut s = [0u8; 64];
        s[0] = op;
        s[1] = 0x10;
        s[12..12 + name.len()].copy_from_slice(name.as_bytes());
        s
    }

    #[test]
    fn sample_pe_is_one_function_one_block_with_collectives() {
        // spec 000 §9 step 2: pe.bin = one 0xC8 slot -> one function, one block, [0, 64).
        let p = identify_functions(EngineType::Pe, &slot(0xC8, ""), false).unwrap();
        assert_eq!(p.functions.len(), 1);
        let b = &p.functions[0].blocks;
        assert_eq!(
            (b.len(), b[0].begin, b[0].end, b[0].has_ccops),
            (1, 0, 64, true)
        );
        assert_eq!((b[0].cc_block_id, p.blocks_with_collectives), (Some(0), 1));
    }

    #[test]
    fn functions_start_at_d1_and_blocks_at_labels() {
        let stream: Vec<u8> = [
            slot(0xB1, ""),
            slot(0xCC, ""),
            slot(0xA0, ""),
            slot(0xD1, "f1"),
            slot(0xA0, ""),
            slot(0xD1, "g"),
        ]
        .concat();
        let p = identify_functions(EngineType::Act, &stream, true).unwrap();
        let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["", "f1", "g"]);
        let main = &p.functions[0];
        assert_eq!((main.begin, main.end, main.blocks.len()), (0, 192, 2));
        assert_eq!(
            (main.blocks[1].begin, main.blocks[1].requires_cache_align),
            (64, true)
        );
        assert_eq!((p.functions[1].begin, p.functions[1].end), (192, 320));
        assert_eq!(p.function_by_name("g").unwrap().func_id, 2);
    }

    #[test]
    fn enders_cut_inside_a_function_only_and_cc_ids_run_across_functions() {
        // MAIN: cc, return(ender), label, cc | f: call(ender) | g: cc, exit(ender)
        let stream: Vec<u8> = [
            slot(0xC8, ""),
            slot(0xD2, ""),
            slot(0xCC, ""),
            slot(0xDB, ""),
            slot(0xD1, "f"),
            slot(0xD3, "g"),
            slot(0xD1, "g"),
            slot(0xC8, ""),
            slot(0xDF, ""),
        ]
        .concat();
        let p = identify_functions(EngineType::Pool, &stream, false).unwrap();
        let spans = |f: &Function| -> Vec<(usize, usize, Option<u32>)> {
            f.blocks
                .iter()
                .map(|b| (b.begin, b.end, b.cc_block_id))
                .collect()
        };
        // The return at 64 cuts; the label right after it does not cut again.
        assert_eq!(
            spans(&p.functions[0]),
            [(0, 128, Some(0)), (128, 256, Some(1))]
        );
        // The call at 320 ends f (next slot is 0xD1): no empty block after it.
        assert_eq!(spans(&p.functions[1]), [(256, 384, None)]);
        // The exit is the stream's last slot: no cut.
        assert_eq!(spans(&p.functions[2]), [(384, 576, Some(2))]);
        assert_eq!(p.blocks_with_collectives, 3);
        let ids: Vec<u32> = p
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .map(|b| b.function_id)
            .collect();
        assert_eq!(ids, [0, 0, 1, 2]);
    }

    #[test]
    fn stream_starting_with_a_function_has_an_empty_main() {
        let p = identify_functions(EngineType::Act, &slot(0xD1, "f"), false).unwrap();
        assert_eq!(p.functions.len(), 2);
        assert_eq!((p.functions[0].begin, p.functions[0].end), (0, 0));
        assert_eq!(p.functions[0].blocks.len(), 1);
        assert_eq!(p.functions[0].blocks[0].slots(), 0);
        assert_eq!(
            (p.functions[1].name.as_str(), p.functions[1].blocks.len()),
            ("f", 1)
        );
    }

    #[test]
    fn empty_and_ragged_streams() {
        let p = identify_functions(EngineType::Sp, &[], false).unwrap();
        assert_eq!(p.functions[0].blocks.len(), 1);
        assert_eq!(p.functions[0].blocks[0].slots(), 0);
        assert!(identify_functions(EngineType::Sp, &[0; 65], false).is_err());
    }
}
