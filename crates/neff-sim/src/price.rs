//! The costs of an engine's ops, each distinct one priced once: the cost model reads only an
//! instruction's class and units of work ([`CostModel::op_cost`]), and an image repeats a few of
//! them over millions of slots. An op holds the index of its [`Price`], so it stays small (the
//! run loop streams the ops; docs/performance.md `sim_rate`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use neff_isa::EngineType;

use crate::cost::{CostClass, CostModel, Features, OpCost};

/// What an op costs at full rate and while its engine is throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Price {
    /// Its cost at full rate.
    pub cost: OpCost,
    /// Its cost while the engine is throttled (equal to `cost` off the PE).
    pub throttled: OpCost,
    /// The units of work the cost model priced ([`Features::work`]).
    pub work: u64,
    /// The cost class (for the reports and the comparison with a profile): part of the key a
    /// price is interned by, so every op of one price has it.
    pub class: CostClass,
}

/// Prices the ops of one engine, each distinct (class, work) once.
pub(crate) struct Pricer<'a> {
    model: &'a CostModel,
    engine: EngineType,
    index: HashMap<Key, u32, BuildHasherDefault<KeyHasher>>,
    prices: Vec<Price>,
    /// The previous key and its index: neighbouring slots often cost the same (D368).
    last: Option<(Key, u32)>,
    /// The elements per partition of the last LDWEIGHTS priced: the weights a MATMUL after it
    /// streams against (D812; 0 before any).
    stationary: u64,
    /// The most stationary columns that hold the array longer (the table's
    /// `matmul_floor_columns`, whole): a MATMUL's price depends on its stationary up to it.
    floor_columns: u64,
}

/// What a price is interned by: class, work, and (MATMUL) the stationary columns that set its
/// floor (D812).
type Key = (CostClass, u64, u64);

impl<'a> Pricer<'a> {
    pub(crate) fn new(model: &'a CostModel, engine: EngineType) -> Self {
        Self {
            model,
            engine,
            index: HashMap::default(),
            prices: Vec::new(),
            last: None,
            stationary: 0,
            floor_columns: model.table.matmul_floor_columns.ceil().max(0.0) as u64,
        }
    }

    /// The index of the price of an op with features `f`.
    /// A MATMUL is priced with the weights of the last LDWEIGHTS before it (the slots come in
    /// program order).
    pub(crate) fn price(&mut self, f: &Features) -> u32 {
        let (model, engine, prices) = (self.model, self.engine, &mut self.prices);
        let stationary = match f.class {
            c if c.loads_weights() => {
                self.stationary = f.elements;
                0
            }
            CostClass::Matmul => self.stationary.min(self.floor_columns),
            _ => 0,
        };
        let key = (f.class, f.work(), stationary);
        if let Some((k, i)) = self.last
            && k == key
        {
            return i;
        }
        let work = key.1;
        let i = *self.index.entry(key).or_insert_with(|| {
            let f = Features { stationary, ..*f };
            let (cost, throttled) = model.op_cost(engine, &f);
            prices.push(Price {
                cost,
                throttled,
                work,
                class: f.class,
            });
            (prices.len() - 1) as u32
        });
        self.last = Some((key, i));
        i
    }

    /// Every price, by index.
    pub(crate) fn finish(self) -> Vec<Price> {
        self.prices
    }
}

/// The hash of a price key, a multiply and a rotate per word (the FxHash step): the key is two
/// small trusted numbers, and the default SipHash was a third of the decoder's time spent pricing
/// (D364). Not for untrusted keys chosen to collide; a collision costs only a longer probe.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D812: a MATMUL is priced with the weights of the LDWEIGHTS before it.
    #[test]
    fn a_matmul_takes_the_stationary_columns_of_the_ldweights_before_it() {
        let model = CostModel::default();
        let mut p = Pricer::new(&model, EngineType::Pe);
        let lw = |rows| Features {
            elements: rows,
            ..Features::of_class(CostClass::LoadWeights)
        };
        let mm = Features {
            elements: 1,
            ..Features::of_class(CostClass::Matmul)
        };
        let alone = p.price(&mm);
        p.price(&lw(128));
        let behind_128 = p.price(&mm);
        p.price(&lw(1));
        let behind_1 = p.price(&mm);
        let prices = p.finish();
        let occ = |i: u32| prices[i as usize].cost.occupancy;
        assert!(occ(behind_128) > occ(alone));
        // One stationary column sets no floor above the one moving column.
        assert_eq!(occ(behind_1), occ(alone));
    }
}
