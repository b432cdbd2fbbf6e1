//! The collective column (spec 001 §3): PSEUDO_TRIGGER_COLLECTIVE (0xC8), SENDRECV (0xCB),
//! TRIGGER_COLLECTIVE2 (0xD9 + its mandatory 0xDA), CUR_PROCESSING_RANK_ID (0xDB), GID_LOAD
//! (0xDC).
//!
//! A collective does not expand into compute: it is validated, planned as an ENC op list (kept as
//! a side artifact, [`CollectiveOpList`]) and fired by exactly one trigger record (decision D51).
//! Slot layouts: 0xC8 is spec 003 §6 plus the chaining byte at +0x21; 0xCB, 0xD9/0xDA, 0xDB and
//! 0xDC are decision D55.

use neff_isa::Events;
use neff_isa::builder::{
    UPDATE_SEM_INC_COMPLETE, add_ldr32_addr, add_mov32_imm, add_nop, add_str32_imm_addr,
    add_str32_imm_reg, add_wr32,
};
use neff_isa::payload::{
    CurProcessingRankId, Extension, GidLoad, Ptc2Operand, TriggerCollective, TriggerCollective2,
};
use neff_isa::{AluOp, CollectiveType, Dtype, EngineType, Opcode, SLOT_BYTES, Slot};

use super::context::LowerContext;
use super::demux::TranslateState;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::mem_ref::{self, ResolvedTensor};

/// The encoder's op class (spec 001 §3: ALLGATHER=0, ALLREDUCE=1, REDUCE_SCATTER=4, ALLTOALL=7,
/// PERMUTE=8): the collective type byte uses the same numbers (decision D55), so it is neff-isa's
/// [`CollectiveType`] itself.
pub type EncOpClass = CollectiveType;

/// Whether the class's input spans ranks: mask 0x90 (spec 001 §3 ptc_input_total_num_elements).
pub fn input_scaled(class: EncOpClass) -> bool {
    (1u32 << class as u32) & 0x90 != 0
}

/// Whether the class's output spans ranks: mask 0x81 (spec 001 §3
/// ptc_output_total_num_elements).
pub fn output_scaled(class: EncOpClass) -> bool {
    (1u32 << class as u32) & 0x81 != 0
}

/// INSTR_CHAINING (spec 001 §3: NONE/INITIAL/BODY/FINAL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstrChaining {
    /// A standalone collective.
    None = 0,
    /// The first of a chain: its events are remembered for the FINAL.
    Initial = 1,
    /// A middle link: the trigger carries no events.
    Body = 2,
    /// The last link: events copied, the INITIAL's wait overlaid.
    Final = 3,
}

/// One 248-byte `enc_op_args` entry, the fields lowering can derive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncOp {
    /// Op class.
    pub class: EncOpClass,
    /// Reduce subcode 0..3 from ADD/MULT/MAX/MIN, for reducing classes.
    pub reduce: Option<u8>,
    /// The raw ALU op byte.
    pub alu_op: u8,
    /// Chaining.
    pub chaining: InstrChaining,
    /// DTYPE byte.
    pub dtype: u8,
    /// Element size in bytes (spec 001 §3 "computes per-element byte sizes").
    pub elem_size: u32,
    /// Input tensor (var) id.
    pub input_tensor_id: u32,
    /// Second input tensor (var) id: PTC2's src1 (spec 001 §3 "input0/input1/output").
    pub input1_tensor_id: Option<u32>,
    /// Output tensor (var) id.
    pub output_tensor_id: u32,
    /// What the input id resolved to (decision D285).
    pub input: ResolvedTensor,
    /// What the output id resolved to.
    pub output: ResolvedTensor,
    /// `num_elements` of the slot.
    pub num_elements: u64,
    /// Input elements after the 0x90 scaling.
    pub input_elements: u64,
    /// Output elements after the 0x81 scaling.
    pub output_elements: u64,
    /// Replica group and its rank count.
    pub group_id: u16,
    /// Ranks in the group (>= 1).
    pub rank_n: u64,
    /// Source offset: elements for 0xC8/0xCB (spec 003 §6), the ADDR8 byte immediate for 0xD9.
    pub src_offset: u64,
    /// Destination offset, in the same unit.
    pub dst_offset: u64,
    /// The 3-bit DMA priority class of a PTC2, `PTC2E buf[41] & 7`, read on arch > 2 only
    /// (spec 001 §3); `None` for other forms and on SUNDA.
    pub dma_priority: Option<u8>,
}

