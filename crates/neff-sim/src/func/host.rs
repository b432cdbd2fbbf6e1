//! Tensors on the host side of a run, and their `.npy` form (NumPy's format through the `npyz`
//! crate: the header is parsed there, the data stays the file's own little-endian bytes).
//! A NEFF tensor in bf16 or an fp8 type is exchanged as float32 (numpy has no such dtype):
//! rounded to the tensor's type on input, widened exactly on output (decision D484).

use neff_isa::Dtype;
use npyz::{DType, TypeStr, WriterBuilder};

use super::convert;

/// A host tensor: element type, shape, and the elements little-endian in C order.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTensor {
    /// The element type (one numpy has: float16/32, integers).
    pub dtype: Dtype,
    /// The shape.
    pub shape: Vec<u64>,
    /// `shape.product() * size(dtype)` bytes.
    pub bytes: Vec<u8>,
}

/// A `.npy` the run cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NpyError(pub String);

/// The numpy type string of `d` (`<f4`), for the types numpy has.
pub(crate) fn numpy_descr(d: Dtype) -> Option<&'static str> {
    Some(match d {
        Dtype::Float32 => "<f4",
        Dtype::Float16 => "<f2",
        Dtype::Int8 => "|i1",
        Dtype::Uint8 => "|u1",
        Dtype::Int16 => "<i2",
        Dtype::Uint16 => "<u2",
        Dtype::Int32 => "<i4",
        Dtype::Uint32 => "<u4",
        Dtype::Int64 => "<i8",
        Dtype::Uint64 => "<u8",
        _ => return None,
    })
}

/// The host dtype a NEFF tensor of `d` is exchanged as (bf16, fp32r and fp8 as float32).
pub fn host_dtype(d: Dtype) -> Dtype {
    match d {
        Dtype::Bfloat16 | Dtype::Float32R | Dtype::Fp8E3 | Dtype::Fp8E4 | Dtype::Fp8E5 => {
            Dtype::Float32
        }
        d => d,
    }
}

fn dtype_of_descr(t: &TypeStr) -> Option<Dtype> {
    let s = t.to_string();
    let s = s.strip_prefix(['<', '|']).unwrap_or(&s);
    Some(match s {
        "f4" => Dtype::Float32,
        "f2" => Dtype::Float16,
        "i1" => Dtype::Int8,
        "u1" => Dtype::Uint8,
        "i2" => Dtype::Int16,
        "u2" => Dtype::Uint16,
        "i4" => Dtype::Int32,
        "u4" => Dtype::Uint32,
        "i8" => Dtype::Int64,
        "u8" => Dtype::Uint64,
        _ => return None,
    })
}

/// The type string, shape and data bytes of a `.npy` of any fixed-size plain dtype (the NEFF's
/// own constants store bf16 as `<V2`), C order; the data must be exactly what the header says.
pub(crate) fn npy_payload(file: &[u8]) -> Result<(TypeStr, Vec<u64>, &[u8]), NpyError> {
    let mut data: &[u8] = file;
    let h = npyz::NpyHeader::from_reader(&mut data)
        .map_err(|e| NpyError(format!("not a .npy: {e}")))?;
    let DType::Plain(t) = h.dtype() else {
        return Err(NpyError(format!(
            "dtype {} is not a plain type",
            h.dtype().descr()
        )));
    };
    if h.order() == npyz::Order::Fortran && h.shape().len() > 1 {
        return Err(NpyError("fortran_order arrays are not supported".into()));
    }
    let size = t
        .num_bytes()
        .ok_or_else(|| NpyError(format!("dtype {t} has no fixed size")))?;
    let shape = h.shape().to_vec();
    let want = shape.iter().try_fold(size as u64, |a, &d| a.checked_mul(d));
    if want != Some(data.len() as u64) {
        return Err(NpyError(format!(
            "the header declares {} data bytes ({t} {shape:?}) but {} follow it",
            want.map_or("too many".into(), |w| w.to_string()),
            data.len()
        )));
    }
    Ok((t, shape, data))
}

impl HostTensor {
    /// Parses a `.npy` (C order, little-endian, a numeric type neff-isa has). The data must be
    /// exactly what the header declares: no allocation follows an unchecked size.
    pub fn from_npy(file: &[u8]) -> Result<Self, NpyError> {
        let (t, shape, data) = npy_payload(file)?;
        let dtype = dtype_of_descr(&t).ok_or_else(|| {
            NpyError(format!(
                "dtype {t} is not one the run exchanges (little-endian float16/32 or integers)"
            ))
        })?;
        Ok(Self {
            dtype,
            shape,
            bytes: data.to_vec(),
        })
    }

    /// The `.npy` bytes (format 1.0, C order).
    pub fn to_npy(&self) -> Vec<u8> {
        let descr = numpy_descr(self.dtype).unwrap_or("<f4");
        let t: TypeStr = descr.parse().expect("a valid numpy type string");
        let mut out = Vec::with_capacity(128 + self.bytes.len());
        npyz::WriteOptions::new_header_only()
            .dtype(DType::Plain(t))
            .shape(&self.shape)
            .writer(&mut out)
            .write_header_only()
            .expect("writing to a Vec");
        out.extend_from_slice(&self.bytes);
        out
    }

