//! One node's clock or zone off (issue 19, item 4): every scenario fixture with one per-node file's log times
//! shifted by ±30 min, ±1 h or ±2 h (a host left on another zone, a DST slip). No model may report a
//! violation the unshifted logs do not have (a false alarm). A violation of the unshifted logs is still found,
//! at the same line, or its model is inconclusive and the reason names the shifted node.

use ozone_conform::check;
use ozone_conform::grammar::Grammar;
use ozone_conform::monitor::Verdict;
use ozone_conform::timeline::Timeline;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::{shift_line, shifted, timeline_of, SHIFTS_MIN};

const SCENARIOS: &str = "tests/fixtures/scenarios";

/// Per model: verdict, reason, and each violation as (invariant, node, file, line).
type Answer = BTreeMap<String, (Verdict, String, Vec<(String, String, String, u64)>)>;

fn cases() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(SCENARIOS);
    let mut out = Vec::new();
    for m in std::fs::read_dir(root).unwrap() {
        let m = m.unwrap().path();
        if !m.is_dir() {
            continue;
        }
        for c in std::fs::read_dir(&m).unwrap() {
            let c = c.unwrap().path();
            if c.is_dir() {
                out.push(c);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 13, "{out:?}");
    out
}

fn node_files(case: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn answer(tl: &Timeline) -> Answer {
    check::replay(tl, check::select(&[]).unwrap(), &Default::default())
        .reports
        .into_iter()
        .map(|r| {
            let mut found: Vec<_> = r
                .violations
                .iter()
                .map(|v| {
                    let span = tl.events.get(v.primary).span;
                    let file = Path::new(&tl.inputs[span.input as usize].path)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    let node = v.node.as_deref().unwrap_or("").to_string();
                    (v.invariant.to_string(), node, file, span.line)
                })
                .collect();
            found.sort();
            let reason = r.reason.clone().unwrap_or_default();
            (r.model().to_string(), (r.verdict, reason, found))
        })
        .collect()
}

#[test]
fn shifting_a_line_moves_its_time_across_midnight_and_months() {
    assert_eq!(
        shift_line("2026-08-31 23:30:01,123 [main] INFO x: y\n", 60),
        "2026-09-01 00:30:01,123 [main] INFO x: y\n"
    );
    assert_eq!(
        shift_line("2026-01-01 00:10:00,000 [main] INFO x: y", -30),
        "2025-12-31 23:40:00,000 [main] INFO x: y"
    );
    assert_eq!(
        shift_line("\tat x.y(Z.java:1)\n", 60),
        "\tat x.y(Z.java:1)\n"
    );
}

#[test]
fn one_nodes_clock_off_never_raises_a_false_alarm_nor_hides_a_violation_silently() {
    let grammar = Grammar::embedded().unwrap();
    let mut runs = 0;
    let mut still_found = 0;
    let mut named_inconclusive = 0;
    let mut failures = Vec::new();
    for case in cases() {
        let files = node_files(&case);
        let plain: Vec<String> = files
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let want = answer(&timeline_of(&plain, &grammar));
        let tmp = tempfile::tempdir().unwrap();
        for (i, file) in files.iter().enumerate() {
            let bytes = std::fs::read(file).unwrap();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let node = ozone_conform::node::from_file_name(&name).unwrap().0;
            for minutes in SHIFTS_MIN {
                let dir = tmp.path().join(format!("{i}{minutes}"));
                std::fs::create_dir_all(&dir).unwrap();
                let args: Vec<String> = files
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        if j == i {
                            let to = dir.join(&name);
                            std::fs::write(&to, shifted(&bytes, minutes)).unwrap();
                            to.to_string_lossy().into_owned()
                        } else {
                            p.to_string_lossy().into_owned()
                        }
                    })
                    .collect();
                let got = answer(&timeline_of(&args, &grammar));
                let what = format!("{}: {node} shifted {minutes} min", case.display());
                for (model, (verdict, reason, found)) in &got {
                    let (want_verdict, _, want_found) = &want[model];
                    // No false alarm: every violation found is one of the unshifted logs'.
                    for f in found.iter().filter(|f| !want_found.contains(f)) {
                        failures.push(format!(
                            "{what}: FALSE ALARM {model} reports {f:?}, which the unshifted logs do not have; reason: {reason}"
                        ));
                    }
                    // A violation lost is a verdict that says why: the model's reason names the shifted node.
                    let lost: Vec<_> = want_found.iter().filter(|f| !found.contains(f)).collect();
                    if lost.is_empty() {
                        if *want_verdict == Verdict::Violated {
                            still_found += 1;
                        }
                    } else if reason.contains(&*node) && *verdict != Verdict::Conforms {
                        named_inconclusive += 1;
                    } else {
                        failures.push(format!(
                            "{what}: MISS {model} lost {lost:?} ({verdict:?}) and its reason does not name {node}: {reason}"
                        ));
                    }
                    if *want_verdict != Verdict::Violated
                        && *verdict != *want_verdict
                        && *verdict != Verdict::Inconclusive
                    {
                        failures.push(format!(
                            "{what}: {model} {want_verdict:?} became {verdict:?}"
                        ));
                    }
                }
                runs += 1;
            }
        }
    }
    eprintln!("{runs} runs; violations still found {still_found}, inconclusive naming the node {named_inconclusive}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(runs >= 200, "{runs}");
    assert!(still_found > 0);
}
