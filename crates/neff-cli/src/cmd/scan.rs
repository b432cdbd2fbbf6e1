//! `neff scan PATH... [--jsonl FILE] [--parquet FILE] [-j N]`: one row per NEFF over files,
//! folders and globs, on all cores (neff-scan; issue 19). A broken or hostile file is a row
//! with its error, never the end of the scan.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use super::pending_file::PendingFile;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use neff_scan::parquet::ParquetRowWriter;
use neff_scan::{ParallelOptions, ScanError, ScanOptions, ScanRow, WORKER_THREAD_PREFIX, jsonl};

/// Scan NEFFs: one row per file (header, compiler, target, instruction counts, opcode
/// histogram, DMA, load result), as JSON lines or Parquet.
///
/// Each PATH is a file (scanned whatever its name), a folder (walked recursively for `*.neff`,
/// following links) or a glob (`'cache/**/*.neff'`). Rows come in that order; a file that fails
/// is a row with `error_stage` (io, header, package, kelf, load, sim, internal) and `error`. The
/// row format is docs/json.md "neff scan rows". Exit 0 when every file has its row, whatever
/// the rows say; a summary goes to stderr.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Files, folders and globs to scan.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Write the rows as JSON lines to FILE (written to a temporary file, then renamed); without
    /// --jsonl or --parquet, JSON lines go to stdout.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Write the rows as Parquet to FILE (Snappy, row groups of 4096 rows; the columns are the
    /// JSON fields).
    #[arg(long, value_name = "FILE")]
    parquet: Option<PathBuf>,
    /// Worker threads [default: every core].
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// `--no-verify` (a hash mismatch is otherwise the row's `package` error) and the limits.
    #[command(flatten)]
    read: super::input::ReadFlags,
    /// Skip the runtime load (`load_ok` is then false): the row without lowering and staging.
    #[arg(long, conflicts_with = "sim")]
    no_load: bool,
    /// Also simulate each loaded NEFF (`neff sim`) and report `sim_span_ns`, the longest
    /// subgraph's span; a deadlock is the row's `sim` error.
    #[arg(long)]
    sim: bool,
}

/// Runs `neff scan`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let paths = neff_scan::expand_paths(&args.paths)?;
    let options = ScanOptions {
        read: args.read.options()?,
        load: !args.no_load,
        sim: args.sim,
    };
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    keep_worker_panics_in_rows();
    let mut out = RowsOut::open(args.jsonl.as_deref(), args.parquet.as_deref())?;
    let to_files = args.jsonl.is_some() || args.parquet.is_some();
    let bar = progress_bar(paths.len() as u64, to_files);
    let mut tally = Tally::default();
    let start = Instant::now();
    let scanned = neff_scan::scan_files_ordered(
        &paths,
        &options,
        &ParallelOptions::with_threads(threads),
        |row| {
            bar.inc(1);
            tally.add(&row);
            out.write(row)
        },
    );
    match scanned {
        Ok(()) => {}
        Err(ScanError::Sink(e)) => return Err(e),
        Err(e) => return Err(anyhow::anyhow!("{e}")),
    }
    bar.finish_and_clear();
    out.finish()?;
    eprintln!("{}", tally.summary(start.elapsed().as_secs_f64()));
    Ok(())
}

/// A panic on a scan worker is caught by neff-scan and becomes that file's `internal` row:
/// print it as a warning and go on, instead of the process-wide "internal error" exit (main.rs);
/// a panic on any other thread keeps that behaviour.
fn keep_worker_panics_in_rows() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let on_worker = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with(WORKER_THREAD_PREFIX));
        if on_worker {
            eprintln!("warning: internal error while scanning a file (kept in its row): {info}");
        } else {
            previous(info);
        }
    }));
}

/// Output buffer: large writes, few syscalls.
const OUT_BUFFER: usize = 1 << 20;

/// Where rows go: JSON lines to stdout or a file, and/or Parquet to a file.
struct RowsOut {
    stdout: Option<BufWriter<std::io::Stdout>>,
    jsonl: Option<(BufWriter<std::fs::File>, PendingFile)>,
    parquet: Option<(ParquetRowWriter<BufWriter<std::fs::File>>, PendingFile)>,
}

impl RowsOut {
    fn open(jsonl: Option<&Path>, parquet: Option<&Path>) -> anyhow::Result<Self> {
        let jsonl = match jsonl {
            Some(p) => {
                let f = PendingFile::create(p)?;
                Some((f.writer()?, f))
            }
            None => None,
        };
        let parquet = match parquet {
            Some(p) => {
                let f = PendingFile::create(p)?;
                let w = ParquetRowWriter::new(f.writer()?).with_context(|| f.context())?;
                Some((w, f))
            }
            None => None,
        };
        let stdout = (jsonl.is_none() && parquet.is_none())
            .then(|| BufWriter::with_capacity(OUT_BUFFER, std::io::stdout()));
        Ok(Self {
            stdout,
            jsonl,
            parquet,
        })
    }

    fn write(&mut self, row: ScanRow) -> anyhow::Result<()> {
        if let Some(w) = &mut self.stdout {
            jsonl::write_row(w, &row).context("writing to stdout")?;
        }
        if let Some((w, f)) = &mut self.jsonl {
            jsonl::write_row(w, &row).with_context(|| f.context())?;
        }
        if let Some((w, f)) = &mut self.parquet {
            w.write(row).with_context(|| f.context())?;
        }
        Ok(())
    }

    fn finish(self) -> anyhow::Result<()> {
        if let Some(mut w) = self.stdout {
            w.flush().context("writing to stdout")?;
        }
        if let Some((mut w, f)) = self.jsonl {
            w.flush().with_context(|| f.context())?;
            f.persist()?;
        }
        if let Some((w, f)) = self.parquet {
            w.finish()
                .with_context(|| f.context())?
                .flush()
                .with_context(|| f.context())?;
            f.persist()?;
        }
        Ok(())
    }
}

/// A bar over the files on a terminal's stderr; hidden when stderr is no terminal, or when
/// the rows themselves go to a terminal's stdout.
fn progress_bar(files: u64, rows_to_file: bool) -> ProgressBar {
    let show =
        std::io::stderr().is_terminal() && (rows_to_file || !std::io::stdout().is_terminal());
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("scanning [{bar:40}] {pos}/{len} files ({per_sec}, {eta})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Counts for the closing summary.
#[derive(Default)]
struct Tally {
    files: u64,
    bytes: u64,
    loaded: u64,
    failed: std::collections::BTreeMap<&'static str, u64>,
}

impl Tally {
    fn add(&mut self, row: &ScanRow) {
        self.files += 1;
        self.bytes += row.size;
        self.loaded += u64::from(row.load_ok);
        if let Some(stage) = row.error_stage {
            *self.failed.entry(stage.name()).or_default() += 1;
        }
    }

    fn summary(&self, seconds: f64) -> String {
        let failed: u64 = self.failed.values().sum();
        let by_stage: Vec<String> = self
            .failed
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        let detail = if by_stage.is_empty() {
            String::new()
        } else {
            format!(" ({})", by_stage.join(", "))
        };
        let plural = if self.files == 1 { "" } else { "s" };
        format!(
            "scanned {} file{plural} ({:.1} MB) in {seconds:.2} s: {} loaded, {failed} with an error{detail}",
            self.files,
            self.bytes as f64 / 1e6,
            self.loaded
        )
    }
}