    /// Elements.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// The host form of `bytes`, elements of the NEFF type `d` (bf16 / fp8 widened to float32).
    pub fn from_device(d: Dtype, shape: Vec<u64>, bytes: &[u8]) -> Self {
        let host = host_dtype(d);
        if host == d {
            return Self {
                dtype: d,
                shape,
                bytes: bytes.to_vec(),
            };
        }
        let size = convert::size(d).unwrap_or(1);
        let mut out = Vec::with_capacity(bytes.len() / size * 4);
        for c in bytes.chunks_exact(size) {
            out.extend_from_slice(&(convert::read(d, c) as f32).to_le_bytes());
        }
        Self {
            dtype: host,
            shape,
            bytes: out,
        }
    }

    /// The device bytes of this tensor as the NEFF type `d`: the host's own bytes when the
    /// types agree, else float32 rounded to `d`. `None` when the host type is not the one `d`
    /// is exchanged as.
    pub fn to_device(&self, d: Dtype) -> Option<Vec<u8>> {
        if self.dtype != host_dtype(d) {
            return None;
        }
        if self.dtype == d {
            return Some(self.bytes.clone());
        }
        let size = convert::size(d)?;
        let mut out = vec![0u8; self.bytes.len() / 4 * size];
        for (c, o) in self.bytes.chunks_exact(4).zip(out.chunks_exact_mut(size)) {
            narrow(d, c, o);
        }
        Some(out)
    }

    /// [`Self::to_device`] without a second buffer: a float32 host tensor is narrowed in its own
    /// bytes (each element's 4 host bytes become its device bytes at the front, then the buffer
    /// is shrunk), so a large bf16 input never exists as float32 and bf16 at once.
    pub fn into_device(self, d: Dtype) -> Option<Vec<u8>> {
        if self.dtype != host_dtype(d) {
            return None;
        }
        let mut bytes = self.bytes;
        if self.dtype == d {
            return Some(bytes);
        }
        let size = convert::size(d)?;
        let n = bytes.len() / 4;
        for i in 0..n {
            let c = &bytes[4 * i..4 * i + 4];
            let h = [c[0], c[1], c[2], c[3]];
            // Element i's device bytes end at or before its host bytes begin (size <= 4), so
            // writing them never overwrites a host element not yet read.
            narrow(d, &h, &mut bytes[size * i..size * (i + 1)]);
        }
        bytes.truncate(n * size);
        bytes.shrink_to_fit();
        Some(bytes)
    }
}

/// One float32 host element `h` as the device type `d` into `o` (`size(d)` bytes): bf16 (the
/// common large case: weights) directly from the f32, the same round to nearest even as
/// [`convert::write`] (an f32 widens to f64 exactly) without its dispatch.
fn narrow(d: Dtype, h: &[u8], o: &mut [u8]) {
    let v = f32::from_le_bytes([h[0], h[1], h[2], h[3]]);
    if d == Dtype::Bfloat16 {
        o.copy_from_slice(&half::bf16::from_f32(v).to_le_bytes());
    } else {
        convert::write(d, f64::from(v), o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip_is_exact() {
        let t = HostTensor {
            dtype: Dtype::Float16,
            shape: vec![2, 3],
            bytes: (0u8..12).collect(),
        };
        let b = t.to_npy();
        assert_eq!(&b[..6], b"\x93NUMPY");
        assert_eq!(HostTensor::from_npy(&b).unwrap(), t);
    }

    #[test]
    fn short_data_is_refused() {
        let t = HostTensor {
            dtype: Dtype::Float32,
            shape: vec![4],
            bytes: vec![0; 16],
        };
        let b = t.to_npy();
        let e = HostTensor::from_npy(&b[..b.len() - 1]).unwrap_err();
        assert!(e.0.contains("16 data bytes"), "{e}");
    }

    #[test]
    fn bf16_goes_through_float32_rounded() {
        // 1 + 2^-8 is a tie between bf16 1.0 and 1 + 2^-7: to even, 1.0.
        let v = 1.0f32 + 2f32.powi(-8);
        let t = HostTensor {
            dtype: Dtype::Float32,
            shape: vec![1],
            bytes: v.to_le_bytes().to_vec(),
        };
        let dev = t.to_device(Dtype::Bfloat16).unwrap();
        assert_eq!(dev, half::bf16::from_f32(1.0).to_le_bytes());
        let back = HostTensor::from_device(Dtype::Bfloat16, vec![1], &dev);
        assert_eq!(back.bytes, 1.0f32.to_le_bytes());
        assert_eq!(t.to_device(Dtype::Float16), None);
    }

    /// The bf16 fast path of `to_device` rounds as `convert::write` does, ties and overflow too.
    #[test]
    fn bf16_fast_path_matches_the_general_conversion() {
        let vals = [
            1.0f32 + 2f32.powi(-8),
            1.0 + 3.0 * 2f32.powi(-8),
            -0.0,
            f32::INFINITY,
            f32::MAX,
            1e-40,
            -2.5e-3,
        ];
        let t = HostTensor {
            dtype: Dtype::Float32,
            shape: vec![vals.len() as u64],
            bytes: vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let fast = t.to_device(Dtype::Bfloat16).unwrap();
        for (v, got) in vals.iter().zip(fast.chunks_exact(2)) {
            let mut want = [0u8; 2];
            convert::write(Dtype::Bfloat16, f64::from(*v), &mut want);
            assert_eq!(got, want, "{v:e}");
        }
    }
}
