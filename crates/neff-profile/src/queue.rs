//! The profiler's engine queue labels (`label` / `subgroup`) and the engines they belong to
//! (profiled/README.md: Tensor and TensorMatrix = PE, Scalar = Activation, Vector = DVE,
//! GpSimd = Pool, Sync = SP).

use neff_isa::EngineType;

/// Every queue label the profiler prints, with its engine.
pub const QUEUES: [(&str, EngineType); 6] = [
    ("Tensor", EngineType::Pe),
    ("TensorMatrix", EngineType::Pe),
    ("Scalar", EngineType::Act),
    ("Vector", EngineType::Dve),
    ("GpSimd", EngineType::Pool),
    ("Sync", EngineType::Sp),
];

/// The engine whose instruction queue the profiler labels `label`, if it is one neffkit knows.
pub fn engine_of(label: &str) -> Option<EngineType> {
    QUEUES.iter().find(|(l, _)| *l == label).map(|&(_, e)| e)
}

/// The queue label the profiler gives an instruction of `engine` named `mnemonic` (profiler
/// vocabulary): PE's matrix queue runs MATMUL (every PE row of the four shared reports labelled
/// `TensorMatrix` is a MATMUL and every MATMUL is so labelled; decision D404), every other
/// engine has one queue.
pub fn label_of(engine: EngineType, mnemonic: &str) -> &'static str {
    match engine {
        EngineType::Pe if mnemonic == "MATMUL" => "TensorMatrix",
        EngineType::Pe => "Tensor",
        EngineType::Act => "Scalar",
        EngineType::Pool => "GpSimd",
        EngineType::Dve => "Vector",
        EngineType::Sp => "Sync",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_pe_queues_are_pe() {
        assert_eq!(engine_of("Tensor"), Some(EngineType::Pe));
        assert_eq!(engine_of("TensorMatrix"), Some(EngineType::Pe));
        assert_eq!(engine_of("Sync"), Some(EngineType::Sp));
        assert_eq!(engine_of("sync"), None);
    }
}
