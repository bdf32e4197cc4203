//! `check --events`: the event streams `events` writes replay to the report a check of the logs gives, byte
//! for byte, however the streams arrive (one stream, one per file in any order, concatenated, on stdin).

use std::fs;
use std::path::{Path, PathBuf};

use crate::common;
use common::bin;

/// Every scenario directory's per-node logs (the `merged/` copies are their own run).
fn scenario_runs() -> Vec<Vec<PathBuf>> {
    let mut runs = Vec::new();
    let mut dirs: Vec<PathBuf> = walkdir::WalkDir::new("tests/fixtures/scenarios")
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.path().to_path_buf())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut logs: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "log"))
            .collect();
        logs.sort();
        if !logs.is_empty() {
            runs.push(logs);
        }
    }
    assert!(runs.len() >= 13, "scenario runs: {}", runs.len());
    runs
}

fn events_of(files: &[PathBuf]) -> Vec<u8> {
    let out = bin().arg("events").args(files).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `check --format json` and its exit code, with its extra arguments before the inputs.
fn check(extra: &[&str], inputs: &[&Path], stdin: Option<Vec<u8>>) -> (i32, String) {
    let mut c = bin();
    c.args(["check", "--format", "json"])
        .args(extra)
        .args(inputs);
    if let Some(s) = stdin {
        c.write_stdin(s);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The report without its `inputs` section: from `"models"` on, byte for byte.
fn models_part(report: &str) -> &str {
    let at = report.find("\n  \"models\"").expect("a models section");
    &report[at..]
}

#[test]
fn every_scenario_replays_from_its_events_to_the_same_report() {
    let tmp = tempfile::tempdir().unwrap();
    for logs in scenario_runs() {
        let files: Vec<&Path> = logs.iter().map(|p| p.as_path()).collect();
        let (want_code, want) = check(&[], &files, None);
        assert!(want_code <= 1, "{logs:?}: {want}");

        // One stream of all files.
        let stream = tmp.path().join("all.jsonl");
        fs::write(&stream, events_of(&logs)).unwrap();
        let (code, got) = check(&["--events"], &[&stream], None);
        assert_eq!(code, want_code, "{logs:?}");
        assert_eq!(models_part(&got), models_part(&want), "{logs:?}");
        assert_eq!(got, want, "{logs:?}: even `inputs` is the same");

        // One stream per file, given in reverse order, and the same concatenated on stdin.
        let mut per_file = Vec::new();
        let mut concatenated = Vec::new();
        for (i, log) in logs.iter().enumerate().rev() {
            let s = tmp.path().join(format!("part{i}.jsonl"));
            let bytes = events_of(std::slice::from_ref(log));
            concatenated.extend_from_slice(&bytes);
            fs::write(&s, bytes).unwrap();
            per_file.push(s);
        }
        let parts: Vec<&Path> = per_file.iter().map(|p| p.as_path()).collect();
        let (code, got) = check(&["--events"], &parts, None);
        assert_eq!(code, want_code, "{logs:?} per file");
        assert_eq!(models_part(&got), models_part(&want), "{logs:?} per file");
        let (code, got) = check(&["--events"], &[Path::new("-")], Some(concatenated));
        assert_eq!(code, want_code, "{logs:?} on stdin");
        assert_eq!(models_part(&got), models_part(&want), "{logs:?} on stdin");
    }
}

#[test]
fn surefire_runs_replay_per_file_from_their_events() {
    let dir = Path::new("tests/fixtures/surefire");
    let (want_code, want) = check(&["--per-file"], &[dir], None);
    let tmp = tempfile::tempdir().unwrap();
    let stream = tmp.path().join("surefire.jsonl");
    fs::write(&stream, events_of(&[dir.to_path_buf()])).unwrap();
    let (code, got) = check(&["--events", "--per-file"], &[&stream], None);
    assert_eq!(code, want_code);
    // An array of runs, one per test class: the whole of it, `inputs` too, is the same.
    assert!(want.matches("\"models\"").count() >= 5, "{want}");
    assert_eq!(got, want);
}

#[test]
fn the_full_report_from_events_shows_the_log_lines() {
    let logs = &scenario_runs()
        .into_iter()
        .find(|r| r[0].to_string_lossy().contains("scm-secret-keys/violating"))
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let stream = tmp.path().join("s.jsonl");
    fs::write(&stream, events_of(logs)).unwrap();
    let full = |args: &[&Path], events: bool| {
        let mut c = bin();
        c.args(["check", "--format", "full"]);
        if events {
            c.arg("--events");
        }
        let out = c.args(args).output().unwrap();
        String::from_utf8(out.stderr).unwrap() + &String::from_utf8(out.stdout).unwrap()
    };
    let files: Vec<&Path> = logs.iter().map(|p| p.as_path()).collect();
    assert_eq!(full(&[&stream], true), full(&files, false));
}

#[test]
fn a_bad_stream_is_an_error_with_its_line() {
    let logs = &scenario_runs()[0];
    let text = String::from_utf8(events_of(logs)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            text.replacen("\"version\":1", "\"version\":2", 1),
            "s.jsonl:1: the stream is version 2 of the event contract",
        ),
        (
            {
                let mut lines: Vec<&str> = text.lines().collect();
                lines[3] = "{\"event\": garbage";
                lines.join("\n")
            },
            "s.jsonl:4: not a JSON object of an ozone-conform event stream",
        ),
        (
            text.lines().skip(1).collect::<Vec<_>>().join("\n"),
            "s.jsonl:1: an event before any header",
        ),
    ];
    for (stream, want) in cases {
        let path = tmp.path().join("s.jsonl");
        fs::write(&path, stream).unwrap();
        let out = bin()
            .args(["check", "--events", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "want {want:?} in {err}");
    }
}

#[test]
fn a_cut_stream_is_checked_and_fails_the_run() {
    let logs = &scenario_runs()[0];
    let text = String::from_utf8(events_of(logs)).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    let cut = cut[..cut.len() - 3].join("\n");
    let out = bin()
        .args(["check", "--events", "--format", "json", "-"])
        .write_stdin(cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no end object"));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["models"].as_array().is_some_and(|m| !m.is_empty()));
}
