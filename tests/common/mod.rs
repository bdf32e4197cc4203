//! Test support shared by the integration tests' modules (`use crate::common;`): the binary under test,
//! `check --format json` and its report, fixture paths, the registry's model names, clock shifts.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Whether the long forms of the sweeps sized for `cargo test` run: `OZONE_CONFORM_LONG=1`
/// (`benches/long_tests.sh`; the library's unit tests read the same variable).
pub fn long() -> bool {
    std::env::var_os("OZONE_CONFORM_LONG").is_some_and(|v| v != "0" && !v.is_empty())
}

/// The clock and zone offsets the clock-shift tests give one node: ±30 min, ±1 h, ±2 h (a host left on
/// another zone, a DST slip).
pub const SHIFTS_MIN: [i64; 6] = [-120, -60, -30, 30, 60, 120];

/// The line with its leading `yyyy-MM-dd HH:mm:ss,SSS` moved by `minutes` (other lines as they are).
pub fn shift_line(line: &str, minutes: i64) -> String {
    let b = line.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = line.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 23 || b[4] != b'-' || b[10] != b' ' || b[13] != b':' || b[19] != b',' {
        return line.to_string();
    }
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(s)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return line.to_string();
    };
    let days = ozone_conform::time::days_from_civil(y, mo as u32, d as u32);
    let total = (days * 24 + h) * 60 + mi + minutes;
    let (days, rest) = (total.div_euclid(1440), total.rem_euclid(1440));
    let (y, mo, d) = ozone_conform::time::civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02}:{s:02}{}",
        rest / 60,
        rest % 60,
        &line[19..]
    )
}

/// Every record of `bytes` moved by `minutes`.
pub fn shifted(bytes: &[u8], minutes: i64) -> Vec<u8> {
    String::from_utf8_lossy(bytes)
        .split_inclusive('\n')
        .map(|l| shift_line(l, minutes))
        .collect::<String>()
        .into_bytes()
}

/// The registry's model names (`src/bugs/mod.rs`, `BUGS`), in its order: tests that sweep every model read
/// them from there, so a fifth bug is swept without editing the tests.
pub fn models() -> Vec<&'static str> {
    ozone_conform::bugs::BUGS.iter().map(|b| b.name()).collect()
}

/// The binary under test, as every CLI test runs it: no colour, no `CI` from the environment (which turns on
/// CI annotations), in the crate's directory (fixture paths are relative to it).
pub fn bin() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("ozone-conform").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("CI")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// [`bin`] with a terminal this many columns wide (the text reports wrap to it).
pub fn bin_cols(columns: u16) -> assert_cmd::Command {
    let mut c = bin();
    c.env("COLUMNS", columns.to_string());
    c
}

/// `check --format json FLAGS INPUTS`: the exit code and the report.
pub fn check_json<S: AsRef<OsStr>>(flags: &[&str], inputs: &[S]) -> (i32, Value) {
    let out = bin()
        .args(["check", "--format", "json"])
        .args(flags)
        .args(inputs)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

/// `check --format json-lines FLAGS INPUTS`: the exit code and every object (violations, then verdicts).
pub fn check_json_lines<S: AsRef<OsStr>>(flags: &[&str], inputs: &[S]) -> (i32, Vec<Value>) {
    let out = bin()
        .args(["check", "--format", "json-lines"])
        .args(flags)
        .args(inputs)
        .output()
        .unwrap();
    let objects = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{e}: {l}: {}", String::from_utf8_lossy(&out.stderr)))
        })
        .collect();
    (out.status.code().unwrap(), objects)
}

/// A model's entry in a `--format json` report.
pub fn model<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == name)
        .unwrap_or_else(|| panic!("no model {name} in {report}"))
}

/// A path under the crate's directory, absolute.
pub fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A scenario fixture's case directory, absolute: `tests/fixtures/scenarios/<model>/<case>`.
pub fn scenario(model: &str, case: &str) -> PathBuf {
    path("tests/fixtures/scenarios").join(model).join(case)
}

/// The files (not directories) of a directory, sorted.
pub fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// The timeline of these command-line inputs, as `check` builds it (the default scan and clock skew).
pub fn timeline_of(
    args: &[String],
    grammar: &ozone_conform::grammar::Grammar,
) -> ozone_conform::timeline::Timeline {
    let sources = ozone_conform::input::resolve(args).unwrap();
    ozone_conform::timeline::build(
        &sources,
        grammar,
        &ozone_conform::scan::ScanOptions::default(),
        ozone_conform::bugs::merge_rules(ozone_conform::timeline::DEFAULT_MAX_SKEW_MS),
        &|_, _| {},
    )
}
