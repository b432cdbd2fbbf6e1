//! Random inputs for a smoke run (`neff run --random-inputs SEED`, [`super::run_random`]): each
//! element uniform in [-1, 1) rounded to the tensor's dtype (integers in [0, 8): small
//! non-negative values, so index inputs such as MoE expert ids stay in range), from a SplitMix64
//! stream. A MoE NEFF's inputs are 200 M bf16 elements, so the element loop is the run's largest
//! cost: it is written once per common dtype (decision D820).

use std::collections::BTreeMap;

use neff_isa::Dtype;
use neff_rng::SplitMix64;

use super::convert;
use super::host::{HostTensor, host_dtype};
use super::signature::{Signature, TensorSpec};

/// Random inputs for a smoke run, every input of `sig` in order from one stream seeded with
/// `seed` (module documentation).
pub fn random_inputs(sig: &Signature, seed: u64) -> BTreeMap<String, HostTensor> {
    let mut rng = SplitMix64::new(seed);
    (sig.inputs.iter())
        .map(|s| (s.name.clone(), random_input(s, &mut rng)))
        .collect()
}

/// One input of [`random_inputs`], its elements the next ones of `rng`.
pub(crate) fn random_input(s: &TensorSpec, rng: &mut SplitMix64) -> HostTensor {
    let host = host_dtype(s.dtype);
    HostTensor {
        dtype: host,
        shape: s.shape.clone(),
        bytes: random_bytes(s, host, rng),
    }
}

/// The device bytes of [`random_input`] (the same values: each is rounded to the tensor's
/// dtype before it is written, so writing it as the device type directly is exact).
pub(crate) fn random_device(s: &TensorSpec, rng: &mut SplitMix64) -> Vec<u8> {
    random_bytes(s, s.dtype, rng)
}

/// The next element's value before rounding: [`signed_unit`] for a float tensor, [`small_int`]
/// for an integer one.
#[inline]
fn raw(float: bool, rng: &mut SplitMix64) -> f64 {
    if float {
        signed_unit(rng)
    } else {
        small_int(rng)
    }
}

/// `u` uniform in [0, 1): the top 53 bits of the stream's next word.
#[inline]
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A float element: `2u - 1`, in [-1, 1).
#[inline]
fn signed_unit(rng: &mut SplitMix64) -> f64 {
    2.0 * unit(rng) - 1.0
}

/// An integer element: `floor(8u)`, in [0, 8). The top three bits of `u`'s 53, exactly
/// (`8u` is exact and below 8), without a call to `floor` per element.
#[inline]
fn small_int(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 61) as f64
}

/// `s`'s random elements written as `as_dtype`.
fn random_bytes(s: &TensorSpec, as_dtype: Dtype, rng: &mut SplitMix64) -> Vec<u8> {
    let size = convert::size(as_dtype).unwrap_or(4);
    let mut bytes = vec![0u8; s.elements() as usize * size];
    let float = convert::is_float(s.dtype);
    if as_dtype != s.dtype {
        // A host float32 copy of a bf16 / fp8 tensor: round to the tensor's type first.
        let d = s.dtype;
        fill(&mut bytes, size, |b| {
            convert::write(as_dtype, convert::round(d, raw(float, rng)), b)
        });
        return bytes;
    }
    // D820: written as the tensor's own dtype, the rounding is the write itself
    // (`write(d, round(d, v))` and `write(d, v)` are the same bytes: `round` is write then
    // read, and a value `d` holds is written exactly), and the dtype is matched once, not per
    // element (the common ones get a loop of their own).
    match (as_dtype, float) {
        (Dtype::Bfloat16, true) => fill(&mut bytes, 2, |b| {
            convert::write(Dtype::Bfloat16, signed_unit(rng), b)
        }),
        (Dtype::Float16, true) => fill(&mut bytes, 2, |b| {
            convert::write(Dtype::Float16, signed_unit(rng), b)
        }),
        (Dtype::Float32, true) => fill(&mut bytes, 4, |b| {
            convert::write(Dtype::Float32, signed_unit(rng), b)
        }),
        (Dtype::Int32, false) => fill(&mut bytes, 4, |b| {
            convert::write(Dtype::Int32, small_int(rng), b)
        }),
        (d, _) => fill(&mut bytes, size, |b| convert::write(d, raw(float, rng), b)),
    }
    bytes
}

/// Calls `put` on each `size`-byte element of `bytes`, in order.
#[inline]
fn fill(bytes: &mut [u8], size: usize, mut put: impl FnMut(&mut [u8])) {
    for b in bytes.chunks_exact_mut(size) {
        put(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run on random inputs binds the very bytes `random_inputs` gives (bf16 and fp16 alike).
    #[test]
    fn random_device_bytes_are_the_random_inputs_bytes() {
        for dtype in [
            Dtype::Bfloat16,
            Dtype::Float16,
            Dtype::Float32,
            Dtype::Int32,
            Dtype::Fp8E4,
        ] {
            let s = TensorSpec {
                name: "x".into(),
                dtype,
                shape: vec![3, 5],
            };
            let host = random_input(&s, &mut SplitMix64::new(9));
            let dev = random_device(&s, &mut SplitMix64::new(9));
            assert_eq!(
                host.clone().into_device(dtype),
                Some(dev.clone()),
                "{dtype:?}"
            );
            assert_eq!(host.to_device(dtype), Some(dev), "{dtype:?}");
        }
    }

    /// D820: the device bytes are those of the earlier form (`write(d, round(d, 2u - 1))`,
    /// `floor(8u)` for integers), for every dtype and 20 000 elements each.
    #[test]
    fn device_bytes_are_the_rounded_values_bytes() {
        for dtype in (0..=u8::MAX)
            .filter_map(Dtype::from_u8)
            .filter(|&d| convert::size(d).is_some())
        {
            let s = TensorSpec {
                name: "x".into(),
                dtype,
                shape: vec![20_000],
            };
            let got = random_device(&s, &mut SplitMix64::new(5));
            let mut rng = SplitMix64::new(5);
            let size = convert::size(dtype).unwrap_or(4);
            let mut want = vec![0u8; got.len()];
            for b in want.chunks_exact_mut(size) {
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                if convert::is_float(dtype) {
                    convert::write(dtype, convert::round(dtype, 2.0 * u - 1.0), b);
                } else {
                    convert::write(dtype, (u * 8.0).floor(), b);
                }
            }
            assert_eq!(got, want, "{dtype:?}");
        }
    }
}
