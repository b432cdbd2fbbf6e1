//! The opcode histogram of a NEFF: slots per opcode byte over every engine stream.

use neff_isa::{Opcode, slots};

use crate::row::OpcodeCount;

/// Slots per opcode byte (spec 003 §2: byte 0 of each 64-byte slot).
#[derive(Debug, Clone)]
pub struct OpcodeHistogram([u64; 256]);

impl Default for OpcodeHistogram {
    fn default() -> Self {
        Self([0; 256])
    }
}

impl OpcodeHistogram {
    /// Counts the whole slots of one engine stream (a partial trailing slot is no instruction,
    /// spec 004 §2 `ninstr = size >> 6`).
    pub fn add_stream(&mut self, stream: &[u8]) {
        for (_, slot) in slots(stream) {
            self.0[usize::from(slot.opcode().0)] += 1;
        }
    }

    /// The non-zero counts by opcode byte, named from neff-isa's table.
    pub fn counts(&self) -> Vec<OpcodeCount> {
        (0..=u8::MAX)
            .filter(|&b| self.0[usize::from(b)] != 0)
            .map(|b| OpcodeCount {
                opcode: b,
                mnemonic: Opcode(b).to_string(),
                count: self.0[usize::from(b)],
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_whole_slots_by_opcode_and_names_unknown_bytes() {
        let unknown = (0..=u8::MAX)
            .find(|&b| Opcode(b).mnemonic().is_none())
            .unwrap();
        let mut stream = vec![0u8; 64 * 3 + 10];
        stream[0] = Opcode::EVENT_SEMAPHORE.0;
        stream[64] = Opcode::EVENT_SEMAPHORE.0;
        stream[128] = unknown;
        stream[192] = Opcode::EVENT_SEMAPHORE.0; // in the partial slot: not counted
        let mut h = OpcodeHistogram::default();
        h.add_stream(&stream);
        let got: Vec<(u8, String, u64)> = h
            .counts()
            .into_iter()
            .map(|c| (c.opcode, c.mnemonic, c.count))
            .collect();
        let mut want = vec![
            (unknown, format!("{unknown:#04x}"), 1),
            (0xa0, "EVENT_SEMAPHORE".to_owned(), 2),
        ];
        want.sort();
        assert_eq!(got, want);
    }
}
