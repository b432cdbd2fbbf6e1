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

    /// Each row's first byte in its partition (rows: the outer three dimensions, in pattern
    /// order; a row is `num[0]` elements `step[0]` apart), every element checked against the
    /// partition; and the element size.
    fn rows(&self) -> Result<(Vec<usize>, usize), Bounds> {
        let size = convert::size(self.dtype)
            .ok_or_else(|| Bounds(format!("dtype {} has no width", self.dtype.text())))?;
        if self.at.partition + self.channels > PARTITIONS {
            return Err(Bounds(format!(
                "partitions {}..{} are past the {PARTITIONS} of {}",
                self.at.partition,
                self.at.partition + self.channels,
                self.at.space.name()
            )));
        }
        let part = self.at.space.partition_bytes() as i64;
        let (s, sz) = (self.step, size as i64);
        let [n0, n1, n2, n3] = self.num;
        let span = if n0 == 0 {
            0
        } else {
            (n0 as i64 - 1) * s[0] * sz
        };
        let mut out = Vec::with_capacity(n1 * n2 * n3);
        for i3 in 0..n3 as i64 {
            for i2 in 0..n2 as i64 {
                for i1 in 0..n1 as i64 {
                    let row = self.at.offset as i64 + (i3 * s[3] + i2 * s[2] + i1 * s[1]) * sz;
                    for o in [row, row + span] {
                        if n0 > 0 && (o < 0 || o + sz > part) {
                            return Err(Bounds(format!(
                                "byte {o} of a {} partition ({part} bytes)",
                                self.at.space.name()
                            )));
                        }
                    }
                    out.push(row as usize);
                }
            }
        }
        Ok((out, size))
    }

    /// Records the bytes the rows cover in every partition as touched.
    fn record_rows(&self, m: &OnChip, rows: &[usize], size: usize, write: bool) {
        if !m.touches.on() {
            return;
        }
        let n0 = self.num[0];
        let mut runs: Vec<(usize, usize)> = if self.step[0] == 1 {
            rows.iter().map(|&r| (r, n0 * size)).collect()
        } else {
            let step = self.step[0] * size as i64;
            (rows.iter())
                .flat_map(|&r| (0..n0 as i64).map(move |i| ((r as i64 + i * step) as usize, size)))
                .collect()
        };
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

    /// The byte offsets of row `r`'s elements in the flat memory (partition base `b`).
    fn elements(&self, b: usize, r: usize, size: usize) -> impl Iterator<Item = usize> {
        let step = self.step[0] * size as i64;
        (0..self.num[0] as i64).map(move |i| (b as i64 + r as i64 + i * step) as usize)
    }

    /// The values as fp32, partition-major: what the datapath ops compute on (every ALU and
    /// activation op rounds its operands to fp32 first, so this is exact for them). A row of
    /// contiguous fp32 / bf16 / fp16 elements is decoded as a run (the fast path); any other
    /// element through [`convert::read`].
    pub(crate) fn read_f32(&self, m: &OnChip) -> Result<Vec<f32>, Bounds> {
        let (rows, size) = self.rows()?;
        self.record_rows(m, &rows, size, false);
        let mem = m.bytes(self.at.space);
        let n0 = self.num[0];
        let mut out = Vec::with_capacity(rows.len() * n0 * self.channels);
        for p in 0..self.channels {
            let b = self.base(p);
            for &r in &rows {
                if self.step[0] == 1 {
                    decode_run(self.dtype, &mem[b + r..b + r + n0 * size], &mut out);
                } else {
                    out.extend(
                        self.elements(b, r, size)
                            .map(|o| convert::read(self.dtype, &mem[o..o + size]) as f32),
                    );
                }
            }
        }
        Ok(out)
    }

    /// Writes fp32 values `v` (partition-major) with the dtype's rounding: the same bytes as
    /// [`Self::write`] of the values widened to f64 (an fp32 widens exactly), contiguous fp32 /
    /// bf16 / fp16 rows encoded as runs.
    pub(crate) fn write_f32(&self, m: &mut OnChip, v: &[f32]) -> Result<(), Bounds> {
        let (rows, size) = self.rows()?;
        let n0 = self.num[0];
        self.check_len(rows.len() * n0, v.len())?;
        self.record_rows(m, &rows, size, true);
        let dtype = self.dtype;
        let bases: Vec<usize> = (0..self.channels).map(|p| self.base(p)).collect();
        let mem = m.bytes_mut(self.at.space);
        let mut src = v.chunks_exact(n0.max(1));
        for b in bases {
            for &r in &rows {
                let Some(vals) = src.next() else { break };
                if self.step[0] == 1 {
                    encode_run(dtype, vals, &mut mem[b + r..b + r + n0 * size]);
                } else {
                    for (o, &x) in self.elements(b, r, size).zip(vals) {
                        convert::write(dtype, f64::from(x), &mut mem[o..o + size]);
                    }
                }
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

/// Appends the elements of the contiguous `bytes` of `d` as fp32.
fn decode_run(d: Dtype, bytes: &[u8], out: &mut Vec<f32>) {
    match d {
        Dtype::Float32 | Dtype::Float32R => out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        ),
        // A bf16 is the upper half of an fp32.
        Dtype::Bfloat16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| f32::from_bits(u32::from(u16::from_le_bytes([c[0], c[1]])) << 16)),
        ),
        Dtype::Float16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()),
        ),
        _ => {
            let size = convert::size(d).unwrap_or(1);
            out.extend(bytes.chunks_exact(size).map(|c| convert::read(d, c) as f32));
        }
    }
}

