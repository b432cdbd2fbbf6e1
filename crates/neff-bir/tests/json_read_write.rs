//! JSON reading and writing: unknown keys, opcodes, engines and kinds survive; errors carry the
//! JSON pointer; forward references and nested loops work.

use neff_bir::json::{Style, from_str, to_string};
use neff_bir::{ArgKind, EdgeKind, EdgeTarget, Item, Opcode, ProblemKind, verify};

const DOC: &str = r#"{
  "attributes": {"neuron_core_id": 0},
  "functions": [
    {
      "name": "sg0000",
      "blocks": [
        {
          "name": "Block1",
          "instructions": [
            {"opcode": "NoOp", "name": "a", "engine": "Pool", "ins": [], "outs": [],
             "dependencies": [{"target": "b", "kind": "Ordered"}], "future_key": {"x": [1, 2]}},
            {"opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": 4, "stride": 1},
             "blocks": [{"name": "Body", "instructions": [
               {"name": "b", "opcode": "FancyNewOp", "engine": "Tensor9", "ins": [
                 {"kind": "quantum_ap", "qubits": 3},
                 {"dtype": "int32", "value": 7, "kind": "imm_value"}], "outs": [],
                "loop_carried_dependencies": [{"target": "b2", "kind": "Flow"}]},
               {"opcode": "NoOp", "name": "b2", "ins": [], "outs": []}
             ]}]},
            {"opcode": "DMATrigger", "name": "t", "engine": "SP", "ins": [], "outs": [],
             "dma_blocks": [{"queue": "q0"}], "queue": "q0"}
          ],
          "block_note": "kept"
        }
      ],
      "fn_note": 1
    }
  ],
  "arch": "gen3",
  "version": 2,
  "top_note": null
}"#;

