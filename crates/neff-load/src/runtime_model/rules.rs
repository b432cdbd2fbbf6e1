//! The runtime's region lengths and shapes, per engine, as rules of the NEFF's content
//! (decisions D171-D174; evidence in docs/device-model.md "The runtime model"). Every number
//! here was read from the four shared hardware profiles (runtime 2.30.51, trn2); none is keyed
//! by a file.

use neff_isa::EngineType;

/// The runtime version every rule here (and [`super::queue_block`]'s builder) was read from:
/// the one whose captures may leave a region to them (decision D842).
pub const RULES_RUNTIME: &str = "2.30.51";

/// Opaque slots before the program start that every image has, whatever its content (D171):
/// PE 24, Activation 24, Pool 27, DVE 24, SP 21 (program starts read from the POSTAMBLE's branch
/// back: sg01 of every profile for PE and Activation, both subgraphs for Pool, DVE and SP).
pub const fn init_slots(engine: EngineType) -> usize {
    match engine {
        EngineType::Pe | EngineType::Act | EngineType::Dve => 24,
        EngineType::Pool => 27,
        EngineType::Sp => 21,
    }
}

/// Opaque slots an engine's table load adds before the program start, whatever the number of
/// sets (decisions D171, D467): Activation sg00 with one `activation_function_sets` entry starts
/// 10 slots later than sg01 with none, and attn_v6 sg00 with two starts at the same 67 as one
/// (its capture); DVE, with one `dve_tables` entry in every subgraph, starts 10 slots after the
/// 24 of PE and Activation.
pub const TABLE_SET_SLOTS: usize = 10;

/// The table sets an engine loads: Activation's function sets, DVE's tables, none elsewhere.
/// The regions depend only on whether there is any (D467): [`table_load`].
pub const fn table_sets(engine: EngineType, content: &super::RuntimeContent) -> usize {
    match engine {
        EngineType::Act => content.activation_function_sets,
        EngineType::Dve => content.dve_table_sets,
        _ => 0,
    }
}

/// Whether the engine loads tables (one block of [`TABLE_SET_SLOTS`] for any number of sets).
pub const fn table_load(engine: EngineType, content: &super::RuntimeContent) -> bool {
    table_sets(engine, content) > 0
}

/// PREAMBLE slots a static queue the engine owns adds before the program start (decision D464):
/// a WRITE and 12 DMA-ring set-up slots (0xAB) per queue, 13 (moe_v6b, moe_megakernel sg00: Pool
/// 62 -> 75 with `qPoolIO0`, SP 50 -> 63 with `qSPIO0`, both `in`); a `data` queue 2 WRITEs more,
/// 15 (attn_v6 sg00 DVE 67 -> 82 with `qDVESpillReload0`). Every queue seen has 16 rings.
pub const STATIC_QUEUE_PREAMBLE_SLOTS: usize = 13;
/// The extra PREAMBLE slots of a `data` queue.
pub const DATA_QUEUE_EXTRA_SLOTS: usize = 2;

/// PREAMBLE slots the engine's static queues add.
pub const fn queue_preamble_slots(engine: EngineType, content: &super::RuntimeContent) -> usize {
    let i = engine.index();
    STATIC_QUEUE_PREAMBLE_SLOTS * content.static_queues[i] as usize
        + DATA_QUEUE_EXTRA_SLOTS * content.data_queues[i] as usize
}

/// POSTAMBLE slots the engine's static queues add before NOTIFY DONE (decision D464): one WRITE
/// per queue (Pool 11 -> 12, SP 9 -> 10), and the `data` queue's two WRITEs again (DVE 11 -> 14).
pub const fn queue_postamble_slots(engine: EngineType, content: &super::RuntimeContent) -> usize {
    let i = engine.index();
    content.static_queues[i] as usize + DATA_QUEUE_EXTRA_SLOTS * content.data_queues[i] as usize
}

/// Opaque slots the run-word branch skips (the MODEL_SWITCH region, D173): `label_id` 896 =
/// 14 slots on PE, Activation and DVE, 1024 = 16 on Pool, 832 = 13 on SP, in every subgraph of
/// every profile; the region is the slots strictly between the branch and its target.
pub const fn model_switch_slots(engine: EngineType) -> usize {
    match engine {
        EngineType::Pe | EngineType::Act | EngineType::Dve => 13,
        EngineType::Pool => 15,
        EngineType::Sp => 12,
    }
}

/// Opaque slots PE has in the program-start block before it raises events 1-3 (its TENSOR_LOAD
/// of the run word is traced 10 slots after the program start, the others' 3).
pub const PE_START_OPAQUE: usize = 4;
/// The events PE raises before it loads the run word (`NOP $E[1..3]+@complete`).
pub const PE_START_EVENTS: [u8; 3] = [1, 2, 3];
/// The event PE waits for after NOTIFY START (`NOP $E[4]==1-`).
pub const PE_WAIT_EVENT: u8 = 4;

/// The engines that take turns in the barrier chain after PE opens it, in chain order: every
/// engine but PE in runtime engine order (act turns 1 and 7, pool 2 and 6, dve 3 and 5, sp 4;
/// PE opens with `+=1` and closes at 8).
pub const fn chain_position(engine: EngineType) -> Option<u32> {
    match engine {
        EngineType::Pe => None,
        e => Some(e.index() as u32),
    }
}

/// How many engines take turns (every engine but PE).
pub const CHAIN_LEN: u32 = EngineType::COUNT as u32 - 1;

/// The runtime semaphores below the per-engine ranges the POSTAMBLE clears ($S[0..2]; def.json
/// `runtime_semaphore_count` is 3 in every NEFF seen).
pub const RUNTIME_SEMAPHORES: u32 = 3;
/// Semaphores per engine range (PE 3-53, Activation 54-104, Pool 105-155, DVE 156-206,
/// SP 207-255: ceil(253 / 5) = 51, the last range cut at 255).
pub const CLEAR_RANGE: u32 = 51;
/// The last semaphore id a range may reach.
pub const LAST_SEMAPHORE: u32 = 255;

/// `(first, last)` of the semaphore range an engine's POSTAMBLE clears.
pub fn clear_range(engine: EngineType) -> (u32, u32) {
    let first = RUNTIME_SEMAPHORES + CLEAR_RANGE * engine.index() as u32;
    (first, (first + CLEAR_RANGE - 1).min(LAST_SEMAPHORE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_ranges_are_the_traced_ones() {
        let got: Vec<_> = EngineType::ALL.iter().map(|&e| clear_range(e)).collect();
        assert_eq!(
            got,
            [(3, 53), (54, 104), (105, 155), (156, 206), (207, 255)]
        );
    }
}
