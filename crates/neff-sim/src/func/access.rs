//! A compute operand: a `TENSOR{N}D` access pattern (reference §4.6: start ADDR4, `i16
//! step[N]`, `u16 num[N]`, steps in elements, innermost first) over `channels` partitions,
//! with its dtype. Read as `f64` or fp32 values partition-major, written back with the dtype's
//! rounding ([`super::convert`]), or moved as raw bytes (a same-dtype COPY is bit-exact).
//!
//! Every read and write walks rows: the pattern with its continuing dimensions merged
//! ([`Access::merged`]), a row `num[0]` elements `step[0]` apart in each partition, bounds-checked
//! at its ends. The rows of an operand are converted with the dtype matched once
//! ([`gather`] / [`scatter`] specialize [`convert::read`] / [`convert::write`] to it): the same
//! conversion as the per-element path, without its per-element dispatch (decision D750).
//! Unit-stride rows are sliced and copied whole.

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

/// Runs `$f` with the element size `$s` as a constant for the widths there are (1, 2, 4 and 8
/// bytes), so a per-element copy is one load and store rather than a `memcpy` call (D821); any
/// other width as the variable.
macro_rules! per_size {
    ($s:expr, $f:expr) => {
        match $s {
            1 => $f(1usize),
            2 => $f(2usize),
            4 => $f(4usize),
            8 => $f(8usize),
            other => $f(other),
        }
    };
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

    /// The element size, after checking the partitions the operand covers.
    fn size_checked(&self) -> Result<usize, Bounds> {
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
        Ok(size)
    }

    /// Every element's byte offset inside its partition, in pattern order (innermost first),
    /// each checked against the partition: the general path the row walks must match (the
    /// tests compare them).
    #[cfg(test)]
    pub(crate) fn offsets(&self) -> Result<Vec<usize>, Bounds> {
        let size = self.size_checked()?;
        let part = self.at.space.partition_bytes();
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

    /// Partition `p`'s first byte in the storage (padded, D828).
    fn base(&self, p: usize) -> usize {
        (self.at.partition + p) * self.at.space.stride()
    }

    /// Partition `p`'s first byte in the address space: what a touch records.
    fn addr_base(&self, p: usize) -> usize {
        (self.at.partition + p) * self.at.space.partition_bytes()
    }

    /// Bytes from one element of a row to the next.
    fn stride(&self, size: usize) -> i64 {
        self.step[0] * size as i64
    }

    /// Each row's first byte in its partition (rows: the outer three dimensions, in pattern
    /// order; a row is `num[0]` elements `step[0]` apart), every element checked against the
    /// partition (a row's elements lie between its ends); and the element size.
    fn rows(&self) -> Result<(Vec<usize>, usize), Bounds> {
        let size = self.size_checked()?;
        let part = self.at.space.partition_bytes() as i64;
        let (s, sz) = (self.step, size as i64);
        let [n0, n1, n2, n3] = self.num;
        if n0 == 0 {
            // Rows of no element read and write nothing, wherever they would start (a row
            // before the partition's first byte is no error then, and has no start).
            return Ok((Vec::new(), size));
        }
        let span = (n0 as i64 - 1) * s[0] * sz;
        let mut out = Vec::with_capacity(n1 * n2 * n3);
        for i3 in 0..n3 as i64 {
            for i2 in 0..n2 as i64 {
                for i1 in 0..n1 as i64 {
                    let row = self.at.offset as i64 + (i3 * s[3] + i2 * s[2] + i1 * s[1]) * sz;
                    for o in [row, row + span] {
                        if o < 0 || o + sz > part {
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
            let step = self.stride(size);
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
                let b = self.addr_base(p);
                runs.iter().map(move |&(o, l)| (b + o, l))
            }),
        );
    }

    /// The same elements in the same order with the fewest dimensions: a dimension of one
    /// element is dropped, and one that continues the dimension inside it (`step[i + 1] ==
    /// step[i] * num[i]`) is folded into it — so a tile stored whole is one row, not one row
    /// per line. Only the walk uses it: an op's own view of the dimensions (TENSOR_REDUCE's X)
    /// is the pattern's.
    fn merged(&self) -> Self {
        if self.num.contains(&0) {
            return *self;
        }
        let (mut step, mut num) = ([0i64; 4], [1usize; 4]);
        let mut k = 0;
        for i in 0..4 {
            if self.num[i] == 1 {
                continue;
            }
            if k > 0 && self.step[i] == step[k - 1] * num[k - 1] as i64 {
                num[k - 1] *= self.num[i];
            } else {
                (step[k], num[k]) = (self.step[i], self.num[i]);
                k += 1;
            }
        }
        Self { step, num, ..*self }
    }

    /// The walk every read and write shares: the merged pattern's rows, bounds checked and
    /// recorded as touched, each row's first byte in the flat memory (partition-major).
    fn walk(&self, m: &OnChip, write: bool) -> Result<Walk, Bounds> {
        let a = self.merged();
        if a.num == [1; 4] {
            // D821: one element per partition (a per-partition column: the MoE kernels' ops
            // are 128 of them) is one row across the partitions, a partition apart, in the
            // same partition-major order: one strided row, not a row per partition. D827: it
            // is checked and recorded without the general path's row, run and start vectors
            // (four allocations of one entry each, per operand).
            let size = a.size_checked()?;
            let part = a.at.space.partition_bytes();
            if a.at.offset + size > part {
                return Err(Bounds(format!(
                    "byte {} of a {} partition ({part} bytes)",
                    a.at.offset,
                    a.at.space.name()
                )));
            }
            let first = a.addr_base(0) + a.at.offset;
            let column = [first, size, a.channels, part];
            (m.touches).record_strided(a.at.space.into(), write, a.dtype, column);
            return Ok(Walk {
                starts: Starts::One([a.base(0) + a.at.offset]),
                size,
                n: a.channels,
                stride: a.at.space.stride() as i64,
            });
        }
        let (rows, size) = a.rows()?;
        a.record_rows(m, &rows, size, write);
        let mut starts = Vec::with_capacity(rows.len() * a.channels);
        for p in 0..a.channels {
            let b = a.base(p);
            starts.extend(rows.iter().map(|&r| b + r));
        }
        Ok(Walk {
            starts: Starts::Many(starts),
            size,
            n: a.num[0],
            stride: a.stride(size),
        })
    }

    /// The values, partition-major (`channels * per_partition`), each as [`convert::read`]
    /// reads it.
    pub(crate) fn read(&self, m: &OnChip) -> Result<Vec<f64>, Bounds> {
        let w = self.walk(m, false)?;
        let mem = m.bytes(self.at.space);
        let mut out = Vec::with_capacity(w.starts.len() * w.n);
        decode_f64(self.dtype, mem, &w.starts, w.stride, w.n, &mut out);
        Ok(out)
    }

    /// Writes `v` (partition-major, as [`Self::read`] returns) with the dtype's rounding
    /// ([`convert::write`]).
    pub(crate) fn write(&self, m: &mut OnChip, v: &[f64]) -> Result<(), Bounds> {
        self.check_len(self.per_partition(), v.len())?;
        let w = self.walk(m, true)?;
        let mem = m.bytes_mut(self.at.space);
        encode_f64(self.dtype, v, mem, &w.starts, w.stride, w.n);
        Ok(())
    }

    /// The values as fp32, partition-major: what the datapath ops compute on (every ALU and
    /// activation op rounds its operands to fp32 first, so this is exact for them; a float
    /// element widens to f64 exactly, so it is [`convert::read`]'s value).
    pub(crate) fn read_f32(&self, m: &OnChip) -> Result<Vec<f32>, Bounds> {
        let w = self.walk(m, false)?;
        let mem = m.bytes(self.at.space);
        let mut out = Vec::with_capacity(w.starts.len() * w.n);
        decode_f32(self.dtype, mem, &w.starts, w.stride, w.n, &mut out);
        Ok(out)
    }

    /// Writes fp32 values `v` (partition-major) with the dtype's rounding: the bytes
    /// [`Self::write`] writes for the values widened to f64 (an fp32 widens exactly).
    pub(crate) fn write_f32(&self, m: &mut OnChip, v: &[f32]) -> Result<(), Bounds> {
        self.check_len(self.per_partition(), v.len())?;
        let w = self.walk(m, true)?;
        let mem = m.bytes_mut(self.at.space);
        encode_f32(self.dtype, v, mem, &w.starts, w.stride, w.n);
        Ok(())
    }

    /// The raw element bytes, partition-major (a unit-stride row copied whole).
    pub(crate) fn read_raw(&self, m: &OnChip) -> Result<Vec<u8>, Bounds> {
        let w = self.walk(m, false)?;
        let (size, n) = (w.size, w.n);
        let mem = m.bytes(self.at.space);
        let mut out = Vec::with_capacity(w.starts.len() * n * size);
        per_size!(size, |size: usize| for &s in w.starts.iter() {
            if w.stride == size as i64 {
                out.extend_from_slice(&mem[s..s + n * size]);
            } else {
                for i in 0..n as i64 {
                    let o = (s as i64 + i * w.stride) as usize;
                    out.extend_from_slice(&mem[o..o + size]);
                }
            }
        });
        Ok(out)
    }

    /// Writes raw element bytes (partition-major, the dtype's width each).
    pub(crate) fn write_raw(&self, m: &mut OnChip, v: &[u8]) -> Result<(), Bounds> {
        let size = self.size_checked()?;
        self.check_len(self.per_partition() * size, v.len())?;
        let w = self.walk(m, true)?;
        let n = w.n;
        let mem = m.bytes_mut(self.at.space);
        per_size!(size, |size: usize| for (&s, row) in
            w.starts.iter().zip(v.chunks_exact((n * size).max(1)))
        {
            if w.stride == size as i64 {
                mem[s..s + n * size].copy_from_slice(row);
            } else {
                for (i, c) in row.chunks_exact(size).enumerate() {
                    let o = (s as i64 + i as i64 * w.stride) as usize;
                    mem[o..o + size].copy_from_slice(c);
                }
            }
        });
        Ok(())
    }

    /// Writes the element bytes `one` (the dtype's width) to every element (MEMSET).
    pub(crate) fn fill_raw(&self, m: &mut OnChip, one: &[u8]) -> Result<(), Bounds> {
        let size = self.size_checked()?;
        if one.len() != size {
            return Err(Bounds(format!(
                "a {}-byte value for {size}-byte elements",
                one.len()
            )));
        }
        let w = self.walk(m, true)?;
        let mem = m.bytes_mut(self.at.space);
        per_size!(size, |size: usize| for &s in w.starts.iter() {
            for i in 0..w.n as i64 {
                let o = (s as i64 + i * w.stride) as usize;
                mem[o..o + size].copy_from_slice(one);
            }
        });
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

/// A pattern's walk: each row's first byte (flat, partition-major), the element size, the
/// elements per row and the bytes between them.
struct Walk {
    starts: Starts,
    size: usize,
    n: usize,
    stride: i64,
}

/// A walk's row starts: one (a per-partition column, D827) without a vector, or many.
enum Starts {
    One([usize; 1]),
    Many(Vec<usize>),
}

impl std::ops::Deref for Starts {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            Starts::One(s) => s,
            Starts::Many(v) => v,
        }
    }
}

/// The `n` elements of `d` at `first`, `stride` bytes apart, each decoded by `f`, appended to
/// `out`: a unit-stride row is one slice. Inlined into each dtype's arm of the callers, so
/// `f`'s [`convert`] call is specialized to that dtype (one conversion table, no per-element
/// dispatch).
#[inline(always)]
fn gather<T>(
    d: Dtype,
    mem: &[u8],
    (first, stride, n): (usize, i64, usize),
    out: &mut Vec<T>,
    f: impl Fn(Dtype, &[u8]) -> T,
) {
    let size = convert::size(d).unwrap_or(1);
    if stride == size as i64 {
        out.extend(
            mem[first..first + n * size]
                .chunks_exact(size)
                .map(|c| f(d, c)),
        );
    } else {
        out.extend((0..n as i64).map(|i| {
            let o = (first as i64 + i * stride) as usize;
            f(d, &mem[o..o + size])
        }));
    }
}

/// Writes `v` as elements of `d` at `first`, `stride` bytes apart, each encoded by `f` (as
/// [`gather`], the other way).
#[inline(always)]
fn scatter<T: Copy>(
    d: Dtype,
    v: &[T],
    mem: &mut [u8],
    (first, stride): (usize, i64),
    f: impl Fn(Dtype, T, &mut [u8]),
) {
    let size = convert::size(d).unwrap_or(1);
    if stride == size as i64 {
        let bytes = &mut mem[first..first + v.len() * size];
        for (c, &x) in bytes.chunks_exact_mut(size).zip(v) {
            f(d, x, c);
        }
    } else {
        for (i, &x) in v.iter().enumerate() {
            let o = (first as i64 + i as i64 * stride) as usize;
            f(d, x, &mut mem[o..o + size]);
        }
    }
}

/// Calls `$f` with `$d` as a constant of each common dtype (so an `#[inline(always)]` `$f`
/// is compiled once per dtype), or as the variable for the rest.
macro_rules! per_dtype {
    ($d:expr, $f:expr) => {
        match $d {
            Dtype::Float32 => $f(Dtype::Float32),
            Dtype::Bfloat16 => $f(Dtype::Bfloat16),
            Dtype::Float16 => $f(Dtype::Float16),
            Dtype::Int32 => $f(Dtype::Int32),
            Dtype::Uint8 => $f(Dtype::Uint8),
            other => $f(other),
        }
    };
}

/// Converts the contiguous elements `src` of `from` into `dst` as elements of `to`: each value
/// as [`convert::read`] reads it, written as [`convert::write`] writes it (a DMA between
/// dtypes), with both dtypes matched once per block of elements, not per element.
pub(crate) fn convert_elements(from: Dtype, to: Dtype, src: &[u8], dst: &mut [u8]) {
    const BLOCK: usize = 4096;
    let (ss, ds) = (
        convert::size(from).unwrap_or(1),
        convert::size(to).unwrap_or(1),
    );
    let mut v = Vec::with_capacity(BLOCK);
    for (s, d) in src.chunks(BLOCK * ss).zip(dst.chunks_mut(BLOCK * ds)) {
        let n = (s.len() / ss).min(d.len() / ds);
        v.clear();
        decode_f64(from, s, &[0], ss as i64, n, &mut v);
        encode_f64(to, &v, d, &[0], ds as i64, n);
    }
}

/// The rows at `starts` (`n` elements, `stride` bytes apart) as f64, appended to `out`; the
/// dtype is matched once for all of them (a pattern of one element per partition is 128 rows).
fn decode_f64(d: Dtype, mem: &[u8], starts: &[usize], stride: i64, n: usize, out: &mut Vec<f64>) {
    per_dtype!(d, |d| for &s in starts {
        gather(d, mem, (s, stride, n), out, convert::read)
    })
}

/// The rows at `starts` as fp32 (as [`decode_f64`]).
fn decode_f32(d: Dtype, mem: &[u8], starts: &[usize], stride: i64, n: usize, out: &mut Vec<f32>) {
    per_dtype!(d, |d| for &s in starts {
        gather(d, mem, (s, stride, n), out, |d, c| {
            convert::read(d, c) as f32
        })
    })
}

/// Writes `v`, `n` values per row, to the rows at `starts` (as [`decode_f64`], the other way).
fn encode_f64(d: Dtype, v: &[f64], mem: &mut [u8], starts: &[usize], stride: i64, n: usize) {
    per_dtype!(
        d,
        |d| for (&s, row) in starts.iter().zip(v.chunks_exact(n.max(1))) {
            scatter(d, row, mem, (s, stride), convert::write)
        }
    )
}

/// Writes fp32 `v` to the rows at `starts` (as [`encode_f64`]).
fn encode_f32(d: Dtype, v: &[f32], mem: &mut [u8], starts: &[usize], stride: i64, n: usize) {
    let rows = starts.iter().zip(v.chunks_exact(n.max(1)));
    if matches!(d, Dtype::Float32 | Dtype::Float32R) {
        // An fp32 is its own bytes (a NaN keeps its payload: no trip through f64).
        for (&s, row) in rows {
            scatter(d, row, mem, (s, stride), |_, x, c| {
                c.copy_from_slice(&x.to_le_bytes())
            });
        }
        return;
    }
    per_dtype!(d, |d| for (&s, row) in rows.clone() {
        scatter(d, row, mem, (s, stride), |d, x, c| {
            convert::write(d, f64::from(x), c)
        })
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::memory::{PSUM_PARTITION_BYTES, Space, Touches};
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

    /// The dtypes the row converters are specialized for, and some they are not.
    const DTYPES: [Dtype; 8] = [
        Dtype::Float32,
        Dtype::Bfloat16,
        Dtype::Float16,
        Dtype::Int32,
        Dtype::Uint8,
        Dtype::Int16,
        Dtype::Fp8E4,
        Dtype::Int64,
    ];

    /// The row converters write the bytes [`convert::write`] writes and read the values
    /// [`convert::read`] reads, element by element, for every dtype above, over 200 000 fp32
    /// bit patterns (ties, subnormals, infinities and NaNs among them) from a fixed SplitMix64
    /// stream, unit-stride and strided.
    #[test]
    fn runs_convert_as_the_generic_path_does() {
        let mut rng = neff_rng::SplitMix64::new(32);
        let v: Vec<f32> = (0..200_000)
            .map(|_| f32::from_bits(rng.next_u64() as u32))
            .collect();
        for d in DTYPES {
            let size = convert::size(d).unwrap();
            for stride_elems in [1usize, 3] {
                let stride = (stride_elems * size) as i64;
                let mut fast = vec![0u8; v.len() * size * stride_elems];
                encode_f32(d, &v, &mut fast, &[0], stride, v.len());
                let mut slow = vec![0u8; fast.len()];
                for (i, &x) in v.iter().enumerate() {
                    let o = i * size * stride_elems;
                    convert::write(d, f64::from(x), &mut slow[o..o + size]);
                }
                same_bytes(d, &v, &fast, &slow, stride_elems);
                let w: Vec<f64> = v.iter().map(|&x| f64::from(x) * 1.000_000_1).collect();
                encode_f64(d, &w, &mut fast, &[0], stride, w.len());
                for (i, &x) in w.iter().enumerate() {
                    let o = i * size * stride_elems;
                    convert::write(d, x, &mut slow[o..o + size]);
                }
                same_bytes(d, &v, &fast, &slow, stride_elems);
                let (mut got64, mut got32) = (Vec::new(), Vec::new());
                decode_f64(d, &slow, &[0], stride, v.len(), &mut got64);
                decode_f32(d, &slow, &[0], stride, v.len(), &mut got32);
                for i in 0..v.len() {
                    let o = i * size * stride_elems;
                    let want = convert::read(d, &slow[o..o + size]);
                    let same = |a: u64, b: u64, nan: bool| a == b || nan;
                    let nan = want.is_nan() && got64[i].is_nan();
                    assert!(same(want.to_bits(), got64[i].to_bits(), nan), "{d:?} {i}");
                    let nan = want.is_nan() && got32[i].is_nan();
                    let (a, b) = ((want as f32).to_bits(), got32[i].to_bits());
                    assert!(same(u64::from(a), u64::from(b), nan), "{d:?} {i}");
                }
            }
        }
    }

    /// `fast` and `slow` hold the same elements, but where the value written was a NaN (its
    /// payload through f64 is the compiler's choice: both must be NaNs of `d` then).
    fn same_bytes(d: Dtype, v: &[f32], fast: &[u8], slow: &[u8], stride: usize) {
        let size = convert::size(d).unwrap();
        for (i, x) in v.iter().enumerate() {
            let o = i * size * stride;
            let (a, b) = (&fast[o..o + size], &slow[o..o + size]);
            if x.is_nan() {
                assert!(convert::read(d, a).is_nan() == convert::read(d, b).is_nan());
            } else {
                assert_eq!(a, b, "{d:?} stride {stride}: element {i} ({x:e})");
            }
        }
    }

    /// A DMA's conversion between dtypes writes what the element path writes, every pair of
    /// the dtypes above, over 10 000 random source bytes per pair (blocks of 4096 and a rest).
    #[test]
    fn converted_elements_are_the_element_paths() {
        let mut rng = neff_rng::SplitMix64::new(7);
        for from in DTYPES {
            for to in DTYPES {
                let (ss, ds) = (convert::size(from).unwrap(), convert::size(to).unwrap());
                let src: Vec<u8> = (0..10_000 * ss).map(|_| rng.next_u64() as u8).collect();
                let mut fast = vec![0u8; 10_000 * ds];
                convert_elements(from, to, &src, &mut fast);
                let mut slow = vec![0u8; fast.len()];
                for (c, o) in src.chunks_exact(ss).zip(slow.chunks_exact_mut(ds)) {
                    convert::write(to, convert::read(from, c), o);
                }
                assert!(fast == slow, "{from:?} -> {to:?}");
            }
        }
    }

    /// The general path: every element through [`Access::offsets`] and [`convert`].
    fn general_read(a: &Access, m: &OnChip) -> Result<Vec<f64>, Bounds> {
        let offs = a.offsets()?;
        let size = convert::size(a.dtype).unwrap();
        let mem = m.bytes(a.at.space);
        Ok((0..a.channels)
            .flat_map(|p| offs.iter().map(move |&o| (p, o)))
            .map(|(p, o)| convert::read(a.dtype, &mem[a.base(p) + o..][..size]))
            .collect())
    }

    fn general_write(a: &Access, m: &mut OnChip, v: &[f64]) -> Result<(), Bounds> {
        let offs = a.offsets()?;
        let size = convert::size(a.dtype).unwrap();
        let bases: Vec<usize> = (0..a.channels).map(|p| a.base(p)).collect();
        let mem = m.bytes_mut(a.at.space);
        let mut x = v.iter();
        for b in bases {
            for &o in &offs {
                convert::write(a.dtype, *x.next().unwrap(), &mut mem[b + o..][..size]);
            }
        }
        Ok(())
    }

    /// A random pattern over a few partitions of PSUM (small, so patterns also run off it):
    /// steps -3..=3 elements (0 too: a broadcast), counts 0..=5, start anywhere; one in four
    /// a single element per partition (the column walk of D821).
    fn pattern() -> impl Strategy<Value = (Access, u64)> {
        (
            0usize..8,
            1usize..4,
            prop::array::uniform4(-3i64..=3),
            prop_oneof![
                3 => prop::array::uniform4(0usize..=5),
                1 => Just([1usize; 4]),
            ],
            0..DTYPES.len(),
            0usize..PSUM_PARTITION_BYTES,
            any::<u64>(),
        )
            .prop_map(|(partition, channels, step, num, d, offset, seed)| {
                let a = Access {
                    at: Addr {
                        space: Space::Psum,
                        partition,
                        offset: offset & !7,
                    },
                    channels,
                    step,
                    num,
                    dtype: DTYPES[d],
                };
                (a, seed)
            })
    }

    proptest! {
        /// On random strided, reversed, broadcast and contiguous patterns of every dtype the
        /// row walks read what the per-element path reads, write the bytes it writes (a
        /// broadcast's last write wins on both), fail where it fails, and record the same
        /// touches; read_f32 / write_f32 / raw agree with them.
        #[test]
        fn rows_match_the_element_path((a, seed) in pattern()) {
            let mut rng = neff_rng::SplitMix64::new(seed);
            let mut m = OnChip::default();
            for b in m.psum.iter_mut().take(8 * Space::Psum.stride()) {
                *b = rng.next_u64() as u8;
            }
            let slow = general_read(&a, &m);
            let fast = a.read(&m);
            prop_assert_eq!(slow.is_ok(), fast.is_ok());
            let (Ok(slow), Ok(fast)) = (slow, fast) else { return Ok(()) };
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&slow), bits(&fast));
            let f32s = a.read_f32(&m).unwrap();
            prop_assert_eq!(
                f32s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                slow.iter().map(|&x| (x as f32).to_bits()).collect::<Vec<_>>()
            );
            let v: Vec<f64> = slow.iter().map(|x| x * 1.5 - 0.25).collect();
            let (mut m1, mut m2) = (OnChip::default(), OnChip::default());
            m1.touches = Touches::recording();
            general_write(&a, &mut m1, &v).unwrap();
            a.write(&mut m2, &v).unwrap();
            prop_assert!(m1.psum == m2.psum);
            let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            let v32w: Vec<f64> = v32.iter().map(|&x| f64::from(x)).collect();
            general_write(&a, &mut m1, &v32w).unwrap();
            a.write_f32(&mut m2, &v32).unwrap();
            prop_assert!(m1.psum == m2.psum);
            let raw = a.read_raw(&m).unwrap();
            let size = convert::size(a.dtype).unwrap();
            let offs = a.offsets().unwrap();
            let want_raw: Vec<u8> = (0..a.channels)
                .flat_map(|p| offs.iter().map(move |&o| a.base(p) + o))
                .flat_map(|o| m.psum[o..o + size].to_vec())
                .collect();
            prop_assert!(raw == want_raw);
            a.write_raw(&mut m2, &raw).unwrap();
            for (p, c) in (0..a.channels)
                .flat_map(|p| offs.iter().map(move |&o| a.base(p) + o))
                .zip(raw.chunks_exact(size))
            {
                m1.psum[p..p + size].copy_from_slice(c);
            }
            prop_assert!(m1.psum == m2.psum);
            // MEMSET's fill: every element the same bytes.
            let one: Vec<u8> = (0..size).map(|i| 0xa5 ^ i as u8).collect();
            a.fill_raw(&mut m2, &one).unwrap();
            for p in (0..a.channels).flat_map(|p| offs.iter().map(move |&o| a.base(p) + o)) {
                m1.psum[p..p + size].copy_from_slice(&one);
            }
            prop_assert!(m1.psum == m2.psum);
            // Touches: the row walk's against each element's bytes (in the address space, not
            // the padded storage: D828), coalesced.
            m2.touches = Touches::recording();
            a.read(&m2).unwrap();
            let mut want: Vec<(usize, usize)> = (0..a.channels)
                .flat_map(|p| offs.iter().map(move |&o| (a.addr_base(p) + o, size)))
                .collect();
            coalesce(&mut want);
            let mut got: Vec<(usize, usize)> =
                (m2.touches.take().iter())
                    .flat_map(|t| t.runs().map(|(s, e)| (s, e - s)).collect::<Vec<_>>())
                    .collect();
            coalesce(&mut got);
            prop_assert_eq!(got, want);
        }
    }

    /// A 128 x 4 x 2 tile stored whole (steps 1, 128, 512) is one row of 1024; a transposed
    /// inner pair (steps 4, 1) and a broadcast (step 0) stay as they are; a dimension of one
    /// element is dropped.
    #[test]
    fn merged_folds_dimensions_that_continue_each_other() {
        let a = |step: [i64; 4], num: [usize; 4]| Access {
            at: Addr::of(0),
            channels: 1,
            step,
            num,
            dtype: Dtype::Float32,
        };
        let m = a([1, 128, 512, 7], [128, 4, 2, 1]).merged();
        assert_eq!((m.step[0], m.num), (1, [1024, 1, 1, 1]));
        let m = a([4, 1, 0, 0], [4, 4, 1, 1]).merged();
        assert_eq!((m.step, m.num), ([4, 1, 0, 0], [4, 4, 1, 1]));
        let m = a([1, 0, 0, 0], [8, 3, 1, 1]).merged();
        assert_eq!((m.step, m.num), ([1, 0, 0, 0], [8, 3, 1, 1]));
        let m = a([9, 2, 6, 0], [1, 3, 2, 1]).merged();
        assert_eq!((m.step[0], m.num), (2, [6, 1, 1, 1]));
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
        assert!(a.read(&OnChip::default()).unwrap_err().0.contains("PSUM"));
    }
}
