//! Every real NEFF of the shared fixtures through the commands a user runs first (issue 12, done
//! when: exit 0 and no false problems), and the 128-byte records of moe_v6b (decision D155)
//! through text and back. Each fixture is skipped with a message when absent, and fails when
//! NEFFKIT_REQUIRE_FIXTURES=1.

mod common;

use common::{REAL_ALL, fixture_present, neff, stdout, temp_dir};

/// The real NEFFs present (each absent one is skipped, or fails under the require switch).
fn present() -> Vec<&'static str> {
    REAL_ALL
        .into_iter()
        .filter(|p| fixture_present(p))
        .collect()
}

fn name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[test]
fn every_real_neff_passes_info_kbin_validate_disasm() {
    for f in present() {
        for cmd in ["info", "kbin", "validate", "disasm"] {
            let out = stdout([cmd, f]);
            assert!(!out.is_empty(), "{cmd} {}", name(f));
            if cmd == "validate" {
                assert!(out.contains(": ok ("), "validate {}: {out}", name(f));
            }
            if cmd == "disasm" {
                // D155: no continuation prints as a slot of its own with a zero word length.
                assert!(
                    !out.contains("PSEUDO_EXTENSION len=0"),
                    "disasm {}",
                    name(f)
                );
            }
        }
    }
}

#[test]
fn every_real_neff_lowers_and_loads() {
    for f in present() {
        for cmd in ["lower", "load"] {
            neff().args([cmd, f]).assert().success();
        }
    }
}

/// The moe_v6b fixture, when present.
fn moe() -> Option<&'static str> {
    let f = REAL_ALL.into_iter().find(|p| p.ends_with("moe_v6b.neff"))?;
    fixture_present(f).then_some(f)
}

/// moe_v6b sg00 Pool: each PSEUDO_TENSOR_LOAD becomes a TENSOR_LOAD of its SB address
/// (decision D157) and each 128-byte DIRECT2D record, under the runtime model, the MOVE of its
/// bound (D581), the runtime's DMAMEMCPY (D461) and a DELETE row (D155).
#[test]
fn moe_pool_lowers_tensor_loads_and_records() {
    let Some(f) = moe() else { return };
    let text = stdout(["lower", f, "--subgraph", "sg00", "--engine", "pool"]);
    let loads = text
        .lines()
        .filter(|l| l.contains("-> TENSOR_LOAD ") && l.contains(" addr=0x8020000173"))
        .count();
    assert_eq!(loads, 144);
    assert!(text.contains(
        "[src 10] PSEUDO_EXTENSION src_bound_size_bytes=268435456 (continuation of src 9)\n\
         [src 10]     -> (no record: DELETE)"
    ));
    assert!(text.contains("== sg00 pool (931 source slots -> 946 records)"));
    // 144 continuations and the label: 145 DELETE rows.
    assert_eq!(text.matches("type=DELETE section=MAIN").count(), 145);
    // The IP map: the continuation (NEFF IP 11) maps where its record (NEFF IP 10) does.
    let out = stdout(["ip", "--engine", "pool", "--reverse", f, "10", "11"]);
    let v: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[1]["continuation_of"], 10);
    assert_eq!(v[0]["device_start"], v[1]["device_start"]);
    assert_eq!(v[0]["device_end"], v[1]["device_end"]);
}

/// moe_v6b sg00/Pool.bin: its 144 DIRECT2D records with a continuation print one line each and
/// the text assembles back to the member's exact bytes.
#[test]
fn moe_pool_records_print_one_line_each_and_round_trip() {
    let Some(f) = moe() else { return };
    let dir = temp_dir();
    let d = dir.path().display().to_string();
    neff()
        .args(["extract", f, "--directory", &d])
        .assert()
        .success();
    let bin = dir.path().join("sg00/Pool.bin");
    let text = stdout(["disasm".as_ref(), bin.as_os_str()]);
    let pairs = text
        .lines()
        .filter(|l| l.contains(" | PSEUDO_EXTENSION "))
        .count();
    assert_eq!(pairs, 144);
    let line9 = text.lines().find(|l| l.starts_with("   9: ")).unwrap();
    assert!(line9.starts_with("   9: PSEUDO_DMA_DIRECT2D "), "{line9}");
    assert!(
        line9.ends_with(" | PSEUDO_EXTENSION src_bound_size_bytes=268435456"),
        "{line9}"
    );
    assert!(text.contains("  11: PSEUDO_TENSOR_LOAD "));
    let asm = dir.path().join("pool.asm");
    std::fs::write(&asm, &text).unwrap();
    let back = dir.path().join("back.bin");
    neff()
        .args([
            "asm".as_ref(),
            asm.as_os_str(),
            "--output".as_ref(),
            back.as_os_str(),
        ])
        .assert()
        .success();
    assert_eq!(std::fs::read(back).unwrap(), std::fs::read(&bin).unwrap());
}
