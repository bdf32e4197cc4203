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
