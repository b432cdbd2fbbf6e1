//! A raw device capture (`.ntff`, plain or gzip) as a scan row (issue 28; decision D640): the
//! captured NEFF's name and uuid, the runtime, the format version, and what `neff profile`'s
//! summary measures (span, busy time per engine, executed instructions, DMA transfers), read by
//! neff-profile in one streaming pass over the trace records.

use std::path::Path;

use neff_isa::EngineType;
use neff_profile::ntff::looks_like_neff;
use neff_profile::read::GZIP_MAGIC;
use neff_profile::{
    Capture, FormatVersion, InputKind, ReadLimits, SubgraphSummary, SummaryBuilder,
};

use crate::row::{ScanRow, Stage};
use crate::scan_one::{Failed, message};

/// Whether `bytes` go to the capture reader: a gzip stream (a NEFF starts with its 1024-byte
/// header, never with the gzip magic) or a first byte that is a capture format version
/// (reference-ntff §1), unless the bytes have a NEFF header's structure (bytes 8..16 = 1024).
/// Anything else stays a NEFF, whose header reader names what is wrong.
pub(crate) fn is_capture(bytes: &[u8]) -> bool {
    if looks_like_neff(bytes) {
        return false;
    }
    bytes.starts_with(&GZIP_MAGIC)
        || bytes
            .first()
            .is_some_and(|v| FormatVersion::KNOWN.contains(v))
}

/// Fills the capture columns of `row` from the capture `bytes` (`path` names them in errors).
pub(crate) fn fill(row: &mut ScanRow, path: &str, bytes: &[u8]) -> Result<(), Failed> {
    let fail = |e: &dyn std::error::Error| Failed(Stage::Capture, message(e));
    let label = Path::new(path);
    let (kind, bytes) = neff_profile::input::decompress(label, bytes, &ReadLimits::default())
        .map_err(|e| fail(&e))?;
    if kind == InputKind::Json {
        return Err(Failed(
            Stage::Capture,
            "a neuron-profile JSON report, not a raw capture: `neff scan` reads captures \
             (`neff profile` reads both)"
                .to_owned(),
        ));
    }
    let capture = Capture::parse(&bytes).map_err(|e| fail(&e))?;
    fill_facts(row, &capture);
    let mut summary = SummaryBuilder::new(0, Some(&capture.facts));
    capture.rows(&mut summary);
    let (subgraphs, _) = summary.finish();
    fill_measures(row, &subgraphs);
    Ok(())
}

/// What the metadata says (reference-ntff §2).
fn fill_facts(row: &mut ScanRow, c: &Capture<'_>) {
    let f = &c.facts;
    row.capture_format = Some(u32::from(f.format.0));
    row.name = Some(f.neff_name.clone());
    row.uuid = Some(uuid_text(f.uuid_bytes()));
    row.runtime_version = f.runtime.as_ref().map(ToString::to_string);
    row.instance_type.clone_from(&f.instance_type);
    row.subgraphs = Some(f.subgraphs.len() as u32);
}

/// A NEFF row's spelling of the uuid when the capture holds all 16 bytes, else the hex of the
/// bytes it holds (a capture may cut field 2 short; reference-ntff §2).
fn uuid_text(bytes: &[u8]) -> String {
    match <[u8; 16]>::try_from(bytes) {
        Ok(b) => uuid::Uuid::from_bytes(b).to_string(),
        Err(_) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

/// What the trace records measure, over the subgraphs (`neff profile`'s summary).
fn fill_measures(row: &mut ScanRow, subgraphs: &[SubgraphSummary]) {
    row.capture_span_ns = Some(
        subgraphs
            .iter()
            .map(SubgraphSummary::span_ns)
            .max()
            .unwrap_or(0),
    );
    row.capture_neff_span_ns = subgraphs.iter().filter_map(|s| s.neff_span_ns).max();
    let engine = |e: EngineType, f: fn(&neff_profile::EngineTime) -> u64| {
        Some(subgraphs.iter().map(|s| f(&s.engines[e.index()])).sum())
    };
    row.executed_instructions = Some(
        EngineType::ALL
            .into_iter()
            .filter_map(|e| engine(e, |t| t.instructions))
            .sum(),
    );
    row.busy_pe_ns = engine(EngineType::Pe, |t| t.busy_ns);
    row.busy_act_ns = engine(EngineType::Act, |t| t.busy_ns);
    row.busy_pool_ns = engine(EngineType::Pool, |t| t.busy_ns);
    row.busy_dve_ns = engine(EngineType::Dve, |t| t.busy_ns);
    row.busy_sp_ns = engine(EngineType::Sp, |t| t.busy_ns);
    let queues = || subgraphs.iter().flat_map(|s| &s.queues);
    row.dma_transfers = Some(queues().map(|q| q.transfers).sum());
    row.dma_transfer_bytes = Some(queues().map(|q| q.bytes).sum());
}
