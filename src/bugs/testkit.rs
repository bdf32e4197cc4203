//! What the bugs' witness tests share: scenario timelines through the real pipeline, where an event is, and
//! TLC runs of fresh exports.

use crate::mirror::export::{build_either, to_trace, write_tla_files, Witnessed};
use crate::mirror::replay::{replay_with, Outcome};
use crate::mirror::Mirror;
use crate::timeline::Timeline;
use std::path::Path;

/// Whether the long forms of the sized sweeps run: `OZONE_CONFORM_LONG=1` (`benches/long_tests.sh`).
/// `cargo test` runs each such sweep on a fixed sample, sized so the tests take minutes on two cores; the
/// long form runs every case, with the same assertions.
pub fn long() -> bool {
    std::env::var_os("OZONE_CONFORM_LONG").is_some_and(|v| v != "0" && !v.is_empty())
}

/// The timeline of `tests/fixtures/scenarios/<model>/<case>` through the real pipeline (input resolution,
/// embedded grammar, merge): its per-node daemon files, or with `merged` its `merged/` test output.
pub fn scenario(model: &str, case: &str, merged: bool) -> Timeline {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios")
        .join(model)
        .join(case);
    let dir = if merged { dir.join("merged") } else { dir };
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    timeline_of(&files)
}

/// The timeline of these command-line inputs, as `check` builds it.
pub fn timeline_of(args: &[String]) -> Timeline {
    let sources = crate::input::resolve(args).unwrap();
    let grammar = crate::grammar::Grammar::embedded().unwrap();
    crate::timeline::build(
        &sources,
        &grammar,
        &crate::scan::ScanOptions::default(),
        crate::bugs::merge_rules(crate::timeline::DEFAULT_MAX_SKEW_MS),
        &|_, _| {},
    )
}

/// `file:line` of event `i`, the file name without `prefix` (the part every file of a scenario shares).
pub fn file_line(tl: &Timeline, i: usize, prefix: &str) -> String {
    let e = &tl.events.get(i);
    let path = &tl.inputs[e.span.input as usize].path;
    let file = Path::new(path).file_name().unwrap().to_string_lossy();
    let file = file.strip_prefix(prefix).unwrap_or(&file);
    format!("{file}:{}", e.span.line)
}

/// Builds `M`'s behaviour from the witnesses and checks that its export replays through the mirror: the
/// trace ends where the mirror first sees a violation and claims it there, as TLC's traces do. The
/// replay's violation (TLC-numbered state).
pub fn assert_export_replays<M: Mirror>(
    w: &Witnessed,
    describe_event: impl Fn(usize) -> String,
    what: &str,
) -> Option<(String, usize)> {
    let (_, constants, b) = build_either::<M>(w).unwrap();
    let mirror = M::new(&constants).unwrap();
    let trace = to_trace(&mirror, &b, describe_event);
    let want_states = b.violated.map_or(b.states.len(), |(_, k)| k + 1);
    assert_eq!(trace.states.len(), want_states, "{what}");
    assert_eq!(
        trace.violation.as_ref().and_then(|v| v.name.clone()),
        b.violated.map(|(inv, _)| inv.to_string()),
        "{what}"
    );
    match replay_with(&mirror, &trace) {
        Outcome::Conforms(a) => {
            assert_eq!(a.states, want_states, "{what}");
            assert_eq!(
                a.violated,
                b.violated.map(|(inv, k)| (inv.to_string(), k + 1)),
                "{what}"
            );
            a.violated
        }
        Outcome::Diverges(d) => panic!("{what}: {d:?}"),
    }
}

/// `TLC_JAR` (the path of tla2tools.jar), or `None`, said on stderr, to skip a TLC test.
pub fn tlc_jar() -> Option<String> {
    let jar = std::env::var("TLC_JAR").ok();
    if jar.is_none() {
        // Written past libtest's capture (`say!` writes to the real stderr), so a skip shows in CI's log.
        say!("SKIPPED: TLC_JAR is not set, so this TLC run is skipped");
    }
    jar
}

