//! One decoded debug-info member and its records indexed by id.

use std::collections::HashMap;

use prost::Message;

use crate::warning::DebugWarning;
use crate::wire::{DebugFile, Record, RecordFields};

/// A debug-info member, decoded, with an id -> record index.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The member path (`sg00/debug_info_backend_PE.dbg`).
    pub member: String,
    /// The decoded file.
    pub file: DebugFile,
    by_id: HashMap<u64, usize>,
}

impl Layer {
    /// Decodes member `member`; a decode failure is a warning naming the member.
    pub fn decode(member: &str, bytes: &[u8]) -> Result<Layer, DebugWarning> {
        let file = DebugFile::decode(bytes)
            .map_err(|e| DebugWarning::new(member, format!("not a debug-info protobuf ({e})")))?;
        let mut by_id = HashMap::with_capacity(file.records.len());
        for (i, r) in file.records.iter().enumerate() {
            // The last record with an id wins: an HLO layer opens with its module and computation
            // records, which share the id space of the instructions the Penguin layer points to
            // (matmul_small: `my_matmul`, `main` and `%x = parameter()` all have id 0; D233).
            by_id.insert(r.id, i);
        }
        Ok(Layer {
            member: member.to_owned(),
            file,
            by_id,
        })
    }

    /// The records in file order.
    pub fn records(&self) -> &[Record] {
        &self.file.records
    }

    /// The record with id `id`.
    pub fn get(&self, id: u64) -> Option<&RecordFields> {
        self.by_id.get(&id).map(|&i| &self.file.records[i].msg)
    }

    /// How many records share an id with another.
    pub fn duplicate_ids(&self) -> usize {
        self.file.records.len() - self.by_id.len()
    }

    /// The file name this layer's records point up to (`debug_info_penguin.dbg`).
    pub fn parent_file(&self) -> Option<&str> {
        self.file.parent_file.as_deref()
    }

    /// The source file of a record's `kernel_file` attribute (an index into this file's
    /// `kernel_files`).
    pub fn kernel_file(&self, record: &RecordFields) -> Option<&str> {
        let i: usize = record.attribute("kernel_file")?.parse().ok()?;
        self.file.kernel_files.get(i).map(String::as_str)
    }

    /// The kernel name of a record's `kernel_name` attribute (an index into `kernel_names`).
    pub fn kernel_name(&self, record: &RecordFields) -> Option<&str> {
        let i: usize = record.attribute("kernel_name")?.parse().ok()?;
        self.file.kernel_names.get(i).map(String::as_str)
    }
}
