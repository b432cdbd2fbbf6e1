//! DMA: the data a PSEUDO_DMA_DIRECT2D (reference §4.5) or a PSEUDO_DMA_TRIGGER's descriptor
//! block (the engine JSON `dma[]`, reference §3.3) moves, and the dtype conversion a descriptor
//! whose two ends differ in dtype performs (matmul_small's output DMA: fp32 SBUF -> fp16 DRAM).
//!
//! An end is a var (the state buffer `SB` is the flat SBUF, partition `p` at `p * 0x40000`; any
//! other var its DRAM buffer) plus a byte offset and a pattern of whole elements; the bytes the
//! source pattern gathers are the elements, in order, that the destination pattern scatters
//! (decision D486). A byte outside its var is an error naming the descriptor.

use neff_isa::Dtype;
use neff_isa::layout::{ADDR8_FLAGS, ADDR8_OFFSET_REG, ADDR8_TABLE, ADDR8_VAR, Addr8};
use neff_isa::payload::{DmaDirect2d, DmaExtension};
use neff_kelf::{Graph, KbinDtype, VarType};

use super::convert;
use super::core::Core;
use super::hbm::Hbm;
use super::memory::{Mem, OnChip, PARTITIONS, SBUF_PARTITION_BYTES, Space, coalesce};

/// Where an end's bytes live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Memory {
    /// The core's SBUF (flat).
    Sbuf,
    /// A DRAM buffer.
    Dram(usize),
}

/// One end of a transfer: memory, var name (for messages), and the byte runs in order.
#[derive(Debug, Clone)]
pub(crate) struct End {
    /// The memory.
    pub(crate) memory: Memory,
    /// The var's name.
    pub(crate) var: String,
    /// `(byte offset, length)` runs, in transfer order.
    pub(crate) runs: Vec<(u64, u64)>,
    /// The element type.
    pub(crate) dtype: Dtype,
}

impl End {
    /// Bytes covered.
    pub(crate) fn bytes(&self) -> u64 {
        self.runs.iter().map(|r| r.1).sum()
    }
}

/// The bytes `m` holds: for SBUF its address space (128 partitions of 0x40000; the storage is
/// padded between them, D828).
fn len(hbm: &Hbm, m: Memory) -> usize {
    match m {
        Memory::Sbuf => PARTITIONS * SBUF_PARTITION_BYTES,
        Memory::Dram(i) => hbm.buffers[i].bytes.len(),
    }
}

/// The storage pieces of the run `o..o + n` of `m` (checked against [`len`] before).
fn pieces(m: Memory, o: u64, n: u64) -> impl Iterator<Item = (usize, usize)> {
    let (o, n) = (o as usize, n as usize);
    let sbuf = match m {
        Memory::Sbuf => OnChip::flat_pieces(Space::Sbuf, o, n),
        Memory::Dram(_) => None,
    };
    let dram = (m != Memory::Sbuf).then_some((o, n));
    sbuf.into_iter().flatten().chain(dram)
}

/// Moves `src` to `dst`, converting the elements when the dtypes differ.
pub(crate) fn transfer(
    core: &mut Core<'_>,
    hbm: &mut Hbm,
    src: &End,
    dst: &End,
) -> Result<(), String> {
    let (ss, ds) = (
        convert::size(src.dtype).ok_or("the source dtype has no width")?,
        convert::size(dst.dtype).ok_or("the destination dtype has no width")?,
    );
    if !src.bytes().is_multiple_of(ss as u64) || dst.bytes() / ds as u64 != src.bytes() / ss as u64
    {
        return Err(format!(
            "the source gathers {} bytes of {} but the destination scatters {} bytes of {}: not the same elements",
            src.bytes(),
            src.dtype.text(),
            dst.bytes(),
            dst.dtype.text()
        ));
    }
    for (end, what) in [(src, "source"), (dst, "destination")] {
        let len = len(hbm, end.memory) as u64;
        if let Some(&(o, n)) = end.runs.iter().find(|&&(o, n)| o + n > len) {
            return Err(format!(
                "{what} bytes {o}..{} are outside `{}` ({len} bytes)",
                o + n,
                end.var
            ));
        }
    }
    core.work.dma_bytes += src.bytes();
    for (end, write) in [(src, false), (dst, true)] {
        let mem = match end.memory {
            Memory::Sbuf => Mem::Sbuf,
            Memory::Dram(i) => Mem::Dram(i),
        };
        let mut runs: Vec<(usize, usize)> = if core.chip.touches.on() {
            end.runs
                .iter()
                .map(|&(o, n)| (o as usize, n as usize))
                .collect()
        } else {
            Vec::new()
        };
        coalesce(&mut runs);
        core.chip.touches.record(mem, write, end.dtype, runs);
    }
    let mut data = Vec::with_capacity(src.bytes() as usize);
    let from: &[u8] = match src.memory {
        Memory::Sbuf => &core.chip.sbuf,
        Memory::Dram(i) => &hbm.buffers[i].bytes,
    };
    for &(o, n) in &src.runs {
        for (i, l) in pieces(src.memory, o, n) {
            data.extend_from_slice(&from[i..i + l]);
        }
    }
    if src.dtype != dst.dtype {
        let mut out = vec![0u8; data.len() / ss * ds];
        super::access::convert_elements(src.dtype, dst.dtype, &data, &mut out);
        data = out;
    }
    let to = match dst.memory {
        Memory::Sbuf => &mut core.chip.sbuf[..],
        Memory::Dram(i) => &mut hbm.buffers[i].bytes,
    };
    let mut at = 0usize;
    for &(o, n) in &dst.runs {
        for (i, l) in pieces(dst.memory, o, n) {
            to[i..i + l].copy_from_slice(&data[at..at + l]);
            at += l;
        }
    }
    Ok(())
}