/// The ENC plan of one collective pseudo and the doorbell that fires it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectiveOpList {
    /// The source slot.
    pub source_slot: u64,
    /// The pseudo opcode.
    pub opcode: u8,
    /// The doorbell the trigger writes (`trigger_addr`).
    pub trigger_addr: u64,
    /// Whether this subgraph fires the doorbell (`cc_ctx.ccop_owner`, decision D286).
    pub ccop_owner: bool,
    /// The ops.
    pub ops: Vec<EncOp>,
}

/// The reduce ALU ops of ALL_REDUCE / REDUCE_SCATTER: ADD, MULT, MAX, MIN (spec 001 §3 mask).
pub const REDUCE_OPS: u32 = 0x350;

/// The fields both PTC forms share, decoded.
struct Ptc {
    events: Events,
    alu_op: u8,
    dtype: u8,
    group_id: u16,
    input: u32,
    input1: Option<u32>,
    output: u32,
    num_elements: u64,
    ctype: u8,
    chaining: u8,
    src_offset: u64,
    dst_offset: u64,
    /// Offsets count bytes (0xD9 ADDR8 immediates) rather than elements (0xC8).
    offsets_in_bytes: bool,
    dma_priority: Option<u8>,
}

impl Ptc {
    /// Bytes an operand at `offset` with `elements` elements of `size` bytes spans.
    fn span(&self, offset: u64, elements: u64, size: u32) -> u64 {
        let size = u64::from(size);
        if self.offsets_in_bytes {
            offset.saturating_add(elements.saturating_mul(size))
        } else {
            offset.saturating_add(elements).saturating_mul(size)
        }
    }
}

/// The op class of a ctype byte: one of the five classes the encoder has (spec 001 §3), the
/// per-op support check neffkit can make, no slot layout carrying a cc_dim (decision D285).
fn class_of(ctype: u8) -> Result<EncOpClass, LowerErrorKind> {
    EncOpClass::from_u8(ctype).ok_or(LowerErrorKind::UnknownCollectiveType { ctype })
}

/// build_cc_context + the spec's `require`s + build_enc_op_list_args + instr_col_add.
#[allow(clippy::too_many_arguments)] // the translator's inputs, each used once
fn lower_collective(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    opcode: u8,
    p: Ptc,
    class: EncOpClass,
    source_slot: u64,
    state: &mut TranslateState,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let streams = ctx.resources.cc_streams;
    if streams > 1 {
        return Err(LowerErrorKind::MultipleStreams { streams });
    }
    if p.events.update_mode != UPDATE_SEM_INC_COMPLETE {
        return Err(LowerErrorKind::UpdateModeNotSemIncComplete {
            found: p.events.update_mode,
        });
    }
    let reduce = match class {
        EncOpClass::AllReduce | EncOpClass::ReduceScatter => {
            if p.alu_op >= 32 || (1u32 << p.alu_op) & REDUCE_OPS == 0 {
                return Err(LowerErrorKind::BadReduceOp { alu_op: p.alu_op });
            }
            Some(match AluOp::from_u8(p.alu_op) {
                Some(AluOp::Add) => 0,
                Some(AluOp::Mult) => 1,
                Some(AluOp::Max) => 2,
                _ => 3,
            })
        }
        _ => None,
    };
    let chaining = match p.chaining {
        0 => InstrChaining::None,
        1 => InstrChaining::Initial,
        2 => InstrChaining::Body,
        3 => InstrChaining::Final,
        c => return Err(LowerErrorKind::BadChaining { chaining: c }),
    };
    let groups = &ctx.resources.replica_groups;
    let rank_n = match groups.get(usize::from(p.group_id)) {
        Some(g) => g.len().max(1) as u64,
        None if groups.is_empty() && p.group_id == 0 => 1,
        None => {
            return Err(LowerErrorKind::UnknownReplicaGroup {
                group_id: p.group_id,
                count: groups.len(),
            });
        }
    };
    let scale = |yes: bool| {
        if yes {
            p.num_elements.saturating_mul(rank_n)
        } else {
            p.num_elements
        }
    };
    let (input_elements, output_elements) =
        (scale(input_scaled(class)), scale(output_scaled(class)));
    // build_enc_op_list_args: mem refs by tensor id, MR-list symmetry, element sizes.
    let res = ctx.resources;
    let input = mem_ref::resolve(res, "input", p.input)?;
    if let Some(id) = p.input1 {
        mem_ref::resolve(res, "input1", id)?;
    }
    let output = mem_ref::resolve(res, "output", p.output)?;
    mem_ref::check_symmetry(&input, &output, (p.input, p.output))?;
    let elem_size = Dtype::from_u8(p.dtype)
        .and_then(Dtype::size)
        .ok_or(LowerErrorKind::UnsizedDtype { dtype: p.dtype })?;
    let need_in = p.span(p.src_offset, input_elements, elem_size);
    mem_ref::check_fits(res, "input", p.input, &input, need_in)?;
    let need_out = p.span(p.dst_offset, output_elements, elem_size);
    mem_ref::check_fits(res, "output", p.output, &output, need_out)?;
    let op = EncOp {
        class,
        reduce,
        alu_op: p.alu_op,
        chaining,
        dtype: p.dtype,
        elem_size,
        input_tensor_id: p.input,
        input1_tensor_id: p.input1,
        output_tensor_id: p.output,
        input,
        output,
        num_elements: p.num_elements,
        input_elements,
        output_elements,
        group_id: p.group_id,
        rank_n,
        src_offset: p.src_offset,
        dst_offset: p.dst_offset,
        dma_priority: p.dma_priority,
    };
    let trigger_addr = ctx.device.cc_trigger_addr(engine.index())?;
    out.block.op_lists.push(CollectiveOpList {
        source_slot,
        opcode,
        trigger_addr,
        ccop_owner: ctx.ccop_owner,
        ops: vec![op],
    });
    // instr_col_add: events for NONE/FINAL; FINAL overlays the chain's first wait.
    let events = match chaining {
        InstrChaining::None => Some(p.events),
        InstrChaining::Final => {
            let mut ev = p.events;
            if let Some(first) = state.chain_first_events.take() {
                ev.wait_mode = first.wait_mode;
                ev.semaphore_value = first.semaphore_value;
            }
            Some(ev)
        }
        InstrChaining::Initial => {
            state.chain_first_events = Some(p.events);
            None
        }
        InstrChaining::Body => None,
    }
    .map(Events::pack);
    let off = out.bytes().len();
    if ctx.options.dbg_cc_nop || !ctx.ccop_owner {
        // dbg_cc_nop, or a subgraph that does not own the collective (decision D286): the
        // record stays (one slot, its events kept) but rings no doorbell.
        add_nop(out.bytes(), off, events);
    } else {
        let value = u32::try_from(source_slot).unwrap_or(u32::MAX);
        add_wr32(out.bytes(), off, trigger_addr, value, events);
    }
    Ok(())
}

