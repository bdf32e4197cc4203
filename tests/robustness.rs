//! Bad input never panics and nothing is dropped: arbitrary bytes, patterns and grammar text.

use ozone_conform::grammar::{parse_rules, Grammar};
use ozone_conform::input::Source;
use ozone_conform::layout::Layout;
use ozone_conform::scan::{scan_input, ScanOptions};
use proptest::prelude::*;

/// Pieces of real lines, so that generated inputs hit headers, banners and continuations, not only noise.
const PIECES: &[&[u8]] = &[
    b"2026-08-23 10:15:30,123 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202",
    b"2026-08-23 10:15:30,123 [x] INFO org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter: STARTUP_MSG: ",
    b"/************************************************************",
    b"STARTUP_MSG: Starting StorageContainerManager",
    b"STARTUP_MSG:   host = scm1/172.18.0.4",
    b"\tat org.apache.X.y(X.java:1)",
    b"scm_1    | ",
    b"2026-08-23 10:15:30,123 [IPC Server handler 1 on 9861] ERROR ha.SCMStateMachine: Failed to reinitialize SCMStateMachine.",
    b"2026-08-23 10:15:30 INFO  SCMHAManagerImpl:317 - Replaced DB with checkpoint, term: 1, index: 99999999999999999999999",
    b"\r",
    b"\n",
    b"\xff\xfe\x00",
    b"Got secret keys from leaders [SecretKey(id = a, creation at: x, expire at: 2026-13-40T99:00:00Z)]",
];

fn grammar() -> &'static Grammar {
    static G: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    G.get_or_init(|| Grammar::embedded().unwrap())
}

fn input_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(PIECES).prop_map(|p| p.to_vec()),
            prop::collection::vec(any::<u8>(), 0..40),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn scanning_arbitrary_bytes_never_panics_and_accounts_for_every_line(data in input_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz.log");
        std::fs::write(&path, &data).unwrap();
        let grammar = grammar();
        let mut events = Vec::new();
        let stats = scan_input(0, &Source::File(path), grammar, &ScanOptions::default(), |e| events.push(e), |_| {});
        let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
        let expected_lines = newlines + u64::from(!data.is_empty() && !data.ends_with(b"\n"));
        prop_assert_eq!(stats.lines, expected_lines);
        prop_assert_eq!(stats.records + stats.continuation_lines + stats.unparsed, stats.lines);
        for e in &events {
            prop_assert!(e.span.byte_offset + e.span.byte_len <= data.len() as u64);
            prop_assert!(e.span.line >= 1 && e.span.line <= expected_lines);
        }
    }

    #[test]
    fn arbitrary_patterns_never_panic(pattern in "[%dtpcmnLFM{}\\[\\] :|,.a-z0-9-]{0,40}", line in ".{0,80}") {
        if let Ok(layout) = Layout::compile("p", &pattern) {
            let _ = layout.match_header(line.as_bytes());
        }
    }

    #[test]
    fn arbitrary_grammar_text_never_panics(text in "(event [A-Za-z#]{0,20}\n|  (logger|level|message|sample|source|component) [^\n]{0,40}\n|component [a-z]{0,8}\n|# [^\n]{0,10}\n){0,8}") {
        let _ = parse_rules("fuzz.rules", &text);
    }
}

/// A diagnostic whose label starts past column 65,535 once panicked inside miette (`Formatting argument out
/// of range`, exit 101). It is now told in words, with the location, and the command exits 2.
#[test]
fn a_diagnostic_on_a_very_long_line_is_told_in_words_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.json");
    std::fs::write(&wide, format!("[{}x]\n", " ".repeat(70_000))).unwrap();
    let rules = dir.path().join("g");
    std::fs::create_dir(&rules).unwrap();
    std::fs::write(
        rules.join("bad.rules"),
        format!("event X{}zzz\n", " ".repeat(70_000)),
    )
    .unwrap();
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/scenarios/recon-om-sync/healthy/ozone-hadoop-recon-recon1.log"
    );
    let layout = format!("%d {}%q", " ".repeat(70_000));
    let w = wide.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["convert", w], "wide.json:1:70002"),
        (vec!["trace", w, "--format", "json"], "wide.json:1:70002"),
        (vec!["events", "--layout", &layout, log], "--layout:1:"),
        (
            vec!["grammar", "--grammar", rules.to_str().unwrap()],
            "bad.rules:1:7",
        ),
    ];
    for (args, at) in cases {
        let out = assert_cmd::Command::cargo_bin("ozone-conform")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", args[0]);
        assert!(!err.contains("panicked"), "{}: {err}", args[0]);
        assert!(
            err.contains(at) && err.contains("too long to show"),
            "{}: {err}",
            args[0]
        );
    }
}