/// The runs of a 2-D pattern: `num[1]` rows of `num[0]` elements of `elem` bytes, `step` bytes
/// apart (reference §4.5: `src_pattern=[512,1][128,1]`; steps in bytes).
fn runs_2d(offset: u64, elem: u64, step: [u32; 2], num: [u16; 2]) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(usize::from(num[0]) * usize::from(num[1]));
    for j in 0..u64::from(num[1]) {
        for i in 0..u64::from(num[0]) {
            out.push((
                offset + i * u64::from(step[0]) + j * u64::from(step[1]),
                elem,
            ));
        }
    }
    out
}

/// Resolves an ADDR8 to its var: mode 0x10 names the var id, 0x20 the DGE table entry (decision
/// D132, the neff-load lowering's rule); with the OFFSET_REG bit the immediate is the register
/// that holds the offset (decision D155).
fn resolve(
    core: &Core<'_>,
    regs: &crate::registers::Registers,
    a: Addr8,
) -> Result<(Memory, String, u64), String> {
    let mode = a.mode & !ADDR8_FLAGS;
    let var_id = match mode & !ADDR8_OFFSET_REG {
        ADDR8_VAR => u32::from(a.entry),
        ADDR8_TABLE => {
            let id = core.dge_table.get(usize::from(a.entry)).ok_or_else(|| {
                format!(
                    "DGE entry {} is outside the dge-table ({} entries)",
                    a.entry,
                    core.dge_table.len()
                )
            })?;
            u32::try_from(*id).map_err(|_| format!("DGE entry {} names var {id}", a.entry))?
        }
        m => return Err(format!("ADDR8 mode {m:#04x} has no semantics here")),
    };
    let offset = if mode & ADDR8_OFFSET_REG != 0 {
        regs.get(a.immediate as u8)
    } else {
        u64::from(a.immediate)
    };
    let v = core
        .var(var_id)
        .ok_or_else(|| format!("var_id {var_id} is not in def.json var"))?;
    let memory = match (v.ty, v.buffer) {
        (VarType::StateBuffer, _) => Memory::Sbuf,
        (_, Some(b)) => Memory::Dram(b),
        (t, None) => return Err(format!("var `{}` ({}) holds no bytes", v.name, t.name())),
    };
    Ok((memory, v.name.clone(), offset))
}

/// The two ends of a PSEUDO_DMA_DIRECT2D.
pub(crate) fn direct2d_ends(
    core: &Core<'_>,
    regs: &crate::registers::Registers,
    d: &DmaDirect2d<'_>,
) -> Result<(End, End), String> {
    let dt = |r: Result<Dtype, u8>, what: &str| {
        r.map_err(|b| format!("{what} dtype byte {b:#04x} is not a dtype"))
    };
    let (sm, sv, so) = resolve(core, regs, d.src()).map_err(|e| format!("src: {e}"))?;
    let (dm, dv, doff) = resolve(core, regs, d.dst()).map_err(|e| format!("dst: {e}"))?;
    let src = End {
        memory: sm,
        var: sv,
        runs: runs_2d(so, u64::from(d.src_elem_size()), d.src_step(), d.src_num()),
        dtype: dt(d.src_dtype(), "src")?,
    };
    let dst = End {
        memory: dm,
        var: dv,
        runs: runs_2d(
            doff,
            u64::from(d.dst_elem_size()),
            d.dst_step(),
            d.dst_num(),
        ),
        dtype: dt(d.dst_dtype(), "dst")?,
    };
    Ok((src, dst))
}

