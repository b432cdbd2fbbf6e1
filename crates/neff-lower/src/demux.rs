//! The single-instruction demux, `translate_one_pseudo_instr_v2` / `_v3` (spec 001 §1): by opcode
//! byte, a real opcode is one verbatim record; each pseudo goes to its translator's recipe. The
//! two demuxes share every recipe; the arch gate ([`super::ArchGate`], decision D288) adds what
//! differs: the v3 pseudo set and the SUNDA -> CAYMAN down-translation.

use neff_isa::Events;
use neff_isa::builder::add_ins;
use neff_isa::continuation::{self, Pairing};
use neff_isa::{ByteOffset, EngineType, INST_NWORDS, Opcode, SLOT_BYTES, V1Engine};

use super::arch::ArchGate;
use super::context::LowerContext;
use super::error::{LowerError, LowerErrorKind};
use super::lowered::BlockWriter;
use super::pseudo::pseudo_mnemonic;
use super::{arch, collective, direct2d, dma_trigger, label, special, sync_pseudo, tensor_access};

/// State carried from slot to slot within a block.
#[derive(Debug, Clone, Default)]
pub struct TranslateState {
    /// The previous source slot was a 0xD9 whose 0xDA extension this slot must be.
    pub(super) pending_extension: bool,
    /// Events of the INITIAL instruction of the current collective chain (`collective2_first_instr`).
    pub(super) chain_first_events: Option<Events>,
    /// The block context's arch gate, once a slot of the block needed it (it depends only on the
    /// context, which is the block's throughout): one per block instead of one per pseudo slot.
    pub(super) gate: Option<ArchGate>,
}

/// Opcode bytes [`translate_one`] copies verbatim as one record (the demux's final arm): not a
/// pseudo with a recipe or a name, not the RT class, not COMPARE_BRANCH. Built once from the
/// same predicates the demux uses, so the bulk path and the per-slot path cannot disagree.
fn plain_opcodes() -> &'static [bool; 256] {
    static TABLE: std::sync::OnceLock<[bool; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|b| {
            let op = Opcode(b as u8);
            op != Opcode::COMPARE_BRANCH
                && pseudo_mnemonic(op).is_none()
                && op.v1_engine() != V1Engine::Rt
        })
    })
}

/// How many whole slots at the start of `window` are plain real-opcode slots (a known-good word
/// length and a [`plain_opcodes`] byte): lowering copies them unchanged, one record each
/// (spec 001 §1 "a real opcode is one verbatim record"), so the caller can copy the run at once.
pub(super) fn plain_run(window: &[u8]) -> usize {
    let plain = plain_opcodes();
    window
        .chunks_exact(64)
        .take_while(|s| s[1] == INST_NWORDS && plain[usize::from(s[0])])
        .count()
}

/// What one source slot became: the number of records appended.
pub type Translated = usize;

