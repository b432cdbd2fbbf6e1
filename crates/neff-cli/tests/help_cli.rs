//! Issue 15 item 2: every command's `--help` documents its `--json` format (the `Args` doc
//! reaches `--help`; a doc comment on the `commands!` variant would replace it).

mod common;

use common::stdout;

/// Every command with a `--json` flag.
const JSON_COMMANDS: [&[&str]; 15] = [
    &["disasm"],
    &["dump"],
    &["info"],
    &["ip"],
    &["kbin"],
    &["load"],
    &["lower"],
    &["ls"],
    &["profile"],
    &["sim"],
    &["synth"],
    &["validate"],
    &["bir", "check"],
    &["bir", "stats"],
    &["bir", "from-neff"],
];

#[test]
fn every_json_command_documents_its_format_in_help() {
    for command in JSON_COMMANDS {
        let mut args = command.to_vec();
        args.push("--help");
        let help = stdout(&args);
        // Once as the flag, and at least once more where the description gives the format.
        assert!(
            help.matches("--json").count() >= 2,
            "neff {command:?} --help does not document its JSON format:\n{help}"
        );
    }
}

#[test]
fn ip_help_says_values_come_from_stdin_when_none_are_given() {
    let help = stdout(["ip", "--help"]);
    assert!(help.contains("read one per line from stdin"), "{help}");
}
