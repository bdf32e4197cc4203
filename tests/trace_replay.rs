//! TLA+ traces through the Rust mirrors: every TLC fixture we ship replays in full agreement, and random
//! behaviours of every mirror survive export to ITF, parsing and replay unchanged.

use ozone_conform::bugs::{Bug, BUGS};
use ozone_conform::mirror::replay::Outcome;
use ozone_conform::mirror::{Constants, ShippedSpec};
use ozone_conform::tla::read::read_trace_str;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

use crate::common;
use common::bin;

/// Every shipped spec, in registry order.
fn shipped() -> impl Iterator<Item = &'static ShippedSpec> {
    BUGS.iter().map(|b| b.mirror.spec())
}

fn stdout_of(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The invariant TLC reports in `bug.out`, and how many states its counterexample has.
fn tlc_verdict(bug_out: &Path) -> (String, usize) {
    let text = std::fs::read_to_string(bug_out).expect("fixture");
    let inv = text
        .lines()
        .find_map(|l| l.strip_prefix("Error: Invariant "))
        .and_then(|l| l.strip_suffix(" is violated."))
        .expect("TLC names the violated invariant")
        .to_string();
    let states = text
        .lines()
        .filter(|l| l.starts_with("State ") && l.contains(": <"))
        .count();
    (inv, states)
}

#[test]
fn every_tlc_counterexample_replays_through_its_mirror_and_both_see_the_same_violation() {
    for spec in shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(spec.dir)
            .join("tlc");
        let (inv, states) = tlc_verdict(&dir.join("bug.out"));
        // TLC 2.18 plain and -tool; TLC 2.20, whose labels carry the action's arguments.
        for file in ["bug.out", "bug.tool.out", "bug.tlc2.20.out"] {
            let path = dir.join(file);
            let (code, out, err) = stdout_of(&["trace", path.to_str().unwrap()]);
            let want = format!(
                "conforms: {states} states ({}, {}.cfg); {inv} violated at state {states} in both",
                spec.model, spec.module
            );
            assert_eq!(out.trim(), want, "{}: stderr {err}", path.display());
            assert_eq!(
                code,
                1,
                "a violation exits 1 as check does: {}",
                path.display()
            );
        }
    }
}

/// TLC 2.20's `-dumpTrace json` of the bug config (`tlc/bug.dump.json`): read with lenient value comparison,
/// it replays to the same verdict as `bug.out`. The file does not name the invariant; the mirror does, at
/// the dump's last state.
#[test]
fn every_tlc_dump_json_replays_through_its_mirror() {
    for spec in shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(spec.dir)
            .join("tlc");
        let (inv, states) = tlc_verdict(&dir.join("bug.out"));
        let path = dir.join("bug.dump.json");
        let want = format!(
            "conforms: {states} states ({}, {}.cfg); {inv} violated at state {states} in both",
            spec.model, spec.module
        );
        for args in [
            vec!["trace", path.to_str().unwrap(), "--model", spec.model],
            vec!["trace", path.to_str().unwrap()],
        ] {
            let (code, out, err) = stdout_of(&args);
            assert_eq!(out.trim(), want, "{args:?}: stderr {err}");
            assert_eq!(code, 1, "a violation exits 1: {args:?}");
        }
        let (code, out, err) = stdout_of(&["convert", path.to_str().unwrap(), "--to", "itf"]);
        assert_eq!(code, 0, "{}: convert: {err}", path.display());
        assert!(
            out.contains("\"from\": \"TLC -dumpTrace json\""),
            "{}",
            path.display()
        );
    }
}

