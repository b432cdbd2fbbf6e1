//! `itf_setup_functions_one_eng` (spec 000 §4): per function, per block, the block's source window
//! is lowered with section MAIN(2) for func_id 0 and FUNCATION(3) otherwise; and the driver's
//! engine-order rule (spec 000 §2: SP is set up last).

use neff_isa::EngineType;

use crate::error::LoadError;
use crate::lower::{LowerContext, LoweredBlock, translate_block_into};
use crate::patch::PatchSection;
use crate::program::{Block, Function};

/// `itf_setup_functions_one_eng` for one block of function `f`: lowers its source window with
/// `translate_pseudo_instrs_partial_v2` ([`translate_block_into`], spec 000 §5) onto the end of
/// `buf`. The runtime lowers every block first and then copies them into the image; here image
/// assembly calls this per block in image order, so the records land in the image directly
/// (decision D76).
/// Labels are consumed here (decision D50); their branches are resolved by image assembly.
pub fn setup_block(
    engine: EngineType,
    stream: &[u8],
    ctx: &LowerContext<'_>,
    f: &Function,
    b: &Block,
    buf: &mut Vec<u8>,
) -> Result<LoweredBlock, LoadError> {
    // :166-168: FUNCATION unless func_id == 0.
    let section = if f.func_id == 0 {
        PatchSection::Main
    } else {
        PatchSection::Funcation
    };
    translate_block_into(ctx, engine, stream, b.begin..b.end, f.begin, section, buf)
        .map_err(|source| LoadError::Lower { engine, source })
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