/// Checks a DIRECT2D's continuation (`PSEUDO_DMA_EXT_STRUCT`, decision D155): only the bound
/// sizes have semantics (every real continuation: the source var's size, all else zero). A
/// non-zero bound is the byte count the end's runs must stay under.
pub(crate) fn check_extension(ext: &DmaExtension<'_>, src: &End, dst: &End) -> Result<(), String> {
    let unmodelled = [
        ("flags", u64::from(ext.flags())),
        (
            "idx_num_active_channels",
            u64::from(ext.idx_num_active_channels()),
        ),
        ("compute_op", u64::from(ext.compute_op())),
        ("src_idx_start_addr", u64::from(ext.src_idx_start_addr())),
        ("dst_idx_start_addr", u64::from(ext.dst_idx_start_addr())),
        ("tile_src_row_step", u64::from(ext.tile_src_row_step())),
        ("tile_src_rows", u64::from(ext.tile_src_rows())),
        ("tile_src_cols", u64::from(ext.tile_src_cols())),
    ];
    if let Some((name, v)) = unmodelled.iter().find(|f| f.1 != 0) {
        return Err(format!("continuation {name}={v:#x} has no semantics"));
    }
    let bound = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    for (end, b, what) in [
        (
            src,
            bound(ext.src_bound_size_bytes(), ext.src_bound_size_bytes_upper()),
            "source",
        ),
        (
            dst,
            bound(ext.dst_bound_size_bytes(), ext.dst_bound_size_bytes_upper()),
            "destination",
        ),
    ] {
        if let Some(&(o, n)) = end.runs.iter().find(|&&(o, n)| b != 0 && o + n > b) {
            return Err(format!(
                "{what} bytes {o}..{} of `{}` are past the continuation's bound {b}",
                o + n,
                end.var
            ));
        }
    }
    Ok(())
}

/// The runs of a descriptor end (`from_*` / `to_*`, reference §3.3): `sizes[0]` contiguous
/// bytes (step 1), repeated over the outer dimensions (`sizes[i]` counts, `steps[i]` bytes).
fn runs_desc(off: u64, sizes: &[u64], steps: &[i64]) -> Result<Vec<(u64, u64)>, String> {
    let (Some(&len), Some(&s0)) = (sizes.first(), steps.first()) else {
        return Err("no sizes / steps".into());
    };
    if s0 != 1 || sizes.len() != steps.len() || sizes.len() > 4 {
        return Err(format!(
            "sizes {sizes:?} steps {steps:?}: only a contiguous innermost dimension has semantics"
        ));
    }
    let mut runs = vec![(off as i64, len)];
    for (&n, &st) in sizes.iter().zip(steps).skip(1) {
        if runs.len() as u64 * n > 1 << 24 {
            return Err("more than 2^24 runs".into());
        }
        let mut next = Vec::with_capacity(runs.len() * n as usize);
        for i in 0..n as i64 {
            next.extend(runs.iter().map(|&(o, l)| (o + i * st, l)));
        }
        runs = next;
    }
    runs.into_iter()
        .map(|(o, l)| {
            u64::try_from(o)
                .map(|o| (o, l))
                .map_err(|_| format!("negative byte {o}"))
        })
        .collect()
}

/// The memory of the var called `name`.
pub(crate) fn named(core: &Core<'_>, name: &str) -> Result<Memory, String> {
    let v = core
        .vars
        .iter()
        .find(|v| v.name == name)
        .ok_or_else(|| format!("var `{name}` is not in def.json var"))?;
    match (v.ty, v.buffer) {
        (VarType::StateBuffer, _) => Ok(Memory::Sbuf),
        (_, Some(b)) => Ok(Memory::Dram(b)),
        (t, None) => Err(format!("var `{name}` ({}) holds no bytes", t.name())),
    }
}

/// A trigger's (source, destination) pairs and the semaphore it raises with the increment.
pub(crate) type Trigger = (Vec<(End, End)>, Option<(usize, i64)>);