#[test]
fn every_tlc_simulation_replays_through_its_mirror_with_no_violation() {
    for spec in shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(spec.dir)
            .join("tlc/simulate");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("simulate dir")
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(
            files.len() >= 20,
            "{}: {} behaviours",
            dir.display(),
            files.len()
        );
        for f in files {
            let (code, out, err) =
                stdout_of(&["trace", f.to_str().unwrap(), "--model", spec.model]);
            // The simulations ran under the fixed config: the bug config may already part ways with them.
            assert!(
                out.trim().starts_with("conforms: ")
                    && out.trim().ends_with("; no invariant violated in either"),
                "{}: {out}{err}",
                f.display()
            );
            assert_eq!(code, 0, "{}", f.display());
        }
    }
}

#[test]
fn a_tampered_trace_diverges_at_the_tampered_state_with_the_variable_named() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/dn-finalize-block/tlc/bug.out");
    let text = std::fs::read_to_string(&src).unwrap();
    // State 2's `writerLen = 1` becomes 3: no action of the spec, under either config, writes 3 at once.
    let state2 = text.find("State 2:").unwrap();
    let at = state2 + text[state2..].find("writerLen = 1").unwrap();
    let tampered = format!(
        "{}writerLen = 3{}",
        &text[..at],
        &text[at + "writerLen = 1".len()..]
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tampered.out");
    std::fs::write(&path, tampered).unwrap();
    let out = bin()
        .args(["trace", path.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim(),
        "diverges at state 2 (dn-finalize-block, DnFinalizeBlock.cfg)"
    );
    let stderr =
        String::from_utf8_lossy(&out.stderr).replace(path.to_str().unwrap(), "tampered.out");
    insta::assert_snapshot!("trace_divergence", stderr);
}

fn constants_of(config_text: &str) -> Constants {
    ozone_conform::tla::cfg::parse_cfg("shipped.cfg", config_text)
        .expect("shipped configs parse")
        .constants
}

/// Export → ITF text → parse → replay gives back the very actions and states.
fn export_parse_replay(
    bug: &Bug,
    config_text: &str,
    choices: &[usize],
) -> Result<(), TestCaseError> {
    let constants = constants_of(config_text);
    let b = bug
        .mirror
        .walk(&constants, choices)
        .expect("shipped constants");
    let trace = &b.trace;
    let itf = serde_json::to_string(&ozone_conform::tla::itf::to_itf(trace)).unwrap();
    let file = read_trace_str("random.itf.json", itf).expect("our ITF parses");
    prop_assert_eq!(file.traces.len(), 1);
    let back = &file.traces[0];
    prop_assert_eq!(back.states.len(), b.steps.len() + 1);
    // A walk into a violating state ends there and claims it, as TLC's traces do; replay agrees on both.
    match bug
        .mirror
        .replay(&constants, back)
        .expect("shipped constants")
    {
        Outcome::Conforms(a) => {
            // Traces name actions without parameters, and two instances (`Crash(d1)`, `Crash(d2)`) may reach
            // the same state: the replay must agree on every state and every action's name.
            let name = |s: &str| s.split('(').next().unwrap_or_default().to_string();
            let want: Vec<String> = b.steps.iter().map(|s| s.action.to_string()).collect();
            let got: Vec<String> = a.actions.iter().map(|s| name(s)).collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(a.states, b.steps.len() + 1);
            prop_assert_eq!(
                a.violated,
                b.violated.map(|(inv, k)| (inv.to_string(), k + 1))
            );
        }
        Outcome::Diverges(d) => {
            prop_assert!(false, "diverges at {}: {}", d.number, d.what);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_mirror_behaviours_survive_export_parse_and_replay(
        model in 0usize..4,
        fixed in any::<bool>(),
        choices in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let bug = &BUGS[model];
        let config = bug.mirror.spec().configs[usize::from(fixed)].1;
        export_parse_replay(bug, config, &choices)?;
    }
}

fn scenario_logs(model: &str, case: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios")
        .join(model)
        .join(case);
    let mut logs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    logs.sort();
    logs
}

/// The export of each scenario's logs replays through `trace` with the verdict `check` gives, and TLC's
/// committed verdict on the same export (`traces/<model>/tlc/export-*.out`, made by `traces/export-fixtures.sh`)
/// agrees: no error for healthy logs, the same invariant at the same state for violating ones.
#[test]
fn exports_of_the_scenarios_replay_and_agree_with_tlcs_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    for spec in shipped() {
        for (case, exit) in [("healthy", 0), ("violating", 1)] {
            let itf = dir.path().join(format!("{}-{case}.itf.json", spec.model));
            let mut args = vec!["export".to_string()];
            args.extend(scenario_logs(spec.model, case));
            args.extend(["--model", spec.model, "--to", "itf", "-o"].map(String::from));
            args.push(itf.to_string_lossy().into_owned());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, _, err) = stdout_of(&args);
            assert_eq!(code, exit, "{} {case}: {err}", spec.model);
            let (code, out, err) = stdout_of(&["trace", itf.to_str().unwrap()]);
            assert_eq!(code, exit, "{} {case}: {out}{err}", spec.model);
            let tlc = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(spec.dir)
                .join(format!("tlc/export-{case}.out"));
            let tlc_text = std::fs::read_to_string(&tlc).unwrap();
            if case == "healthy" {
                assert!(out.contains("no invariant violated in either"), "{out}");
                assert!(tlc_text.contains("Model checking completed. No error has been found."));
            } else {
                let tlc_trace = &ozone_conform::tla::read::read_trace_file(&tlc)
                    .unwrap()
                    .traces[0];
                let inv = tlc_trace.violation.as_ref().unwrap().name.clone().unwrap();
                let want = format!("{inv} violated at state {} in both", tlc_trace.states.len());
                assert!(
                    out.trim().ends_with(&want),
                    "{}: {out} vs TLC's {want}",
                    spec.model
                );
            }
        }
    }
}

#[test]
fn export_to_tla_writes_the_trace_module_its_config_and_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tv");
    let mut args = vec!["export".to_string()];
    args.extend(scenario_logs("scm-secret-keys", "healthy"));
    args.extend(["--model", "scm-secret-keys", "--to", "tla", "-o"].map(String::from));
    args.push(out.to_string_lossy().into_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = stdout_of(&args);
    assert_eq!(code, 0, "{err}");
    let module = std::fs::read_to_string(out.join("ScmSecretKeysTrace.tla")).unwrap();
    assert!(module.starts_with("---- MODULE ScmSecretKeysTrace ----"));
    assert!(module.contains("EXTENDS ScmSecretKeys,"));
    assert!(module.contains("TraceSpec == TraceInit /\\ [][TraceNext]_<<vars, l>>"));
    let cfg = std::fs::read_to_string(out.join("ScmSecretKeysTrace.cfg")).unwrap();
    assert!(cfg.contains("INIT TraceInit") && cfg.contains("KeyFileCoversDb"));
    assert!(cfg.contains("Nodes = {scm1, scm2, scm3}"), "{cfg}");
    let spec = std::fs::read_to_string(out.join("ScmSecretKeys.tla")).unwrap();
    assert_eq!(spec, BUGS[0].mirror.spec().tla);
    // Without a directory there is nowhere to put three files.
    let (code, _, err) = stdout_of(&[
        "export",
        &scenario_logs("scm-secret-keys", "healthy")[0],
        "--model",
        "scm-secret-keys",
        "--to",
        "tla",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--to tla writes three files"), "{err}");
}

#[test]
fn convert_writes_itf_that_trace_reads_back_to_the_same_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/scm-finalization/tlc/bug.tool.out");
    let itf = dir.path().join("bug.itf.json");
    let (code, _, err) = stdout_of(&[
        "convert",
        src.to_str().unwrap(),
        "--to",
        "itf",
        "-o",
        itf.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&itf).unwrap()).unwrap();
    assert_eq!(json["#meta"]["format"], "ITF");
    assert_eq!(json["states"].as_array().unwrap().len(), 9);
    let (code, out, _) = stdout_of(&["trace", itf.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        out.trim(),
        "conforms: 9 states (scm-finalization, ScmFinalization.cfg); VersionFileCoversDb violated at state 9 in both"
    );
}

/// Every trace in the shared corpus converts from the command line (skipped when the corpus is absent).
#[test]
#[cfg_attr(shared_corpus_absent, ignore = "../shared/corpus is absent")]
fn every_corpus_trace_converts_to_itf_from_the_command_line() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/tlc");
    let Ok(entries) = std::fs::read_dir(&corpus) else {
        // Past libtest's capture, so the skip shows in the log.
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "SKIPPED: {} is absent", corpus.display());
        return;
    };
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|f| f == "SOURCES.md") {
            continue;
        }
        let (code, out, err) = stdout_of(&["convert", p.to_str().unwrap(), "--to", "itf"]);
        assert_eq!(code, 0, "{}: {err}", p.display());
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let traces = if json.is_array() {
            json.as_array().unwrap().clone()
        } else {
            vec![json]
        };
        assert!(
            traces
                .iter()
                .all(|t| !t["states"].as_array().unwrap().is_empty()),
            "{}",
            p.display()
        );
        n += 1;
    }
    assert!(n >= 16, "{n} corpus traces");
}