/// Writes `v` as contiguous elements of `d` into `bytes`, rounding as [`convert::write`] does
/// (round to nearest even: `half`'s `from_f32` is `from_f64` of the exact widening).
fn encode_run(d: Dtype, v: &[f32], bytes: &mut [u8]) {
    match d {
        Dtype::Float32 | Dtype::Float32R => {
            for (c, x) in bytes.chunks_exact_mut(4).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
        }
        Dtype::Bfloat16 => {
            for (c, &x) in bytes.chunks_exact_mut(2).zip(v) {
                c.copy_from_slice(&half::bf16::from_f32(x).to_le_bytes());
            }
        }
        Dtype::Float16 => {
            for (c, &x) in bytes.chunks_exact_mut(2).zip(v) {
                c.copy_from_slice(&half::f16::from_f32(x).to_le_bytes());
            }
        }
        _ => {
            let size = convert::size(d).unwrap_or(1);
            for (c, &x) in bytes.chunks_exact_mut(size).zip(v) {
                convert::write(d, f64::from(x), c);
            }
        }
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

    /// The fp32 fast path writes the bytes the generic path writes and reads back the values
    /// it reads, for fp32, bf16 and fp16, over 200 000 fp32 bit patterns (ties, subnormals,
    /// infinities and NaNs among them) from a fixed SplitMix64 stream.
    #[test]
    fn runs_convert_as_the_generic_path_does() {
        let mut rng = neff_rng::SplitMix64::new(32);
        let v: Vec<f32> = (0..200_000)
            .map(|_| f32::from_bits(rng.next_u64() as u32))
            .collect();
        for d in [
            Dtype::Float32,
            Dtype::Bfloat16,
            Dtype::Float16,
            Dtype::Int16,
        ] {
            let size = convert::size(d).unwrap();
            let mut fast = vec![0u8; v.len() * size];
            encode_run(d, &v, &mut fast);
            let mut slow = vec![0u8; v.len() * size];
            for (c, &x) in slow.chunks_exact_mut(size).zip(&v) {
                convert::write(d, f64::from(x), c);
            }
            let differ = (fast.chunks_exact(size).zip(slow.chunks_exact(size)))
                .zip(&v)
                .find(|((a, b), x)| a != b && !x.is_nan());
            assert_eq!(differ, None, "{d:?}");
            let mut back = Vec::new();
            decode_run(d, &slow, &mut back);
            for (c, &y) in slow.chunks_exact(size).zip(&back) {
                let want = convert::read(d, c) as f32;
                assert!(
                    want.to_bits() == y.to_bits() || (want.is_nan() && y.is_nan()),
                    "{d:?}"
                );
            }
        }
    }

    /// A strided pattern (step 2) reads and writes the same elements on both paths.
    #[test]
    fn strided_rows_take_the_element_path() {
        let t = Tensor {
            start_addr: 0x10,
            dims: 2,
            step: [2, 8, 0, 0],
            num: [3, 2, 1, 1],
            dtype: None,
        };
        let a = Access::new(&t, 2, Dtype::Bfloat16);
        let mut m = OnChip::default();
        let v: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
        a.write_f32(&mut m, &v).unwrap();
        let got = a.read(&m).unwrap();
        assert_eq!(got, v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
        assert_eq!(a.read_f32(&m).unwrap(), v);
        // Element 1 of row 0 of partition 0 is at byte 0x10 + 2 * 2.
        assert_eq!(m.sbuf[0x14..0x16], half::bf16::from_f32(0.5).to_le_bytes());
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
