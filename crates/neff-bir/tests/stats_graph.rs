//! Statistics and DOT output of a small hand-built program (snapshots).

use neff_bir::{
    Argument, DotOptions, EdgeKind, Engine, EngineKind, Instruction, Opcode, OperandList, Program,
    Stats, to_dot,
};

fn small() -> Program {
    let mut p = Program::new();
    let f = p.add_function("sg0000");
    let b = p.add_block(f, "Block1").unwrap();
    let mk = |p: &mut Program, name: &str, op: Opcode, eng: EngineKind, start: i64| {
        let mut i = Instruction::new(name, op);
        i.engine = Engine::Known(eng);
        i.add_operand(
            OperandList::Outs,
            Argument::physical_2d(name, "float32", 128, 64),
        );
        i.schedule.scheduled_start = Some(start);
        i.schedule.scheduled_end = Some(start + 10);
        p.push(b, i).unwrap()
    };
    let load = mk(&mut p, "load_a", Opcode::Load, EngineKind::Dma, 0);
    let mm = mk(&mut p, "mm", Opcode::Matmult, EngineKind::Pe, 10);
    let act = mk(
        &mut p,
        "act",
        Opcode::Activation,
        EngineKind::Activation,
        20,
    );
    let save = mk(&mut p, "save", Opcode::Save, EngineKind::Dma, 35);
    p.add_dependency(mm, load, EdgeKind::Flow, false).unwrap();
    p.add_dependency(act, mm, EdgeKind::Flow, false).unwrap();
    p.add_dependency(save, act, EdgeKind::Flow, false).unwrap();
    p.add_dependency(load, save, EdgeKind::Anti, true).unwrap();
    p.add_dependency(save, load, EdgeKind::Ordered, false)
        .unwrap();
    p
}

#[test]
fn stats_of_a_four_instruction_pipeline() {
    let s = Stats::of(&small());
    assert_eq!(s.instructions, 4);
    assert_eq!(s.critical_path, Some(4));
    assert_eq!(s.scheduled_span, Some(45));
    assert_eq!(s.dependencies["Flow"], 3);
    assert_eq!(s.dependencies["Ordered"], 1);
    assert_eq!(s.loop_carried_dependencies["Anti"], 1);
    assert_eq!(s.per_engine["DMA"], 2);
    insta::assert_snapshot!(s.to_string());
}

#[test]
fn dot_styles_edges_by_kind() {
    let dot = to_dot(&small(), DotOptions::default());
    assert!(dot.contains(r#""load_a" -> "mm" [style=solid, color=black"#));
    assert!(
        dot.contains(
            r#""save" -> "load_a" [style=dashed, color=red, constraint=false, label="lc""#
        )
    );
    assert!(dot.contains(r#""load_a" -> "save" [style=bold, color=gray50"#));
    insta::assert_snapshot!(dot);
}
