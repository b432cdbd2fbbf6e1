//! Engine JSON `dma[]` blocks and their `desc[]` descriptors (reference §3.3): the static DMA
//! programs a PSEUDO_DMA_TRIGGER starts by (queue, block id) (spec 003 §4).

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dtype::KbinDtype;
use crate::error::{KelfError, Result};
use crate::json_reader::{Obj, as_str};

/// One DMA descriptor (`desc[]` element). `from`/`to` name vars; steps and sizes are innermost
/// first (reference §3.3).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DmaDesc {
    /// `op`: `copy`, `cast`, `fma`, `add`, `min`, `max`, `transpose`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// `from`: the source var.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `from_off`: byte offset into the source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_off: Option<u64>,
    /// `from_steps` (bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_steps: Option<Vec<i64>>,
    /// `from_sizes` (innermost in bytes, others counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_sizes: Option<Vec<u64>>,
    /// `from_dtype` (a key of the dtype table, spec 004 §4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_dtype: Option<String>,
    /// `to`: the destination var.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// `to_off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_off: Option<u64>,
    /// `to_steps`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_steps: Option<Vec<i64>>,
    /// `to_sizes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_sizes: Option<Vec<u64>>,
    /// `to_dtype`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_dtype: Option<String>,
    /// `num_tiling_dimensions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_tiling_dimensions: Option<u64>,
    /// The keys most descriptors lack (`from_arr` on, and the uninterpreted ones), boxed so
    /// that a plain copy descriptor is a third smaller (decision D761); `None` when the
    /// descriptor has none of them. Serialized in place, in the same key order.
    #[serde(flatten)]
    pub rare: Option<Box<DmaDescRare>>,
}

/// The seldom-present keys of a [`DmaDesc`] (decision D761), in the order they serialize.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DmaDescRare {
    /// CCE `from_arr[]`; kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_arr: Option<Vec<Value>>,
    /// fma `scale` (a number); kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<Value>,
    /// fma `scale_dtype`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_dtype: Option<String>,
    /// min/max `constant`; kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constant: Option<Value>,
    /// min/max `constant_dtype`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constant_dtype: Option<String>,
    /// transpose `transpose_shape[4]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transpose_shape: Option<Vec<u64>>,
    /// transpose `transpose_element_size`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transpose_element_size: Option<u64>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

const DESC_KNOWN: [&str; 19] = [
    "op",
    "from",
    "from_off",
    "from_steps",
    "from_sizes",
    "from_dtype",
    "to",
    "to_off",
    "to_steps",
    "to_sizes",
    "to_dtype",
    "num_tiling_dimensions",
    "from_arr",
    "scale",
    "scale_dtype",
    "constant",
    "constant_dtype",
    "transpose_shape",
    "transpose_element_size",
];

/// Reads an optional `<ap>_dtype` key, checking it against the dtype table (spec 004 §4: the
/// parse consumes `str_to_dtype_map` keyed by `<ap_name>_dtype`).
fn opt_dtype(o: &Obj<'_, '_>, key: &str) -> Result<Option<String>> {
    let Some(name) = o.opt_str(key)? else {
        return Ok(None);
    };
    if KbinDtype::from_name(&name).is_none() {
        return Err(KelfError::UnknownDtype {
            at: o.at.key(key).loc(),
            dtype: name,
        });
    }
    Ok(Some(name))
}

