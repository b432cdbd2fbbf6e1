//! One file -> one [`ScanRow`]: header, package, kelf, kbins, load, each stage filling its
//! columns; the first failure is recorded in the row and ends that row, never the scan.

use std::borrow::Cow;
use std::error::Error;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use neff_container::{Header, Neff};
use neff_isa::EngineType;
use neff_kelf::{Kbin, Kelf};
use sha2::{Digest, Sha256};

use crate::histogram::OpcodeHistogram;
use crate::options::ScanOptions;
use crate::row::{DmaQueueRow, RowKind, ScanRow, Stage};
use crate::stage_times::{StageTimes, timed};

/// A failed stage with its message.
pub(crate) struct Failed(pub(crate) Stage, pub(crate) String);

/// The message of `e` and of every source it does not already quote.
pub(crate) fn message(e: &dyn Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let m = cause.to_string();
        if !text.contains(&m) {
            text.push_str(": ");
            text.push_str(&m);
        }
        source = cause.source();
    }
    text
}

fn at(stage: Stage) -> impl Fn(&dyn Error) -> Failed {
    move |e| Failed(stage, message(e))
}

/// Scans the bytes of one file; `path` labels the row. Never panics: a panic inside neffkit
/// becomes an `internal` error in the row.
pub fn scan_bytes(path: &str, bytes: &[u8], options: &ScanOptions) -> ScanRow {
    scan_bytes_timed(path, bytes, options).0
}

/// [`scan_bytes`], with the time each stage took.
pub fn scan_bytes_timed(path: &str, bytes: &[u8], options: &ScanOptions) -> (ScanRow, StageTimes) {
    scan_timed(path, Cow::Borrowed(bytes), options)
}

/// [`scan_bytes_timed`] of bytes the scan may own: a file [`scan_file`] read is freed once its
/// package is inflated (decision D831), not held beside the package through the load.
fn scan_timed(path: &str, bytes: Cow<'_, [u8]>, options: &ScanOptions) -> (ScanRow, StageTimes) {
    let mut row = ScanRow::new(path, bytes.len() as u64);
    let mut t = StageTimes::default();
    let digest = timed(&mut t.sha256, || Sha256::digest(&bytes));
    row.sha256 = Some(neff_container::hash::hex(&digest));
    let filled = catch_unwind(AssertUnwindSafe(|| {
        if crate::capture_row::is_capture(&bytes) {
            row.kind = Some(RowKind::Capture);
            crate::capture_row::fill(&mut row, path, &bytes)
        } else {
            row.kind = Some(RowKind::Neff);
            fill(&mut row, &mut t, bytes, options)
        }
    }));
    match filled {
        Ok(Ok(())) => {}
        Ok(Err(Failed(stage, msg))) => row.fail(stage, msg),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            row.load_ok = false;
            row.fail(
                Stage::Internal,
                format!("internal error (a bug in neffkit, please report it): {what}"),
            );
        }
    }
    (row, t)
}

/// Reads and scans the file at `path`. A file that cannot be read, or is larger than any NEFF
/// the limits allow ([`ScanOptions::max_file_size`]), is an `io` row.
pub fn scan_file(path: &Path, options: &ScanOptions) -> ScanRow {
    let label = path.display().to_string();
    match read_bounded(path, options.max_file_size()) {
        Ok(bytes) => scan_timed(&label, Cow::Owned(bytes), options).0,
        Err((size, msg)) => {
            let mut row = ScanRow::new(label, size);
            row.fail(Stage::Io, msg);
            row
        }
    }
}

/// The file's bytes, or (its size if known, the message).
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, (u64, String)> {
    let file = std::fs::File::open(path).map_err(|e| (0, e.to_string()))?;
    let meta = file.metadata().map_err(|e| (0, e.to_string()))?;
    if !meta.is_file() {
        return Err((0, "not a regular file".to_owned()));
    }
    let size = meta.len();
    if size > max {
        return Err((
            size,
            format!(
                "limit exceeded: the file has {size} bytes, more than a NEFF within the \
                 inflated-size limit can have ({max})"
            ),
        ));
    }
    // The length is a hint only (the file may change); `take` bounds what is read.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| (size, e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err((
            bytes.len() as u64,
            "the file grew while being read".to_owned(),
        ));
    }
    Ok(bytes)
}

/// Every stage in order, each timed into `t`.
fn fill(
    row: &mut ScanRow,
    t: &mut StageTimes,
    bytes: Cow<'_, [u8]>,
    options: &ScanOptions,
) -> Result<(), Failed> {
    let header = Header::parse(&bytes).map_err(|e| at(Stage::Header)(&e))?;
    fill_header(row, &header);
    let neff = timed(&mut t.package, || match bytes {
        Cow::Owned(file) => Neff::parse_owned(file, &options.read),
        Cow::Borrowed(file) => Neff::parse_with(file, &options.read),
    })
    .map_err(|e| at(Stage::Package)(&e))?;
    fill_package(row, &neff);
    let (kelf, kbins) = timed(&mut t.kelf, || {
        let kelf = Kelf::from_neff(&neff).map_err(|e| at(Stage::Kelf)(&e))?;
        let kbins = kelf.kbins().map_err(|e| at(Stage::Kelf)(&e))?;
        Ok((kelf, kbins))
    })?;
    row.target = Some(kelf.target.name().to_owned());
    timed(&mut t.counts, || fill_kbins(row, &kbins));
    if !options.load {
        return Ok(());
    }
    let model = timed(&mut t.load, || {
        neff_load::model::load_kbins_with_progress(
            &kbins,
            &options.load_options(kelf.target),
            &|_| {},
        )
    })
    .map_err(|e| at(Stage::Load)(&e))?;
    for sg in &model.subgraphs {
        for e in sg.engines.iter().filter(|e| e.trailing_bytes != 0) {
            row.warnings.push(format!(
                "{}/{}: {} bytes after the last whole slot are not loaded (spec 004 §2)",
                sg.name,
                e.engine.key(),
                e.trailing_bytes
            ));
        }
    }
    row.load_ok = true;
    if options.sim {
        timed(&mut t.sim, || fill_sim(row, &model, kelf.target))?;
    }
    Ok(())
}

