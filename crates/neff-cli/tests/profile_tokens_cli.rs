//! Issue 12: every instruction the hardware ran, replayed against `neff disasm`. For each profiled
//! NEFF instruction of the four shared profiles (fixtures/real/profiled, read in place; skipped
//! when absent unless NEFFKIT_REQUIRE_FIXTURES=1), every `key=value` token and every `RxC` token
//! the profiler prints must appear verbatim on neffkit's line for that slot, and the mnemonics
//! must name the same instruction (decisions D130-D137; which profiler text is compared: D132).

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{PROFILED_NAMES, json, profiled_pair};
use neff_profile::{Profile, ReadLimits, mnemonic};

/// The tokens the agreement is measured on: `key=value` (a lower-case key; not the event tokens
/// like `(Tensor)>=4`) and `RxC` (`128*128`).
fn checked_tokens(operands: &str) -> impl Iterator<Item = &str> {
    operands.split_whitespace().filter(|t| {
        let key_value = t.split_once('=').is_some_and(|(k, _)| {
            k.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                && k.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        });
        let rows_cols = t.split_once('*').is_some_and(|(r, c)| {
            !r.is_empty()
                && !c.is_empty()
                && r.chars().all(|x| x.is_ascii_digit())
                && c.chars().all(|x| x.is_ascii_digit())
        });
        key_value || rows_cols
    })
}

/// `(subgraph, engine key, slot index) -> (line text, mnemonic)` from `neff disasm --json`.
fn lines(neff: &str) -> HashMap<(String, String, u64), (String, String)> {
    let v = json(["disasm", neff, "--json"]);
    let mut m = HashMap::new();
    for s in v["streams"].as_array().expect("streams") {
        let (sg, eng) = (s["subgraph"].as_str(), s["engine"].as_str());
        for slot in s["slots"].as_array().expect("slots") {
            let key = (
                sg.unwrap_or_default().to_owned(),
                eng.unwrap_or_default().to_owned(),
                slot["index"].as_u64().expect("index"),
            );
            let text = slot["text"].as_str().unwrap_or_default().to_owned();
            let mnem = slot["mnemonic"].as_str().unwrap_or_default().to_owned();
            m.insert(key, (text, mnem));
        }
    }
    m
}

#[test]
fn every_profiled_token_is_on_the_disassembly_line() {
    let (mut instructions, mut tokens) = (0usize, 0usize);
    let mut missing: Vec<String> = Vec::new();
    for name in PROFILED_NAMES {
        let Some((neff, prof)) = profiled_pair(name) else {
            return;
        };
        let lines = lines(&neff);
        let profile = Profile::read(Path::new(&prof), &ReadLimits::default()).expect("profile");
        for i in &profile.instructions {
            let Some(pc) = i.compiler_pc else { continue };
            instructions += 1;
            let engine = i.engine().expect("a known engine queue").key();
            let where_ = format!("{name} {}/{engine} slot {pc}", i.subgraph);
            let Some((line, mnem)) = lines.get(&(i.subgraph.clone(), engine.to_owned(), pc)) else {
                missing.push(format!("{where_}: no disassembly line"));
                continue;
            };
            if !mnemonic::agrees(&i.opcode, i.compiler_opcode.as_deref(), mnem) {
                missing.push(format!("{where_}: profiler {} vs {mnem}", i.opcode));
            }
            // DMA: the NEFF-level decode, not the runtime's resolved addresses (D132).
            let text = i.compiler_operands.as_deref().unwrap_or(&i.operands);
            for t in checked_tokens(text) {
                tokens += 1;
                if !line.split_whitespace().any(|w| w == t) {
                    missing.push(format!("{where_}: `{t}` not in `{line}`"));
                }
            }
        }
    }
    // The four profiles hold 686 NEFF instructions and 3,186 such tokens (decision D140).
    assert!(
        instructions > 600 && tokens > 3_000,
        "{instructions} / {tokens}"
    );
    assert!(
        missing.is_empty(),
        "{} of {tokens} tokens disagree:\n{}",
        missing.len(),
        missing.join("\n")
    );
    eprintln!("{tokens} of {tokens} tokens agree over {instructions} profiled NEFF instructions");
}

#[test]
fn only_key_value_and_rows_cols_tokens_are_checked() {
    let t: Vec<&str> = checked_tokens(
        "S[5] (Tensor)>=4 S[4] (Scalar)++@complete EXP src=fp32@0x10[1,1,1][2,1,1] 128*128 a*b",
    )
    .collect();
    assert_eq!(t, ["src=fp32@0x10[1,1,1][2,1,1]", "128*128"]);
}
