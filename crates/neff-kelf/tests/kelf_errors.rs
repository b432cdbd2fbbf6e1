//! Bad inputs: each a clear error naming the member and JSON pointer.

mod common;

use neff_kelf::{Kelf, KelfError, gen_kbin};
use proptest::prelude::*;

/// Parses and lowers the sample after `f` edits it, returning the error text. Where the kelf
/// parses, `check_kbins` (no descriptors kept, issue 34) must find what `kbins_all` finds.
fn error_of(f: impl FnOnce(&mut std::collections::BTreeMap<String, Vec<u8>>)) -> String {
    let mut m = common::sample();
    f(&mut m);
    let r = Kelf::from_members(&m).and_then(|k| {
        let check = k.check_kbins();
        assert_eq!(check.problems, k.kbins_all().1);
        let lowers: Vec<bool> = k
            .graphs()
            .iter()
            .map(|g| gen_kbin(&k, &g.name).is_ok())
            .collect();
        assert_eq!(check.lowers, lowers);
        k.kbins().map(|_| ())
    });
    r.unwrap_err().to_string()
}

#[test]
fn missing_def_json() {
    let e = error_of(|m| {
        m.remove("sg00/def.json");
    });
    assert_eq!(
        e,
        "member `sg00/def.json` not found in the NEFF (named at kelf-a.json#/graphs/0/definition)"
    );
}

#[test]
fn malformed_json() {
    let e = error_of(|m| common::edit(m, "sg00/def.json", |t| t.replacen('{', "{,", 1)));
    assert!(
        e.starts_with("sg00/def.json: malformed JSON at line 1, column 2"),
        "{e}"
    );
}

#[test]
fn engine_json_naming_a_missing_bin() {
    let e = error_of(|m| {
        m.remove("sg00/pool.bin");
    });
    assert_eq!(
        e,
        "member `sg00/pool.bin` not found in the NEFF (named at sg00/pool.json#/instr)"
    );
}

#[test]
fn missing_engine_json() {
    let e = error_of(|m| {
        m.remove("sg00/dve.json");
    });
    assert_eq!(
        e,
        "member `sg00/dve.json` not found in the NEFF (named at sg00/def.json#/dve)"
    );
}

#[test]
fn unknown_engine_instr_key_and_owner() {
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(r#""sp":"sp.json""#, r#""gpsimd_instr":"gpsimd.bin""#)
        })
    });
    assert!(
        e.starts_with("sg00/def.json#/gpsimd_instr: unknown engine `gpsimd`"),
        "{e}"
    );
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replacen(r#""owner":"pool""#, r#""owner":"tensor""#, 1)
        })
    });
    assert!(
        e.starts_with("sg00/def.json#/dma_queue/q_gradient_in/owner: unknown engine `tensor`"),
        "{e}"
    );
}

/// Gives `output` the var_id of `input` (0).
fn collide_var_ids(m: &mut std::collections::BTreeMap<String, Vec<u8>>) {
    common::edit(m, "sg00/def.json", |t| {
        t.replace(
            r#""type":"output","var_id":2"#,
            r#""type":"output","var_id":0"#,
        )
    })
}

#[test]
fn duplicate_var_id_names_both_vars() {
    let e = error_of(collide_var_ids);
    assert_eq!(
        e,
        "sg00/def.json: duplicate var_id 0: vars `input` and `output`"
    );
}

#[test]
fn dma_errors_come_before_mem_ref_errors() {
    // spec 004 §2: gen_kbin fills engine -> dma -> mem_ref, so with both a DMA block on an
    // undeclared queue and a duplicate var_id the first error is the DMA one (decision D287).
    let e = error_of(|m| {
        collide_var_ids(m);
        common::edit(m, "sg00/pool.json", |t| {
            t.replacen("q_gradient_in", "q_nope", 1)
        });
    });
    assert!(e.starts_with("sg00/pool.json#/dma/0/queue"), "{e}");
}