/// The transfers of a PSEUDO_DMA_TRIGGER (spec 003 §4-§5): engine JSON block `block_id` on queue
/// `queue` (its `queue` or `instance_name`), each `desc[]` a copy (or a cast when the dtypes
/// differ); and the semaphore its completion raises with the increment (the queue's
/// `num_queues`, reference §3.3).
pub(crate) fn trigger_ends(
    core: &Core<'_>,
    engine: neff_isa::EngineType,
    queue: &str,
    block_id: u64,
) -> Result<Trigger, String> {
    let g = core
        .graph
        .ok_or("a DMA trigger needs the subgraph's engine JSON (a core without a graph)")?;
    let blocks = g
        .engine(engine)
        .and_then(|p| p.json.as_ref())
        .map_or(&[][..], |j| j.dma_blocks());
    let b = blocks
        .iter()
        .find(|b| {
            b.id == block_id
                && (b.queue.as_deref() == Some(queue) || b.instance_name.as_deref() == Some(queue))
        })
        .ok_or_else(|| format!("no dma block {block_id} on queue `{queue}` in the engine JSON"))?;
    let mut out = Vec::with_capacity(b.desc.len());
    for (i, d) in b.desc.iter().enumerate() {
        let at = |what: &str| format!("desc {i} ({}): {what}", b.comment.as_deref().unwrap_or(""));
        if d.op.as_deref().is_some_and(|o| o != "copy" && o != "cast") {
            return Err(at(&format!(
                "op `{}` has no semantics",
                d.op.as_deref().unwrap_or("")
            )));
        }
        let dtype = |s: &Option<String>| {
            s.as_deref()
                .and_then(KbinDtype::from_name)
                .map(convert::from_kbin)
                .ok_or_else(|| at(&format!("dtype {s:?} unknown")))
        };
        let end = |var: &Option<String>,
                   off: Option<u64>,
                   sizes: &Option<Vec<u64>>,
                   steps: &Option<Vec<i64>>,
                   dt: &Option<String>|
         -> Result<End, String> {
            let name = var.as_deref().ok_or_else(|| at("no var"))?;
            Ok(End {
                memory: named(core, name).map_err(|e| at(&e))?,
                var: name.to_string(),
                runs: runs_desc(
                    off.unwrap_or(0),
                    sizes.as_deref().unwrap_or(&[]),
                    steps.as_deref().unwrap_or(&[]),
                )
                .map_err(|e| at(&e))?,
                dtype: dtype(dt)?,
            })
        };
        out.push((
            end(
                &d.from,
                d.from_off,
                &d.from_sizes,
                &d.from_steps,
                &d.from_dtype,
            )?,
            end(&d.to, d.to_off, &d.to_sizes, &d.to_steps, &d.to_dtype)?,
        ));
    }
    let inc = g
        .def
        .dma_queue
        .as_ref()
        .and_then(|q| q.get(b.queue.as_deref().unwrap_or(queue)))
        .and_then(|q| q.num_queues)
        .unwrap_or(1);
    // A block without its own semaphore raises its queue's for its ring (spec 003 §7.3: the
    // sample's q_gradient_in raises 10), as the timing model's rings do (decision D855).
    let raise = b
        .semaphore
        .or_else(|| queue_semaphore(g, queue))
        .map(|s| (s as usize, inc as i64));
    Ok((out, raise))
}

/// The semaphore of the ring a trigger names (decision D36's naming, [`neff_kelf::ring_named`]):
/// the one the queue's `semaphore_set` (or `semaphore`) gives that ring.
fn queue_semaphore(g: &Graph<'_>, name: &str) -> Option<u32> {
    let (_, q, ring) = neff_kelf::ring_named(g.def.dma_queue.as_ref()?, name)?;
    q.semaphores().get(ring).copied()
}

#[cfg(test)]
mod tests {
    use neff_isa::payload::DmaTriggerMut;
    use neff_isa::{Dtype, EngineType, Opcode, SlotBuf};
    use neff_kelf::{DefJson, EngineJson, EngineProgram, Graph, Location};

    use super::super::core::Core;
    use super::super::error::RunError;
    use super::super::testing::{core, direct2d, dram, read, run, slot, stream, vars};

