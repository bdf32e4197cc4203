//! Trace readers and writers against real TLC/Apalache/Quint output (the shared corpus), the project's own
//! TLC runs under `traces/`, hand-written fixtures, malformed input (snapshots of the rendered
//! diagnostics), and ITF round trips of random values.

use ozone_conform::tla::cfg::parse_cfg;
use ozone_conform::tla::convert::convert_to_itf;
use ozone_conform::tla::itf::to_itf;
use ozone_conform::tla::tla_expr::parse_value;
use ozone_conform::tla::value::TlaValue;
use ozone_conform::tla::{
    read_trace_bytes, read_trace_file, read_trace_str, ActionLabel, Trace, TraceError, TraceFile,
    TraceFormat, TraceState, TraceViolation, ViolationKind,
};
use proptest::prelude::*;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus/tlc` beside the repo; `OZONE_CONFORM_CORPUS` overrides, and a git worktree one level
/// deeper (`wt/<name>`) also finds it. `None` (with a message) when absent.
fn corpus() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(d) = std::env::var("OZONE_CONFORM_CORPUS") {
        candidates.push(PathBuf::from(d));
    }
    candidates.push(repo().join("../shared/corpus"));
    candidates.push(repo().join("../../shared/corpus"));
    for c in candidates {
        if c.join("tlc/SOURCES.md").is_file() {
            return Some(c.join("tlc"));
        }
    }
    // Past libtest's capture, so the skip shows in the log.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: ../shared/corpus/tlc not found (set OZONE_CONFORM_CORPUS)"
    );
    None
}

fn v(text: &str) -> TlaValue {
    parse_value(text).unwrap_or_else(|e| panic!("bad expected value {text}: {e:?}"))
}

struct Expect {
    file: &'static str,
    format: TraceFormat,
    states: &'static [usize],
    violation: Option<(ViolationKind, Option<&'static str>)>,
    back_to_state: Option<usize>,
    stuttering: bool,
    module: Option<&'static str>,
    /// (trace, 0-based state, variable, value in TLA+ syntax)
    sample: (usize, usize, &'static str, &'static str),
    /// (0-based state, action name) of the first trace
    action: Option<(usize, &'static str)>,
}

const EXPECT: &[Expect] = &[
    Expect {
        file: "alternating-bit-back-to-state.out",
        format: TraceFormat::TlcTool,
        states: &[4],
        violation: Some((ViolationKind::TemporalProperty, None)),
        back_to_state: Some(0),
        stuttering: false,
        module: Some("AB"),
        sample: (0, 3, "BtoA", "<<>>"), // printed `<< >>`
        action: Some((3, "LoseMsg")),
    },
    Expect {
        file: "blockingqueue-liveness-back-to-state.out",
        format: TraceFormat::TlcText,
        states: &[13],
        violation: Some((ViolationKind::TemporalProperty, None)),
        back_to_state: Some(4),
        stuttering: false,
        module: Some("BlockingQueue"),
        sample: (0, 7, "waitSet", "{p1, p2, p3, p4}"),
        action: Some((1, "Next")),
    },
    Expect {
        file: "compose-nested-tuples.out",
        format: TraceFormat::TlcTool,
        states: &[6],
        violation: Some((ViolationKind::Invariant, Some("Incorrect"))),
        back_to_state: None,
        stuttering: false,
        module: Some("Compose"),
        sample: (0, 1, "action", "<<\"Count_B\", <<>>>>"),
        action: Some((1, "Next")),
    },
    Expect {
        file: "continue-multiple-traces.out",
        format: TraceFormat::TlcText,
        states: &[6, 7, 8, 9],
        violation: Some((ViolationKind::Invariant, Some("Inv"))),
        back_to_state: None,
        stuttering: false,
        module: Some("TlcMultipleTraceParse"),
        sample: (3, 0, "x", "\"hello\""),
        action: Some((1, "Next")),
    },
    Expect {
        file: "cosmos-staking-simulation.out",
        format: TraceFormat::TlcText,
        states: &[81],
        violation: Some((ViolationKind::Invariant, Some("Inv"))),
        back_to_state: None,
        stuttering: false,
        module: Some("staking"),
        sample: (0, 80, "status", "(v0 :> \"bonded\" @@ v1 :> \"unbonded\")"),
        action: Some((0, "Init")),
    },
    Expect {
        file: "dieharder-single-var-function.out",
        format: TraceFormat::TlcTool,
        states: &[7],
        violation: Some((ViolationKind::Invariant, Some("inv_1466513479207180000"))),
        back_to_state: None,
        stuttering: false,
        module: Some("DieHarder"),
        sample: (0, 6, "injug", "(big :> 4 @@ small :> 3)"),
        action: Some((1, "Action")),
    },
    Expect {
        file: "heardof-mixed-crlf.out",
        format: TraceFormat::TlcTool,
        states: &[2],
        violation: Some((ViolationKind::TemporalProperty, None)),
        back_to_state: Some(0),
        stuttering: false,
        module: Some("main"),
        sample: (
            0,
            1,
            "ProcState",
            "(p1 :> [v |-> NULL, d |-> NULL, x |-> 0] @@ p2 :> [v |-> 1, d |-> NULL, x |-> 1] @@ p3 :> [v |-> NULL, d |-> NULL, x |-> 0])",
        ),
        action: Some((1, "StepNoSplit")),
    },
    Expect {
        file: "lock-ordering-deadlock.out",
        format: TraceFormat::TlcTool,
        states: &[7],
        violation: Some((ViolationKind::Deadlock, None)),
        back_to_state: None,
        stuttering: false,
        module: Some("deadlock"),
        sample: (0, 0, "lock_holder", "<<\"\", \"\">>"),
        action: None,
    },
    Expect {
        file: "missionaries-tlc220-plain.out",
        format: TraceFormat::TlcText,
        states: &[12],
        violation: Some((ViolationKind::Invariant, Some("Solution"))),
        back_to_state: None,
        stuttering: false,
        module: Some("MissionariesAndCannibals"),
        sample: (0, 11, "who_is_on_bank", "[E |-> {}, W |-> {m1, m2, m3, c1, c2, c3}]"),
        action: Some((11, "Next")),
    },
    Expect {
        file: "paxoscommit-nested-functions.out",
        format: TraceFormat::TlcTool,
        states: &[14],
        violation: Some((ViolationKind::Invariant, Some("inv_150528191747586000"))),
        back_to_state: None,
        stuttering: false,
        module: Some("PaxosCommit"),
        sample: (0, 13, "rmState", "(r1 :> \"committed\" @@ r2 :> \"aborted\")"),
        action: Some((13, "Action")),
    },
    Expect {
        file: "tlc202-action-property-2009.out",
        format: TraceFormat::TlcTool,
        states: &[3],
        violation: Some((ViolationKind::ActionProperty, Some("prop_124951521011339000"))),
        back_to_state: None,
        stuttering: false,
        module: Some("MC"),
        sample: (0, 1, "y", "1"),
        action: Some((2, "Action")),
    },
    Expect {
        file: "wire-transfer-stuttering.out",
        format: TraceFormat::TlcTool,
        states: &[4],
        violation: Some((ViolationKind::TemporalProperty, None)),
        back_to_state: None,
        stuttering: true,
        module: Some("wire"),
        sample: (0, 3, "acc", "[alice |-> 3, bob |-> 6]"),
        action: Some((3, "CheckAndWithdraw")),
    },
    Expect {
        file: "itf-apalache-missionaries-cannibals.itf.json",
        format: TraceFormat::Itf,
        states: &[6],
        violation: None,
        back_to_state: None,
        stuttering: false,
        module: Some("MC_MissionariesAndCannibalsTyped"),
        sample: (
            0,
            0,
            "who_is_on_bank",
            "[E |-> {c1_OF_PERSON, c2_OF_PERSON, m1_OF_PERSON, m2_OF_PERSON}, W |-> {}]",
        ),
        action: None,
    },
    Expect {
        file: "itf-quint-rust-simulator-nonstandard.itf.json",
        format: TraceFormat::Itf,
        states: &[7],
        violation: None,
        back_to_state: None,
        stuttering: false,
        module: None,
        sample: (0, 6, "n", "12"),
        action: None,
    },
    Expect {
        file: "itf-quint-sumtypes.itf.json",
        format: TraceFormat::Itf,
        states: &[3],
        violation: None,
        back_to_state: None,
        stuttering: false,
        module: Some("SumTypes"),
        sample: (0, 0, "value", "<<>>"), // checked as a variant below
        action: None,
    },
    Expect {
        file: "itf-quint-tendermint-consensus.itf.json",
        format: TraceFormat::Itf,
        states: &[36],
        violation: None,
        back_to_state: None,
        stuttering: false,
        module: Some("consensus"),
        sample: (
            0,
            0,
            "_Event",
            "[height |-> -1, name |-> \"Initial\", round |-> -1, value |-> \"\", vr |-> -1]",
        ),
        action: None,
    },
];

#[test]
#[cfg_attr(shared_corpus_absent, ignore = "../shared/corpus is absent")]
fn every_corpus_file_parses_to_the_facts_it_holds() {
    let Some(dir) = corpus() else { return };
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".md") {
            continue;
        }
        let e = EXPECT
            .iter()
            .find(|e| e.file == name)
            .unwrap_or_else(|| panic!("corpus file {name} has no expectations here"));
        seen += 1;
        let f = read_trace_file(&path).unwrap_or_else(|err| panic!("{name}: {err:?}"));
        let counts: Vec<usize> = f.traces.iter().map(|t| t.states.len()).collect();
        assert_eq!(counts, e.states, "{name}: states per trace");
        for t in &f.traces {
            assert_eq!(t.format, e.format, "{name}");
            assert_eq!(
                t.violation.as_ref().map(|v| (v.kind, v.name.as_deref())),
                e.violation,
                "{name}"
            );
            assert_eq!(t.module.as_deref(), e.module, "{name}");
            let numbers: Vec<usize> = t.states.iter().map(|s| s.number).collect();
            let want: Vec<usize> = (1..=t.states.len()).collect();
            assert_eq!(numbers, want, "{name}: state numbers");
        }
        let last = f.traces.last().unwrap();
        assert_eq!(last.back_to_state, e.back_to_state, "{name}");
        assert_eq!(last.stuttering, e.stuttering, "{name}");
        let (ti, si, var, want) = e.sample;
        let got = f.traces[ti].var(si, var);
        if name == "itf-quint-sumtypes.itf.json" {
            assert_eq!(
                got,
                Some(&TlaValue::Variant {
                    tag: "None".into(),
                    value: Box::new(v(want))
                })
            );
            assert_eq!(
                f.traces[0].var(2, "value"),
                Some(&TlaValue::Variant {
                    tag: "Some".into(),
                    value: Box::new(TlaValue::int(41))
                })
            );
        } else {
            assert_eq!(got, Some(&v(want)), "{name}: {var} in state {}", si + 1);
        }
        if let Some((si, action)) = e.action {
            assert_eq!(
                f.traces[0].states[si]
                    .action
                    .as_ref()
                    .map(|a| a.name.as_str()),
                Some(action),
                "{name}"
            );
        }
        // Spans point into the file: the state's text starts with its label or value.
        let s0 = &f.traces[0].states[0];
        assert!(s0.span.offset() + s0.span.len() <= f.text.len());
        for (_, _, sp) in &s0.vars {
            assert!(
                sp.offset() >= s0.span.offset()
                    && sp.offset() + sp.len() <= s0.span.offset() + s0.span.len(),
                "{name}: var span outside state span"
            );
        }
    }
    assert_eq!(seen, EXPECT.len(), "every expected corpus file is present");
}

#[test]
#[cfg_attr(shared_corpus_absent, ignore = "../shared/corpus is absent")]
fn corpus_quirks_beyond_the_table() {
    let Some(dir) = corpus() else { return };
    // Nested functions spread over lines, negative integers, model values.
    let f = read_trace_file(&dir.join("paxoscommit-nested-functions.out")).unwrap();
    let t = &f.traces[0];
    assert_eq!(
        t.var(13, "aState")
            .and_then(|a| a.apply(&TlaValue::model("r1")))
            .and_then(|a| a.apply(&TlaValue::model("a3"))),
        Some(&v("[bal |-> 1, mbal |-> 1, val |-> \"aborted\"]"))
    );
    assert_eq!(
        t.var(0, "aState")
            .and_then(|a| a.apply(&TlaValue::model("r2")))
            .and_then(|a| a.apply(&TlaValue::model("a1")))
            .and_then(|r| r.apply(&TlaValue::str("bal"))),
        Some(&TlaValue::int(-1))
    );
    let a = t.states[1].action.as_ref().unwrap();
    assert_eq!(
        (a.line, a.module.as_deref()),
        (Some(120), Some("PaxosCommit"))
    );
    // Nested tuples `<<<<a, 1>>>>`.
    let f = read_trace_file(&dir.join("alternating-bit-back-to-state.out")).unwrap();
    assert_eq!(f.traces[0].var(2, "AtoB"), Some(&v("<<<<a, 1>>>>")));
    // -continue: the TLC quirk "No error has been found" after four violations is kept as a note.
    let f = read_trace_file(&dir.join("continue-multiple-traces.out")).unwrap();
    assert!(f.traces[3]
        .notes
        .iter()
        .any(|n| n.contains("No error has been found")));
    // The lasso's closing action has no state: noted, not dropped.
    let f = read_trace_file(&dir.join("blockingqueue-liveness-back-to-state.out")).unwrap();
    assert!(f.traces[0]
        .notes
        .iter()
        .any(|n| n.contains("loop back to state 5")));
}

/// Values, action names, violation, lasso, stuttering and module survive TLC → ITF → reader.
fn assert_same_trace(a: &Trace, b: &Trace, what: &str) {
    assert_eq!(a.states.len(), b.states.len(), "{what}: states");
    for (x, y) in a.states.iter().zip(&b.states) {
        assert_eq!(x.number, y.number, "{what}");
        assert_eq!(
            x.action.as_ref().map(|l| &l.name),
            y.action.as_ref().map(|l| &l.name),
            "{what}: action of state {}",
            x.number
        );
        let xv: Vec<(&str, &TlaValue)> = x.vars.iter().map(|(n, v, _)| (&**n, &**v)).collect();
        let yv: Vec<(&str, &TlaValue)> = y.vars.iter().map(|(n, v, _)| (&**n, &**v)).collect();
        assert_eq!(xv, yv, "{what}: state {}", x.number);
    }
    assert_eq!(a.violation, b.violation, "{what}");
    assert_eq!(a.back_to_state, b.back_to_state, "{what}");
    assert_eq!(a.stuttering, b.stuttering, "{what}");
    assert_eq!(a.module, b.module, "{what}");
}

fn round_trip(f: &TraceFile) {
    let (itf, notes) = convert_to_itf(f);
    let back = read_trace_str("back.itf.json", itf.to_string())
        .unwrap_or_else(|e| panic!("{}: reading the ITF back: {e:?}", f.name));
    assert_eq!(back.traces.len(), f.traces.len(), "{}", f.name);
    for (a, b) in f.traces.iter().zip(&back.traces) {
        assert_eq!(b.format, TraceFormat::Itf);
        assert_same_trace(a, b, &f.name);
        // Every note of the original is in the converted trace and in the conversion's notes.
        for n in &a.notes {
            assert!(b.notes.contains(n), "{}: note lost: {n}", f.name);
            assert!(
                notes.iter().any(|m| m.ends_with(n.as_str())),
                "{}: {n}",
                f.name
            );
        }
    }
    if f.traces.len() > 1 {
        assert!(itf.is_array());
        assert!(notes.iter().any(|n| n.contains("JSON array")));
    }
}

#[test]
#[cfg_attr(shared_corpus_absent, ignore = "../shared/corpus is absent")]
fn every_corpus_file_converts_to_itf_and_back_equal() {
    let Some(dir) = corpus() else { return };
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        round_trip(&read_trace_file(&path).unwrap());
    }
}

fn spec_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("tlc").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 4, "traces/*/tlc: {dirs:?}");
    dirs
}

#[test]
fn own_tlc_runs_read_the_same_in_plain_and_tool_form_and_convert() {
    for dir in spec_dirs() {
        let plain = read_trace_file(&dir.join("tlc/bug.out")).unwrap();
        let tool = read_trace_file(&dir.join("tlc/bug.tool.out")).unwrap();
        assert_eq!(plain.traces.len(), 1, "{dir:?}");
        assert_eq!(tool.traces.len(), 1, "{dir:?}");
        let (p, t) = (&plain.traces[0], &tool.traces[0]);
        assert_eq!(p.format, TraceFormat::TlcText);
        assert_eq!(t.format, TraceFormat::TlcTool);
        assert!(p.states.len() > 1, "{dir:?}");
        assert_same_trace(p, t, &dir.display().to_string());
        // Action lines, too.
        let lines = |t: &Trace| {
            t.states
                .iter()
                .map(|s| s.action.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(lines(p), lines(t));
        let viol = p.violation.as_ref().unwrap();
        assert_eq!(viol.kind, ViolationKind::Invariant);
        // The violated invariant is one the bug config checks.
        let cfg_path = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.extension().is_some_and(|e| e == "cfg") && !p.to_string_lossy().contains("Fixed")
            })
            .unwrap();
        let cfg = parse_cfg("bug.cfg", &std::fs::read_to_string(&cfg_path).unwrap()).unwrap();
        assert!(
            cfg.invariants.contains(viol.name.as_ref().unwrap()),
            "{dir:?}"
        );
        round_trip(&plain);
        round_trip(&tool);
        // fixed.out has no counterexample, and says TLC found no error: an answer, not a trace.
        let e = read_trace_file(&dir.join("tlc/fixed.out")).unwrap_err();
        assert!(
            matches!(e, TraceError::NoErrorFound { .. }),
            "{dir:?}: {e:?}"
        );
    }
}

#[test]
fn own_simulation_dumps_have_thirty_states_and_the_specs_variables() {
    for dir in spec_dirs() {
        let bug = read_trace_file(&dir.join("tlc/bug.out")).unwrap();
        let mut want_vars: Vec<&str> = bug.traces[0].variables();
        want_vars.sort_unstable();
        let mut n = 0;
        for e in std::fs::read_dir(dir.join("tlc/simulate")).unwrap() {
            let path = e.unwrap().path();
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            if !file.starts_with("trace_0_") {
                continue;
            }
            n += 1;
            let f = read_trace_file(&path).unwrap();
            assert_eq!(f.traces.len(), 1);
            let t = &f.traces[0];
            assert_eq!(t.format, TraceFormat::TlcSimulate);
            assert_eq!(t.states.len(), 30, "{path:?}");
            assert_eq!(t.module.as_deref(), Some(file.as_str()));
            assert!(t
                .states
                .iter()
                .enumerate()
                .all(|(k, s)| s.number == k + 1 && s.action.is_none()));
            let mut vars = t.variables();
            vars.sort_unstable();
            assert_eq!(vars, want_vars, "{path:?}");
            assert!(t.states.iter().all(|s| s.vars.len() == want_vars.len()));
            round_trip(&f);
        }
        assert!(n >= 1, "{dir:?}: no simulate dumps");
    }
}

#[test]
fn own_configs_parse() {
    let mut n = 0;
    for dir in spec_dirs() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "cfg") {
                continue;
            }
            n += 1;
            let cfg = parse_cfg(
                &path.display().to_string(),
                &std::fs::read_to_string(&path).unwrap(),
            )
            .unwrap_or_else(|e| panic!("{path:?}: {e:?}"));
            assert_eq!(cfg.specification.as_deref(), Some("Spec"), "{path:?}");
            assert_eq!(
                cfg.invariants.first().map(String::as_str),
                Some("TypeOK"),
                "{path:?}"
            );
            assert!(cfg.invariants.len() >= 2, "{path:?}");
            assert!(cfg.constants.len() >= 3, "{path:?}");
            // Every constant line of the file is read.
            let text = std::fs::read_to_string(&path).unwrap();
            let assigned = text
                .lines()
                .filter(|l| l.contains(" = ") && !l.trim_start().starts_with("\\*"))
                .count();
            assert_eq!(cfg.constants.len(), assigned, "{path:?}");
            if let Some(nn) = cfg.constants.get("NoNode") {
                assert_eq!(nn, &TlaValue::model("NoNode"));
            }
        }
    }
    assert!(n >= 8, "expected the bug and fixed configs of four specs");
    let c = parse_cfg(
        "s.cfg",
        &std::fs::read_to_string(repo().join("traces/scm-finalization/ScmFinalization.cfg"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(c.constants["Scms"], v("{s1, s2}"));
    assert_eq!(c.constants["MaxLog"], TlaValue::int(2));
    assert_eq!(
        c.constants["FinalizeFromDbOnStartup"],
        TlaValue::Bool(false)
    );
}

#[test]
fn hand_written_dump_json_fixture() {
    let f = read_trace_file(&repo().join("tests/fixtures/traces/dump-demo.json")).unwrap();
    let t = &f.traces[0];
    assert_eq!(t.format, TraceFormat::TlcDumpJson);
    assert_eq!(t.states.len(), 3);
    // No `vars` in the file: the members' order in the first state.
    assert_eq!(t.variables(), ["s", "x", "f"]);
    assert_eq!(t.var(2, "x"), Some(&TlaValue::int(-2)));
    // Best effort: the set {n1, n2} reads as a sequence of strings; noted.
    assert_eq!(t.var(2, "s"), Some(&v("<<\"n1\", \"n2\">>")));
    assert_eq!(t.var(1, "f"), Some(&v("[n1 |-> 1, n2 |-> 0]")));
    assert_eq!(t.states[0].action, None);
    assert_eq!(
        t.states[2].action,
        Some(ActionLabel {
            name: "Add".into(),
            module: Some("Demo".into()),
            line: Some(6)
        })
    );
    assert_eq!(t.back_to_state, Some(1));
    assert_eq!(t.module.as_deref(), Some("Demo"));
    assert!(t
        .notes
        .iter()
        .any(|n| n.contains("cannot tell sets from sequences")));
    assert!(t.notes.iter().any(|n| n.contains("Drop")));
    round_trip(&f);
}

// ---- Malformed input: rendered diagnostics ----

fn render(e: &TraceError) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut out, e)
        .unwrap();
    out
}

#[test]
fn diagnostic_unclosed_set() {
    let text = "Error: Invariant Inv is violated.\nState 1: <Initial predicate>\n/\\ s = {n1, n2\n/\\ x = 0\n\nState 2: <Next line 1, col 1 to line 1, col 9 of module M>\n/\\ s = {}\n/\\ x = 1\n";
    let e = read_trace_str("unclosed.out", text.into()).unwrap_err();
    assert!(matches!(e, TraceError::Syntax { .. }), "{e:?}");
    insta::assert_snapshot!("unclosed_set", render(&e));
}

#[test]
fn diagnostic_unclosed_set_at_end_of_file_is_truncation() {
    let text = "State 1: <Initial predicate>\n/\\ s = {n1, n2";
    let e = read_trace_str("cut.out", text.into()).unwrap_err();
    match &e {
        TraceError::Truncated { span, .. } => assert_eq!(span.offset() + span.len(), text.len()),
        e => panic!("{e:?}"),
    }
    insta::assert_snapshot!("truncated_tlc", render(&e));
}

#[test]
fn diagnostic_invalid_utf8() {
    let mut bytes = b"State 1: <Initial predicate>\n/\\ x = \"caf".to_vec();
    bytes.extend([0xe9, b'"', b'\n']);
    let e = read_trace_bytes("latin1.out", bytes).unwrap_err();
    assert!(
        matches!(e, TraceError::InvalidUtf8 { offset: 40, .. }),
        "{e:?}"
    );
    insta::assert_snapshot!("invalid_utf8", render(&e));
}

#[test]
fn diagnostic_truncated_itf() {
    let text = "{\"#meta\":{\"format\":\"ITF\"},\"vars\":[\"x\"],\"states\":[{\"#meta\":{\"index\":0},\"x\":{\"#bigint\":\"1\"}},{\"#meta\":{\"index\":1},\"x\":{\"#big";
    let e = read_trace_str("cut.itf.json", text.into()).unwrap_err();
    match &e {
        TraceError::Truncated { span, .. } => assert_eq!(span.offset() + span.len(), text.len()),
        e => panic!("{e:?}"),
    }
    insta::assert_snapshot!("truncated_itf", render(&e));
}

#[test]
fn diagnostic_itf_unknown_tag() {
    let text = "{\n  \"vars\": [\"x\"],\n  \"states\": [\n    {\"x\": {\"#bag\": [{\"#bigint\": \"1\"}]}}\n  ]\n}\n";
    let e = read_trace_str("tag.itf.json", text.into()).unwrap_err();
    assert!(matches!(e, TraceError::Itf { .. }), "{e:?}");
    insta::assert_snapshot!("itf_unknown_tag", render(&e));
}

#[test]
fn diagnostic_not_a_trace() {
    // TLC's output of a run cut off before it finished: no states, and no verdict either.
    let text =
        std::fs::read_to_string(repo().join("traces/dn-finalize-block/tlc/fixed.out")).unwrap();
    let cut: String = text
        .lines()
        .take_while(|l| !l.starts_with("Model checking completed."))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = read_trace_str("cut.out", cut).unwrap_err();
    let shown = render(&e);
    assert!(shown.contains("ozone_conform::trace::no_trace"), "{shown}");
    assert!(shown.contains("no `State 1:`"), "{shown}");
}

#[test]
fn tlc_output_that_found_no_error_says_so() {
    let e = read_trace_file(&repo().join("traces/dn-finalize-block/tlc/fixed.out")).unwrap_err();
    assert!(matches!(e, TraceError::NoErrorFound { .. }), "{e:?}");
    // The message names the file, so the rendering wraps where the checkout's path is long: compare words.
    let shown = render(&e);
    let words = shown
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("no counterexample: TLC found no error"),
        "{shown}"
    );
}

// ---- Never panic ----

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any cut of a real output reads or fails cleanly; a cut inside a value is a truncation error at the end.
    #[test]
    fn cut_outputs_never_panic(cut in 0usize..4000, which in 0usize..2) {
        let file = ["tlc/bug.out", "tlc/bug.tool.out"][which];
        let text = std::fs::read_to_string(repo().join("traces/dn-finalize-block").join(file)).unwrap();
        let mut cut = cut.min(text.len());
        while !text.is_char_boundary(cut) { cut -= 1; }
        let part = &text[..cut];
        match read_trace_str("cut", part.to_string()) {
            Ok(f) => prop_assert!(!f.traces.is_empty()),
            Err(TraceError::Truncated { span, .. }) => prop_assert_eq!(span.offset() + span.len(), part.trim_end().len()),
            Err(_) => {}
        }
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_trace_bytes("junk", bytes);
    }

    #[test]
    fn garbage_text_never_panics(s in "[{}<>\\[\\]()@:|\\->=/\\\\ \"a-c0-9\n,.#_]{0,120}") {
        let _ = read_trace_str("junk", s.clone());
        let _ = read_trace_str("junk", format!("State 1: <Initial predicate>\n/\\ x = {s}"));
        let _ = parse_cfg("junk", &format!("CONSTANTS X = {s}"));
    }
}

// ---- ITF round trip of random values ----

fn leaf() -> impl Strategy<Value = TlaValue> {
    prop_oneof![
        any::<bool>().prop_map(TlaValue::Bool),
        any::<i64>().prop_map(TlaValue::int),
        "-?[1-9][0-9]{18,40}".prop_map(|s| TlaValue::Int(s.parse().unwrap())),
        // Strings without the `_OF_TYPE` shape of Apalache's uninterpreted constants (see itf.rs).
        "[a-z \"\\\\\n]{0,6}".prop_map(TlaValue::Str),
        "[a-z][a-z0-9_]{0,5}".prop_map(TlaValue::ModelValue),
        "[a-z][a-z0-9]{0,3}_OF_[A-Z]{1,4}".prop_map(TlaValue::ModelValue),
        "[A-Za-z ]{0,5}".prop_map(TlaValue::Unserializable),
    ]
}

fn value() -> impl Strategy<Value = TlaValue> {
    leaf().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(TlaValue::set),
            proptest::collection::vec(inner.clone(), 0..5).prop_map(TlaValue::seq),
            // Field names from a-d cannot spell `tag`/`value` (which would read back as a Quint variant).
            proptest::collection::vec(("[a-d]{1,3}", inner.clone()), 0..4)
                .prop_map(TlaValue::record),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..4)
                .prop_map(TlaValue::function),
            ("[A-Z][a-z]{0,4}", inner).prop_map(|(tag, v)| TlaValue::Variant {
                tag,
                value: Box::new(v)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn itf_written_reads_back_equal(
        states in proptest::collection::vec(
            (proptest::option::of("[A-Z][a-zA-Z]{0,6}(\\([a-z0-9,]{1,5}\\))?"), proptest::collection::vec(value(), 1..4)),
            1..4),
        back in proptest::option::of(0usize..4),
        stuttering in any::<bool>(),
    ) {
        let mut t = Trace::new(TraceFormat::TlcText);
        let nvars = states[0].1.len();
        for (k, (action, vals)) in states.iter().enumerate() {
            let vars = (0..nvars)
                .map(|i| (format!("v{i}").into(), vals.get(i).cloned().unwrap_or(TlaValue::Bool(true)).into(), (0, 0).into()))
                .collect();
            t.states.push(TraceState {
                number: k + 1,
                action: action.as_ref().map(|a| ActionLabel { name: a.clone(), module: Some("M".into()), line: Some(3) }),
                vars,
                span: (0, 0).into(),
            });
        }
        t.back_to_state = back.filter(|b| *b < t.states.len());
        t.stuttering = stuttering;
        t.module = Some("M".into());
        t.violation = Some(TraceViolation { kind: ViolationKind::Invariant, name: Some("Inv".into()), message: "Invariant Inv is violated.".into() });
        let text = to_itf(&t).to_string();
        let back = read_trace_str("p.itf.json", text).unwrap();
        prop_assert_eq!(back.traces.len(), 1);
        let b = &back.traces[0];
        assert_same_trace(&t, b, "random");
        for (x, y) in t.states.iter().zip(&b.states) {
            prop_assert_eq!(&x.action, &y.action);
        }
    }
}