#[test]
fn missing_var_id_names_the_gap() {
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(r#""var_id":4"#, r#""var_id":9"#)
        })
    });
    assert_eq!(
        e,
        "sg00/def.json: var_id 4 is missing: 5 vars need ids 0..5, but var `gradient_out` has var_id 9"
    );
}

#[test]
fn unknown_var_type() {
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(r#""type":"state-buffer""#, r#""type":"sbuf""#)
        })
    });
    assert_eq!(e, "sg00/def.json#/var/SB/type: unknown var type `sbuf`");
}

#[test]
fn more_than_32_semaphores_in_a_queue_set() {
    let set: Vec<String> = (0..33).map(|i| i.to_string()).collect();
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(
                r#""semaphore":10"#,
                &format!(r#""semaphore_set":[{}]"#, set.join(",")),
            )
        })
    });
    assert_eq!(
        e,
        "sg00/def.json#/dma_queue/q_gradient_in/semaphore_set: Runtime supports maximum of 32 \
         semaphores per queue set, found: 33 (queue `q_gradient_in`)"
    );
}

#[test]
fn invalid_target() {
    let e = error_of(|m| common::edit(m, "kelf-a.json", |t| t.replace(r#""sunda""#, "0")));
    assert!(
        e.starts_with("kelf-a.json#/target: Invalid target = 0"),
        "{e}"
    );
    let e = error_of(|m| common::edit(m, "kelf-a.json", |t| t.replace("sunda", "tonga")));
    assert!(
        e.starts_with("kelf-a.json#/target: Invalid target = \"tonga\""),
        "{e}"
    );
}

#[test]
fn wrong_json_types_name_the_pointer() {
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(r#""size":128}"#, r#""size":"128"}"#)
        })
    });
    assert!(e.contains("sg00/def.json#/var/"), "{e}");
    assert!(
        e.ends_with("/size: expected an unsigned integer, found string \"128\""),
        "{e}"
    );
}

#[test]
fn dma_block_on_an_undeclared_queue_or_var() {
    let e = error_of(|m| {
        common::edit(m, "sg00/pool.json", |t| {
            t.replacen("q_gradient_in", "q_nope", 1)
        })
    });
    assert_eq!(
        e,
        "sg00/pool.json#/dma/0/queue: DMA block names queue `q_nope`, which def.json does not declare"
    );
    let e = error_of(|m| {
        common::edit(m, "sg00/pool.json", |t| {
            t.replacen(r#""to":"output""#, r#""to":"nowhere""#, 1)
        })
    });
    assert_eq!(
        e,
        "sg00/pool.json#/dma/1/desc/0/to: DMA descriptor names var `nowhere`, which def.json does not declare"
    );
}

#[test]
fn two_act_load_queues_are_rejected() {
    let e = error_of(|m| {
        common::edit(m, "sg00/def.json", |t| {
            t.replace(r#""type":"in""#, r#""type":"act_load""#)
                .replace(r#""type":"out""#, r#""type":"act_load""#)
        })
    });
    assert_eq!(
        e,
        "sg00/def.json: more than one act-load DMA queue: `q_gradient_in` and `q_gradient_out`"
    );
}

#[test]
fn no_descriptor_and_unknown_graph() {
    let e = error_of(|m| {
        m.remove("kelf-a.json");
    });
    assert_eq!(e, KelfError::NoDescriptor.to_string());
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    assert_eq!(
        gen_kbin(&kelf, "sg09").unwrap_err(),
        KelfError::UnknownGraph("sg09".into())
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Byte-level damage to any manifest never panics: the parse and lowering either succeed or
    /// return an error.
    #[test]
    fn damaged_manifests_never_panic(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let member = ["kelf-a.json", "sg00/def.json", "sg00/pool.json", "sg00/pe.json"][which];
        let mut m = common::sample();
        let bytes = m.get_mut(member).unwrap();
        for (i, b) in edits {
            let at = i.index(bytes.len());
            bytes[at] = b;
        }
        let _ = Kelf::from_members(&m).and_then(|k| k.kbins().map(|v| v.len()));
    }
}
