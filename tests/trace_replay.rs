//! TLA+ traces through the Rust mirrors: every TLC fixture we ship replays in full agreement, and random
//! behaviours of every mirror survive export to ITF, parsing and replay unchanged.

use assert_cmd::Command;
use ozone_conform::spec::export::{to_trace, Behaviour, BehaviourStep};
use ozone_conform::spec::replay::{action_text, replay_with, Outcome};
use ozone_conform::spec::{Constants, Mirror, SHIPPED};
use ozone_conform::tla::trace::read_trace_str;
use ozone_conform::with_mirror;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("ozone-conform").expect("binary builds")
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
    for spec in SHIPPED {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(spec.dir)
            .join("tlc");
        let (inv, states) = tlc_verdict(&dir.join("bug.out"));
        for file in ["bug.out", "bug.tool.out"] {
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

#[test]
fn every_tlc_simulation_replays_through_its_mirror_with_no_violation() {
    for spec in SHIPPED {
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
    // State 3's `txFinalized = TRUE` becomes FALSE: FinalizeBlock no longer explains it.
    let state3 = text.find("State 3:").unwrap();
    let at = state3 + text[state3..].find("txFinalized = TRUE").unwrap();
    let tampered = format!(
        "{}txFinalized = FALSE{}",
        &text[..at],
        &text[at + "txFinalized = TRUE".len()..]
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.starts_with("diverges at state 3 (dn-finalize-block"),
        "{stdout}"
    );
    assert!(
        stderr.contains("`txFinalized` in the trace: FALSE"),
        "{stderr}"
    );
    assert!(stderr.contains("`txFinalized` in the mirror"), "{stderr}");
    assert!(stderr.contains("tampered.out"), "{stderr}");
}

/// A random walk of `len` steps from the mirror's initial state, choosing successors by `choices`.
fn random_behaviour<M: Mirror>(mirror: &M, choices: &[usize]) -> Behaviour<M::State> {
    let mut states = vec![mirror.init().remove(0)];
    let mut steps = Vec::new();
    for c in choices {
        let next = mirror.next(states.last().unwrap());
        if next.is_empty() {
            break;
        }
        let step = next[c % next.len()].clone();
        steps.push(BehaviourStep {
            action: step.action,
            params: step.params,
            event: None,
        });
        states.push(step.next);
        if mirror.first_violated(states.last().unwrap()).is_some() {
            break;
        }
    }
    Behaviour {
        states,
        steps,
        violated: None,
    }
}

fn constants_of(config_text: &str) -> Constants {
    ozone_conform::tla::cfg::parse_cfg("shipped.cfg", config_text)
        .expect("shipped configs parse")
        .constants
}

/// Export → ITF text → parse → replay gives back the very actions and states.
fn export_parse_replay<M: Mirror>(
    config_text: &str,
    choices: &[usize],
) -> Result<(), TestCaseError> {
    let mirror = M::new(&constants_of(config_text)).expect("shipped constants");
    let b = random_behaviour(&mirror, choices);
    let trace = to_trace(&mirror, &b, |_| String::new());
    let itf = serde_json::to_string(&ozone_conform::tla::itf::to_itf(&trace)).unwrap();
    let file = read_trace_str("random.itf.json", itf).expect("our ITF parses");
    prop_assert_eq!(file.traces.len(), 1);
    let back = &file.traces[0];
    prop_assert_eq!(back.states.len(), b.states.len());
    match replay_with(&mirror, back) {
        Outcome::Conforms(a) => {
            let want: Vec<String> = b
                .steps
                .iter()
                .map(|s| action_text(s.action, &s.params))
                .collect();
            prop_assert_eq!(a.actions, want);
        }
        Outcome::Diverges(d) => {
            // A walk that ends in a violating state conforms only if the trace says so; ours does not, so
            // the mirror reports the violation as its divergence, at the walk's last state.
            let last = b.states.len() - 1;
            prop_assert!(
                mirror.first_violated(&b.states[last]).is_some() && d.state == last,
                "diverges at {}: {}",
                d.number,
                d.what
            );
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
        let spec = &SHIPPED[model];
        let config = spec.configs[usize::from(fixed)].1;
        with_mirror!(spec.model, M => export_parse_replay::<M>(config, &choices)?, _ => unreachable!());
    }
}