#[test]
fn a_label_with_the_wrong_argument_diverges_where_tlc_named_it() {
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/scm-finalization/tlc/bug.tlc2.20.out");
    let text = std::fs::read_to_string(&src).unwrap();
    assert!(text.contains("<BecomeLeader(s1) line"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("relabelled.out");
    std::fs::write(
        &path,
        text.replacen("<BecomeLeader(s1) line", "<BecomeLeader(s2) line", 1),
    )
    .unwrap();
    let (code, out, _) = stdout_of(&["trace", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("diverges at state 2 (scm-finalization"),
        "{out}"
    );
}

#[test]
fn trace_json_says_the_same_as_the_text() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/recon-om-sync/tlc/bug.out");
    let (code, out, err) = stdout_of(&["trace", src.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = &v[0];
    assert_eq!(t["model"], "recon-om-sync");
    assert_eq!(t["config"], "ReconOmSync.cfg");
    assert_eq!(t["conforms"], true);
    assert_eq!(t["states"], 8);
    assert_eq!(t["violated"]["invariant"], "DerivedTasksMatchOmLineage");
    assert_eq!(t["violated"]["state"], 8);
    assert_eq!(t["actions"].as_array().unwrap().len(), 7);
}

#[test]
fn tlc_output_piped_on_stdin_replays_like_the_file() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/scm-secret-keys/tlc/bug.tool.out");
    let out = bin()
        .args(["trace", "-"])
        .write_stdin(std::fs::read(&src).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "conforms: 8 states (scm-secret-keys, ScmSecretKeys.cfg); KeyFileCoversDb violated at state 8 in both"
    );
}

/// `tlc ... | ozone-conform trace -` on a run that found nothing is an answer: exit 0 and say so (file and
/// stdin, text and JSON).
#[test]
fn tlc_output_with_no_error_exits_0_and_says_there_is_no_counterexample() {
    for spec in shipped() {
        let fixed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(spec.dir)
            .join("tlc/fixed.out");
        let (code, out, err) = stdout_of(&["trace", fixed.to_str().unwrap()]);
        assert_eq!(
            (code, out.trim()),
            (0, "no counterexample: TLC found no error"),
            "{err}"
        );
        let piped = bin()
            .args(["trace", "-", "--format", "json"])
            .write_stdin(std::fs::read(&fixed).unwrap())
            .output()
            .unwrap();
        assert_eq!(piped.status.code(), Some(0));
        let json: serde_json::Value = serde_json::from_slice(&piped.stdout).unwrap();
        assert_eq!(json["counterexample"], false, "{json}");
    }
}
