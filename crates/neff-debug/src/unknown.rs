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
