//! The protobuf wire format walked over borrowed bytes (decision D400): a capture's metadata has
//! no published schema, so the reader visits fields by number, keeps the ones it does not know
//! as raw bytes, and never copies a string or a stream out of the file.
//!
//! Each field carries the absolute byte offset of its key, so an error deep in a nested message
//! still names the place in the file.

/// The value of one field, by wire type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireValue<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1, little-endian.
    Fixed64(u64),
    /// Wire type 2: bytes, a string, a nested message or a packed list.
    Bytes(&'a [u8]),
    /// Wire type 5, little-endian.
    Fixed32(u32),
}

/// One field of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireField<'a> {
    /// The field number.
    pub number: u32,
    /// The value.
    pub value: WireValue<'a>,
    /// Absolute byte offset of the field's key in the file.
    pub offset: u64,
    /// For [`WireValue::Bytes`]: absolute byte offset of the payload's first byte.
    pub payload_offset: u64,
}

impl<'a> WireField<'a> {
    /// The value as an unsigned integer (varint or fixed), if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self.value {
            WireValue::Varint(v) | WireValue::Fixed64(v) => Some(v),
            WireValue::Fixed32(v) => Some(u64::from(v)),
            WireValue::Bytes(_) => None,
        }
    }

    /// The payload of a length-delimited field.
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        match self.value {
            WireValue::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The fields of a nested message held by this field.
    pub fn message(&self) -> Option<WireFields<'a>> {
        self.as_bytes()
            .map(|b| WireFields::new(b, self.payload_offset))
    }
}

/// Why the bytes are not a protobuf message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// A varint runs past the message or past ten bytes.
    #[error("byte {offset}: a varint runs past the message")]
    Varint {
        /// Absolute offset of the varint's first byte.
        offset: u64,
    },
    /// A wire type this format does not have (3, 4: groups, never seen; 6, 7).
    #[error("byte {offset}: wire type {wire_type} of field {number} is not supported")]
    WireType {
        /// Absolute offset of the key.
        offset: u64,
        /// The field number.
        number: u64,
        /// The wire type.
        wire_type: u8,
    },
    /// A length or fixed-size value runs past the message.
    #[error(
        "byte {offset}: field {number} claims {length} bytes, {available} are left in its message"
    )]
    PastEnd {
        /// Absolute offset of the key.
        offset: u64,
        /// The field number.
        number: u32,
        /// The bytes it claims.
        length: u64,
        /// The bytes left.
        available: u64,
    },
    /// Field number 0 or above 2^29 - 1.
    #[error("byte {offset}: field number {number} is out of range")]
    FieldNumber {
        /// Absolute offset of the key.
        offset: u64,
        /// The number read.
        number: u64,
    },
}

/// The fields of one message, in order; an iterator of results that stops after the first error.
#[derive(Debug, Clone)]
pub struct WireFields<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
    failed: bool,
}

impl<'a> WireFields<'a> {
    /// The fields of `bytes`, which start at absolute offset `base` of the file.
    pub fn new(bytes: &'a [u8], base: u64) -> Self {
        Self {
            bytes,
            pos: 0,
            base,
            failed: false,
        }
    }

    fn at(&self, pos: usize) -> u64 {
        self.base + pos as u64
    }

    /// Reads a varint at the cursor (at most ten bytes, inside the message).
    fn varint(&mut self) -> Result<u64, WireError> {
        let start = self.pos;
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let Some(&b) = self.bytes.get(self.pos) else {
                break;
            };
            self.pos += 1;
            v |= u64::from(b & 0x7F).checked_shl(shift).unwrap_or(0);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(WireError::Varint {
            offset: self.at(start),
        })
    }

    /// Takes `n` bytes at the cursor, checked against what is left.
    fn take(&mut self, n: u64, key: usize, number: u32) -> Result<(&'a [u8], usize), WireError> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(WireError::PastEnd {
                offset: self.at(key),
                number,
                length: n,
                available: left,
            });
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok((&self.bytes[start..self.pos], start))
    }

    fn field(&mut self) -> Result<WireField<'a>, WireError> {
        let key_at = self.pos;
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 || number > (1 << 29) - 1 {
            return Err(WireError::FieldNumber {
                offset: self.at(key_at),
                number,
            });
        }
        let number = number as u32;
        let mut payload_offset = 0;
        let value = match key & 7 {
            0 => WireValue::Varint(self.varint()?),
            1 => {
                let (b, _) = self.take(8, key_at, number)?;
                WireValue::Fixed64(u64::from_le_bytes(b.try_into().unwrap_or_default()))
            }
            2 => {
                let n = self.varint()?;
                let (b, start) = self.take(n, key_at, number)?;
                payload_offset = self.at(start);
                WireValue::Bytes(b)
            }
            5 => {
                let (b, _) = self.take(4, key_at, number)?;
                WireValue::Fixed32(u32::from_le_bytes(b.try_into().unwrap_or_default()))
            }
            t => {
                return Err(WireError::WireType {
                    offset: self.at(key_at),
                    number: u64::from(number),
                    wire_type: t as u8,
                });
            }
        };
        Ok(WireField {
            number,
            value,
            offset: self.at(key_at),
            payload_offset,
        })
    }
}

impl<'a> Iterator for WireFields<'a> {
    type Item = Result<WireField<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.bytes.len() {
            return None;
        }
        let r = self.field();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Appends the wire encoding of a varint (the synthetic-capture writer and the tests).
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends field `number` as a varint.
pub fn put_varint_field(out: &mut Vec<u8>, number: u32, v: u64) {
    put_varint(out, u64::from(number) << 3);
    put_varint(out, v);
}

/// Appends field `number` as length-delimited bytes.
pub fn put_bytes_field(out: &mut Vec<u8>, number: u32, b: &[u8]) {
    put_varint(out, (u64::from(number) << 3) | 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_varints_bytes_and_nested_messages_with_offsets() {
        // 1: "sg00", 3: 4, 4: {2: 300}
        let mut inner = Vec::new();
        put_varint_field(&mut inner, 2, 300);
        let mut m = Vec::new();
        put_bytes_field(&mut m, 1, b"sg00");
        put_varint_field(&mut m, 3, 4);
        put_bytes_field(&mut m, 4, &inner);
        let f: Vec<_> = WireFields::new(&m, 0x80).collect::<Result<_, _>>().unwrap();
        assert_eq!(f[0].as_bytes(), Some(&b"sg00"[..]));
        assert_eq!(f[0].payload_offset, 0x82);
        assert_eq!(f[1].as_u64(), Some(4));
        assert_eq!(f[2].offset, 0x80 + 8);
        let n: Vec<_> = f[2].message().unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!((n[0].number, n[0].as_u64()), (2, Some(300)));
        assert_eq!(n[0].offset, 0x80 + 10);
    }

    #[test]
    fn a_length_past_the_message_names_its_key_offset() {
        // field 1, length-delimited, claiming 2^40 bytes
        let mut m = vec![0x0A];
        put_varint(&mut m, 1 << 40);
        let e = WireFields::new(&m, 100).next().unwrap().unwrap_err();
        assert_eq!(
            e,
            WireError::PastEnd {
                offset: 100,
                number: 1,
                length: 1 << 40,
                available: 0
            }
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for g in [&[0xFFu8; 11][..], &[0x0B], &[0x00, 0x00], &[0x09, 1, 2]] {
            let r: Result<Vec<_>, _> = WireFields::new(g, 0).collect();
            assert!(r.is_err(), "{g:?}");
        }
    }
}
