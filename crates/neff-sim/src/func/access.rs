//! A compute operand: a `TENSOR{N}D` access pattern (reference §4.6: start ADDR4, `i16
//! step[N]`, `u16 num[N]`, steps in elements, innermost first) over `channels` partitions,
//! with its dtype. Read as `f64` values partition-major, written back with the dtype's rounding
//! ([`super::convert`]), or moved as raw bytes (a same-dtype COPY is bit-exact).

use neff_isa::Dtype;
use neff_isa::layout::Tensor;

use super::convert;
use super::memory::{Addr, OnChip, PARTITIONS, coalesce};

/// An operand's pattern, resolved.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access {
    /// Where it starts.
    pub(crate) at: Addr,
    /// Partitions it covers, from `at.partition`.
    pub(crate) channels: usize,
    /// Steps in elements (innermost first).
    pub(crate) step: [i64; 4],
    /// Counts (innermost first).
    pub(crate) num: [usize; 4],
    /// The element type.
    pub(crate) dtype: Dtype,
}

/// Why an operand does not fit its memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bounds(pub(crate) String);

impl Access {
    /// The pattern of `t` over `channels` partitions, read as `dtype`.
    pub(crate) fn new(t: &Tensor, channels: usize, dtype: Dtype) -> Self {
        let dims = usize::from(t.dims).min(4);
        let mut step = [0i64; 4];
        let mut num = [1usize; 4];
        for i in 0..dims {
            step[i] = i64::from(t.step[i]);
            num[i] = usize::from(t.num[i]);
        }
        Self {
            at: Addr::of(t.start_addr),
            channels,
            step,
            num,
            dtype,
        }
    }

    /// Elements per partition.
    pub(crate) fn per_partition(&self) -> usize {
        self.num.iter().product()
    }

