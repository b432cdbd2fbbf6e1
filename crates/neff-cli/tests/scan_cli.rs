//! `neff scan` (issue 19) over the real fixtures (read in place, recursively) plus the whole
//! malformed-input corpus: one row per file in argument order, errors as rows, real values in
//! the rows of the real files.

mod common;
#[path = "malformed/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use common::{REAL_DIR, Value, fixture_present, neff, temp_dir};

/// The JSON lines of `neff scan ARGS`, which must succeed.
fn scan_rows(args: &[&str]) -> Vec<Value> {
    let out = neff()
        .arg("scan")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json_lines(&String::from_utf8(out).unwrap())
}

/// The rows of a JSON-lines text, one object per line.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// The corpus written to `dir`: every generated case as `<name>.neff`, then the cases given as
/// files (not NEFFs at all). Returns (case, path) in the order `neff scan` must report them.
fn write_corpus(dir: &Path) -> Vec<(Value, PathBuf)> {
    let mut generated = Vec::new();
    let mut files = Vec::new();
    for case in corpus::cases() {
        let name = case["name"].as_str().unwrap().to_owned();
        match case.get("file").and_then(Value::as_str) {
            Some(f) => files.push((case.clone(), Path::new(corpus::DIR).join(f))),
            None => {
                let p = dir.join(format!("{name}.neff"));
                std::fs::write(&p, corpus::generate(&name).unwrap()).unwrap();
                generated.push((case, p));
            }
        }
    }
    // The folder walk returns its files in path order.
    generated.sort_by(|a, b| a.1.cmp(&b.1));
    generated.extend(files);
    generated
}

/// The real `.neff` files below `REAL_DIR`, in path order (the walk's order).
fn real_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::from(REAL_DIR)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "neff") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn text<'v>(row: &'v Value, key: &str) -> &'v str {
    row[key].as_str().unwrap_or("")
}

