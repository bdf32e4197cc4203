//! The progress bar covers the whole run: reading, then merging, then replaying, for each run of
//! `--per-file` with the file's name. Seen through `OZONE_CONFORM_PROGRESS_LOG`, which records the phases the
//! bar enters (and draws nothing), as no terminal is attached here.

use assert_cmd::Command;

fn phases(args: &[&str]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("phases");
    let out = Command::cargo_bin("ozone-conform")
        .unwrap()
        .env("OZONE_CONFORM_PROGRESS_LOG", &log)
        .args(["check", "--format", "concise"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code().unwrap() <= 1,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn a_check_reads_then_merges_then_replays() {
    let got = phases(&[
        "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm1.log",
        "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm2.log",
        "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm3.log",
    ]);
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[0], "reading");
    assert!(
        got[1].starts_with("merging ") && got[1].ends_with(" events of 3 input(s)"),
        "{got:?}"
    );
    let merged: usize = got[1].split(' ').nth(1).unwrap().parse().unwrap();
    assert!(merged > 20, "{got:?}");
    assert!(
        got[2].starts_with("replaying ") && got[2].ends_with(" events"),
        "{got:?}"
    );
    assert_eq!(got[3], "done");
}

#[test]
fn per_file_runs_say_which_file_is_checked() {
    let got = phases(&["--per-file", "tests/fixtures/surefire"]);
    let readings: Vec<&String> = got.iter().filter(|p| p.starts_with("reading ")).collect();
    assert!(readings.len() >= 5, "{got:?}");
    let n = readings.len();
    for (k, r) in readings.iter().enumerate() {
        let want = format!("reading {}/{n}: tests/fixtures/surefire/", k + 1);
        assert!(r.starts_with(&want), "{r} should start with {want}");
    }
    // Every run goes through its three phases in order.
    let order: Vec<char> = got.iter().map(|p| p.chars().next().unwrap()).collect();
    let expected: String = "rmr".repeat(n);
    assert_eq!(
        order.iter().skip(1).take(3 * n).collect::<String>(),
        expected,
        "{got:?}"
    );
    assert_eq!(got.last().unwrap(), "done");
}

/// The bar as a terminal shows it: `check` run in a pseudo-terminal (util-linux `script`), every frame it
/// drew, escape sequences removed.
fn frames_on_a_terminal(log: &std::path::Path) -> Option<Vec<String>> {
    let has_script = std::process::Command::new("sh")
        .args(["-c", "command -v script"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        return None;
    }
    let command = format!(
        "stty cols 120; '{}' check --format concise '{}' > /dev/null",
        env!("CARGO_BIN_EXE_ozone-conform"),
        log.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env_remove("CI")
        .env_remove("OZONE_CONFORM_PROGRESS_LOG")
        .output()
        .unwrap();
    assert!(out.status.code().unwrap() <= 1, "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let escape = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap();
    Some(
        escape
            .replace_all(&text, "")
            .split(['\r', '\n'])
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .collect(),
    )
}

/// `12.50 MiB` in bytes.
fn bytes(amount: &str, unit: &str) -> f64 {
    let n: f64 = amount.parse().unwrap();
    n * match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("unit {u}"),
    }
}

#[test]
fn the_bar_counts_bytes_while_reading_and_events_while_replaying() {
    // About 80 MB: lines no rule reads (four per millisecond, so that reading takes several frames of the bar
    // in an optimised build too), and 20,000 events (more than one replay tick).
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ozone-hadoop-datanode-dn1.log");
    let mut text = String::with_capacity(85 << 20);
    for n in 0..200_000u64 {
        let (m, s, ms) = (n / 60_000 % 60, n / 1000 % 60, n % 1000);
        for k in 0..4 {
            text.push_str(&format!(
                "2026-08-23 11:{m:02}:{s:02},{ms:03} [main] INFO org.example.Filler: a line no rule reads, number {n}.{k}\n"
            ));
        }
        if n % 10 == 0 {
            text.push_str(&format!(
                "2026-08-23 11:{m:02}:{s:02},{ms:03} [ContainerOp-0] DEBUG org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl: \
                 Block conID: 1 locID: {} bcsId: {n} replicaIndex: null successfully committed with bcsId {n} chunk size 1\n",
                113750153625600001u64 + n
            ));
        }
    }
    std::fs::write(&log, &text).unwrap();
    let Some(frames) = frames_on_a_terminal(&log) else {
        eprintln!("SKIPPED: no `script` (util-linux) to run check in a pseudo-terminal");
        return;
    };
    let total = text.len() as f64;
    // No space required after `reading`: where the bar moves on to merging within one frame, the terminal
    // line is `⠁ readingmerging … 75.85 MiB/75.85 MiB …` (the new text is drawn over the old from the first
    // column that differs), and the byte count on it is still the reading's.
    let reading =
        regex::Regex::new(r"reading.* ([\d.]+) (B|KiB|MiB)/([\d.]+) (B|KiB|MiB)").unwrap();
    let replaying = regex::Regex::new(r"replaying .* ([\d,]+)/([\d,]+) events").unwrap();
    let number = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    let mut read = Vec::new();
    let mut replayed = Vec::new();
    for f in &frames {
        if let Some(c) = reading.captures(f) {
            let (done, of) = (bytes(&c[1], &c[2]), bytes(&c[3], &c[4]));
            assert!(
                (of - total).abs() / total < 0.01,
                "{f}: the total is the file's size"
            );
            assert!(done <= of, "{f}");
            read.push(done);
        }
        if let Some(c) = replaying.captures(f) {
            let (done, of) = (number(&c[1]), number(&c[2]));
            assert_eq!(of, 20_000, "{f}: the events, not the bytes");
            assert!(done <= of, "{f}: more replayed than there are");
            replayed.push(done);
        }
    }
    assert!(!read.is_empty() && !replayed.is_empty(), "{frames:#?}");
    assert!(
        read.iter().any(|&b| b > 0.0),
        "the reading moves: {frames:#?}"
    );
    assert!(read.windows(2).all(|w| w[0] <= w[1]), "{read:?}");
    assert!(replayed.windows(2).all(|w| w[0] <= w[1]), "{replayed:?}");
    assert_eq!(
        *replayed.last().unwrap(),
        20_000,
        "the last frame shows every event replayed: {frames:#?}"
    );
}
