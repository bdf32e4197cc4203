//! `ozone-conform check` on the scenario fixtures (`tests/fixtures/scenarios/README.md` gives every expected
//! verdict and line): for each model a violating, a healthy and a mid-flight log, as per-node files and as one
//! merged integration-test file.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common::{self, model};

fn bin() -> Command {
    common::bin_cols(120)
}

fn case_dir(model: &str, case: &str) -> PathBuf {
    Path::new("tests/fixtures/scenarios").join(model).join(case)
}

/// The per-node daemon files of a case, or its merged test-output file.
fn inputs(model: &str, case: &str, merged: bool) -> Vec<String> {
    let dir = case_dir(model, case);
    let dir = if merged { dir.join("merged") } else { dir };
    let mut v: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(&dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            dir.join(p.file_name().unwrap())
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// (file name suffix, line) of a violation's primary span.
fn primary(v: &Value) -> (String, u64) {
    let path = v["primary"]["path"].as_str().unwrap();
    (
        Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        v["primary"]["line"].as_u64().unwrap(),
    )
}

struct Expect {
    model: &'static str,
    daemon: &'static [(&'static str, &'static str, u64)],
    merged: &'static [(&'static str, u64)],
}

/// The violations each violating case must report with `--all` (invariant, file, line), from the README.
const VIOLATING: &[Expect] = &[
    Expect {
        model: "scm-secret-keys",
        daemon: &[
            ("KeyFileCoversDb", "ozone-hadoop-scm-scm3.log", 77),
            ("NoUnexpiredKeyDropped", "ozone-hadoop-scm-scm3.log", 153),
        ],
        merged: &[("KeyFileCoversDb", 171), ("NoUnexpiredKeyDropped", 242)],
    },
    Expect {
        model: "scm-finalization",
        daemon: &[
            ("VersionFileCoversDb", "ozone-hadoop-scm-scm3.log", 61),
            ("NoFinalizedDatanodeFenced", "ozone-hadoop-scm-scm3.log", 82),
        ],
        merged: &[
            ("VersionFileCoversDb", 266),
            ("NoFinalizedDatanodeFenced", 288),
        ],
    },
    Expect {
        model: "dn-finalize-block",
        daemon: &[
            (
                "NoPutBlockAfterFinalize",
                "ozone-hadoop-datanode-dn1.log",
                36,
            ),
            (
                "NoPutBlockAfterFinalize",
                "ozone-hadoop-datanode-dn2.log",
                34,
            ),
            (
                "NoPutBlockAfterFinalize",
                "ozone-hadoop-datanode-dn3.log",
                34,
            ),
        ],
        merged: &[
            ("NoPutBlockAfterFinalize", 62),
            ("NoPutBlockAfterFinalize", 63),
            ("NoPutBlockAfterFinalize", 64),
        ],
    },
    Expect {
        model: "recon-om-sync",
        daemon: &[(
            "DerivedTasksMatchOmLineage",
            "ozone-hadoop-recon-recon1.log",
            161,
        )],
        merged: &[("DerivedTasksMatchOmLineage", 189)],
    },
];

#[test]
fn violating_logs_report_the_first_violating_line_of_every_invariant() {
    for exp in VIOLATING {
        for merged in [false, true] {
            let files = inputs(exp.model, "violating", merged);
            let (code, report) = common::check_json(&["--all"], &files);
            assert_eq!(code, 1, "{} merged={merged}", exp.model);
            let m = model(&report, exp.model);
            assert_eq!(m["verdict"], "violated");
            let got: Vec<(String, String, u64)> = m["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| {
                    let (f, l) = primary(v);
                    (v["invariant"].as_str().unwrap().to_string(), f, l)
                })
                .collect();
            let want: Vec<(String, String, u64)> = if merged {
                let f = Path::new(&files[0])
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                exp.merged
                    .iter()
                    .map(|(i, l)| (i.to_string(), f.clone(), *l))
                    .collect()
            } else {
                exp.daemon
                    .iter()
                    .map(|(i, f, l)| (i.to_string(), f.to_string(), *l))
                    .collect()
            };
            for w in &want {
                assert!(
                    got.contains(w),
                    "{} merged={merged}: missing {w:?} in {got:?}",
                    exp.model
                );
            }
            // Every violation carries its causal chain and cites its spec.
            for v in m["violations"].as_array().unwrap() {
                assert!(!v["related"].as_array().unwrap().is_empty(), "{v}");
                assert_eq!(v["spec"]["invariant"], v["invariant"]);
                assert!(v["spec"]["line"].as_u64().unwrap() > 0);
            }
            // Without --all: exactly one violation per model, marked first, and it is the earliest.
            let (_, one) = common::check_json(&["--model", exp.model], &files);
            let vs = model(&one, exp.model)["violations"]
                .as_array()
                .unwrap()
                .clone();
            assert_eq!(vs.len(), 1);
            assert_eq!(vs[0]["first"], true);
        }
    }
}