impl DmaDesc {
    /// Reads one descriptor object; every `*_dtype` must be in the dtype table.
    pub(crate) fn read(o: Obj<'_, '_>) -> Result<Self> {
        Ok(Self {
            op: o.opt_str("op")?,
            from: o.opt_str("from")?,
            from_off: o.opt_u64("from_off")?,
            from_steps: o.opt_i64_list("from_steps")?,
            from_sizes: o.opt_u64_list("from_sizes")?,
            from_dtype: opt_dtype(&o, "from_dtype")?,
            to: o.opt_str("to")?,
            to_off: o.opt_u64("to_off")?,
            to_steps: o.opt_i64_list("to_steps")?,
            to_sizes: o.opt_u64_list("to_sizes")?,
            to_dtype: opt_dtype(&o, "to_dtype")?,
            num_tiling_dimensions: o.opt_u64("num_tiling_dimensions")?,
            rare: DmaDescRare {
                from_arr: o.opt_list("from_arr", |v, _| Ok(v.clone()))?,
                scale: o.raw("scale").cloned(),
                scale_dtype: opt_dtype(&o, "scale_dtype")?,
                constant: o.raw("constant").cloned(),
                constant_dtype: opt_dtype(&o, "constant_dtype")?,
                transpose_shape: o.opt_u64_list("transpose_shape")?,
                transpose_element_size: o.opt_u64("transpose_element_size")?,
                extra: o.extra(&DESC_KNOWN),
            }
            .boxed(),
        })
    }

    /// The source dtype as a kbin dtype (checked at parse).
    pub fn from_kbin_dtype(&self) -> Option<KbinDtype> {
        self.from_dtype.as_deref().and_then(KbinDtype::from_name)
    }

    /// Bytes the descriptor writes (decision D271): the product of `to_sizes`, else of
    /// `from_sizes` (reference §3.3: the innermost size is in bytes, the others are counts; a
    /// cast reads and writes different byte counts); `None` when it has neither (a CCE
    /// `from_arr` descriptor) or the product overflows 64 bits.
    pub fn bytes(&self) -> Option<u64> {
        let sizes = self.to_sizes.as_ref().or(self.from_sizes.as_ref())?;
        sizes.iter().try_fold(1u64, |acc, &s| acc.checked_mul(s))
    }

    /// The destination dtype as a kbin dtype (checked at parse).
    pub fn to_kbin_dtype(&self) -> Option<KbinDtype> {
        self.to_dtype.as_deref().and_then(KbinDtype::from_name)
    }

    /// The contiguous pieces the descriptor moves (decision D836): each end cut where its
    /// addresses jump, the descriptor as finely as its finer end (a row-major source written
    /// into partitions has one piece per partition row). `None` when an end has no pattern or
    /// one whose innermost step is not 1 (reference §3.3 gives the innermost size in bytes;
    /// no descriptor seen steps it otherwise) or the count overflows.
    pub fn runs(&self) -> Option<u64> {
        let from = pattern_pieces(self.from_sizes.as_deref()?, self.from_steps.as_deref()?)?;
        let to = pattern_pieces(self.to_sizes.as_deref()?, self.to_steps.as_deref()?)?;
        Some(from.max(to))
    }
}

/// The contiguous pieces of an access pattern (reference §3.3: `sizes[0]` bytes at step 1, the
/// outer dimensions counts stepped in bytes, innermost first): an outer dimension continues the
/// one piece so far when it steps by that piece's length (or counts one), else repeats the pieces
/// (a step of 0, a broadcast, repeats each). `None` when the innermost step is not 1, the lists
/// differ in length or the count overflows. The one reader of a pattern's pieces: a static
/// descriptor's ends here, a DIRECT2D's in the simulator (decisions D810, D836).
pub fn pattern_pieces(sizes: &[u64], steps: &[i64]) -> Option<u64> {
    let (&len, &1) = (sizes.first()?, steps.first()?) else {
        return None;
    };
    if sizes.len() != steps.len() {
        return None;
    }
    let (mut pieces, mut piece) = (1u64, len);
    for (&n, &step) in sizes.iter().zip(steps).skip(1) {
        if pieces == 1 && (n == 1 || u64::try_from(step).ok() == Some(piece)) {
            piece = piece.checked_mul(n)?;
        } else {
            pieces = pieces.checked_mul(n)?;
        }
    }
    Some(pieces)
}

impl DmaDescRare {
    /// `None` when no seldom-present key was read, so that every reader gives the same
    /// [`DmaDesc`] for the same object (decision D761).
    pub fn boxed(self) -> Option<Box<Self>> {
        (self != Self::default()).then(|| Box::new(self))
    }
}