#[test]
fn unknown_things_survive_a_round_trip() {
    let p = from_str(DOC).unwrap();
    assert_eq!(p.len(), 4);
    let a = p.inst(p.find("a").unwrap()).unwrap();
    assert_eq!(a.op_fields["future_key"], serde_json::json!({"x": [1, 2]}));
    // forward reference "b" resolved after the whole document was read
    assert_eq!(
        a.schedule.dependencies.as_slice()[0].target,
        EdgeTarget::Inst(p.find("b").unwrap())
    );
    let b = p.inst(p.find("b").unwrap()).unwrap();
    assert_eq!(b.opcode.name(), "FancyNewOp");
    assert_eq!(b.engine.name(), "Tensor9");
    assert_eq!(b.ins[0].kind, ArgKind::Unknown("quantum_ap".into()));
    assert_eq!(b.ins[0].extras["qubits"], 3);
    let t = p.inst(p.find("t").unwrap()).unwrap();
    assert!(t.is_dma_trigger());
    assert_eq!(t.dma_blocks, Some(serde_json::json!([{"queue": "q0"}])));
    assert_eq!(t.op_fields.keys().collect::<Vec<_>>(), ["queue"]);
    let again = from_str(&to_string(&p, Style::Pretty)).unwrap();
    assert_eq!(again, p);
    let canon = to_string(&p, Style::Canonical);
    assert_eq!(
        to_string(&from_str(&canon).unwrap(), Style::Canonical),
        canon
    );
    assert!(canon.contains(r#""block_note":"kept""#));
    assert!(canon.contains(r#""fn_note":1"#));
    assert!(canon.contains(r#""top_note":null"#));
    // canonical argument order: kind first, then the kind's reference §5.1 keys
    assert!(canon.contains(r#"{"kind":"imm_value","dtype":"int32","value":7}"#));
    assert!(canon.contains(
        r#"{"opcode":"Loop","LoopAxis":{"name":"i","lb":0,"ub":4,"stride":1},"blocks":"#
    ));
}

#[test]
fn nested_loop_blocks_have_pointers() {
    let p = from_str(DOC).unwrap();
    let b = p.find("b").unwrap();
    assert_eq!(
        p.pointer(b),
        "/functions/0/blocks/0/instructions/1/blocks/0/instructions/0"
    );
    let block = p.block(p.functions[0].blocks[0]).unwrap();
    assert!(matches!(block.items[1], Item::Loop(_)));
    assert_eq!(p.function_insts(0).len(), 4);
}

#[test]
fn dma_trigger_key_19_is_only_for_opcode_67() {
    let doc = r#"{"functions":[{"name":"f","blocks":[{"name":"b","instructions":[
        {"opcode":"NoOp","name":"n","engine":"SP","ins":[],"outs":[],"dma_blocks":[1]}]}]}]}"#;
    let p = from_str(doc).unwrap();
    let n = p.inst(p.find("n").unwrap()).unwrap();
    assert_eq!(n.dma_blocks, None);
    assert_eq!(n.op_fields["dma_blocks"], serde_json::json!([1]));
    assert_eq!(Opcode::DmaTrigger.info().number, Some(67));
}

fn err(doc: &str) -> neff_bir::JsonError {
    from_str(doc).unwrap_err()
}

#[test]
fn errors_carry_the_json_pointer() {
    let wrap = |inst: &str| {
        format!(
            r#"{{"functions":[{{"name":"f","blocks":[{{"name":"b","instructions":[{{"opcode":"NoOp","name":"ok","ins":[],"outs":[]}},{inst}]}}]}}]}}"#
        )
    };
    let e = err(&wrap(
        r#"{"opcode":"NoOp","name":"x","ins":[{"kind":"physical_ap","ap":[[1,"two"]]}],"outs":[]}"#,
    ));
    assert_eq!(e.pointer, "/functions/0/blocks/0/instructions/1/ins/0/ap");
    let e = err(&wrap(
        r#"{"opcode":"NoOp","name":"x","dependencies":[{"target":"ok","kind":"Flow"},{"target":"ok","kind":"Sideways"}]}"#,
    ));
    assert_eq!(
        e.pointer,
        "/functions/0/blocks/0/instructions/1/dependencies/1/kind"
    );
    assert!(e.message.contains("Sideways"), "{}", e.message);
    let e = err(&wrap(r#"{"name":"x","ins":[]}"#));
    assert_eq!(e.pointer, "/functions/0/blocks/0/instructions/1");
    assert!(e.message.contains("opcode"));
    let e = err(&wrap(r#"{"opcode":"NoOp","name":7}"#));
    assert_eq!(e.pointer, "/functions/0/blocks/0/instructions/1/name");
    let e = err(&wrap(r#"{"name":7,"opcode":"NoOp"}"#));
    assert_eq!(e.pointer, "/functions/0/blocks/0/instructions/1/name");
    let e = err(&wrap(
        r#"{"opcode":"NoOp","name":"x","scheduled_start":"soon"}"#,
    ));
    assert_eq!(
        e.pointer,
        "/functions/0/blocks/0/instructions/1/scheduled_start"
    );
    let e = err(
        r#"{"functions":[{"name":"f","blocks":[{"name":"b","instructions":[{"opcode":"NoOp","ins":[{"dtype":"x"}]}]}]}]}"#,
    );
    assert_eq!(e.pointer, "/functions/0/blocks/0/instructions/0/ins/0");
    let e = err(r#"{"functions": 3}"#);
    assert_eq!(e.pointer, "/functions");
    let e = err(r#"{"functions": [}"#);
    assert!(e.message.contains("line 1"), "{}", e.message);
}

#[test]
fn reader_keeps_what_the_verifier_must_report() {
    let doc = r#"{"functions":[{"name":"f","blocks":[{"name":"b","instructions":[
      {"opcode":"NoOp","name":"a","ins":[],"outs":[]},
      {"opcode":"NoOp","name":"c","ins":[],"outs":[],"dependencies":[
        {"target":"c","kind":"Flow"},{"target":"ghost","kind":"Flow"},
        {"target":"a","kind":"Anti"},{"target":"a","kind":"Anti"},{"target":"a","kind":"Invalid"}]}]}]}]}"#;
    let p = from_str(doc).unwrap();
    let kinds: Vec<ProblemKind> = verify(&p).iter().map(|x| x.kind).collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::SelfEdge,
            ProblemKind::UnknownTarget,
            ProblemKind::DuplicateEdge,
            ProblemKind::InvalidKind
        ]
    );
    let c = p.inst(p.find("c").unwrap()).unwrap();
    assert_eq!(c.schedule.dependencies.len(), 5);
    assert_eq!(c.schedule.num_dependencies(), 4);
    assert_eq!(
        c.schedule.dependencies.as_slice()[4].kind,
        EdgeKind::Invalid
    );
    // and writes them back
    let text = to_string(&p, Style::Canonical);
    assert!(text.contains(r#"{"target":"ghost","kind":"Flow"}"#));
    assert_eq!(from_str(&text).unwrap(), p);
}