    /// x = [[1,2,3,4],[5,6,7,8]] (row-major fp32) read column by column (src steps 16, 4) into
    /// partition j (dst step 4 within a partition, 0x40000 between them): partition j holds
    /// [x[0][j], x[1][j]] — the transpose.
    #[test]
    fn direct2d_transposes_by_its_patterns_and_raises_its_semaphore() {
        let bytes = stream(&[direct2d(0, [16, 4], [4, 0x40000], [2, 4])]);
        let mut c = core(EngineType::Sp, &bytes, vars());
        let mut hbm = dram(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        run(&mut c, &mut hbm).unwrap();
        let got = read(&c, 0, 4, 2, Dtype::Float32);
        assert_eq!(got, [1.0, 5.0, 2.0, 6.0, 3.0, 7.0, 4.0, 8.0]);
        assert_eq!(c.sync.sems[3], 1);
    }

    /// def.json: queue `qSPIO0` raising by `num_queues` 2 (reference §3.3).
    const DEF_JSON: &str =
        r#"{"dma_queue": {"qSPIO0": {"type": "in", "owner": "sp", "num_queues": 2}}}"#;

    /// SP.json: block 0 of `qSPIO0`, one descriptor moving 2-element (8-byte) fp32 runs of
    /// DRAM `x` (row-major 2 x 4) in the order rows then columns, into the state buffer
    /// partition by partition: partition 0 gets [x00 x01 x10 x11], partition 1 [x02 x03 x12
    /// x13] (a 2 x 2 block transpose); it raises semaphore 5.
    const SP_JSON: &str = r#"{"dma": [{"id": 0, "queue": "qSPIO0", "semaphore": 5, "desc": [
        {"op": "copy", "from": "x", "from_off": 0, "from_sizes": [8, 2, 2], "from_steps": [1, 16, 8],
         "from_dtype": "float32", "to": "SB", "to_off": 0, "to_sizes": [8, 2, 2],
         "to_steps": [1, 8, 262144], "to_dtype": "float32"}]}], "instr": "SP.bin"}"#;

    /// A subgraph of SP alone running `bytes`, with the JSONs above.
    fn graph(bytes: &[u8]) -> Graph<'_> {
        Graph {
            name: "sg00".into(),
            def_member: "sg00/def.json".into(),
            dir: "sg00".into(),
            def: DefJson::parse("sg00/def.json", DEF_JSON.as_bytes()).unwrap(),
            engines: vec![EngineProgram {
                eng_type: EngineType::Sp,
                name: "sp".into(),
                json_member: Some("SP.json".into()),
                json: Some(EngineJson::parse("sg00/SP.json", SP_JSON.as_bytes()).unwrap()),
                instr_member: "sg00/SP.bin".into(),
                instr_named_at: Location::new("sg00/SP.json", "/instr"),
                instr: bytes,
            }],
            warnings: Vec::new(),
        }
    }

    fn trigger(queue: &str, block: u32) -> SlotBuf {
        slot(Opcode::PSEUDO_DMA_TRIGGER, |b| {
            DmaTriggerMut(b)
                .queue_name(queue.as_bytes())
                .block_id(block);
        })
    }

    /// Runs one trigger of `qSPIO0` block `block` on SP over DRAM `x`; `check` sees the core
    /// after the run and the run's result.
    fn with_trigger(block: u32, x: &[f32], check: impl FnOnce(&Core<'_>, Result<u64, RunError>)) {
        let bytes = stream(&[trigger("qSPIO0", block)]);
        let g = graph(&bytes);
        let streams = [(EngineType::Sp, &bytes[..])];
        let mut c = Core::new(
            "sg00".into(),
            Some(&g),
            &streams,
            vars(),
            Vec::new(),
            Default::default(),
        );
        let r = run(&mut c, &mut dram(x));
        check(&c, r);
    }

    /// PSEUDO_DMA_TRIGGER through the run loop (spec 003 §4-§5): the engine JSON block's
    /// descriptor moves its runs (hand-computed placement) and its completion raises the
    /// block's semaphore by the queue's `num_queues`.
    #[test]
    fn a_trigger_moves_its_blocks_descriptors_and_raises_by_num_queues() {
        with_trigger(0, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], |c, r| {
            r.unwrap();
            let got = read(c, 0, 2, 4, Dtype::Float32);
            assert_eq!(got, [1.0, 2.0, 5.0, 6.0, 3.0, 4.0, 7.0, 8.0]);
            assert_eq!(c.sync.sems[5], 2);
        });
    }

    #[test]
    fn a_trigger_of_a_block_the_engine_json_lacks_names_it() {
        with_trigger(7, &[0.0; 8], |_, r| {
            let e = r.unwrap_err().to_string();
            assert!(e.contains("no dma block 7 on queue `qSPIO0`"), "{e}");
        });
    }

    #[test]
    fn a_transfer_outside_its_var_names_the_descriptor_and_the_bytes() {
        let bytes = stream(&[direct2d(16, [4, 16], [4, 16], [4, 2])]);
        let mut c = core(EngineType::Sp, &bytes, vars());
        let e = run(&mut c, &mut dram(&[0.0; 8])).unwrap_err().to_string();
        assert!(e.contains("descriptor"), "{e}");
        assert!(e.contains("outside `x` (32 bytes)"), "{e}");
    }
}