/// One `dma[]` block of an engine JSON: the descriptors a trigger with this `id` on this queue
/// (or queue instance) runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DmaBlock {
    /// `id`: the block id the trigger carries (spec 003 §5 `block_id`).
    pub id: u64,
    /// `queue`: the def.json queue name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// `instance_name`: a ring instance of a queue set (decision D36).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_name: Option<String>,
    /// `semaphore`: incremented by `num_queues` when the transfer completes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semaphore: Option<u32>,
    /// `event`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u32>,
    /// `function_start`; kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_start: Option<Value>,
    /// `section_start_desc`; kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_start_desc: Option<Value>,
    /// `remote_semaphores` (LNC=2); kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_semaphores: Option<Value>,
    /// `#comment`: the BIR instruction id (e.g. `I-4-0-block-1`).
    #[serde(rename = "#comment", skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// `desc[]`, each shared with the kbin descriptors lowered from it (issue 34: no copy per
    /// descriptor).
    #[serde(serialize_with = "shared_descs")]
    pub desc: Vec<Arc<DmaDesc>>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Serializes shared descriptors as the plain list they were read from.
fn shared_descs<S: serde::Serializer>(descs: &[Arc<DmaDesc>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(descs.iter().map(|d| &**d))
}

const BLOCK_KNOWN: [&str; 10] = [
    "id",
    "queue",
    "instance_name",
    "semaphore",
    "event",
    "function_start",
    "section_start_desc",
    "remote_semaphores",
    "#comment",
    "desc",
];

impl DmaBlock {
    /// Reads one block object (`id` and `desc` required).
    pub(crate) fn read(o: Obj<'_, '_>) -> Result<Self> {
        let desc = o
            .opt_list("desc", |v, at| {
                DmaDesc::read(Obj::new(v, at)?).map(Arc::new)
            })?
            .ok_or_else(|| o.missing("desc"))?;
        Ok(Self {
            id: o.req_u64("id")?,
            queue: o.opt_str("queue")?,
            instance_name: o.opt_str("instance_name")?,
            semaphore: o.opt_u32("semaphore")?,
            event: o.opt_u32("event")?,
            function_start: o.raw("function_start").cloned(),
            section_start_desc: o.raw("section_start_desc").cloned(),
            remote_semaphores: o.raw("remote_semaphores").cloned(),
            comment: o
                .raw("#comment")
                .map(|v| as_str(v, o.at.key("#comment")))
                .transpose()?,
            desc,
            extra: o.extra(&BLOCK_KNOWN),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(from: (&[u64], &[i64]), to: (&[u64], &[i64])) -> DmaDesc {
        DmaDesc {
            from_sizes: Some(from.0.to_vec()),
            from_steps: Some(from.1.to_vec()),
            to_sizes: Some(to.0.to_vec()),
            to_steps: Some(to.1.to_vec()),
            ..DmaDesc::default()
        }
    }

    /// reference-real-neff's trn1 vector add: a 512,000-byte row-major HBM source (one piece)
    /// written into 128 partitions 0x40000 apart (one piece per partition row).
    #[test]
    fn a_descriptor_is_cut_as_finely_as_its_finer_end() {
        let d = desc((&[4000, 128], &[1, 4000]), (&[4000, 128], &[1, 262_144]));
        assert_eq!(d.runs(), Some(128));
        let back = desc((&[4000, 128], &[1, 262_144]), (&[4000, 128], &[1, 4000]));
        assert_eq!(back.runs(), Some(128));
        // A count of one never cuts; a third dimension repeats the pieces it finds.
        let d = desc((&[64, 1, 4], &[1, 7, 64]), (&[2, 8, 16], &[1, 4096, 2]));
        assert_eq!(d.runs(), Some(128));
    }

    /// Patterns the reference does not define give no count rather than a guess.
    #[test]
    fn an_end_without_a_byte_step_innermost_has_no_count() {
        let strided = desc((&[4, 8], &[2, 4]), (&[4, 8], &[1, 4]));
        assert_eq!(strided.runs(), None);
        let ragged = desc((&[4, 8], &[1]), (&[32], &[1]));
        assert_eq!(ragged.runs(), None);
        assert_eq!(DmaDesc::default().runs(), None);
    }
}