/// 0xC8 / 0xCB (`instr_col_translate_ptc` / `_psr`): spec 003 §6 layout; SENDRECV is the PERMUTE
/// class whatever its ctype byte (decision D55).
pub(super) fn translate_ptc(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    state: &mut TranslateState,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    // 0xCB (SENDRECV) carries the 0xC8 fields (decision D55; printed generically).
    let v = TriggerCollective(Slot::new(slot));
    let p = Ptc {
        events: v.events(),
        alu_op: raw(v.op()),
        dtype: raw(v.dtype()),
        group_id: v.group_id(),
        input: v.input_tensor_id(),
        input1: None,
        output: v.output_tensor_id(),
        num_elements: v.num_elements(),
        ctype: raw(v.ctype()),
        chaining: v.chaining(),
        src_offset: v.src_offset_elems(),
        dst_offset: v.dst_offset_elems(),
        offsets_in_bytes: false,
        dma_priority: None,
    };
    let class = if Opcode(slot[0]) == Opcode::PSEUDO_SEND_RECV {
        EncOpClass::Permute
    } else {
        class_of(p.ctype)?
    };
    lower_collective(ctx, engine, slot[0], p, class, source_slot, state, out)
}

/// The PTC2E's 3-bit DMA priority class, `buf[41] & 7` (spec 001 §3), read through neff-isa's
/// PSEUDO_EXTENSION view (the one place byte 41 is declared, decision D11).
fn ptc2e_priority(ext: &[u8]) -> Option<u8> {
    let bytes: &[u8; SLOT_BYTES] = ext.try_into().ok()?;
    Extension::new(Slot::new(bytes)).map(|x| x.priority() & 7)
}

/// Checks a PTC2 ADDR8 operand's VAR_ID marker `(x & 0xFC) == 0x10` and returns its var id.
fn var_id_operand(v: Ptc2Operand, operand: &'static str) -> Result<u32, LowerErrorKind> {
    if !v.is_var_id() {
        return Err(LowerErrorKind::BadVarIdMarker {
            operand,
            marker: v.marker(),
        });
    }
    Ok(u32::from(v.var_id()))
}

/// An all-zero slot.
const ZERO: Slot<'static> = Slot::new(&[0; SLOT_BYTES]);

/// The raw byte of an enum field (a named value or the unnamed byte itself).
fn raw<T: Into<u8>>(v: Result<T, u8>) -> u8 {
    v.map_or_else(|b| b, Into::into)
}