/// The simulated span (neff-sim): the longest subgraph's, since the subgraphs of one NEFF run
/// on their own cores at once (LNC, reference §1.1 `lnc_size`). A deadlock or a runaway is a
/// `sim` error. The clocks are the target's, as `neff sim` runs it (D441).
fn fill_sim(
    row: &mut ScanRow,
    model: &neff_load::model::LoadedModel,
    target: neff_kelf::Target,
) -> Result<(), Failed> {
    let options = neff_sim::SimOptions {
        cost: neff_sim::cost::CostModel::for_target(target),
        ..neff_sim::SimOptions::default()
    };
    let result = neff_sim::simulate(model, &options).map_err(|e| at(Stage::Sim)(&e))?;
    row.warnings
        .extend(result.warnings.iter().map(|w| format!("sim: {w}")));
    if let Some(d) = &result.deadlock {
        return Err(Failed(Stage::Sim, d.message.clone()));
    }
    row.sim_span_ns = result.subgraphs.iter().map(|s| s.span_ns).max();
    Ok(())
}

fn fill_header(row: &mut ScanRow, h: &Header) {
    row.pkg_version = Some(h.pkg_version);
    row.neff_version_major = Some(h.neff_version_major);
    row.neff_version_minor = Some(h.neff_version_minor);
    row.build_version = Some(h.neff_build_version.text());
    row.uuid = Some(h.uuid.to_string());
    row.name = Some(h.name_text());
    row.num_tpb = Some(h.num_tpb);
    row.lnc_size = Some(h.lnc_size);
    row.feature_bits = Some(h.feature_bits.0);
}

fn fill_package(row: &mut ScanRow, neff: &Neff<'_>) {
    row.hash_status = Some(neff.hash_status().name().to_owned());
    row.members = Some(neff.member_count() as u64);
    row.inflated_size = Some(neff.total_member_size());
    if let Some(info) = neff.member(INFO_JSON) {
        match compiler_version(info) {
            Ok(v) => row.compiler_version = v,
            Err(e) => row.warnings.push(format!("{INFO_JSON}: {e}")),
        }
    }
}

/// The member that names the compiler build (reference §3.1-§3.2: `tool_version`).
const INFO_JSON: &str = "info.json";

/// `info.json` `tool_version`; other keys are skipped without being built.
fn compiler_version(info: &[u8]) -> Result<Option<String>, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct Info {
        tool_version: Option<String>,
    }
    Ok(serde_json::from_slice::<Info>(info)?.tool_version)
}

/// The bytes one descriptor writes (decision D271); one whose sizes overflow 64 bits counts as
/// `u64::MAX`, so the sums saturate rather than hide it (decision D261).
fn desc_bytes(d: &neff_kelf::KbinDmaDesc) -> u64 {
    let declared = d.desc.to_sizes.is_some() || d.desc.from_sizes.is_some();
    d.desc
        .bytes()
        .unwrap_or(if declared { u64::MAX } else { 0 })
}

/// Instruction counts, the opcode histogram and the DMA queues of every subgraph.
fn fill_kbins(row: &mut ScanRow, kbins: &[Kbin<'_>]) {
    row.subgraphs = Some(kbins.len() as u32);
    let mut ninstr = [0u64; EngineType::COUNT];
    let mut histogram = OpcodeHistogram::default();
    for k in kbins {
        row.warnings
            .extend(k.warnings.iter().map(|w| format!("{}: {w}", k.name)));
        for e in &k.engines {
            ninstr[e.eng_type.index()] += u64::from(e.ninstr);
            histogram.add_stream(e.instr);
        }
        for q in &k.dma_queues {
            row.dma.push(DmaQueueRow {
                subgraph: k.name.clone(),
                queue: q.name.clone(),
                owner: q.owner.map(|o| o.key().to_owned()),
                ty: q.ty.clone(),
                descriptors: q.ndesc() as u64,
                bytes: q
                    .rings
                    .iter()
                    .flat_map(|r| &r.descs)
                    .fold(0u64, |acc, d| acc.saturating_add(desc_bytes(d))),
            });
        }
    }
    let count = |e: EngineType| Some(ninstr[e.index()]);
    row.instr_pe = count(EngineType::Pe);
    row.instr_act = count(EngineType::Act);
    row.instr_pool = count(EngineType::Pool);
    row.instr_dve = count(EngineType::Dve);
    row.instr_sp = count(EngineType::Sp);
    row.opcodes = histogram.counts();
    row.dma_queues = Some(row.dma.len() as u64);
    row.dma_descriptors = Some(row.dma.iter().map(|q| q.descriptors).sum());
    row.dma_bytes = Some(
        row.dma
            .iter()
            .fold(0u64, |acc, q| acc.saturating_add(q.bytes)),
    );
}
