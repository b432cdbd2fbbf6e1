//! How far a synthetic NEFF's manifests and side members look like a large real one (issue 34):
//! [`Shape`]. The default is the plain synthetic NEFF of [`crate::SynthOptions`] alone (equal
//! streams, one descriptor per DMA block, four vars, no debug info), so every existing seed keeps
//! its bytes.
//!
//! Real compiler output is shaped otherwise (issue 34's trn1 conv2d: 176 k slots of which PE
//! 161 k, Pool.json and SP.json ~0.7 MB each of DMA blocks and descriptors, the debug-info
//! members of reference §2.1): [`Shape::conv2d_like`] is that shape.

use crate::error::SynthError;
use crate::options::SynthOptions;

/// The real-shaped parts of a synthetic NEFF.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shape {
    /// Slots of each engine stream in eng_type order (PE, ACT, POOL, DVE, SP), in place of
    /// `slots_per_engine` for all five (real streams differ by 40x: the conv2d's PE 161 k).
    pub engine_slots: Option<[u64; 5]>,
    /// Descriptors in each trn1 DMA block (default 1; a real block moves a tensor as one
    /// descriptor per partition row or tile; 0 is taken as 1).
    pub descs_per_block: u32,
    /// `tmp-buf` vars added to def.json beside SB / in0 / in1 / out (real def.json: dozens to
    /// thousands of vars), each named by some descriptors (decision D520).
    pub extra_vars: u32,
    /// Write the debug-info members of reference §2.1 (`sgNN/debug_info_asm_<Engine>.dbg`, one
    /// record per slot; `sgNN/debug_info_backend_<Engine>.dbg`) and their def.json keys.
    pub debug_info: bool,
}

/// Most descriptors per block and extra vars accepted (keeps a manifest under ~1 GB).
pub const MAX_DESCS_PER_BLOCK: u32 = 100_000;
/// See [`MAX_DESCS_PER_BLOCK`].
pub const MAX_EXTRA_VARS: u32 = 1_000_000;

impl Shape {
    /// Issue 34's trn1 conv2d (1.9 MB file, 17.7 MB inflated, 176 k slots of which PE 161 k;
    /// Pool.json and SP.json ~0.7 MB each): streams PE 161 000, ACT 6 000, POOL 4 000, DVE
    /// 2 000, SP 3 000; 40 descriptors in each of the 64 blocks of Pool and SP; 200 extra vars;
    /// debug info.
    pub fn conv2d_like() -> Self {
        Self {
            engine_slots: Some([161_000, 6_000, 4_000, 2_000, 3_000]),
            descs_per_block: 40,
            extra_vars: 200,
            debug_info: true,
        }
    }

    /// The slots of each stream (eng_type order) of `options` with this shape.
    pub fn slots(&self, options: &SynthOptions) -> [u64; 5] {
        self.engine_slots.unwrap_or([options.slots_per_engine; 5])
    }

    /// Descriptors per DMA block (at least 1).
    pub fn descs(&self) -> u32 {
        self.descs_per_block.max(1)
    }

    /// Refuses a shape that cannot make a valid NEFF with `options`, naming the field.
    pub fn check(&self, options: &SynthOptions) -> Result<(), SynthError> {
        let bad = |field, reason: String| Err(SynthError::InvalidOption { field, reason });
        if self.descs_per_block > MAX_DESCS_PER_BLOCK {
            return bad(
                "descs_per_block",
                format!(
                    "{} is more than {MAX_DESCS_PER_BLOCK}",
                    self.descs_per_block
                ),
            );
        }
        if self.extra_vars > MAX_EXTRA_VARS {
            return bad(
                "extra_vars",
                format!("{} is more than {MAX_EXTRA_VARS}", self.extra_vars),
            );
        }
        for slots in self.slots(options) {
            let one = SynthOptions {
                slots_per_engine: slots,
                ..options.clone()
            };
            one.check().map_err(|e| match e {
                SynthError::InvalidOption { reason, .. } => SynthError::InvalidOption {
                    field: "engine_slots",
                    reason,
                },
                other => other,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shape_is_the_plain_options() {
        let o = SynthOptions {
            slots_per_engine: 77,
            ..SynthOptions::default()
        };
        assert_eq!(Shape::default().slots(&o), [77; 5]);
        assert_eq!(Shape::default().descs(), 1);
        assert!(Shape::conv2d_like().check(&o).is_ok());
        let bad = Shape {
            engine_slots: Some([10, 0, 10, 10, 10]),
            ..Shape::default()
        };
        assert!(matches!(
            bad.check(&o),
            Err(SynthError::InvalidOption {
                field: "engine_slots",
                ..
            })
        ));
    }
}