/// 0xD9 (`instr_col_translate_ptc2_full`): requires the following 0xDA, checks the 26-bit
/// partition offset and the VAR_ID markers, then lowers like PTC. The 0xDA slot itself is
/// consumed by [`consume_extension`] (0 records, DELETE; decision D55).
pub(super) fn translate_ptc2(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    stream: &[u8],
    at: usize,
    source_slot: u64,
    state: &mut TranslateState,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let ext = match stream.get(at + SLOT_BYTES..at + 2 * SLOT_BYTES) {
        Some(e) if Opcode(e[0]) == Opcode::PSEUDO_EXTENSION => e,
        Some(e) => {
            return Err(LowerErrorKind::MissingPtc2Extension {
                found: format!("opcode {:#04x}", e[0]),
            });
        }
        None => {
            return Err(LowerErrorKind::MissingPtc2Extension {
                found: "the end of the stream".into(),
            });
        }
    };
    let partition = Slot::from_slice(ext).map_or(0, |x| Extension(x).partition_offset());
    if partition & !((1 << 25) - 1) != 0 {
        return Err(LowerErrorKind::BadPartitionOffset { value: partition });
    }
    // 0xD9 is printed generically (decision D11); its fields are read through the view of D55.
    // The demux hands over whole slots, so the 0xD9 is 64 bytes; an absent one reads as zeros.
    let v = TriggerCollective2(stream.get(at..).and_then(Slot::from_slice).unwrap_or(ZERO));
    let (src0, src1, dst) = (
        Ptc2Operand(v.src0()),
        Ptc2Operand(v.src1()),
        Ptc2Operand(v.dst()),
    );
    let p = Ptc {
        events: v.events(),
        alu_op: v.op(),
        dtype: v.dtype(),
        group_id: v.group_id(),
        input: var_id_operand(src0, "src0")?,
        input1: Some(var_id_operand(src1, "src1")?),
        output: var_id_operand(dst, "dst")?,
        num_elements: v.num_elements(),
        ctype: v.ctype(),
        chaining: v.chaining(),
        src_offset: u64::from(src0.offset()),
        dst_offset: u64::from(dst.offset()),
        offsets_in_bytes: true,
        // spec 001 §3: "reads the 3-bit DMA priority class from PTC2E buf[41] & 7 on cayman+
        // (arch>2)".
        dma_priority: ctx
            .arch_gate()?
            .reads_ptc2_priority()
            .then(|| ptc2e_priority(ext))
            .flatten(),
    };
    let class = class_of(p.ctype)?;
    lower_collective(
        ctx,
        engine,
        Opcode::PSEUDO_TRIGGER_COLLECTIVE2.0,
        p,
        class,
        source_slot,
        state,
        out,
    )?;
    state.pending_extension = true;
    Ok(())
}

/// 0xDA: consumed by the 0xD9 before it; on its own it is an error.
pub(super) fn consume_extension(state: &mut TranslateState) -> Result<(), LowerErrorKind> {
    if !std::mem::take(&mut state.pending_extension) {
        return Err(LowerErrorKind::OrphanExtension);
    }
    Ok(())
}

/// 0xDB (`instr_col_translate_pcprid`): +0x0C destination register, +0x0D load size (must be 4)
/// -> one add_ldr32_addr of the rank-id buffer.
pub(super) fn translate_pcprid(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let v = CurProcessingRankId(Slot::new(slot));
    if v.load_size() != 4 {
        return Err(LowerErrorKind::RankIdSize {
            size: v.load_size(),
        });
    }
    let events = Events::read(slot).map(Events::pack);
    let off = out.bytes().len();
    add_ldr32_addr(
        out.bytes(),
        off,
        v.dst_reg(),
        ctx.device.rank_id_addr(),
        events,
    );
    Ok(())
}

/// 0xDC (`instr_col_translate_pseudo_gid_load`): +0x0C destination kind (0 register,
/// 1 immediate address, 2 address in a register), +0x10 register or address -> add_mov32_imm,
/// add_str32_imm_addr or add_str32_imm_reg of the global device id.
pub(super) fn translate_gid_load(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let gid = ctx.device.global_device_id();
    let events = Events::read(slot).map(Events::pack);
    let off = out.bytes().len();
    let v = GidLoad(Slot::new(slot));
    match v.dst_kind() {
        0 => add_mov32_imm(out.bytes(), off, v.dst_reg(), gid, events),
        1 => add_str32_imm_addr(out.bytes(), off, gid, v.dst(), events),
        2 => add_str32_imm_reg(out.bytes(), off, gid, v.dst_reg(), events),
        k => {
            return Err(LowerErrorKind::BadAddress {
                operand: "dst",
                reason: format!(
                    "PSEUDO_GID_LOAD destination kind {k} is not 0 (register), 1 (address) or 2 (register address)"
                ),
            });
        }
    };
    Ok(())
}
