//! `check --require-checks` (exit 3 when no model made a check: a CI job pointed at the wrong logs fails)
//! and the closing line of a `--per-file` report.

use crate::common;
use common::bin;

const SUREFIRE: &str = "tests/fixtures/surefire";

#[test]
fn logs_of_nothing_pass_without_the_flag_and_fail_with_exit_3_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let out = bin().arg("check").arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "unchanged without the flag");
    let out = bin()
        .args(["check", "--require-checks"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no model made a check in these inputs (--require-checks)"),
        "{err}"
    );
    // A log the models know nothing of is the same story, on stdin too.
    let out = bin()
        .args(["check", "--require-checks", "--format", "concise", "-"])
        .write_stdin("2026-08-23 11:00:03,116 [main] INFO org.example.Foo: hello\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_check_made_passes_and_a_violation_still_exits_1() {
    let healthy = "tests/fixtures/scenarios/recon-om-sync/healthy/ozone-hadoop-recon-recon1.log";
    let out = bin()
        .args(["check", "--require-checks", healthy])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bin()
        .args([
            "check",
            "--require-checks",
            "tests/fixtures/scenarios/recon-om-sync/violating/ozone-hadoop-recon-recon1.log",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // With --per-file, one file with a check is enough.
    let out = bin()
        .args([
            "check",
            "--require-checks",
            "--per-file",
            "--model",
            "recon-om-sync",
            SUREFIRE,
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn per_file_ends_with_one_line_that_counts_the_files() {
    for format in ["concise", "full"] {
        let out = bin()
            .args(["check", "--per-file", "--format", format, SUREFIRE])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            stdout.lines().last().unwrap(),
            "ozone-conform: 5 files: 2 with a violation, 2 conform, 1 where every model was inconclusive",
            "{format}: {stdout}"
        );
    }
    // Without --per-file there is one run, and no such line.
    let out = bin()
        .args(["check", "--format", "concise", SUREFIRE])
        .output()
        .unwrap();
    assert!(!String::from_utf8(out.stdout).unwrap().contains(" files: "));
}
