//! The event-dense logs of `benches/gen_event_dense.py` (the healthy scenario fixtures repeated as a
//! long-running cluster prints them: time moving forward, fresh ids) are as healthy as one copy, and one
//! violating copy spliced in near the end is found at the same place. The scale bench
//! (`benches/check_scale.sh`) times `check` on such logs; these tests say its logs mean what it claims.
//! They need `python3` and skip, saying so, without it.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

use crate::common;
use common::models;

fn have_python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: python3 is not installed; benches/gen_event_dense.py cannot run");
    }
    ok
}

fn generate(out: &Path, args: &[&str]) {
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen_event_dense.py");
    let st = Command::new("python3")
        .arg(gen)
        .args(["--bin", env!("CARGO_BIN_EXE_ozone-conform"), "--out"])
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "generator failed: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// `check --format json-lines DIR`: the exit code and every object (violations, then verdicts).
fn check_json(dir: &Path) -> (i32, Vec<Value>) {
    common::check_json_lines(&[], &[dir])
}

/// The verdict object of a model.
fn model<'a>(report: &'a [Value], name: &str) -> &'a Value {
    report
        .iter()
        .find(|o| o["type"] == "verdict" && o["model"] == name)
        .unwrap_or_else(|| panic!("no verdict for {name}"))
}

/// A model's first violation.
fn first_violation<'a>(report: &'a [Value], name: &str) -> &'a Value {
    report
        .iter()
        .find(|o| o["type"] == "violation" && o["model"] == name && o["first"] == true)
        .unwrap_or_else(|| panic!("no violation of {name}"))
}

fn checks(m: &Value) -> u64 {
    m["checks"]
        .as_u64()
        .unwrap_or_else(|| panic!("no checks in {m}"))
}

#[test]
fn repeated_healthy_scenarios_stay_healthy_with_every_check_repeated() {
    if !have_python() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (one, many) = (tmp.path().join("one"), tmp.path().join("many"));
    generate(&one, &["--repetitions", "1"]);
    generate(&many, &["--repetitions", "25"]);
    let (code1, r1) = check_json(&one);
    let (code25, r25) = check_json(&many);
    assert_eq!((code1, code25), (0, 0), "{r25:?}");
    for name in models() {
        let (m1, m25) = (model(&r1, name), model(&r25, name));
        assert_eq!(m1["verdict"], "conforms", "{name}: {m1}");
        assert_eq!(m25["verdict"], "conforms", "{name}: {m25}");
        assert_eq!(
            m25["events"].as_u64().unwrap(),
            25 * m1["events"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(checks(m25), 25 * checks(m1), "{name}");
    }
}

#[test]
fn a_violating_copy_near_the_end_is_found_at_its_own_span() {
    if !have_python() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in models() {
        let (alone, spliced) = (
            tmp.path().join(format!("{name}-alone")),
            tmp.path().join(format!("{name}-spliced")),
        );
        generate(
            &alone,
            &["--first", "10", "--repetitions", "1", "--splice", name],
        );
        generate(&spliced, &["--repetitions", "12", "--splice", name]);
        let (c1, r1) = check_json(&alone);
        let (c12, r12) = check_json(&spliced);
        assert_eq!((c1, c12), (1, 1), "{name}: {r12:?}");
        let (v1, v12) = (first_violation(&r1, name), first_violation(&r12, name));
        // Repetition 10 alone has the same times and ids as in the long log: the same message too.
        for k in ["invariant", "code", "node", "message"] {
            assert_eq!(v1[k], v12[k], "{name}: {k}");
        }
        let splice: Value =
            serde_json::from_str(&std::fs::read_to_string(spliced.join("splice.json")).unwrap())
                .unwrap();
        assert_eq!(splice["repetition"], 10);
        let path = |v: &Value, dir: &Path| {
            Path::new(v["primary"]["path"].as_str().unwrap())
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        let file = path(v12, &spliced);
        assert_eq!(path(v1, &alone), file, "{name}");
        let before = &splice["before"][&file];
        let (p1, p12) = (&v1["primary"], &v12["primary"]);
        assert_eq!(
            p12["line"].as_u64().unwrap(),
            p1["line"].as_u64().unwrap() + before["lines"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            p12["byte_offset"].as_u64().unwrap(),
            p1["byte_offset"].as_u64().unwrap() + before["bytes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(p12["byte_len"], p1["byte_len"], "{name}");
        // No other model sees a violation in the healthy copies around it.
        for other in models().into_iter().filter(|m| *m != name) {
            assert_eq!(
                model(&r12, other)["verdict"],
                "conforms",
                "{other} beside {name}"
            );
        }
    }
}

/// `export --to itf` of a log: its exit code and the notes it carries (`state K: ..., witnessed by P:L (...)`).
fn export_notes(dir: &Path, name: &str, itf: &Path) -> (i32, Vec<String>) {
    let logs: Vec<_> = std::fs::read_dir(dir.join(name))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .arg("export")
        .args(&logs)
        .args(["--model", name, "--to", "itf", "-o"])
        .arg(itf)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "{name}: export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(itf).unwrap()).unwrap();
    let notes = doc["#meta"]["x-ozone-conform"]["notes"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no notes in {}", doc["#meta"]))
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    (code, notes)
}

/// The TLC comparison (`benches/tlc_vs_check.sh`) needs the export of a long log with one violating copy
/// near the end to end where `check` finds the violation, not in a healthy copy before it: dn-finalize-block's
/// spec has one block, so the export must follow the block the violation is on. Every model of the registry
/// but scm-finalization, whose spec finalizes once: a second copy's finalization is no step of it, so a log of
/// several copies has no export (the bench runs it on one copy).
#[test]
fn the_export_of_a_spliced_log_ends_at_the_violation_check_reports() {
    if !have_python() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in models().into_iter().filter(|m| *m != "scm-finalization") {
        let dir = tmp.path().join(name);
        generate(&dir, &["--repetitions", "6", "--splice", name]);
        let (code, report) = check_json(&dir);
        assert_eq!(code, 1, "{name}");
        let primary = &first_violation(&report, name)["primary"];
        let at = format!(
            "{}:{}",
            primary["path"].as_str().unwrap(),
            primary["line"].as_u64().unwrap()
        );
        let (code, notes) = export_notes(&dir, name, &tmp.path().join(format!("{name}.itf.json")));
        assert_eq!(code, 1, "{name}: the export finds no violation: {notes:?}");
        let last_witness = notes
            .iter()
            .rev()
            .find_map(|n| n.split_once(", witnessed by "))
            .map(|(_, by)| by.split(' ').next().unwrap().to_string());
        assert_eq!(last_witness.as_deref(), Some(at.as_str()), "{name}");
        // Four healthy copies come before it: the behaviour is more than the violating copy's.
        let witnessed = notes
            .iter()
            .filter(|n| n.contains(", witnessed by "))
            .count();
        assert!(witnessed > 4 * 5, "{name}: {witnessed} witnessed steps");
    }
}
