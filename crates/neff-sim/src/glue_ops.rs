//! Which ops are glue the load inserted into MAIN (D743), one bit per op (D835): the run loop asks
//! for every op it issues, and a byte per op was held beside the package while the images decode.

/// Bits per word of [`GlueOps`].
const WORD_BITS: usize = u64::BITS as usize;

/// One bit per op, built in op order.
#[derive(Debug, Clone, Default)]
pub struct GlueOps {
    words: Vec<u64>,
    len: usize,
}

impl GlueOps {
    /// Appends the next op's bit.
    pub(crate) fn push(&mut self, glue: bool) {
        if self.len.is_multiple_of(WORD_BITS) {
            self.words.push(0);
        }
        if let Some(w) = self.words.last_mut() {
            *w |= u64::from(glue) << (self.len % WORD_BITS);
        }
        self.len += 1;
    }

    /// Whether op `i` is glue (`false` past the last op).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words
            .get(i / WORD_BITS)
            .is_some_and(|w| w >> (i % WORD_BITS) & 1 != 0)
    }

    /// How many ops.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op reads back the bit it was pushed with, across words.
    #[test]
    fn bits_read_back_as_pushed() {
        let pushed: Vec<bool> = (0..200).map(|i| i % 3 == 0 || i == 64).collect();
        let mut g = GlueOps::default();
        for &b in &pushed {
            g.push(b);
        }
        assert_eq!(g.len(), 200);
        for (i, &b) in pushed.iter().enumerate() {
            assert_eq!(g.get(i), b, "op {i}");
        }
        assert!(!g.get(200));
    }
}