/// The reading command of a case run with no flag and no environment (`ls`, `info`, `kbin`,
/// `load`): its verdict must be the row's. `kbin` and `load` read with the buffered reader the
/// scan uses, so their message is the row's, key words and all; `ls` and `info` stream
/// (decision D27) and may word the same refusal differently.
fn plain_reader(case: &Value) -> Option<&str> {
    let cmd: Vec<&str> = case["cmd"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let plain = case.get("env").is_none()
        && case.get("pending").is_none()
        && cmd.len() == 2
        && ["ls", "info", "kbin", "load"].contains(&cmd[0])
        && cmd[1] == "{file}";
    plain.then_some(cmd[0])
}

#[test]
fn real_fixtures_and_the_malformed_corpus_give_one_row_per_file_errors_as_rows() {
    if !fixture_present(REAL_DIR) {
        return;
    }
    let work = temp_dir();
    let corpus = write_corpus(work.path());
    let mut args: Vec<String> = vec![REAL_DIR.to_owned(), work.path().display().to_string()];
    args.extend(
        corpus
            .iter()
            .filter(|(c, _)| c.get("file").is_some())
            .map(|(_, p)| p.display().to_string()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rows = scan_rows(&args);

    let real = real_files();
    let expected: Vec<String> = real
        .iter()
        .chain(corpus.iter().map(|(_, p)| p))
        .map(|p| p.display().to_string())
        .collect();
    let got: Vec<&str> = rows.iter().map(|r| text(r, "path")).collect();
    assert_eq!(
        got, expected,
        "one row per file, in argument then path order"
    );

    for row in &rows[..real.len()] {
        // Real compiler output reads to the end; at most the load may refuse what neff-load
        // does not lower yet.
        assert!(
            row["error_stage"].is_null() || row["error_stage"] == "load",
            "{row}"
        );
        assert_eq!(row["target"], "cayman", "{row}");
        assert_eq!(row["compiler_version"], "2.23.6484.0+3b612583", "{row}");
    }
    for ((case, _), row) in corpus.iter().zip(&rows[real.len()..]) {
        let name = case["name"].as_str().unwrap();
        let error = text(row, "error");
        match (case.get("file"), plain_reader(case), &case["exit"]) {
            // A capture-layer file whose first byte is a capture format version (4-6) goes to
            // the capture reader (D640); every other file is no NEFF header.
            (Some(f), _, _) => {
                let bytes = std::fs::read(Path::new(corpus::DIR).join(f.as_str().unwrap()));
                let capture = case["layer"] == "capture"
                    && bytes.unwrap().first().is_some_and(|v| (4..=6).contains(v));
                let (kind, stage) = if capture {
                    ("capture", "capture")
                } else {
                    ("neff", "header")
                };
                assert_eq!(
                    (text(row, "kind"), text(row, "error_stage")),
                    (kind, stage),
                    "{name}: {row}"
                );
            }
            (None, Some(_), exit) if exit == 0 => {
                assert!(row["error_stage"].is_null(), "{name}: {row}");
                assert!(
                    !row["warnings"].as_array().unwrap().is_empty(),
                    "{name}: {row}"
                );
            }
            (None, Some(cmd), _) => {
                assert!(!row["error_stage"].is_null(), "{name}: {row}");
                let keys = case["keys"].as_array().unwrap().iter();
                for key in keys.filter(|_| cmd == "kbin" || cmd == "load") {
                    let key = key.as_str().unwrap();
                    assert!(error.contains(key), "{name}: {key:?} not in {error:?}");
                }
            }
            (None, None, _) => {}
        }
        if !row["error_stage"].is_null() {
            assert!(!error.is_empty(), "{name}: a failed row says why: {row}");
            assert!(!row["load_ok"].as_bool().unwrap(), "{name}: {row}");
        }
    }
}

/// The `path` and `error_stage` columns of a Parquet file, read with the parquet crate alone.
fn parquet_columns(path: &Path) -> Vec<(String, Option<String>)> {
    use arrow_array::{Array, StringArray};
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let col = |name: &str| {
            let c = batch.column_by_name(name).unwrap();
            c.as_any().downcast_ref::<StringArray>().unwrap().clone()
        };
        let (paths, stages) = (col("path"), col("error_stage"));
        for i in 0..batch.num_rows() {
            let stage = stages.is_valid(i).then(|| stages.value(i).to_owned());
            out.push((paths.value(i).to_owned(), stage));
        }
    }
    out
}

#[test]
fn parquet_and_jsonl_files_hold_the_rows_of_stdout() {
    if !fixture_present(REAL_DIR) {
        return;
    }
    let work = temp_dir();
    let corpus_dir = work.path().join("corpus");
    std::fs::create_dir(&corpus_dir).unwrap();
    write_corpus(&corpus_dir);
    let corpus_arg = corpus_dir.display().to_string();
    let stdout = scan_rows(&[REAL_DIR, &corpus_arg]);
    let (jsonl, parquet) = (
        work.path().join("rows.jsonl"),
        work.path().join("rows.parquet"),
    );
    neff()
        .args(["scan", "-j", "2", REAL_DIR, &corpus_arg, "--jsonl"])
        .arg(&jsonl)
        .arg("--parquet")
        .arg(&parquet)
        .assert()
        .success()
        .stdout("");
    let from_jsonl = json_lines(&std::fs::read_to_string(&jsonl).unwrap());
    assert_eq!(from_jsonl, stdout);
    assert_eq!(
        stdout.len(),
        real_files().len()
            + corpus::cases()
                .iter()
                .filter(|c| c.get("file").is_none())
                .count()
    );

    // Every column, through neff-scan's reader (the writer's mirror) ...
    let rows = neff_scan::parquet::read_rows(std::fs::File::open(&parquet).unwrap()).unwrap();
    let as_json: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    assert_eq!(as_json, stdout);
    // ... and two of them through the parquet crate alone.
    let expected: Vec<(String, Option<String>)> = stdout
        .iter()
        .map(|r| {
            (
                text(r, "path").to_owned(),
                r["error_stage"].as_str().map(Into::into),
            )
        })
        .collect();
    assert_eq!(parquet_columns(&parquet), expected);
}

#[test]
fn matmul_small_row_holds_its_header_counts_and_hash() {
    let Some(real) = common::real_fixture() else {
        return;
    };
    let rows = scan_rows(&[real]);
    let r = &rows[0];
    // fixtures/real/README.md
    assert_eq!(
        r["sha256"],
        "5100752fb155fff1c3c2a5f9d68aa13373b049f838057cf54a125e26856742de"
    );
    // `neff info`: lnc 2, feature bits 0x209c00, 72 members, per subgraph act=5 dve=2 pe=12
    // pool=7 sp=3 over sg00 and sg01.
    assert_eq!(
        (&r["lnc_size"], &r["feature_bits"], &r["members"]),
        (&2.into(), &0x209c00.into(), &72.into())
    );
    let counts: Vec<u64> = [
        "instr_pe",
        "instr_act",
        "instr_pool",
        "instr_dve",
        "instr_sp",
    ]
    .iter()
    .map(|k| r[k].as_u64().unwrap())
    .collect();
    assert_eq!(counts, [24, 10, 14, 4, 6]);
    let histogram_total: u64 = r["opcodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["count"].as_u64().unwrap())
        .sum();
    assert_eq!(histogram_total, counts.iter().sum::<u64>());
    assert_eq!((&r["subgraphs"], &r["load_ok"]), (&2.into(), &true.into()));
}

#[test]
fn the_sample_row_describes_its_two_dma_queues() {
    let rows = scan_rows(&[common::SAMPLE]);
    let dma = rows[0]["dma"].as_array().unwrap();
    // spec 003 §7: q_gradient_in and q_gradient_out, one descriptor of 128 float32 each way
    // (`from_sizes` [128] bytes, reference §3.3).
    let queues: Vec<(&str, u64, u64)> = dma
        .iter()
        .map(|q| {
            (
                q["queue"].as_str().unwrap(),
                q["descriptors"].as_u64().unwrap(),
                q["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        queues,
        [("q_gradient_in", 1, 128), ("q_gradient_out", 1, 128)]
    );
    assert_eq!(rows[0]["dma_bytes"], 256);
}

#[test]
fn jsonl_file_and_one_worker_give_the_same_rows_as_stdout() {
    let work = temp_dir();
    let out = work.path().join("rows.jsonl");
    let not_neff = format!("{}/bad_field.asm", corpus::DIR);
    let stdout = scan_rows(&[common::SAMPLE, &not_neff]);
    assert_eq!(stdout.len(), 2);
    neff()
        .args(["scan", "-j", "1", "--jsonl"])
        .arg(&out)
        .args([common::SAMPLE, &not_neff])
        .assert()
        .success()
        .stdout("");
    let written = json_lines(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(written, stdout);
}

#[test]
fn a_path_that_names_nothing_is_a_usage_error_before_any_row() {
    let work = temp_dir();
    let missing = work.path().join("missing.neff");
    neff()
        .arg("scan")
        .arg(common::SAMPLE)
        .arg(&missing)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("no such file or folder"));
}

#[test]
fn sim_span_is_the_longest_subgraph_span_of_neff_sim() {
    let rows = scan_rows(&["--sim", common::SAMPLE]);
    let sim = common::json(["sim", "--json", common::SAMPLE]);
    let longest = sim["subgraphs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["span_ns"].as_u64().unwrap())
        .max();
    assert!(longest.is_some_and(|ns| ns > 0), "{sim}");
    assert_eq!(rows[0]["sim_span_ns"].as_u64(), longest);
    // Without --sim the column is null.
    assert!(scan_rows(&[common::SAMPLE])[0]["sim_span_ns"].is_null());
}

#[test]
fn no_load_keeps_every_column_but_the_load() {
    let full = &scan_rows(&[common::SAMPLE])[0];
    let mut quick = scan_rows(&["--no-load", common::SAMPLE]).remove(0);
    assert_eq!(
        (&quick["load_ok"], &quick["error"]),
        (&false.into(), &Value::Null)
    );
    quick["load_ok"] = true.into();
    assert_eq!(&quick, full);
}

/// The `neff profile --json` summary of `capture`.
fn profile_summary(capture: &str) -> Value {
    let out = neff()
        .args(["profile", "--json", capture])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a number: {v}"))
}

#[test]
fn a_capture_is_a_row_with_what_neff_profile_measures_joined_to_its_neff_by_uuid() {
    // Every shared capture beside its NEFF (fixtures/real/*.ntff.gz, profiled/*.ntff.gz).
    let pairs: Vec<(String, String)> = common::REAL_ALL
        .iter()
        .chain([&neff_fixtures::MOE_MEGAKERNEL])
        .map(|n| (n.to_string(), n.replace(".neff", ".ntff.gz")))
        .filter(|(n, c)| fixture_present(n) && Path::new(c).exists())
        .collect();
    if pairs.is_empty() {
        return;
    }
    assert_eq!(pairs.len(), 7, "the seven shared captures");
    let mut args = vec!["--no-load".to_owned()];
    args.extend(pairs.iter().flat_map(|(n, c)| [n.clone(), c.clone()]));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rows = scan_rows(&args);
    assert_eq!(rows.len(), 2 * pairs.len());
    for (pair, (neff_row, row)) in pairs
        .iter()
        .zip(rows.iter().zip(rows.iter().skip(1)).step_by(2))
    {
        let cap = &pair.1;
        assert_eq!(text(neff_row, "kind"), "neff", "{neff_row}");
        assert_eq!(text(row, "kind"), "capture", "{row}");
        assert!(row["error"].is_null(), "{row}");
        assert_eq!(
            text(row, "uuid"),
            text(neff_row, "uuid"),
            "{cap}: the capture's NEFF"
        );
        assert_eq!(row["capture_format"], 6, "{cap}");
        // The NEFF columns stay empty; the capture columns of a NEFF row too.
        assert!(
            row["pkg_version"].is_null() && row["instr_pe"].is_null(),
            "{row}"
        );
        assert!(neff_row["capture_span_ns"].is_null() && neff_row["runtime_version"].is_null());

        let p = profile_summary(cap);
        assert_eq!(row["runtime_version"], p["capture"]["runtime"], "{cap}");
        assert_eq!(row["instance_type"], p["capture"]["instance_type"], "{cap}");
        assert_eq!(row["name"], p["capture"]["neff_name"], "{cap}");
        let sgs = p["subgraphs"].as_array().unwrap();
        assert_eq!(num(&row["subgraphs"]), sgs.len() as u64, "{cap}");
        let max = |key: &str| sgs.iter().map(|s| num(&s[key])).max().unwrap();
        assert_eq!(num(&row["capture_span_ns"]), max("span_ns"), "{cap}");
        assert_eq!(
            num(&row["capture_neff_span_ns"]),
            max("neff_span_ns"),
            "{cap}"
        );
        let engines = || sgs.iter().flat_map(|s| s["engines"].as_array().unwrap());
        let executed: u64 = engines().map(|e| num(&e["instructions"])).sum();
        assert_eq!(num(&row["executed_instructions"]), executed, "{cap}");
        assert!(executed > 0, "{cap}");
        for engine in ["pe", "act", "pool", "dve", "sp"] {
            let busy: u64 = engines()
                .filter(|e| e["engine"] == engine)
                .map(|e| num(&e["busy_ns"]))
                .sum();
            assert_eq!(
                num(&row[format!("busy_{engine}_ns")]),
                busy,
                "{cap} {engine}"
            );
        }
        let queues = || sgs.iter().flat_map(|s| s["queues"].as_array().unwrap());
        let transfers: u64 = queues().map(|q| num(&q["transfers"])).sum();
        let bytes: u64 = queues().map(|q| num(&q["bytes"])).sum();
        assert_eq!(num(&row["dma_transfers"]), transfers, "{cap}");
        assert_eq!(num(&row["dma_transfer_bytes"]), bytes, "{cap}");
        assert!(transfers > 0, "{cap}");
    }
}
