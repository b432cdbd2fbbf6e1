//! An asm layer (`sgNN/debug_info_asm_<Engine>.dbg`) as neffkit reads it: one record per slot,
//! in slot order, each naming the BIR instruction it came from by its first parent (D230).

use prost::Message;
use prost::bytes::Buf;
use prost::encoding::{DecodeContext, WireType, decode_key};

use crate::warning::DebugWarning;
use crate::wire::DebugFile;

/// Tag of the records in a debug-info file (D230: field 3).
const RECORDS: u32 = 3;

/// Bytes per asm record assumed when sizing the id list (the fixtures' records are 20-90 bytes).
const RECORD_BYTES_GUESS: usize = 48;

/// Marks a record without a parent in [`AsmLayer`]'s id list (a BIR id is a record id, which the
/// compiler numbers from 0; no fixture comes near `u64::MAX`).
const NO_PARENT: u64 = u64::MAX;

/// The slot -> BIR id map of one engine's asm layer.
///
/// Only the first parent of each record is kept: it is all that maps a slot to its source, and a
/// full [`crate::Layer`] of a 161,000-slot engine holds ~40 MB of decoded records (232 bytes
/// each) where this holds 8 bytes a slot (decision D782). [`crate::Layer::decode`] still reads
/// the whole file for a caller that wants every field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmLayer {
    /// The member path (`sg00/debug_info_asm_PE.dbg`).
    pub member: String,
    bir: Vec<u64>,
}

impl AsmLayer {
    /// Decodes member `member` with prost's own field rules (the same errors as a whole
    /// [`DebugFile`] decode), one record at a time; a decode failure is a warning naming it.
    pub fn decode(member: &str, bytes: &[u8]) -> Result<AsmLayer, DebugWarning> {
        let bad = |e: prost::DecodeError| {
            DebugWarning::new(member, format!("not a debug-info protobuf ({e})"))
        };
        let mut buf = bytes;
        // A guess from the input's size, so bounded by it; the vector grows past it if the
        // records are smaller.
        let mut bir = Vec::with_capacity(bytes.len() / RECORD_BYTES_GUESS);
        let mut scratch = DebugFile::default();
        while buf.has_remaining() {
            let (tag, wire_type) = decode_key(&mut buf).map_err(bad)?;
            scratch
                .merge_field(tag, wire_type, &mut buf, DecodeContext::default())
                .map_err(bad)?;
            if tag == RECORDS && wire_type == WireType::LengthDelimited {
                let record = scratch.msg.records.pop();
                bir.push(
                    record
                        .and_then(|r| r.parents.first().copied())
                        .unwrap_or(NO_PARENT),
                );
            }
        }
        bir.shrink_to_fit();
        Ok(AsmLayer {
            member: member.to_owned(),
            bir,
        })
    }

    /// How many records (slots) the layer has.
    pub fn len(&self) -> usize {
        self.bir.len()
    }

    /// Whether the layer has no record.
    pub fn is_empty(&self) -> bool {
        self.bir.is_empty()
    }

    /// The BIR instruction id slot `slot`'s record names, if the slot has a record with a parent.
    pub fn bir_id(&self, slot: usize) -> Option<u64> {
        self.bir.get(slot).copied().filter(|&id| id != NO_PARENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Record, RecordFields};

    /// An asm file whose records have these parent lists.
    fn file_of(parents: &[&[u64]]) -> Vec<u8> {
        let mut f = DebugFile::default();
        f.msg.description = Some("asm".into());
        f.msg.records = parents
            .iter()
            .enumerate()
            .map(|(id, p)| Record {
                msg: RecordFields {
                    id: id as u64,
                    parents: p.to_vec(),
                    ..Default::default()
                },
                unknown: Vec::new(),
            })
            .collect();
        f.msg.engine_code = Some(1);
        f.encode_to_vec()
    }

    #[test]
    fn each_slot_names_its_first_parent() {
        let bytes = file_of(&[&[7], &[], &[9, 3], &[0]]);
        let a = AsmLayer::decode("sg00/debug_info_asm_PE.dbg", &bytes).unwrap();
        assert_eq!(a.len(), 4);
        let ids: Vec<_> = (0..5).map(|s| a.bir_id(s)).collect();
        assert_eq!(ids, [Some(7), None, Some(9), Some(0), None]);
    }

    #[test]
    fn a_bad_member_is_a_warning_naming_it() {
        let bytes = file_of(&[&[1], &[2]]);
        let w = AsmLayer::decode("sg00/x.dbg", &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(w.to_string().contains("sg00/x.dbg"), "{w}");
        assert!(w.to_string().contains("not a debug-info protobuf"), "{w}");
    }

    proptest::proptest! {
        /// On any bytes: it decodes exactly when the whole-file decode does, and then has one id
        /// per record, the record's first parent.
        #[test]
        fn it_agrees_with_the_whole_file_decode(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let whole = DebugFile::decode(&bytes[..]);
            let asm = AsmLayer::decode("m", &bytes);
            proptest::prop_assert_eq!(whole.is_ok(), asm.is_ok());
            if let (Ok(f), Ok(a)) = (whole, asm) {
                proptest::prop_assert_eq!(a.len(), f.records.len());
                for (i, r) in f.records.iter().enumerate() {
                    proptest::prop_assert_eq!(a.bir_id(i), r.parents.first().copied().filter(|&p| p != NO_PARENT));
                }
            }
        }
    }
}
