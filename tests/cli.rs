//! CLI tests on fixture logs written from Ozone's real log templates, and on the real snippets in
//! `../shared/corpus` (skipped when that folder is absent).

use assert_cmd::Command;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common;

fn bin() -> Command {
    common::bin_cols(100)
}

fn fixture(rel: &str) -> String {
    format!("tests/fixtures/logs/{rel}")
}

fn abs(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs `events`, asserts success, returns the parsed event lines (the stream's framing checked and left out).
fn events(args: &[&str]) -> Vec<Value> {
    let out = bin().arg("events").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "events {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    event_lines(&out.stdout)
}

/// The events of an event stream, after checking that each input's part has its header and its end.
fn event_lines(stream: &[u8]) -> Vec<Value> {
    let lines: Vec<Value> = std::str::from_utf8(stream)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let headers = lines
        .iter()
        .filter(|l| l["stream"] == "ozone-conform-events")
        .count();
    let ends = lines.iter().filter(|l| l.get("end").is_some()).count();
    assert!(
        headers >= 1 && headers == ends,
        "{headers} headers, {ends} ends"
    );
    assert_eq!(lines[0]["version"], 1);
    lines
        .into_iter()
        .filter(|l| l.get("event").is_some())
        .collect()
}

fn kinds(evs: &[Value]) -> Vec<&str> {
    evs.iter().map(|e| e["event"].as_str().unwrap()).collect()
}

/// Every event's span must point at its record: the bytes at `byte_offset` are the start of line `line`.
fn assert_spans_point_at_records(evs: &[Value]) {
    for e in evs {
        let src = &e["source"];
        let path = src["path"].as_str().unwrap();
        let data = std::fs::read(abs(path)).unwrap();
        let off = src["byte_offset"].as_u64().unwrap() as usize;
        let len = src["byte_len"].as_u64().unwrap() as usize;
        let line = src["line"].as_u64().unwrap() as usize;
        let line_start = if line == 1 {
            0
        } else {
            memchr_nth_newline(&data, line - 1) + 1
        };
        assert_eq!(
            off, line_start,
            "{path}: event {} at line {line}",
            e["event"]
        );
        assert!(off + len <= data.len());
        // The span ends where a line ends (before its newline, or at the end of the input).
        assert!(
            matches!(data.get(off + len), None | Some(b'\n') | Some(b'\r')),
            "span ends mid-line: {e}"
        );
    }
}

fn memchr_nth_newline(data: &[u8], n: usize) -> usize {
    data.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n - 1)
        .unwrap()
        .0
}

#[test]
fn daemon_logs_give_events_with_file_name_nodes_and_exact_spans() {
    let evs = events(&[&fixture("daemon")]);
    assert!(evs.len() > 50);
    assert_spans_point_at_records(&evs);
    for e in &evs {
        assert_eq!(e["node_from"], "file-name");
        let path = e["source"]["path"].as_str().unwrap();
        let node = e["node"].as_str().unwrap();
        assert!(path.ends_with(&format!("-{node}.log")), "{path} vs {node}");
    }
    let scm: Vec<Value> = evs
        .iter()
        .filter(|e| e["node"] == "scm1")
        .cloned()
        .collect();
    let k = kinds(&scm);
    assert_eq!(k.first(), Some(&"ProcessStarted"));
    assert_eq!(k.last(), Some(&"ProcessShutdown"));
    for needed in [
        "CheckpointInstalled",
        "StateMachineReinitializing",
        "SecretKeysSaved",
        "SignalReceived",
        "SecretKeysFetched",
    ] {
        assert!(k.contains(&needed), "missing {needed} in {k:?}");
    }
    let installed = scm
        .iter()
        .find(|e| e["event"] == "CheckpointInstalled")
        .unwrap();
    assert!(installed["fields"]["term"].is_u64() && installed["fields"]["index"].is_u64());
    assert_eq!(installed["component"], "scm");
    // The banner is one record of several lines; its span covers all of them.
    let banner = &scm[0];
    assert_eq!(banner["source"]["line"], 1);
    assert_eq!(banner["fields"]["host"]["host"], "scm1");
    let banner_text = std::fs::read_to_string(fixture("daemon/ozone-hadoop-scm-scm1.log")).unwrap();
    let banner_len = banner["source"]["byte_len"].as_u64().unwrap() as usize;
    assert!(banner_text[..banner_len]
        .ends_with("************************************************************/"));
    // The datanode's DEBUG commit lines are events too.
    assert!(evs
        .iter()
        .any(|e| e["event"] == "BlockCommitted" && e["node"] == "dn1" && e["level"] == "DEBUG"));
}

#[test]
fn stdin_is_streamed_and_takes_its_node_from_the_flag() {
    let data = std::fs::read(fixture("console/stdin-sample.log")).unwrap();
    let out = bin()
        .args(["events", "--node", "scm9", "-"])
        .write_stdin(data)
        .output()
        .unwrap();
    assert!(out.status.success());
    let evs = event_lines(&out.stdout);
    assert!(!evs.is_empty());
    for e in &evs {
        assert_eq!(e["node"], "scm9");
        assert_eq!(e["node_from"], "cli");
        assert_eq!(e["source"]["path"], "-");
    }
}

#[test]
fn gzip_is_recognised_by_magic_bytes_whatever_the_name() {
    let plain = events(&[&fixture("daemon/ozone-hadoop-scm-scm1.log")]);
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("ozone-hadoop-scm-scm1.log");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(&std::fs::read(fixture("daemon/ozone-hadoop-scm-scm1.log")).unwrap())
        .unwrap();
    enc.finish().unwrap();
    let zipped = events(&[gz.to_str().unwrap()]);
    assert_eq!(zipped.len(), plain.len());
    for (a, b) in plain.iter().zip(&zipped) {
        assert_eq!(a["event"], b["event"]);
        assert_eq!(a["fields"], b["fields"]);
        assert_eq!(a["source"]["line"], b["source"]["line"]);
        assert_eq!(a["source"]["byte_offset"], b["source"]["byte_offset"]);
    }
    // Through stdin as well.
    let out = bin()
        .args(["events", "-"])
        .write_stdin(std::fs::read(&gz).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(event_lines(&out.stdout).len(), plain.len());
}

#[test]
fn truncated_gzip_is_an_input_error_with_its_location_and_keeps_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for _ in 0..200 {
        data.extend_from_slice(
            &std::fs::read(fixture("daemon/ozone-hadoop-scm-scm1.log")).unwrap(),
        );
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&data).unwrap();
    let full = enc.finish().unwrap();
    let cut = dir.path().join("cut.log.gz");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let out = bin()
        .args(["events", cut.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("read error at byte"), "{stderr}");
    assert!(stderr.contains("ends early"), "{stderr}");
    assert!(
        !out.stdout.is_empty(),
        "events before the cut are still reported"
    );
}

#[test]
fn directories_recurse_and_rotated_files_come_oldest_first() {
    let evs = events(&[&fixture("edge/rotated")]);
    let paths: Vec<&str> = evs
        .iter()
        .map(|e| e["source"]["path"].as_str().unwrap())
        .collect();
    let first_live = paths.iter().position(|p| p.ends_with(".log")).unwrap();
    assert!(paths[..first_live].iter().all(|p| p.ends_with(".log.1")));
    assert!(paths[first_live..].iter().all(|p| p.ends_with(".log")));
    assert!(first_live > 0);
    // Times never go backwards across the rotation.
    let times: Vec<&str> = evs.iter().map(|e| e["time"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // A glob gives the same inputs.
    let globbed = events(&[&fixture("edge/rotated/ozone-hadoop-scm-scm1.log*")]);
    assert_eq!(globbed.len(), evs.len());
}

#[test]
fn docker_compose_output_is_split_per_container() {
    let evs = events(&[&fixture("compose/docker-compose.log")]);
    let nodes: std::collections::BTreeSet<&str> =
        evs.iter().map(|e| e["node"].as_str().unwrap()).collect();
    assert_eq!(
        nodes.into_iter().collect::<Vec<_>>(),
        ["datanode_1", "recon_1", "scm_1"]
    );
    let banners = evs
        .iter()
        .filter(|e| e["event"] == "ProcessStarted")
        .count();
    assert!(banners >= 3);
    let evs = events(&[&fixture("compose/om-ha-short.log")]);
    assert!(evs.iter().any(|e| e["event"] == "CheckpointInstalled"));
}

#[test]
fn integration_test_output_names_nodes_by_thread_or_says_it_cannot() {
    let evs = events(&[&fixture("integration/TestScmSnapshotInstall-output.txt")]);
    assert_spans_point_at_records(&evs);
    for e in &evs {
        let thread = e["thread"].as_str().unwrap();
        match e["node_from"].as_str() {
            Some("thread-prefix") => assert!(thread.starts_with(e["node"].as_str().unwrap())),
            Some("ratis-member") => assert!(thread.starts_with(e["node"].as_str().unwrap())),
            None => assert!(e["node"].is_null()),
            other => panic!("unexpected node source {other:?}"),
        }
        if thread == "main" {
            assert!(e["node"].is_null(), "a main-thread line names no node: {e}");
        }
    }
    assert!(evs
        .iter()
        .any(|e| e["node"] == "scm2" && e["event"] == "SecretKeysFetched"));
}

#[test]
fn edge_inputs_crlf_invalid_utf8_and_no_final_newline() {
    for f in [
        "edge/crlf.log",
        "edge/invalid-utf8.log",
        "edge/no-final-newline.log",
    ] {
        let out = bin()
            .args(["stats", "--format", "json", &fixture(f)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{f}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &v["inputs"][0];
        assert_eq!(s["unparsed"], 0, "{f}");
        assert_eq!(s["lines"], s["records"], "{f}: every line is a record");
    }
    let evs = events(&[&fixture("edge/crlf.log")]);
    for e in &evs {
        for (_, v) in e["fields"].as_object().unwrap() {
            assert!(!v.to_string().contains("\\r"), "CR leaked into {e}");
        }
    }
    assert_spans_point_at_records(&events(&[&fixture("edge/no-final-newline.log")]));
    let evs = events(&[&fixture("edge/invalid-utf8.log")]);
    assert!(!evs.is_empty());
}

#[test]
fn garbage_fits_no_layout_and_says_so() {
    let out = bin()
        .args(["events", "-v", &fixture("edge/garbage.bin")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no known log layout"), "{stderr}");
    assert!(stderr.contains("--layout"));
    assert!(
        stderr.contains("garbage.bin:1: unparsed (no-layout)"),
        "{stderr}"
    );
    // Control bytes from the input never reach the terminal raw.
    assert!(
        !stderr.bytes().any(|b| b < 0x20 && b != b'\n' && b != b'\t'),
        "raw control bytes in stderr"
    );
}

#[test]
fn huge_lines_are_reported_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    let mut data = b"2026-08-23 10:00:00,000 [main] INFO org.apache.X: ".to_vec();
    data.extend(std::iter::repeat_n(b'a', 17 << 20));
    data.extend_from_slice(b"\n2026-08-23 10:00:01,000 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202\n");
    std::fs::write(&path, &data).unwrap();
    let out = bin()
        .args(["stats", "--format", "json", path.to_str().unwrap()])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["inputs"][0];
    assert_eq!(s["long_lines"], 1);
    assert_eq!(s["lines"], 2);
    assert_eq!(s["records"], 2);
    assert_eq!(s["events"], 1);
}

#[test]
fn user_layout_patterns_and_their_errors() {
    let evs = events(&[
        "--layout",
        "%d{ISO8601} [%t] %p %c: %m%n",
        &fixture("daemon/ozone-hadoop-scm-scm1.log"),
    ]);
    assert!(evs.len() > 10);
    let out = bin()
        .args([
            "stats",
            "--layout",
            "%d{ISO8601} [%t] %q %c: %m%n",
            &fixture("daemon"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!("bad_layout", String::from_utf8_lossy(&out.stderr));
    // A pattern that does not fit is reported, not silently accepted.
    let out = bin()
        .args([
            "stats",
            "--layout",
            "test",
            &fixture("daemon/ozone-hadoop-scm-scm1.log"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn malformed_grammar_points_into_the_grammar_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.rules"),
        "# my Ozone version\nevent CheckpointInstalled\n  logger org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl\n  level INFO\n  message \"Replaced DB with checkpoint, term: {term:u64}, index: {index:u64}\"\n  sample \"Replaced DB with checkpoint, term: 2, index: two\"\n",
    )
    .unwrap();
    let out = bin()
        .args(["grammar", "--grammar", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr =
        String::from_utf8_lossy(&out.stderr).replace(dir.path().to_str().unwrap(), "<dir>");
    insta::assert_snapshot!("bad_grammar_sample", stderr);
}

#[test]
fn grammar_override_replaces_a_shipped_rule() {
    let dir = tempfile::tempdir().unwrap();
    // An Ozone version that words the line differently.
    std::fs::write(
        dir.path().join("v2.rules"),
        "event CheckpointInstalled\n  logger org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl\n  level INFO\n  message \"DB replaced by checkpoint {term:u64}#{index:u64}\"\n  sample \"DB replaced by checkpoint 2#202\"\n",
    )
    .unwrap();
    let log = dir.path().join("ozone-hadoop-scm-scmX.log");
    std::fs::write(&log, "2026-08-23 10:00:01,000 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: DB replaced by checkpoint 4#400\n2026-08-23 10:00:02,000 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202\n").unwrap();
    let evs = events(&[
        "--grammar",
        dir.path().to_str().unwrap(),
        log.to_str().unwrap(),
    ]);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0]["fields"]["index"], 400);
}

#[test]
fn missing_inputs_are_usage_errors() {
    let out = bin().args(["events", "no/such/file.log"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.log"));
    let out = bin().args(["events", "no/such/*.log"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().arg("events").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_is_named_as_one_not_as_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.log");
    let b = dir.path().join("b.log");
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    for cmd in ["events", "check"] {
        let out = bin().args([cmd, a.to_str().unwrap()]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("symlink loop"), "{cmd}: {err}");
        assert!(err.contains(a.to_str().unwrap()), "{cmd}: {err}");
        assert!(!err.contains("no such file"), "{cmd}: {err}");
    }
    // A dangling link is still a missing file.
    let c = dir.path().join("c.log");
    std::os::unix::fs::symlink(dir.path().join("gone.log"), &c).unwrap();
    let out = bin()
        .args(["events", c.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
}

#[test]
fn stats_report_layout_records_unparsed_and_events() {
    let out = bin()
        .args([
            "stats",
            &fixture("compose/docker-compose.log"),
            &fixture("integration"),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    insta::assert_snapshot!(
        "stats_compose_and_integration",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = bin()
        .args(["stats", "-v", &fixture("compose/docker-compose.log")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("docker-compose.log:1: unparsed (docker-compose): Attaching to"),
        "{stderr}"
    );
}

#[test]
#[cfg_attr(shared_corpus_absent, ignore = "../shared/corpus is absent")]
fn every_real_corpus_snippet_is_read_with_its_layout_and_no_unexplained_lines() {
    let dir = abs("../shared/corpus/ozone-logs");
    if !dir.is_dir() {
        // Past libtest's capture, so the skip shows in the log.
        let _ = writeln!(std::io::stderr(), "SKIPPED: {} is absent", dir.display());
        return;
    }
    let expected = [
        ("audit-om-parser-fixture.log", "audit"),
        ("client-om-failover-kerberos-2024.log", "hadoop-client"),
        ("compose-datanode-ratis-exceptions-2019.log", "threadless"),
        ("compose-om-ha-banners-short-layout-2019.log", "om-ha"),
        ("dn-container-log-2026.log", "dn-container"),
        ("minicluster-secure-test-output-2019.log", "test"),
        ("om-insight-trace-protobuf-2020.log", "ozone-insight"),
    ];
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".log") {
            continue;
        }
        seen += 1;
        let layout = expected
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| *l)
            .unwrap_or_else(|| panic!("new corpus file {name}: add its layout"));
        let out = bin()
            .args(["stats", "--format", "json", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &v["inputs"][0];
        assert_eq!(s["layout"], layout, "{name}");
        assert_eq!(s["layout_from"], "detected");
        for (reason, n) in s["unparsed_by_reason"].as_object().unwrap() {
            assert!(
                [
                    "docker-compose",
                    "jvm-message",
                    "logging-framework",
                    "blank"
                ]
                .contains(&reason.as_str()),
                "{name}: {n} unexplained unparsed line(s) ({reason})"
            );
        }
        assert!(s["records"].as_u64().unwrap() > 0);
    }
    assert_eq!(seen, expected.len());
    // The banners of the real compose output become lifecycle events for every container.
    let evs = events(&[dir
        .join("compose-om-ha-banners-short-layout-2019.log")
        .to_str()
        .unwrap()]);
    let started: std::collections::BTreeSet<&str> = evs
        .iter()
        .filter(|e| e["event"] == "ProcessStarted")
        .map(|e| e["node"].as_str().unwrap())
        .collect();
    assert_eq!(started.len(), 7, "{started:?}");
}

/// A reader that closes the pipe early (`| head -c 100`) ends the output quietly, and the exit code is still
/// the answer's, every time. The pipe's read end is closed before the command writes, so every write fails.
#[test]
fn a_closed_stdout_ends_the_output_quietly_and_keeps_the_exit_code() {
    let root = env!("CARGO_MANIFEST_DIR");
    let violating = format!("{root}/tests/fixtures/scenarios/scm-secret-keys/violating");
    let healthy = format!("{root}/tests/fixtures/scenarios/scm-secret-keys/healthy");
    let bug_out = format!("{root}/traces/scm-secret-keys/tlc/bug.out");
    let logs = |dir: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let with = |head: &[&str], files: Vec<String>| -> Vec<String> {
        head.iter().map(|s| s.to_string()).chain(files).collect()
    };
    let cases: Vec<(Vec<String>, i32)> = vec![
        (with(&["stats", "--format", "json"], logs(&violating)), 0),
        (with(&["check", "--format", "sarif"], logs(&violating)), 1),
        (with(&["check", "--format", "json"], logs(&violating)), 1),
        (with(&["check", "--format", "concise"], logs(&healthy)), 0),
        (with(&["events"], logs(&violating)), 0),
        (with(&["trace"], vec![bug_out.clone()]), 1),
        (with(&["convert"], vec![bug_out.clone()]), 0),
    ];
    let bin = assert_cmd::cargo::cargo_bin("ozone-conform");
    for (args, want) in cases {
        for _ in 0..5 {
            let mut child = std::process::Command::new(&bin)
                .args(&args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            drop(child.stdout.take());
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(want), "{args:?}: {err}");
            assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        }
    }
}

#[test]
fn version_names_the_commit_the_grammar_and_the_specs() {
    let out = bin().arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "ozone-conform {} (git ",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
    let rules = ozone_conform::grammar::Grammar::embedded()
        .unwrap()
        .rules
        .len();
    assert!(
        text.contains(&format!("grammar: {rules} rules embedded")),
        "{text}"
    );
    for b in &ozone_conform::bugs::BUGS {
        assert!(
            text.contains(&format!("{} ({})", b.mirror.module(), b.name())),
            "{text}"
        );
    }
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = bin().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("ozone-conform")
                && text.contains("follow")
                && text.contains("completions"),
            "{shell}"
        );
    }
    let out = bin().arg("man").output().unwrap();
    assert!(out.status.success());
    let roff = String::from_utf8(out.stdout).unwrap();
    assert!(
        roff.starts_with(".ie") || roff.contains(".TH ozone-conform"),
        "{roff}"
    );
    assert!(roff.contains("completions"));
}

const KEYS_VIOLATING: &str = "tests/fixtures/scenarios/scm-secret-keys/violating";

#[test]
fn quiet_prints_nothing_but_keeps_the_exit_code() {
    let out = bin()
        .args(["check", "--quiet", KEYS_VIOLATING])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Errors still show.
    let out = bin()
        .args(["check", "-q", "no/such/file.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!out.stderr.is_empty());
}

#[test]
fn color_always_colours_a_pipe_and_never_does_not() {
    let run = |color: &str| {
        let out = bin()
            .env_remove("NO_COLOR")
            .args([
                "check",
                "--format",
                "full",
                "--color",
                color,
                KEYS_VIOLATING,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(run("always").contains('\u{1b}'));
    assert!(!run("never").contains('\u{1b}'));
    assert!(!run("auto").contains('\u{1b}'), "a pipe is not a terminal");
}

#[test]
fn output_writes_the_report_to_a_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let out = bin()
        .args(["check", "--format", "json", "-o"])
        .arg(&path)
        .arg(KEYS_VIOLATING)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["version"], 1);
    // Only the report is there: the temporary file was renamed, not left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
    // A directory that does not exist is an error with its path, not a panic.
    let out = bin()
        .args(["check", "-o", "no/such/dir/r.txt", KEYS_VIOLATING])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir/r.txt"));
}

#[test]
fn export_to_a_directory_prints_clean_paths() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args([
            "export",
            "--model",
            "scm-secret-keys",
            "--to",
            "tla",
            "-o",
            "out/",
        ])
        .arg(abs(KEYS_VIOLATING))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("wrote out/ScmSecretKeysTrace.tla, out/ScmSecretKeysTrace.cfg and out/ScmSecretKeys.tla; check with: cd out &&"),
        "{stderr}"
    );
    assert!(!stderr.contains("//"), "{stderr}");
    assert!(dir.path().join("out/ScmSecretKeysTrace.tla").is_file());
}

/// Each scenario's `violating/` holds the per-node logs and a `merged/` single-JVM copy of the same story:
/// checking the directory gives the verdicts and counts of the per-node logs alone, and says why.
#[test]
fn a_scenario_directory_with_a_merged_copy_is_not_double_counted() {
    for scenario in [
        "scm-secret-keys",
        "scm-finalization",
        "dn-finalize-block",
        "recon-om-sync",
    ] {
        let dir = format!("tests/fixtures/scenarios/{scenario}/violating");
        let mut per_node: Vec<String> = std::fs::read_dir(abs(&dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
            .collect();
        per_node.sort();
        let verdicts = |args: &[String]| {
            let out = bin()
                .args(["check", "--all", "--format", "json"])
                .args(args)
                .output()
                .unwrap();
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            let models: Vec<(String, String, usize)> = doc["models"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["model"].as_str().unwrap().to_string(),
                        m["verdict"].as_str().unwrap().to_string(),
                        m["violations"].as_array().map_or(0, Vec::len),
                    )
                })
                .collect();
            (
                out.status.code(),
                models,
                String::from_utf8(out.stderr).unwrap(),
            )
        };
        let (code, alone, _) = verdicts(&per_node);
        let (dir_code, whole, warning) = verdicts(std::slice::from_ref(&dir));
        assert_eq!(dir_code, code, "{scenario}");
        assert_eq!(whole, alone, "{scenario}");
        assert!(
            alone
                .iter()
                .any(|(m, v, n)| m == scenario && v == "violated" && *n > 0),
            "{scenario}: {alone:?}"
        );
        assert!(
            warning.contains("merged/") && warning.contains("read once, from the per-node logs"),
            "{scenario}: {warning}"
        );
    }
}

/// `cat /dev/urandom | check -`: an endless input that fits no layout ends with the error a file of those
/// bytes gets, after a bounded prefix (the first block decides the layout for good).
#[test]
fn an_endless_pipe_of_garbage_ends_with_the_no_layout_error() {
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Pseudo-random bytes, written until the reader goes away (a broken pipe ends the writer).
    let writer = std::thread::spawn(move || {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut written = 0u64;
        loop {
            let chunk: Vec<u8> = (0..65_536)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            if stdin.write_all(&chunk).is_err() || written > 1 << 30 {
                return written;
            }
            written += chunk.len() as u64;
        }
    });
    let out = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("-: no known log layout fits this input"),
        "{err}"
    );
    assert!(written < 1 << 30, "read {written} bytes of garbage");
}

#[test]
fn stats_says_which_test_output_check_leaves_out() {
    let dir = "tests/fixtures/scenarios/scm-secret-keys/violating/";
    let out = bin().args(["stats", dir]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let merged = text
        .split("\ntests/")
        .find(|s| s.contains("merged/"))
        .expect("the merged copy is listed");
    assert!(
        merged
            .contains("  check       leaves it out: it retells the per-node logs given with it ("),
        "{merged}"
    );
    // The per-node logs themselves are read.
    assert_eq!(text.matches("leaves it out").count(), 1, "{text}");
    let out = bin()
        .args(["stats", "--format", "json", dir])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let with_repeats: Vec<&serde_json::Value> = v["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i.get("repeats").is_some())
        .collect();
    assert_eq!(with_repeats.len(), 1);
    assert!(with_repeats[0]["path"]
        .as_str()
        .unwrap()
        .contains("/merged/"));
}