    /// Every element's byte offset inside its partition, in pattern order (innermost first),
    /// checked against the partition; and the check of the partitions.
    pub(crate) fn offsets(&self) -> Result<Vec<usize>, Bounds> {
        let size = convert::size(self.dtype)
            .ok_or_else(|| Bounds(format!("dtype {} has no width", self.dtype.text())))?;
        let part = self.at.space.partition_bytes();
        if self.at.partition + self.channels > PARTITIONS {
            return Err(Bounds(format!(
                "partitions {}..{} are past the {PARTITIONS} of {}",
                self.at.partition,
                self.at.partition + self.channels,
                self.at.space.name()
            )));
        }
        let mut out = Vec::with_capacity(self.per_partition());
        let base = self.at.offset as i64;
        let [n0, n1, n2, n3] = self.num;
        for i3 in 0..n3 {
            for i2 in 0..n2 {
                for i1 in 0..n1 {
                    let row = base
                        + (i3 as i64 * self.step[3]
                            + i2 as i64 * self.step[2]
                            + i1 as i64 * self.step[1])
                            * size as i64;
                    for i0 in 0..n0 {
                        let o = row + i0 as i64 * self.step[0] * size as i64;
                        if o < 0 || o as usize + size > part {
                            return Err(Bounds(format!(
                                "byte {o} of a {} partition ({part} bytes)",
                                self.at.space.name()
                            )));
                        }
                        out.push(o as usize);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Records the bytes `offs` (the pattern's offsets) cover in every partition as touched.
    fn record(&self, m: &OnChip, offs: &[usize], write: bool) {
        if !m.touches.on() {
            return;
        }
        let size = convert::size(self.dtype).unwrap_or(1);
        let mut runs: Vec<(usize, usize)> = offs.iter().map(|&o| (o, size)).collect();
        coalesce(&mut runs);
        let runs = &runs;
        m.touches.record(
            self.at.space.into(),
            write,
            self.dtype,
            (0..self.channels).flat_map(|p| {
                let b = self.base(p);
                runs.iter().map(move |&(o, l)| (b + o, l))
            }),
        );
    }

    fn base(&self, p: usize) -> usize {
        (self.at.partition + p) * self.at.space.partition_bytes()
    }

    /// The values, partition-major (`channels * per_partition`).
    pub(crate) fn read(&self, m: &OnChip) -> Result<Vec<f64>, Bounds> {
        let offs = self.offsets()?;
        self.record(m, &offs, false);
        let mem = m.bytes(self.at.space);
        let mut out = Vec::with_capacity(offs.len() * self.channels);
        for p in 0..self.channels {
            let b = self.base(p);
            out.extend(
                offs.iter()
                    .map(|&o| convert::read(self.dtype, &mem[b + o..])),
            );
        }
        Ok(out)
    }

    /// Writes `v` (partition-major, as [`Self::read`] returns) with the dtype's rounding.
    pub(crate) fn write(&self, m: &mut OnChip, v: &[f64]) -> Result<(), Bounds> {
        let offs = self.offsets()?;
        self.check_len(offs.len(), v.len())?;
        self.record(m, &offs, true);
        let size = convert::size(self.dtype).unwrap_or(1);
        let mem = m.bytes_mut(self.at.space);
        for p in 0..self.channels {
            let b = self.base(p);
            for (&o, &x) in offs.iter().zip(&v[p * offs.len()..]) {
                convert::write(self.dtype, x, &mut mem[b + o..b + o + size]);
            }
        }
        Ok(())
    }

    /// The raw element bytes, partition-major.
    pub(crate) fn read_raw(&self, m: &OnChip) -> Result<Vec<u8>, Bounds> {
        let offs = self.offsets()?;
        self.record(m, &offs, false);
        let size = convert::size(self.dtype).unwrap_or(1);
        let mem = m.bytes(self.at.space);
        let mut out = Vec::with_capacity(offs.len() * self.channels * size);
        for p in 0..self.channels {
            let b = self.base(p);
            for &o in &offs {
                out.extend_from_slice(&mem[b + o..b + o + size]);
            }
        }
        Ok(out)
    }

    /// Writes raw element bytes (partition-major, the dtype's width each).
    pub(crate) fn write_raw(&self, m: &mut OnChip, v: &[u8]) -> Result<(), Bounds> {
        let offs = self.offsets()?;
        let size = convert::size(self.dtype).unwrap_or(1);
        self.check_len(offs.len() * size, v.len())?;
        self.record(m, &offs, true);
        let mem = m.bytes_mut(self.at.space);
        let mut src = v.chunks_exact(size);
        for p in 0..self.channels {
            let b = self.base(p);
            for &o in &offs {
                if let Some(c) = src.next() {
                    mem[b + o..b + o + size].copy_from_slice(c);
                }
            }
        }
        Ok(())
    }

    fn check_len(&self, per: usize, got: usize) -> Result<(), Bounds> {
        if per * self.channels != got {
            return Err(Bounds(format!(
                "{} elements ({} partitions x {per}) but the source has {got}",
                per * self.channels,
                self.channels
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LDWEIGHTS pattern of matmul_small (`[-1,0,-32][32,1,4]` from byte 0xFE): the 128
    /// fp16 elements of the partition, last first.
    #[test]
    fn reversed_weights_pattern() {
        let t = Tensor {
            start_addr: 0x37cfe,
            dims: 3,
            step: [-1, 0, -32, 0],
            num: [32, 1, 4, 0],
            dtype: None,
        };
        let a = Access::new(&t, 128, Dtype::Float16);
        let offs = a.offsets().unwrap();
        assert_eq!(offs.len(), 128);
        assert_eq!(offs[0], 0x37cfe);
        assert_eq!(offs[1], 0x37cfc);
        assert_eq!(offs[32], 0x37cfe - 64);
        assert_eq!(offs[127], 0x37c00);
    }

    #[test]
    fn psum_partition_overflow_is_an_error() {
        let t = Tensor {
            start_addr: 0x0200_3ffc,
            dims: 3,
            step: [1, 0, 0, 0],
            num: [2, 1, 1, 0],
            dtype: None,
        };
        let a = Access::new(&t, 1, Dtype::Float32);
        assert!(a.offsets().unwrap_err().0.contains("PSUM"));
    }
}
