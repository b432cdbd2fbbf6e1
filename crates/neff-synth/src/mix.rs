//! Which instructions fill each engine's stream, and how often: weights shaped after the
//! histograms of real files (reference §4.3), e.g. PE is ~75% MATMUL and ~20% LDWEIGHTS, Pool and
//! SP are half DMA triggers and half EVENT_SEMAPHOREs, DVE is TENSOR_TENSOR and semaphores.

use neff_isa::EngineType as Engine;

use crate::options::SynthTarget;

/// A kind of body instruction (labels, branches, calls and the prologue are placed by the stream
/// layout, not drawn from the mix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// PE 0x01.
    LdWeights,
    /// PE 0x02.
    Matmul,
    /// ACT 0x21.
    Activate,
    /// 0x46.
    Copy,
    /// 0x47.
    Cast,
    /// 0x41.
    TensorTensor,
    /// 0x49.
    Memset,
    /// 0xA0.
    EventSemaphore,
    /// 0xA4.
    Nop,
    /// 0xC1 (trn1) or 0xD4 (trn2) on the engine's own queue.
    Dma,
    /// 0xC8.
    Collective,
}

/// `(kind, weight)` pairs; weights are per 10 000 slots.
pub type Mix = &'static [(Kind, u32)];

/// The mix of `engine` on `target`.
pub fn mix(engine: Engine, target: SynthTarget) -> Mix {
    use Kind::*;
    match (engine, target) {
        // matmul_large / pool_2: LDWEIGHTS 20-50%, MATMUL 50-78%, EVENT_SEMAPHORE ~1%.
        (Engine::Pe, _) => &[
            (LdWeights, 2000),
            (Matmul, 7700),
            (EventSemaphore, 297),
            (Collective, 3),
        ],
        // pool_1 / pool_2 (trn1): ACTIVATE 97%, EVENT_SEMAPHORE 2-3%.
        (Engine::Act, SynthTarget::Sunda) => {
            &[(Activate, 9500), (Copy, 200), (EventSemaphore, 300)]
        }
        // matmul_large (trn2): COPY 21%, CAST 46%, EVENT_SEMAPHORE 15%, DIRECT2D 16%.
        (Engine::Act, SynthTarget::Cayman) => &[
            (Copy, 2100),
            (Cast, 4600),
            (EventSemaphore, 1500),
            (Dma, 1800),
        ],
        // pool_1 / pool_2 / matmul_large: EVENT_SEMAPHORE 40-47%, triggers 50-60%, a few NOPs.
        (Engine::Pool, _) => &[
            (EventSemaphore, 4600),
            (Dma, 5300),
            (Nop, 97),
            (Collective, 3),
        ],
        // matmul_large: TT 46%, EVENT_SEMAPHORE 45%, MEMSET 6%, COPY/CAST 2%.
        (Engine::Dve, _) => &[
            (TensorTensor, 4600),
            (EventSemaphore, 4500),
            (Memset, 600),
            (Copy, 150),
            (Cast, 150),
        ],
        // every real SP.bin: EVENT_SEMAPHORE ~46%, triggers ~53%.
        (Engine::Sp, _) => &[(EventSemaphore, 4650), (Dma, 5350)],
    }
}

/// Sum of the weights of a mix.
pub fn total(mix: Mix) -> u32 {
    mix.iter().map(|(_, w)| w).sum()
}

/// The kind whose cumulative weight range holds `r` (`r < total(mix)`).
pub fn pick(mix: Mix, mut r: u32) -> Kind {
    for &(kind, w) in mix {
        if r < w {
            return kind;
        }
        r -= w;
    }
    mix[mix.len() - 1].0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mix_weighs_ten_thousand() {
        for e in Engine::ALL {
            for t in [SynthTarget::Sunda, SynthTarget::Cayman] {
                assert_eq!(total(mix(e, t)), 10_000, "{e:?} {t:?}");
            }
        }
    }

    #[test]
    fn dma_only_on_engines_that_own_a_queue() {
        for e in Engine::ALL {
            for t in [SynthTarget::Sunda, SynthTarget::Cayman] {
                let has_dma = mix(e, t).iter().any(|(k, _)| *k == Kind::Dma);
                assert_eq!(
                    has_dma,
                    crate::engine::dma_queue(e, t).is_some(),
                    "{e:?} {t:?}"
                );
            }
        }
    }

    #[test]
    fn pick_walks_the_cumulative_ranges() {
        let m = mix(Engine::Sp, SynthTarget::Sunda);
        assert_eq!(pick(m, 0), Kind::EventSemaphore);
        assert_eq!(pick(m, 4649), Kind::EventSemaphore);
        assert_eq!(pick(m, 4650), Kind::Dma);
        assert_eq!(pick(m, 9999), Kind::Dma);
    }
}
