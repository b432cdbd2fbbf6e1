//! `itf_setup_functions_one_eng` (spec 000 §4): per function, per block, the block's source window
//! is lowered with section MAIN(2) for func_id 0 and FUNCATION(3) otherwise; and the driver's
//! engine-order rule (spec 000 §2: SP is set up last).

use std::ops::Range;

use neff_isa::EngineType;

use crate::error::LoadError;
use crate::image::TranslatedBlock;
use crate::patch::{PatchLocation, PatchSection, PatchType};
use crate::program::{OP_BRANCH_LABEL, Program};

/// The per-block lowering step (`translate_pseudo_instrs_partial_v2`, spec 000 §5): the source
/// bytes of one block's window in, its device records and rows out.
pub trait BlockTranslator {
    /// Lowers `stream[window]`; `fn_start` is the owning function's first source byte.
    fn translate(
        &self,
        engine: EngineType,
        stream: &[u8],
        window: Range<usize>,
        fn_start: usize,
        section: PatchSection,
    ) -> Result<TranslatedBlock, LoadError>;
}

/// A translator that passes every slot through 1->1 except 0xCC labels, which it consumes
/// (zero records, one DELETE row, a label at the label id u32 +12; decision D50's shape). For
/// streams without pseudo-instructions, and for tests of assembly apart from lowering.
#[derive(Debug, Clone, Copy, Default)]
pub struct PassThrough;

impl BlockTranslator for PassThrough {
    fn translate(
        &self,
        _engine: EngineType,
        stream: &[u8],
        window: Range<usize>,
        _fn_start: usize,
        section: PatchSection,
    ) -> Result<TranslatedBlock, LoadError> {
        let mut out = TranslatedBlock::default();
        for slot in stream[window].chunks_exact(64) {
            if slot[0] == OP_BRANCH_LABEL {
                let id = u32::from_le_bytes([slot[12], slot[13], slot[14], slot[15]]);
                out.labels.push((u64::from(id), out.bytes.len()));
                out.patches.push(PatchLocation {
                    offset: out.bytes.len() as u32,
                    count: 1,
                    kind: PatchType::Delete,
                    section,
                });
            } else {
                out.bytes.extend_from_slice(slot);
            }
        }
        Ok(out)
    }
}

/// `itf_setup_functions_one_eng`: lowers every block of every function, in order.
pub fn setup_functions_one_eng(
    program: &Program,
    stream: &[u8],
    translator: &dyn BlockTranslator,
) -> Result<Vec<Vec<TranslatedBlock>>, LoadError> {
    program
        .functions
        .iter()
        .map(|f| {
            // :166-168: FUNCATION unless func_id == 0.
            let section = if f.func_id == 0 {
                PatchSection::Main
            } else {
                PatchSection::Funcation
            };
            f.blocks
                .iter()
                .map(|b| {
                    translator.translate(program.engine, stream, b.begin..b.end, f.begin, section)
                })
                .collect()
        })
        .collect()
}

/// The set-up order (spec 000 §2): the kbin engine slots in their order with SP moved last, then
/// the driver's assertion that the last engine is SP (sequencer_sunda.c:0x239).
pub fn setup_order(kbin_order: &[EngineType]) -> Result<Vec<EngineType>, LoadError> {
    let mut order: Vec<EngineType> = kbin_order
        .iter()
        .copied()
        .filter(|&e| e != EngineType::Sp)
        .collect();
    if kbin_order.contains(&EngineType::Sp) {
        order.push(EngineType::Sp);
    }
    check_last_is_sp(&order)?;
    Ok(order)
}

/// `assert(kbin->engine[count - 1]->eng_type == AL_HAL_TPB_ENG_SP)` (spec 000 §2).
pub fn check_last_is_sp(order: &[EngineType]) -> Result<(), LoadError> {
    match order.last() {
        Some(EngineType::Sp) => Ok(()),
        Some(&found) => Err(LoadError::EngineOrder { found }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sp_is_set_up_last_and_asserted() {
        use EngineType::*;
        let alphabetical = [Act, Dve, Pe, Pool, Sp];
        assert_eq!(setup_order(&alphabetical).unwrap().last(), Some(&Sp));
        assert!(check_last_is_sp(&[Sp, Pe]).is_err());
        let mixed = [Sp, Act, Pe];
        assert_eq!(setup_order(&mixed).unwrap(), [Act, Pe, Sp]);
    }
}
