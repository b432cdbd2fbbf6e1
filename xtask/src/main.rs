//! `cargo xtask check`: the repository's own checks, run by CI (.ci/run) beside the product tests
//! (issue 29 item 6; they were tests of the product crates before). They read the workspace's
//! manifests, sources and docs and print every problem with the file it is in; exit 1 when there
//! is one.

mod decisions;
mod files;
mod manifests;
mod slot_size;

use std::process::ExitCode;

/// A named check: its problems, or why it could not run.
type Check = (&'static str, fn() -> Result<Vec<String>, String>);

/// Every check, in the order they are printed.
const CHECKS: &[Check] = &[
    (
        "every crate has a description",
        manifests::every_crate_has_a_description,
    ),
    (
        "every declared dependency is used",
        manifests::every_declared_dependency_is_used,
    ),
    (
        "every workspace dependency is used",
        manifests::every_workspace_dependency_is_used,
    ),
    (
        "library code uses the one slot size",
        slot_size::library_code_uses_the_one_slot_size,
    ),
    (
        "every cited decision exists",
        decisions::every_cited_decision_exists,
    ),
    (
        "decisions are ordered and indexed",
        decisions::decisions_are_ordered_and_indexed,
    ),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args != ["check"] {
        eprintln!("usage: cargo xtask check");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for (name, check) in CHECKS {
        match check() {
            Ok(problems) if problems.is_empty() => println!("ok    {name}"),
            Ok(problems) => {
                failed = true;
                println!("FAIL  {name}");
                for p in problems {
                    println!("      {p}");
                }
            }
            Err(why) => {
                failed = true;
                println!("ERROR {name}: {why}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
