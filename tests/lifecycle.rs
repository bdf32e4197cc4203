//! Process lifecycle in every layout, start-failure lines, and typed-field validation, on fixture logs.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    let mut c = Command::cargo_bin("ozone-conform").unwrap();
    c.env("NO_COLOR", "1")
        .env("COLUMNS", "120")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn check_json(paths: &[PathBuf]) -> Value {
    let out = bin()
        .args(["check", "--format", "json"])
        .args(paths)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn verdict<'a>(report: &'a Value, model: &str) -> &'a str {
    report["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == model)
        .unwrap()["verdict"]
        .as_str()
        .unwrap()
}

/// The healthy secret-key story with one byte of one key id damaged (`c` → `g`) on scm2's replicated
/// `Updating keys with [K1]` (line 35): read as a key list naming a new key, it would drop K1 while unexpired.
#[test]
fn a_damaged_key_id_is_rejected_with_its_reason_and_raises_no_alarm() {
    let healthy = fixture("scenarios/scm-secret-keys/healthy");
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for n in 1..=3 {
        let name = format!("ozone-hadoop-scm-scm{n}.log");
        let mut text = std::fs::read_to_string(healthy.join(&name)).unwrap();
        if n == 2 {
            let good = "Updating keys with [SecretKey(id = 3b0e6f1c-9a2d";
            assert!(text.contains(good), "the fixture changed");
            // The first one: line 35, the replicated apply of K1's generation.
            text = text.replacen(good, "Updating keys with [SecretKey(id = 3b0e6f1g-9a2d", 1);
        }
        let p = dir.path().join(&name);
        std::fs::write(&p, text).unwrap();
        paths.push(p);
    }
    let report = check_json(&paths);
    assert_eq!(verdict(&report, "scm-secret-keys"), "conforms");
    let scm2 = report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["path"].as_str().unwrap().ends_with("scm2.log"))
        .unwrap();
    assert_eq!(scm2["unparsed"], 1, "{scm2}");
    let out = bin()
        .args(["stats", "--format", "json"])
        .arg(&paths[1])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stats = &stats["inputs"][0];
    assert_eq!(stats["unparsed_by_reason"]["invalid-field"], 1, "{stats}");
    assert_eq!(
        stats["rejected"][0],
        "line 35: SecretKeysUpdated: field keys: secret key id not a UUID: `3b0e6f1g-9a2d-4c57-8e14-6d2f0a9b7c31`"
    );
    // The same line is not an event.
    let out = bin().arg("events").arg(&paths[1]).output().unwrap();
    let events = String::from_utf8(out.stdout).unwrap();
    assert!(
        !events.contains("3b0e6f1g"),
        "a rejected record became an event"
    );
    // `stats` shows the reason; `--verbose` names the line.
    let out = bin().arg("stats").arg(&paths[1]).output().unwrap();
    let stats = String::from_utf8(out.stdout).unwrap();
    assert!(stats.contains("unparsed    1 (1 invalid-field)"), "{stats}");
    assert!(
        stats.contains("rejected line 35: SecretKeysUpdated: field keys: secret key id not a UUID"),
        "{stats}"
    );
    // Undamaged, nothing is rejected.
    let clean: Vec<PathBuf> = (1..=3)
        .map(|n| healthy.join(format!("ozone-hadoop-scm-scm{n}.log")))
        .collect();
    let report = check_json(&clean);
    for input in report["inputs"].as_array().unwrap() {
        assert_eq!(input["unparsed"], 0, "{input}");
    }
}
