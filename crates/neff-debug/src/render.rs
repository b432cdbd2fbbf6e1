//! How a slot's debug info is shown: the comment `neff disasm --source` appends to a line, and the
//! JSON keys `disasm --json`, `neff ip` and `neff lower --json` give each slot (issue 21).

use serde_json::{Map, Value, json};

use crate::slot_source::SlotDebug;

impl SlotDebug<'_> {
    /// The BIR instruction name, if any.
    pub fn bir_name(&self) -> Option<&str> {
        self.bir.map(|b| b.name)
    }

    /// The comment appended to a disassembly line: `# <bir> <file>:<line> [var=val, ...] <hlo op>`
    /// with the file's last path component (the JSON keeps the whole path); `None` when the slot
    /// has no BIR instruction. The `#` makes the line still assemble (`neff asm` drops comments).
    pub fn annotation(&self) -> Option<String> {
        let bir = self.bir?;
        let mut s = format!("# {}", bir.name);
        if let Some(src) = &self.source {
            let file = src.file.rsplit('/').next().unwrap_or(&src.file);
            s.push(' ');
            s.push_str(
                &crate::Source {
                    file: file.to_owned(),
                    ..src.clone()
                }
                .to_string(),
            );
        }
        if let Some(h) = self.hlo {
            s.push(' ');
            s.push_str(hlo_op(h.name));
        }
        Some(s)
    }

    /// Inserts `"bir"` (name or null), `"hlo"` (`{"name", "op_type"}` or null) and `"source"`
    /// (`{"file", "line", "iters": [{"var", "val"}]}` or null) into a slot's JSON object.
    pub fn insert_json(&self, obj: &mut Map<String, Value>) {
        obj.insert("bir".into(), json!(self.bir_name()));
        obj.insert("hlo".into(), json!(self.hlo));
        obj.insert("source".into(), json!(self.source));
    }
}

/// The JSON keys of a slot without debug info (a `.bin` input, or no debug members).
pub fn insert_null_json(obj: &mut Map<String, Value>) {
    SlotDebug::default().insert_json(obj);
}

/// An HLO instruction's text up to its operands: `%op0 = dot(%x, %y)` -> `%op0 = dot`.
fn hlo_op(text: &str) -> &str {
    text.split_once('(').map_or(text, |(op, _)| op)
}

#[cfg(test)]
mod tests {
    use super::hlo_op;

    #[test]
    fn hlo_op_drops_the_operands() {
        assert_eq!(hlo_op("%op0 = dot(%x, %y)"), "%op0 = dot");
        assert_eq!(hlo_op("SyncTensorsGraph.24"), "SyncTensorsGraph.24");
    }
}
