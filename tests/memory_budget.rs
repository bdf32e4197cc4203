//! `check --memory-budget`: past the budget the events' heads, packed fields and the repeated-record sort go
//! to temporary files, and the report does not change. Every fixture directory and an event-dense log with
//! repeated records are checked with a budget of 1 or 64 KiB (what can spill does) and with the default one (nothing
//! does), and the reports must be the same bytes. `OZONE_CONFORM_TIMINGS` says what went to disk, so the
//! small budget's run is known to have taken the disk path.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// `check --all --format json [--memory-budget BUDGET] INPUTS`: exit code, report, and the timing notes.
fn check(budget: Option<&str>, inputs: &[PathBuf]) -> (i32, String, String) {
    let mut c = common::bin();
    c.args(["check", "--all", "--format", "json"])
        .env("OZONE_CONFORM_TIMINGS", "1");
    if let Some(b) = budget {
        c.args(["--memory-budget", b]);
    }
    let out = c.args(inputs).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The number after `after` in the timing note that starts `timing: PREFIX`.
fn noted(notes: &str, prefix: &str, after: &str) -> usize {
    notes
        .lines()
        .find_map(|l| l.strip_prefix("timing: ")?.strip_prefix(prefix))
        .and_then(|l| l.split(after).nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `{prefix}` note with `{after}` in {notes}"))
}

/// Heads on disk, as the timing note says (`events: N heads, M of them on disk`).
fn heads_on_disk(notes: &str) -> usize {
    noted(notes, "events: ", "heads, ")
}

/// The parts the repeated-record keys were sorted in (`repeated records: N keys sorted in P part(s)`).
fn key_parts(notes: &str) -> usize {
    noted(notes, "repeated records: ", "sorted in ")
}

/// Every directory under `tests/fixtures` that holds log files.
fn fixture_dirs() -> Vec<PathBuf> {
    ozone_conform::input::log_dirs(&common::path("tests/fixtures"))
}

#[test]
fn a_check_on_a_one_kib_budget_reports_what_a_check_in_memory_reports_on_every_fixture() {
    let (mut runs, mut violated, mut spilled) = (0, 0, 0);
    for dir in fixture_dirs() {
        let inputs = vec![dir.clone()];
        let (code, report, notes) = check(None, &inputs);
        let (small_code, small_report, small_notes) = check(Some("1K"), &inputs);
        assert_eq!(
            (small_code, &small_report),
            (code, &report),
            "{}",
            dir.display()
        );
        assert_eq!(heads_on_disk(&notes), 0, "{}: {notes}", dir.display());
        runs += 1;
        violated += usize::from(code == 1);
        assert_eq!(key_parts(&notes), 1, "{}: {notes}", dir.display());
        spilled += usize::from(key_parts(&small_notes) > 1);
    }
    // The fixtures' inputs are too short to fill a chunk of heads (the event-dense test below writes heads
    // to disk), but the larger directories' repeated-record keys went to disk on the small budget.
    assert!(spilled >= 30, "keys went to disk in {spilled} directories");
    assert!(runs >= 40, "{runs} fixture directories");
    assert!(violated >= 8, "{violated} violating directories");
}

fn generate(out: &Path, args: &[&str]) -> bool {
    let gen = common::path("benches/gen_event_dense.py");
    let st = Command::new("python3")
        .arg(gen)
        .args(["--bin", env!("CARGO_BIN_EXE_ozone-conform"), "--out"])
        .arg(out)
        .args(args)
        .output();
    match st {
        Ok(o) if o.status.success() => true,
        Ok(o) => panic!("generator failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => {
            eprintln!("SKIPPED: python3 is not installed; benches/gen_event_dense.py cannot run");
            false
        }
    }
}

/// An event-dense log of every model with one violating copy, plus the first half of a log given again
/// under another name and a log that repeats itself (`cat a a`): heads, fields and repeated-record keys all
/// go to disk on the small budget, and the report and the warnings (the repeated records) are the same.
#[test]
fn an_event_dense_log_with_repeats_spills_everything_and_reports_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dense");
    if !generate(
        &dir,
        &["--repetitions", "30", "--splice", "scm-secret-keys"],
    ) {
        return;
    }
    let mut inputs: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| e.into_path())
        .collect();
    inputs.sort();
    let first = inputs[0].clone();
    let copy = tmp.path().join("again").join(first.file_name().unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(&first).unwrap();
    let half: Vec<&str> = text.lines().take(text.lines().count() / 2).collect();
    std::fs::write(&copy, half.join("\n") + "\n").unwrap();
    let last = inputs.last().unwrap().clone();
    let text = std::fs::read(&last).unwrap();
    std::fs::write(&last, [text.as_slice(), text.as_slice()].concat()).unwrap();
    inputs.push(copy);

    let (code, report, notes) = check(None, &inputs);
    let (small_code, small_report, small_notes) = check(Some("64K"), &inputs);
    let warnings = |notes: &str| -> Vec<String> {
        notes
            .lines()
            .filter(|l| !l.starts_with("timing: "))
            .map(String::from)
            .collect()
    };
    assert_eq!(code, 1, "{report}");
    let repeats = warnings(&notes);
    assert!(
        repeats
            .iter()
            .any(|w| w.contains("repeat earlier records") && w.contains(&*first.to_string_lossy())),
        "{notes}"
    );
    assert!(
        repeats.iter().any(|w| w.contains("earlier in this input")),
        "{notes}"
    );
    assert_eq!((small_code, &small_report), (code, &report));
    assert_eq!(warnings(&small_notes), repeats);
    assert_eq!(heads_on_disk(&notes), 0, "{notes}");
    assert_eq!(key_parts(&notes), 1, "{notes}");
    assert!(heads_on_disk(&small_notes) > 0, "{small_notes}");
    assert!(key_parts(&small_notes) > 1, "{small_notes}");
}
