//! Decision D816: a runtime-model image placed on another physical core differs from the default
//! (sg00 on core 4, sg01 on core 5) in exactly the words that address the cores' windows, and
//! moving those back gives the default image byte for byte.
//!
//! Reads a shared NEFF in place (skipped when absent unless NEFFKIT_REQUIRE_FIXTURES=1).

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::DeviceModel;
use neff_load::model::{LoadOptions, load};
use neff_load::physical_core::PhysicalCore;

fn load_on(neff: &[u8], cores: Vec<PhysicalCore>) -> neff_load::LoadedModel {
    let parsed = Neff::parse(neff).unwrap();
    let kelf = Kelf::from_neff(&parsed).unwrap();
    let options = LoadOptions {
        device: DeviceModel {
            cores,
            ..DeviceModel::runtime()
        },
        ..LoadOptions::default()
    };
    load(&kelf, &options).unwrap()
}

#[test]
fn an_image_moved_to_other_cores_differs_only_in_their_windows() {
    let path = format!(
        "{}/profiled/baseline_attention.neff",
        neff_fixtures::REAL_DIR
    );
    let Some(neff) = neff_fixtures::read(&path) else {
        return;
    };
    let core = |n| PhysicalCore::new(n).unwrap();
    let default = load_on(&neff, Vec::new());
    let placed = load_on(&neff, vec![core(0)]);
    for (si, (d, p)) in default.subgraphs.iter().zip(&placed.subgraphs).enumerate() {
        let (frame, target) = (PhysicalCore::FRAME.plus(si).unwrap(), core(si as u64));
        assert_eq!(default.device.core_of(si), Some(frame));
        assert_eq!(placed.device.core_of(si), Some(target));
        for (de, pe) in d.engines.iter().zip(&p.engines) {
            let mut back = pe.image.bytes.clone();
            let moved = target.move_words(frame, &mut back);
            // Every engine's PREAMBLE names its core (control registers, DMA engines).
            assert!(moved > 0, "{} {}", d.name, de.engine);
            assert_eq!(back, de.image.bytes, "{} {}", d.name, de.engine);
            assert_ne!(pe.image.bytes, de.image.bytes, "{} {}", d.name, de.engine);
        }
    }
    // The spec model's images name no core.
    assert_eq!(DeviceModel::spec().core_of(0), None);
}