/// Translates the source slot at byte `at` of `stream` into `out`, returning the number of
/// records emitted (spec 001 §1). `stream` is the whole engine stream so translators that read
/// the next slot (0xD9 + 0xDA) can.
pub fn translate_one(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    stream: &[u8],
    at: usize,
    state: &mut TranslateState,
    out: &mut BlockWriter<'_, '_>,
) -> Result<Translated, LowerError> {
    let source_slot = (at / SLOT_BYTES) as u64;
    let err = |kind| LowerError::new(ctx.member(engine), source_slot, kind);
    let slot: &[u8; SLOT_BYTES] = stream
        .get(at..at + SLOT_BYTES)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| {
            err(LowerErrorKind::BadWindow {
                begin: ByteOffset(at as u64),
                end: ByteOffset((at + SLOT_BYTES) as u64),
                len: stream.len(),
            })
        })?;
    let opcode = Opcode(slot[0]);
    if opcode == Opcode::PSEUDO_DMA_DIRECT2D || opcode == Opcode::PSEUDO_EXTENSION {
        // D155: a 0xD4 and its 0xDA continuation are one instruction. The 0xD4's translator
        // reads both; the continuation (no header: its byte 1 is `flags`) adds no record, so
        // the block driver writes its DELETE row and the pair's rows account for both slots.
        let pairing = continuation::pairing_at(stream, at / SLOT_BYTES)
            .map_err(|e| err(LowerErrorKind::Pairing(e)))?;
        if pairing == Pairing::Continuation {
            return Ok(0);
        }
    }
    if slot[1] != INST_NWORDS {
        // is_valid_neuron_instruction (spec 003 §5 check 2): every source slot is 16 words.
        return Err(err(LowerErrorKind::BadWordLen { found: slot[1] }));
    }
    // The arch gate (spec 001; decision D288): the device's generation picks the demux; the v3
    // set is refused by v2 and, having no recipe, by v3; v3 down-translates SUNDA input.
    let gate = match state.gate {
        Some(g) => g,
        None => *state.gate.insert(ctx.arch_gate().map_err(err)?),
    };
    if let Some(kind) = gate.own_pseudo(slot, ctx.ccop_owner) {
        return Err(err(kind));
    }
    let down;
    let slot = if gate.down_translates() {
        down = arch::translate_one_sunda_to_cayman_instr(slot);
        &down
    } else {
        slot
    };
    let before = out.bytes().len();
    if state.pending_extension && opcode != Opcode::PSEUDO_EXTENSION {
        state.pending_extension = false;
    }
    let result = match opcode {
        Opcode::PSEUDO_DMA_TRIGGER => {
            dma_trigger::translate_dma_write(ctx, slot, dma_trigger::RingRegister::Tail, out)
        }
        Opcode::PSEUDO_DMAREARM => {
            dma_trigger::translate_dma_write(ctx, slot, dma_trigger::RingRegister::Rearm, out)
        }
        Opcode::PSEUDO_SEMAPHORE_SET => sync_pseudo::translate_semaphore_set(slot, out),
        Opcode::PSEUDO_TRIGGER_COLLECTIVE | Opcode::PSEUDO_SEND_RECV => {
            collective::translate_ptc(ctx, engine, slot, source_slot, state, out)
        }
        Opcode::PSEUDO_BRANCH_LABEL => label::translate_label(slot, out),
        Opcode::PSEUDO_FUNCTION_BEGIN
        | Opcode::PSEUDO_FUNCTION_RETURN
        | Opcode::PSEUDO_FUNCTION_CALL
        | Opcode::PSEUDO_INST => {
            special::translate_special(slot, source_slot, out);
            Ok(())
        }
        Opcode::PSEUDO_DMA_DIRECT2D => {
            let next = stream.get(at + SLOT_BYTES..at + 2 * SLOT_BYTES);
            let continuation = next.filter(|n| continuation::is_continuation(slot[0], n[0]));
            direct2d::translate_direct2d(ctx, engine, slot, continuation, source_slot, out)
        }
        Opcode::PSEUDO_SYNC_BARRIER => sync_pseudo::translate_sync_barrier(slot, out),
        Opcode::PSEUDO_TENSOR_LOAD | Opcode::PSEUDO_TENSOR_STORE => {
            tensor_access::translate_tensor_access(ctx, slot, out)
        }
        Opcode::PSEUDO_TRIGGER_COLLECTIVE2 => {
            collective::translate_ptc2(ctx, engine, stream, at, source_slot, state, out)
        }
        Opcode::PSEUDO_EXTENSION => collective::consume_extension(state),
        Opcode::PSEUDO_CUR_PROCESSING_RANK_ID => collective::translate_pcprid(ctx, slot, out),
        Opcode::PSEUDO_GID_LOAD => collective::translate_gid_load(ctx, slot, out),
        Opcode::PSEUDO_BRANCH_PREFETCH_HINT => {
            label::translate_prefetch_hint(slot, source_slot, out)
        }
        Opcode::COMPARE_BRANCH => {
            label::translate_compare_branch(slot, source_slot, out);
            Ok(())
        }
        op => match pseudo_mnemonic(op) {
            Some(name) => Err(LowerErrorKind::Unsupported { opcode: op.0, name }),
            // The RT class (opcode >> 5 == 6, spec 003 §2) is runtime-patched: a byte of it the
            // table does not name has no recipe, so it is an error, never a silent copy.
            None if op.v1_engine() == V1Engine::Rt => Err(LowerErrorKind::Unsupported {
                opcode: op.0,
                name: "unknown",
            }),
            None => {
                let off = out.bytes().len();
                add_ins(out.bytes(), off, slot);
                Ok(())
            }
        },
    };
    result.map_err(err)?;
    Ok((out.bytes().len() - before) / SLOT_BYTES)
}