/// Exports `M`'s witnesses on `tl` as `export --to tla` does (the witness notes first) into a temporary
/// directory named by `tag`, removed after, and runs TLC there: TLC's stdout, and where the mirror finds
/// the behaviour violated.
pub fn tlc_on_export<M: Mirror>(
    jar: &str,
    tag: &str,
    tl: &Timeline,
    describe_event: impl Fn(usize) -> String,
) -> (String, Option<(&'static str, usize)>) {
    let bug = crate::bugs::by_name(M::MODEL).expect("a registered bug");
    let (_, w) = crate::check::observe_one(tl, bug);
    let (_, constants, b) = build_either::<M>(&w).unwrap();
    let mirror = M::new(&constants).unwrap();
    let mut trace = to_trace(&mirror, &b, describe_event);
    trace.notes.splice(0..0, w.notes.iter().cloned());
    let dir = std::env::temp_dir().join(format!("w-tlc-{tag}-{}", std::process::id()));
    let name = write_tla_files::<M>(&dir, &trace, &constants).unwrap();
    // The client compiler only (`TieredStopAtLevel=1`): these state spaces are small, and a run spends
    // most of its CPU compiling TLC; C2 on top of C1 doubled the CPU of a run of the spec's 53,116 states.
    let out = std::process::Command::new("java")
        .current_dir(&dir)
        .args([
            "-XX:+UseParallelGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            jar,
            "tlc2.TLC",
            "-workers",
            "1",
        ])
        .arg("-metadir")
        .arg(dir.join("meta"))
        .args(["-config", &format!("{name}.cfg"), &format!("{name}.tla")])
        .output()
        .expect("java runs");
    let _ = std::fs::remove_dir_all(&dir);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        b.violated,
    )
}

/// The number of the last state of TLC's error trace (`State N: ...`), TLC counting from 1.
pub fn last_tlc_state(out: &str) -> Option<usize> {
    out.lines()
        .filter_map(|l| l.strip_prefix("State "))
        .filter_map(|l| l.split(':').next()?.parse::<usize>().ok())
        .max()
}

/// The observer through the `Model` trait, as `export` runs it ([`crate::check::observe_one`]): the monitor
/// hands each event to its witness table and returns what the table witnessed. On the bug's violating
/// scenario, every node file and the merged test output, the witnesses are there, in timeline order, the
/// constants are sized to the logs, the hidden actions are the mirror's, and the export builds a behaviour of
/// the spec that violates the invariant `check` reports.
pub fn assert_observer_witnesses_the_violating_scenario<M: Mirror>(bug: &crate::bugs::Bug) {
    for merged in [false, true] {
        let tl = scenario(bug.name(), "violating", merged);
        let (report, w) = crate::check::observe_one(&tl, bug);
        let what = format!("{} violating (merged: {merged})", bug.name());
        assert!(!w.witnesses.is_empty(), "{what}: nothing witnessed");
        assert!(
            w.witnesses.windows(2).all(|p| p[0].event <= p[1].event),
            "{what}: witnesses out of timeline order"
        );
        assert!(!w.constants.is_empty(), "{what}: no constants");
        assert!(
            w.hidden.iter().all(|h| bug.mirror.actions().contains(h)),
            "{what}: hidden {:?}",
            w.hidden
        );
        let reported = report.violations.first().map(|v| v.invariant.name);
        // Lines the logs tie to no SCM cannot be witnessed: the behaviour may then lack a step the spec needs
        // (the merged scm-finalization case: the leader's registrations and finalize commands come over a
        // port no line names, so its datanodes' finalization is not in view).
        let unattributed = tl
            .events
            .iter()
            .any(|e| e.component == crate::vocab::Component::Scm && e.node.is_none());
        if unattributed && build_either::<M>(&w).is_err() {
            continue;
        }
        let (_, _, b) = build_either::<M>(&w).unwrap_or_else(|s| {
            let seen: Vec<String> = w
                .witnesses
                .iter()
                .map(|x| {
                    format!(
                        "{}{:?} @ {}",
                        x.action,
                        x.params,
                        file_line(&tl, x.event, "")
                    )
                })
                .collect();
            panic!("{what}: {s:?}\nwitnessed:\n{}", seen.join("\n"))
        });
        assert_eq!(b.violated.map(|(inv, _)| inv), reported, "{what}");
    }
}
