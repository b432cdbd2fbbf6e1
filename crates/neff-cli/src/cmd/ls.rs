//! `neff ls`: the members of a NEFF in stored order.

use neff_container::ScannedMember;

use super::input::NeffInput;

/// List the members of a NEFF (stored order): size and path, or JSON.
///
/// `--json` prints {"members": [{"path": string, "size": bytes, "offset": data offset in the
/// inflated tar}]} (every command's JSON is an object, docs/json.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// Print JSON (format above) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `neff ls`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    // Only the tar headers are needed: stream through, keep no member (decision D27).
    let neff = args.input.scan(&bytes, |_, _| false)?;
    if args.json {
        let list: Vec<_> = neff.members().map(|m| member_json(&m)).collect();
        let doc = serde_json::json!({ "members": list });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        for m in neff.members() {
            println!("{:>12}  {}", m.size, m.path);
        }
    }
    Ok(())
}

/// One member as `neff ls --json` and `neff info --json` list it: {path, size, offset}.
pub(crate) fn member_json(m: &ScannedMember<'_>) -> serde_json::Value {
    serde_json::json!({ "path": m.path, "size": m.size, "offset": m.offset })
}