#[test]
fn healthy_logs_conform_and_mid_flight_logs_are_inconclusive_never_violated() {
    for m in [
        "scm-secret-keys",
        "scm-finalization",
        "dn-finalize-block",
        "recon-om-sync",
    ] {
        for merged in [false, true] {
            let (code, report) = common::check_json(&[], &inputs(m, "healthy", merged));
            assert_eq!(
                model(&report, m)["verdict"],
                "conforms",
                "{m} healthy merged={merged}: {}",
                model(&report, m)
            );
            assert_eq!(code, 0, "{m} healthy merged={merged}");
            let (code, report) = common::check_json(&[], &inputs(m, "midflight", merged));
            let got = model(&report, m);
            assert_eq!(
                got["verdict"], "inconclusive",
                "{m} midflight merged={merged}: {got}"
            );
            assert!(!got["reason"].as_str().unwrap().is_empty());
            assert_eq!(code, 0);
        }
    }
}

#[test]
fn no_case_raises_a_false_alarm_in_another_model() {
    for exp in VIOLATING {
        for case in ["violating", "healthy", "midflight"] {
            for merged in [false, true] {
                let (_, report) = common::check_json(&[], &inputs(exp.model, case, merged));
                for m in report["models"].as_array().unwrap() {
                    if m["model"] != exp.model {
                        assert_ne!(
                            m["verdict"], "violated",
                            "{} {case} merged={merged}: {m}",
                            exp.model
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn missing_debug_lines_make_the_block_model_inconclusive_and_name_the_log4j_line() {
    for merged in [false, true] {
        let (code, report) = common::check_json(
            &["--model", "dn-finalize-block"],
            &inputs("dn-finalize-block", "nodebug", merged),
        );
        assert_eq!(code, 0);
        let m = model(&report, "dn-finalize-block");
        assert_eq!(m["verdict"], "inconclusive");
        assert!(m["reason"].as_str().unwrap().contains(
            "log4j.logger.org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl=DEBUG"
        ));
    }
}

#[test]
fn merged_order_keeps_each_node_and_stdin_works() {
    // The same story through stdin, with its node named on the command line.
    let file = &inputs("recon-om-sync", "violating", false)[0];
    let data = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let out = bin()
        .args([
            "check",
            "--format",
            "json",
            "--model",
            "recon-om-sync",
            "--node",
            "recon1",
            "-",
        ])
        .write_stdin(data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let viol = &v["models"][0]["violations"][0];
    assert_eq!(viol["primary"]["path"], "-");
    assert_eq!(viol["primary"]["line"], 161);
    assert_eq!(viol["node"], "recon1");
}

#[test]
fn usage_errors_exit_2() {
    let out = bin()
        .args(["check", "--model", "nope", "tests/fixtures/logs/daemon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // clap checks `--model` against the registry and lists every model it knows.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'nope' for '--model <NAME>'"),
        "{err}"
    );
    assert!(
        err.contains("scm-secret-keys, scm-finalization, dn-finalize-block, recon-om-sync"),
        "{err}"
    );
    let out = bin()
        .args(["check", "tests/fixtures/logs/edge/garbage.bin"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn terminal_report_snapshots() {
    for (name, model, merged) in [
        ("keys_daemon", "scm-secret-keys", false),
        ("finalization_merged", "scm-finalization", true),
        ("block_daemon", "dn-finalize-block", false),
        ("recon_daemon", "recon-om-sync", false),
    ] {
        let out = bin()
            .args(["check", "--format", "full"])
            .args(["--model", model])
            .args(inputs(model, "violating", merged))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        insta::assert_snapshot!(name, String::from_utf8_lossy(&out.stdout));
    }
    let out = bin()
        .args(["check", "--format", "full"])
        .args(inputs("scm-secret-keys", "midflight", false))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(
        "keys_midflight_summary",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_readme_example_command_finds_the_violation() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("ozone-conform check "))
        .expect("README opens with the check command");
    // The README's arguments, as paths relative to the repository (a directory or a glob).
    let files: Vec<String> = line
        .trim_start_matches("ozone-conform check ")
        .split_whitespace()
        .take_while(|a| !a.starts_with('#'))
        .flat_map(|a| {
            glob::glob(&format!("{}/{a}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
                .map(|p| p.unwrap().to_string_lossy().into_owned())
        })
        .collect();
    assert!(!files.is_empty(), "{line}");
    // On a terminal the default format is `full`; here stderr is a pipe, so ask for it.
    let out = bin()
        .args(["check", "--format", "full"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OZ-SCM-KEYS-001[KeyFileCoversDb]"),
        "{stdout}"
    );
    // The command exactly as in the README, in a pipe: the concise default, same violation.
    let out = bin().arg("check").args(&files).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(": error[OZ-SCM-KEYS-001]: ") && stdout.contains("[KeyFileCoversDb]"),
        "{stdout}"
    );
    // A newcomer's first run is clean: no warning.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_readme_names_no_path_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["README.md", "integrations/spark/README.md"] {
        let Ok(text) = std::fs::read_to_string(root.join(doc)) else {
            continue;
        };
        let outside: Vec<&str> = text.lines().filter(|l| l.contains("../shared")).collect();
        assert!(outside.is_empty(), "{doc}: {outside:#?}");
    }
}

/// Two SCMs whose clocks are 400 ms apart around a causal step: the verdict rests on clocks within the skew
/// tolerance, and the report says so; with a tighter tolerance it does not.
#[test]
fn an_order_resting_on_clocks_within_the_skew_is_reported_as_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let scm1 = "2026-08-23 10:00:00,500 [scm1-StateMachineUpdater] INFO org.apache.hadoop.ozone.upgrade.ComponentVersionManager: Version ZDU (100) has been finalized.\n";
    let scm3 = "2026-08-23 10:00:00,900 [IPC Server handler 0 on 9861] ERROR org.apache.hadoop.hdds.scm.node.SCMNodeManager: Datanode 0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(dn1/172.18.0.7) has apparent version ZDU (100) which is higher than SCM apparent version INITIAL_VERSION (0). SCM must finalize before datanodes.\n";
    std::fs::write(dir.path().join("ozone-hadoop-scm-scm1.log"), scm1).unwrap();
    std::fs::write(dir.path().join("ozone-hadoop-scm-scm3.log"), scm3).unwrap();
    let files = vec![dir.path().to_string_lossy().into_owned()];
    let (code, report) = common::check_json(&["--model", "scm-finalization"], &files);
    assert_eq!(code, 1);
    let v = &model(&report, "scm-finalization")["violations"][0];
    assert_eq!(v["invariant"], "NoFinalizedDatanodeFenced");
    let note = v["ambiguous_order"]
        .as_str()
        .expect("the order rests on clocks");
    assert!(
        note.contains("400 ms") && note.contains("1000 ms"),
        "{note}"
    );
    let (_, report) = common::check_json(
        &["--model", "scm-finalization", "--max-skew", "100"],
        &files,
    );
    assert!(model(&report, "scm-finalization")["violations"][0]["ambiguous_order"].is_null());
    let out = bin()
        .args(["check", "--max-skew=-5"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The same two SCMs with the peer's finalize 300 ms after the fence: by the clocks no violation, but the
/// other order would be one, so the verdict is inconclusive and says why.
#[test]
fn an_ambiguous_order_that_would_change_the_verdict_makes_it_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let scm1 = "2026-08-23 10:00:01,200 [scm1-StateMachineUpdater] INFO org.apache.hadoop.ozone.upgrade.ComponentVersionManager: Version ZDU (100) has been finalized.\n";
    let scm3 = "2026-08-23 10:00:00,900 [IPC Server handler 0 on 9861] ERROR org.apache.hadoop.hdds.scm.node.SCMNodeManager: Datanode 0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(dn1/172.18.0.7) has apparent version ZDU (100) which is higher than SCM apparent version INITIAL_VERSION (0). SCM must finalize before datanodes.\n";
    std::fs::write(dir.path().join("ozone-hadoop-scm-scm1.log"), scm1).unwrap();
    std::fs::write(dir.path().join("ozone-hadoop-scm-scm3.log"), scm3).unwrap();
    let files = vec![dir.path().to_string_lossy().into_owned()];
    let (code, report) = common::check_json(&["--model", "scm-finalization"], &files);
    assert_eq!(code, 0);
    let m = model(&report, "scm-finalization");
    assert_eq!(m["verdict"], "inconclusive");
    let reasons = m["reason"].as_str().unwrap();
    assert!(reasons.contains("fenced a datanode"), "{reasons}");
    assert!(
        reasons.contains("within the 1000 ms clock skew tolerance"),
        "{reasons}"
    );
    // With a tolerance below the 300 ms gap the clocks decide: still no violation, but no ambiguity either.
    let (_, report) = common::check_json(
        &["--model", "scm-finalization", "--max-skew", "100"],
        &files,
    );
    assert!(!model(&report, "scm-finalization")["reason"]
        .as_str()
        .unwrap()
        .contains("skew"));
}
