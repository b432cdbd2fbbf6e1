//! Fields the observed schema does not declare, kept as read (bytes are the truth; decision D231).
//!
//! prost drops the fields a message type does not declare. The compiler's schema is unpublished
//! and we have seen it on a handful of NEFFs only, so a [`Kept`] message wraps a prost message and
//! keeps every other field with its tag, wire type and bytes; writing it back re-emits them.

use ::bytes::{Buf, BufMut};
use prost::DecodeError;
use prost::Message;
use prost::encoding::{
    DecodeContext, WireType, bytes, encode_key, encode_varint, encoded_len_varint, fixed32,
    fixed64, key_len, skip_field, uint64,
};

/// The value of a field the schema does not declare, by wire type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownValue {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1 (little-endian).
    Fixed64(u64),
    /// Wire type 2: a string, bytes, a sub-message or a packed list; not interpreted.
    Bytes(Vec<u8>),
    /// Wire type 5 (little-endian).
    Fixed32(u32),
    /// A group (wire types 3/4): skipped, not kept, not written back.
    SkippedGroup,
}

/// One undeclared field: its tag and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownField {
    /// The field number.
    pub tag: u32,
    /// The value as read.
    pub value: UnknownValue,
}

impl UnknownField {
    /// Reads the value of field `tag` (its key already consumed) with prost's own field readers,
    /// which bound every length by the bytes present. A group (wire types 3/4, long deprecated,
    /// never observed) is skipped and only its tag kept.
    fn read(
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<Self, DecodeError> {
        let value = match wire_type {
            WireType::Varint => {
                let mut v = 0;
                uint64::merge(wire_type, &mut v, buf, ctx)?;
                UnknownValue::Varint(v)
            }
            WireType::SixtyFourBit => {
                let mut v = 0;
                fixed64::merge(wire_type, &mut v, buf, ctx)?;
                UnknownValue::Fixed64(v)
            }
            WireType::ThirtyTwoBit => {
                let mut v = 0;
                fixed32::merge(wire_type, &mut v, buf, ctx)?;
                UnknownValue::Fixed32(v)
            }
            WireType::LengthDelimited => {
                let mut v = Vec::new();
                bytes::merge(wire_type, &mut v, buf, ctx)?;
                UnknownValue::Bytes(v)
            }
            WireType::StartGroup | WireType::EndGroup => {
                skip_field(wire_type, tag, buf, ctx)?;
                UnknownValue::SkippedGroup
            }
        };
        Ok(UnknownField { tag, value })
    }

    fn encode(&self, buf: &mut impl BufMut) {
        match &self.value {
            UnknownValue::Varint(v) => {
                encode_key(self.tag, WireType::Varint, buf);
                encode_varint(*v, buf);
            }
            UnknownValue::Fixed64(v) => {
                encode_key(self.tag, WireType::SixtyFourBit, buf);
                buf.put_u64_le(*v);
            }
            UnknownValue::Fixed32(v) => {
                encode_key(self.tag, WireType::ThirtyTwoBit, buf);
                buf.put_u32_le(*v);
            }
            UnknownValue::Bytes(b) => {
                encode_key(self.tag, WireType::LengthDelimited, buf);
                encode_varint(b.len() as u64, buf);
                buf.put_slice(b);
            }
            UnknownValue::SkippedGroup => {}
        }
    }

    fn encoded_len(&self) -> usize {
        let key = key_len(self.tag);
        match &self.value {
            UnknownValue::Varint(v) => key + encoded_len_varint(*v),
            UnknownValue::Fixed64(_) => key + 8,
            UnknownValue::Fixed32(_) => key + 4,
            UnknownValue::Bytes(b) => key + encoded_len_varint(b.len() as u64) + b.len(),
            UnknownValue::SkippedGroup => 0,
        }
    }
}

/// The field numbers a prost message type declares; every other number is kept by [`Kept`].
pub trait DeclaredTags {
    /// The declared field numbers.
    const TAGS: &'static [u32];
}

/// A prost message plus the fields its type does not declare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept<T> {
    /// The declared fields.
    pub msg: T,
    /// Every other field, in the order read.
    pub unknown: Vec<UnknownField>,
}

impl<T> std::ops::Deref for Kept<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.msg
    }
}

impl<T: Message + Default + DeclaredTags> Message for Kept<T> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        // The declared fields in tag order (prost), then the kept ones: exact for every file we
        // have, whose fields are in ascending order and all declared.
        self.msg.encode_raw(buf);
        for f in &self.unknown {
            f.encode(buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if T::TAGS.contains(&tag) {
            self.msg.merge_field(tag, wire_type, buf, ctx)
        } else {
            self.unknown
                .push(UnknownField::read(tag, wire_type, buf, ctx)?);
            Ok(())
        }
    }

    fn encoded_len(&self) -> usize {
        self.msg.encoded_len()
            + self
                .unknown
                .iter()
                .map(UnknownField::encoded_len)
                .sum::<usize>()
    }

    fn clear(&mut self) {
        self.msg.clear();
        self.unknown.clear();
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::{UnknownField, UnknownValue};
    use crate::wire::{DebugFile, Record};

    /// A record `{1: 7, 2: "I-1-0", 11: 5, 12: "x", 13: fixed32 9, 14: fixed64 1}`.
    const WITH_EXTRAS: &[u8] = &[
        0x08, 0x07, 0x12, 0x05, b'I', b'-', b'1', b'-', b'0', 0x58, 0x05, 0x62, 0x01, b'x', 0x6d,
        9, 0, 0, 0, 0x71, 1, 0, 0, 0, 0, 0, 0, 0,
    ];

    #[test]
    fn undeclared_fields_are_kept_and_written_back() {
        let r = Record::decode(WITH_EXTRAS).unwrap();
        assert_eq!((r.id, r.name.as_deref()), (7, Some("I-1-0")));
        let tags: Vec<(u32, &UnknownValue)> = r.unknown.iter().map(|f| (f.tag, &f.value)).collect();
        assert_eq!(
            tags,
            [
                (11, &UnknownValue::Varint(5)),
                (12, &UnknownValue::Bytes(b"x".to_vec())),
                (13, &UnknownValue::Fixed32(9)),
                (14, &UnknownValue::Fixed64(1)),
            ]
        );
        assert_eq!(r.encode_to_vec(), WITH_EXTRAS);
        assert_eq!(r.encoded_len(), WITH_EXTRAS.len());
    }

    #[test]
    fn a_length_past_the_end_is_an_error_not_an_allocation() {
        // Field 12, length 2^35: refused because the bytes are not there.
        let bytes = [0x62, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
        assert!(Record::decode(&bytes[..]).is_err());
        assert!(DebugFile::decode(&[0x1a, 0x7f, 0x00][..]).is_err());
    }

    #[test]
    fn a_group_is_skipped() {
        // Field 15 as a group holding field 1 = 1, then field 1 = 3.
        let bytes = [0x7b, 0x08, 0x01, 0x7c, 0x08, 0x03];
        let r = Record::decode(&bytes[..]).unwrap();
        assert_eq!(r.id, 3);
        assert_eq!(
            r.unknown,
            [UnknownField {
                tag: 15,
                value: UnknownValue::SkippedGroup
            }]
        );
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_decode_or_fail_cleanly(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            if let Ok(f) = DebugFile::decode(&bytes[..]) {
                // Whatever decodes encodes again without panicking.
                let _ = f.encode_to_vec();
            }
        }
    }
}
