//! `itf_setup_functions_one_eng` (spec 000 §4): per function, per block, the block's source window
//! is lowered with section MAIN(2) for func_id 0 and FUNCATION(3) otherwise; and the driver's
//! engine-order assertion (spec 000 §2: the last engine set up is SP).

use neff_isa::EngineType;

use crate::error::LoadError;
use crate::lower::{ImageBuf, LowerContext, LoweredBlock, translate_block_into};
use crate::patch::PatchSection;
use crate::program::{Block, Function};

/// `itf_setup_functions_one_eng` for one block of function `f`: lowers its source window with
/// `translate_pseudo_instrs_partial_v2` ([`translate_block_into`], spec 000 §5) onto the end of
/// `buf`. The runtime lowers every block first and then copies them into the image; here image
/// assembly calls this per block in image order, so the records land in the image directly
/// (decision D76).
/// Labels are consumed here (decision D50); their branches are resolved by image assembly.
pub(crate) fn setup_block<'s>(
    engine: EngineType,
    stream: &'s [u8],
    ctx: &LowerContext<'_>,
    f: &Function,
    b: &Block,
    buf: &mut ImageBuf<'s>,
) -> Result<LoweredBlock, LoadError> {
    // :166-168: FUNCATION unless func_id == 0.
    let section = if f.func_id == 0 {
        PatchSection::Main
    } else {
        PatchSection::Function
    };
    translate_block_into(ctx, engine, stream, b.begin..b.end, f.begin, section, buf)
        .map_err(|source| LoadError::Lower { engine, source })
}

/// The kbin's engine slots (spec 004 §2 step 1: gen_kbin fills them in `instr_sets` map order,
/// alphabetical by engine name): `present` in its order, and an empty placeholder for each engine
/// it lacks (spec 003 §10.5: "empty-placeholder instr_set") at its name's place in the map, i.e.
/// before the first present engine whose name sorts after it (decision D287).
pub(crate) fn kbin_engine_order(present: &[EngineType]) -> Vec<EngineType> {
    let mut order = present.to_vec();
    let mut missing: Vec<EngineType> = EngineType::ALL
        .into_iter()
        .filter(|e| !present.contains(e))
        .collect();
    missing.sort_by_key(|e| e.key());
    for e in missing {
        let at = order
            .iter()
            .position(|p| present.contains(p) && p.key() > e.key())
            .unwrap_or(order.len());
        order.insert(at, e);
    }
    order
}

/// The set-up order (spec 000 §2): the kbin's engine slots in their order, checked by the
/// driver's assertion that the last one is SP (sequencer_sunda.c:0x239). Nothing is reordered:
/// gen_kbin's alphabetical fill puts `sp` last, and a kbin that does not is refused
/// (decision D287).
pub(crate) fn setup_order(kbin_order: &[EngineType]) -> Result<Vec<EngineType>, LoadError> {
    check_last_is_sp(kbin_order)?;
    Ok(kbin_order.to_vec())
}

/// `assert(kbin->engine[count - 1]->eng_type == AL_HAL_TPB_ENG_SP)` (spec 000 §2).
pub(crate) fn check_last_is_sp(order: &[EngineType]) -> Result<(), LoadError> {
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
    fn sp_last_is_checked_not_arranged() {
        use EngineType::*;
        let alphabetical = [Act, Dve, Pe, Pool, Sp];
        assert_eq!(setup_order(&alphabetical).unwrap(), alphabetical);
        for bad in [&[Sp, Act, Pe][..], &[Sp, Pe], &[Act, Dve, Pe, Sp, Pool]] {
            assert!(
                matches!(setup_order(bad), Err(LoadError::EngineOrder { found }) if Some(&found) == bad.last()),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn missing_engines_take_their_names_place() {
        use EngineType::*;
        assert_eq!(kbin_engine_order(&[Pool, Sp]), [Act, Dve, Pe, Pool, Sp]);
        assert_eq!(kbin_engine_order(&[Pe]), [Act, Dve, Pe, Pool, Sp]);
        assert_eq!(kbin_engine_order(&[]), [Act, Dve, Pe, Pool, Sp]);
        // A present order that is not alphabetical is kept; SP there is not moved.
        assert_eq!(kbin_engine_order(&[Sp, Pe]), [Act, Dve, Pool, Sp, Pe]);
        assert!(setup_order(&kbin_engine_order(&[Sp, Pe])).is_err());
    }
}
