//! `scm-secret-keys`: which log events witness which actions of `traces/scm-secret-keys/ScmSecretKeys.tla`.
//!
//! One witness per action, on the line that completes it (the spec's comments and README list every line of
//! each action; the others are kept out):
//!
//! | event kind (log line) | action |
//! |---|---|
//! | `SecretKeyGenerated` / `SecretKeysReloaded` after `Initializing SecretKeys.` of a new leader | `BecomeLeader(s)` |
//! | `ScmBecameLeader` (`current SCM {} becomes leader of term {}`) with no key init following | `BecomeLeader(s)` |
//! | `SecretKeyRotated` (`SecretKey rotation is happening, new key generated {}`) | `RotateKey` |
//! | `SecretKeysSaved` (`Saved {} to file {}`) outside an install | `ReplicateKeys(s)` |
//! | `CheckpointDownloaded` (`Downloaded checkpoint from Leader {} to the location {}`) | `NotifyInstall(s)` |
//! | `SecretKeysFetched` (`Got secret keys from leaders [...]`) | `FetchKeys(s)` |
//! | `CheckpointInstalled` (`Replaced DB with checkpoint, term: {}, index: {}`) | `ReplaceDb(s)` |
//! | `SecretKeysSaved` inside an install (after `Got secret keys`) | `SaveKeys(s)` |
//! | first stop line of a run inside an install, after `Failed to reinitialize SCMStateMachine.` or `caught a Throwable.` | `FailSave(s)` |
//! | first stop line of a run otherwise | `Stop(s)` |
//! | `STARTUP_MSG` with no shutdown since the previous run in view | `Crash(s)`, then `Restart(s)` |
//! | `STARTUP_MSG` after a stop | `Restart(s)` |
//!
//! Hidden (no line at Ozone's default levels): `PurgeLog` (its lines, `Current Snapshot Index {}` / `Took a
//! snapshot at index {}`, are INFO but carry no purge and this tool's grammar has no event for them),
//! `ExpireKey` (no line of its own) and `Crash` (inferred).

use super::mirror::{Action, Phase};
use crate::event::Event;
use crate::lifecycle::{is_stop_line, LifeStep};
use crate::mirror::export::{action_names, model_value_for, Witness, Witnessed};
use crate::timeline::Timeline;
use crate::tla::value::TlaValue;
use crate::vocab::EventKind;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// Actions no log line witnesses at Ozone's default log levels.
pub const HIDDEN: &[Action] = &[Action::PurgeLog, Action::ExpireKey, Action::Crash];

#[derive(Debug, Default)]
struct Node {
    /// Where the node is in a snapshot install, as its lines show, in the mirror's own phases:
    /// `Downloaded` after `Downloaded checkpoint from Leader ...`, `Fetched` after `Got secret keys from
    /// leaders [...]`, `Swapped` after `Replaced DB with checkpoint` before the key save (unpatched order),
    /// `Saved` after the key save before `Replaced DB with checkpoint` (patched order).
    install: Phase,
    /// `Failed to reinitialize SCMStateMachine.` or `... caught a Throwable.` during this install.
    failed: bool,
    /// A stop of this run was witnessed.
    down: bool,
    /// Some event of this node was seen (a start after it is a restart).
    seen: bool,
}

/// A secret-key line: what makes a node of unknown service an SCM for this model.
pub fn is_key_line(k: EventKind) -> bool {
    matches!(
        k,
        EventKind::SecretKeysFetched
            | EventKind::SecretKeysSaved
            | EventKind::SecretKeysUpdated
            | EventKind::SecretKeyGenerated
            | EventKind::SecretKeyRotated
            | EventKind::SecretKeysReloaded
    )
}

/// Does a new leader's key init (`Initializing SecretKeys.` then `Keys reloaded` / `A new key is generated`)
/// follow leadership event `at` on the same node, before anything ends that leadership? The line that
/// completes `BecomeLeader` then.
fn key_init_after(timeline: &Timeline, at: usize) -> Option<usize> {
    let key = timeline.events.head(at).node;
    let events = &timeline.events;
    for (j, e) in (at + 1..).zip(events.heads_in(at + 1..events.len())) {
        if e.node != key {
            continue;
        }
        match e.kind {
            EventKind::SecretKeyGenerated | EventKind::SecretKeysReloaded => return Some(j),
            EventKind::ScmBecameLeader
            | EventKind::ScmSteppedDown
            | EventKind::ProcessStarted
            | EventKind::SecretKeyRotated
            | EventKind::SecretKeysSaved => return None,
            k if is_stop_line(k) => return None,
            _ => {}
        }
    }
    None
}

/// Export's half of the `scm-secret-keys` observer: the witnessed actions of `ScmSecretKeys`, event by event,
/// with the monitor's role and the timeline's lifecycle.
#[derive(Debug, Default)]
pub struct Table {
    nodes: FxHashMap<u32, Node>,
    leader_init: FxHashSet<usize>,
    out: Vec<Witness<Action>>,
    named: BTreeSet<String>,
    ignored_inits: usize,
    ignored_saves: usize,
}

impl Table {
    /// Event `i`, with the lifecycle step it makes.
    pub fn step(&mut self, timeline: &Timeline, i: usize, e: &Event, step: Option<LifeStep>) {
        let Table {
            nodes,
            leader_init,
            out,
            named,
            ignored_inits,
            ignored_saves,
        } = self;
        let Some(name) = e.node.as_deref() else {
            return;
        };
        // The SCMs, as the monitor sees them: nodes the logs say run SCM, or of unknown service that log a
        // secret-key line.
        if !timeline.plays(e.node_key, &super::ABOUT.role) {
            return;
        }
        let s = model_value_for(name);
        let mut push = |action: Action, params: Vec<TlaValue>| {
            named.insert(name.to_string());
            out.push(Witness {
                event: i,
                action,
                params,
            });
        };
        let n = nodes.entry(e.node_key).or_default();
        match step {
            Some(LifeStep::Started { crashed }) => {
                // A first start in view is the initial state (every SCM up); a later one is a restart.
                if crashed.is_some() && !n.down {
                    push(Action::Crash, vec![s.clone()]);
                }
                if crashed.is_some() || n.down {
                    push(Action::Restart, vec![s.clone()]);
                }
                *n = Node::default();
            }
            Some(LifeStep::Stopping) if !n.down => {
                // The failure line itself may be the stop's first line (the lifecycle takes it as one).
                let failing = matches!(
                    e.kind,
                    EventKind::StateMachineReinitializeFailed
                        | EventKind::StateMachineUpdaterFailed
                );
                let failed_save = n.install != Phase::Idle && (n.failed || failing);
                push(
                    if failed_save {
                        Action::FailSave
                    } else {
                        Action::Stop
                    },
                    vec![s.clone()],
                );
                *n = Node {
                    down: true,
                    ..Node::default()
                };
            }
            _ => {}
        }
        n.seen = true;
        match e.kind {
            EventKind::ScmBecameLeader => match key_init_after(timeline, i) {
                Some(j) => {
                    leader_init.insert(j);
                }
                None => push(Action::BecomeLeader, vec![s]),
            },
            EventKind::SecretKeyGenerated | EventKind::SecretKeysReloaded => {
                if leader_init.contains(&i) {
                    push(Action::BecomeLeader, vec![s]);
                } else {
                    *ignored_inits += 1;
                }
            }
            EventKind::SecretKeyRotated => push(Action::RotateKey, vec![]),
            EventKind::CheckpointDownloaded => {
                n.install = Phase::Downloaded;
                n.failed = false;
                push(Action::NotifyInstall, vec![s]);
            }
            EventKind::SecretKeysFetched => {
                n.install = Phase::Fetched;
                push(Action::FetchKeys, vec![s]);
            }
            EventKind::CheckpointInstalled => {
                n.install = if n.install == Phase::Saved {
                    Phase::Idle
                } else {
                    Phase::Swapped
                };
                push(Action::ReplaceDb, vec![s]);
            }
            EventKind::StateMachineReinitializeFailed | EventKind::StateMachineUpdaterFailed
                if n.install != Phase::Idle =>
            {
                n.failed = true;
            }
            EventKind::SecretKeysSaved => match n.install {
                Phase::Idle => push(Action::ReplicateKeys, vec![s]),
                Phase::Fetched | Phase::Swapped => {
                    n.install = if n.install == Phase::Swapped {
                        Phase::Idle
                    } else {
                        Phase::Saved
                    };
                    push(Action::SaveKeys, vec![s]);
                }
                Phase::Downloaded | Phase::Saved => *ignored_saves += 1,
            },
            _ => {}
        }
    }

    /// After the last event: the witnesses, and the constants sized to them.
    pub fn finish(&mut self, timeline: &Timeline) -> Witnessed {
        let out = std::mem::take(&mut self.out);
        let (named, ignored_inits, ignored_saves) =
            (&self.named, self.ignored_inits, self.ignored_saves);
        // Constants sized to the behaviour: every entry of `log` and every key comes from a witnessed
        // BecomeLeader or RotateKey; one more when the logs start after some SCM did (the search may then infer a
        // leader before the first witnessed step).
        let appends = out
            .iter()
            .filter(|w| matches!(w.action, Action::BecomeLeader | Action::RotateKey))
            .count();
        let all_started = named
            .iter()
            .all(|n| timeline.started_in_view.iter().any(|s| &**s == n.as_str()));
        let bound = appends.max(1) + usize::from(!all_started);
        let node_values: BTreeSet<TlaValue> = named.iter().map(|n| model_value_for(n)).collect();
        let mut no_node = "NoNode".to_string();
        while node_values.contains(&TlaValue::model(no_node.as_str())) {
            no_node.push('_');
        }
        let mut constants = crate::mirror::Constants::new();
        constants.insert("Nodes".into(), TlaValue::set(node_values.iter().cloned()));
        constants.insert("NoNode".into(), TlaValue::model(no_node.as_str()));
        constants.insert("MaxKeys".into(), TlaValue::int(bound as i64));
        constants.insert("MaxLog".into(), TlaValue::int(bound as i64));

        let mut notes = vec![format!(
            "nodes: {}; NoNode = {no_node}; MaxKeys = MaxLog = {bound} ({appends} witnessed BecomeLeader/RotateKey{})",
            named
                .iter()
                .map(|n| format!("log node {n} = {}", model_value_for(n)))
                .collect::<Vec<_>>()
                .join(", "),
            if all_started { "" } else { ", +1: some SCM's log starts mid-run" }
        )];
        notes.push(
            "one line per action: BecomeLeader on `A new key is generated`/`Keys reloaded` (else `becomes leader of term`), \
             ReplicateKeys and SaveKeys on `Saved [...] to file`, NotifyInstall on `Downloaded checkpoint from Leader`, \
             FetchKeys on `Got secret keys from leaders`, ReplaceDb on `Replaced DB with checkpoint`, Stop/FailSave on the \
             first stop line of a run, Restart on STARTUP_MSG; the other lines of these actions are not witnesses"
                .into(),
        );
        notes.push(
            "FailSave is a stop inside an install after `Failed to reinitialize SCMStateMachine.` or the StateMachineUpdater's \
             `caught a Throwable.` (LocalSecretKeyStore.save throws `Error saving SecretKeys to file` outside the try that logs \
             the former); Crash is inferred from a STARTUP_MSG with no shutdown before it"
                .into(),
        );
        notes.push(
            "hidden (inserted only where a witnessed step needs them): PurgeLog (no purge line this tool reads), ExpireKey \
             (no line of its own), Crash (kill -9 logs nothing)"
                .into(),
        );
        if ignored_inits > 0 {
            notes.push(format!(
                "ignored {ignored_inits} key init line(s) (`A new key is generated`/`Keys reloaded`) with no leadership line of that SCM before them"
            ));
        }
        if ignored_saves > 0 {
            notes.push(format!(
                "ignored {ignored_saves} `Saved [...] to file` line(s) inside an install where the spec has no key save"
            ));
        }
        Witnessed {
            witnesses: out.into_iter().map(Witness::named).collect(),
            constants,
            hidden: action_names(HIDDEN),
            notes,
            ends_at: None,
        }
    }
}

/// The witnessed actions of `ScmSecretKeys` along the timeline: the witness half of the observer, alone.
pub fn witnesses(timeline: &Timeline) -> Witnessed {
    let mut table = Table::default();
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        table.step(timeline, i, e, timeline.life[i]);
    }
    table.finish(timeline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bugs::scm_secret_keys::mirror::ScmSecretKeys;
    use crate::bugs::testkit::{
        assert_export_replays, file_line, last_tlc_state, scenario, tlc_jar, tlc_on_export,
    };
    use crate::mirror::export::build_either;
    use crate::mirror::Mirror;

    const CASES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/scenarios/scm-secret-keys"
    );

    fn timeline(case: &str, merged: bool) -> Timeline {
        scenario("scm-secret-keys", case, merged)
    }

    fn where_(tl: &Timeline, i: usize) -> String {
        file_line(tl, i, "ozone-hadoop-scm-")
    }

    /// `Action(params)@file:line` per witness.
    fn listed(tl: &Timeline, w: &Witnessed) -> Vec<String> {
        w.witnesses
            .iter()
            .map(|w| {
                let p: Vec<String> = w.params.iter().map(ToString::to_string).collect();
                format!("{}({})@{}", w.action, p.join(","), where_(tl, w.event))
            })
            .collect()
    }

    /// What `check` reports first for this model: (invariant, primary event).
    fn check_first(tl: &Timeline) -> Option<(&'static str, usize)> {
        let models = crate::check::select(&["scm-secret-keys".to_string()]).unwrap();
        let reports = crate::check::replay(tl, models, &Default::default()).reports;
        reports[0].first().map(|v| (v.invariant.name, v.primary))
    }

    /// `Action(params)` per witness, with nothing of where.
    fn actions(w: &Witnessed) -> Vec<String> {
        w.witnesses
            .iter()
            .map(|w| {
                let p: Vec<String> = w.params.iter().map(ToString::to_string).collect();
                format!("{}({})", w.action, p.join(","))
            })
            .collect()
    }

    /// The daemon-file witnesses the README's stories give (`file:line` per the scenario README).
    fn expected(case: &str) -> Vec<&'static str> {
        let install = [
            "NotifyInstall(scm3)@scm3.log:38",
            "FetchKeys(scm3)@scm3.log:40",
            "ReplaceDb(scm3)@scm3.log:46",
        ];
        let prefix = [
            "BecomeLeader(scm1)@scm1.log:44",
            "ReplicateKeys(scm1)@scm1.log:47",
            "ReplicateKeys(scm2)@scm2.log:37",
            "RotateKey()@scm1.log:113",
            "ReplicateKeys(scm1)@scm1.log:116",
            "ReplicateKeys(scm2)@scm2.log:62",
        ];
        let rest: &[&'static str] = match case {
            "healthy" => &[
                "SaveKeys(scm3)@scm3.log:53",
                "Stop(scm3)@scm3.log:68",
                "Restart(scm3)@scm3.log:92",
                "BecomeLeader(scm3)@scm3.log:147",
                "ReplicateKeys(scm3)@scm3.log:150",
                "ReplicateKeys(scm1)@scm1.log:138",
                "ReplicateKeys(scm2)@scm2.log:74",
            ],
            "violating" => &[
                "FailSave(scm3)@scm3.log:77",
                "Restart(scm3)@scm3.log:102",
                "BecomeLeader(scm3)@scm3.log:153",
                "ReplicateKeys(scm3)@scm3.log:156",
                "ReplicateKeys(scm1)@scm1.log:139",
                "ReplicateKeys(scm2)@scm2.log:74",
            ],
            "midflight" => {
                return vec![
                    "BecomeLeader(scm3)@scm3.log:52",
                    "ReplicateKeys(scm3)@scm3.log:55",
                    "ReplicateKeys(scm1)@scm1.log:8",
                    "ReplicateKeys(scm2)@scm2.log:5",
                ]
            }
            _ => unreachable!(),
        };
        prefix
            .into_iter()
            .chain(install)
            .chain(rest.iter().copied())
            .collect()
    }

    /// Every scenario dir, as daemon files and as merged test output: the witnesses, a behaviour of the spec
    /// (unpatched order), the invariant and state the mirror finds violated, and that the witnessed step there
    /// is the line `check` reports as primary.
    #[test]
    fn scenarios_witness_a_behaviour_that_violates_where_check_reports() {
        let mut cases: Vec<String> = std::fs::read_dir(CASES)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        cases.sort();
        assert_eq!(cases, ["healthy", "midflight", "violating"]);
        for case in &cases {
            for merged in [false, true] {
                let tl = timeline(case, merged);
                let w = witnesses(&tl);
                let what = format!("{case} (merged: {merged})");
                if !merged {
                    assert_eq!(listed(&tl, &w), expected(case), "{what}");
                } else {
                    // The same story; the merged file names SCMs by node id (scmNode-N), and its mid-flight
                    // cut names scmNode-1/-2 by scmId (no construction line in view), then stops scmNode-3.
                    let daemon: Vec<String> = expected(case)
                        .iter()
                        .map(|l| l.split('@').next().unwrap().replace("scm", "scmNode_"))
                        .collect();
                    let got = actions(&w);
                    match case.as_str() {
                        // The cut opens with the harness restarting scmNode-3 (`Shutting down
                        // StorageContainerManager`, then its construction lines), which the daemon files
                        // begin after.
                        "midflight" => {
                            assert_eq!(got.len(), 7, "{what}: {got:?}");
                            assert_eq!(
                                got[..2],
                                ["Stop(scmNode_3)", "Restart(scmNode_3)"],
                                "{what}"
                            );
                            assert_eq!(got[2..4], daemon[..2], "{what}");
                            assert!(got[4].starts_with("ReplicateKeys(n_5f1b7e2a"), "{what}");
                            assert!(got[5].starts_with("ReplicateKeys(n_8a2c9d3e"), "{what}");
                            assert_eq!(got[6], "Stop(scmNode_3)", "{what}");
                        }
                        // The harness stops scmNode-3 at the end of the test.
                        _ => {
                            assert_eq!(got[..got.len() - 1], daemon[..], "{what}");
                            assert_eq!(got.last().unwrap(), "Stop(scmNode_3)", "{what}");
                        }
                    }
                }
                let (patched, constants, b) = build_either::<ScmSecretKeys>(&w)
                    .unwrap_or_else(|s| panic!("{what}: stuck at {s:?}"));
                assert!(!patched, "{what}: the fixtures run the unpatched order");
                assert_eq!(constants["MaxKeys"], constants["MaxLog"]);
                // Exactly one step is inferred: the leader's log purge before the install.
                let inferred: Vec<&str> = b
                    .steps
                    .iter()
                    .filter(|s| s.event.is_none())
                    .map(|s| s.action)
                    .collect();
                let first = check_first(&tl);
                match case.as_str() {
                    "violating" => {
                        assert_eq!(inferred, ["PurgeLog"], "{what}");
                        let (inv, k) = b.violated.expect("violated");
                        assert_eq!((inv, k), ("KeyFileCoversDb", 11), "{what}");
                        // states[11] follows steps[10], FailSave(scm3): check's primary line.
                        let step = &b.steps[k - 1];
                        assert_eq!(step.action, "FailSave", "{what}");
                        assert_eq!(Some((inv, step.event.unwrap())), first, "{what}");
                        // And the stale leader's new key drops the unexpired ones two steps later.
                        let m = ScmSecretKeys::new(&constants).unwrap();
                        let drop = b
                            .steps
                            .iter()
                            .rposition(|s| s.action == "BecomeLeader")
                            .unwrap();
                        assert_eq!(drop, 12);
                        assert!(!m.holds("NoUnexpiredKeyDropped", &b.states[drop + 1]));
                        assert!(m.holds("NoUnexpiredKeyDropped", &b.states[drop]));
                    }
                    "healthy" => {
                        assert_eq!(inferred, ["PurgeLog"], "{what}");
                        assert_eq!(b.violated, None, "{what}");
                        assert_eq!(first, None, "{what}");
                    }
                    _ => {
                        assert!(inferred.is_empty(), "{what}: {inferred:?}");
                        assert_eq!(b.violated, None, "{what}");
                        assert_eq!(first, None, "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn constants_hidden_and_notes() {
        let tl = timeline("violating", false);
        let w = witnesses(&tl);
        assert_eq!(w.hidden, ["PurgeLog", "ExpireKey", "Crash"]);
        assert_eq!(
            w.constants["Nodes"],
            TlaValue::set(["scm1", "scm2", "scm3"].map(TlaValue::model))
        );
        assert_eq!(w.constants["NoNode"], TlaValue::model("NoNode"));
        // Two BecomeLeader with a new key and one RotateKey: three keys, three log entries.
        assert_eq!(w.constants["MaxKeys"], TlaValue::int(3));
        assert_eq!(w.constants["MaxLog"], TlaValue::int(3));
        assert!(!w.constants.contains_key("SaveKeysBeforeDbSwap"));
        assert!(w.notes[0].contains("log node scm3 = scm3"), "{:?}", w.notes);
        // The mid-flight logs start after scm1/scm2 did: one spare key and log entry.
        let w = witnesses(&timeline("midflight", false));
        assert_eq!(w.constants["MaxKeys"], TlaValue::int(2));
    }

    /// A kill -9 inside the install window: the next STARTUP_MSG gives Crash then Restart.
    #[test]
    fn a_startup_with_no_shutdown_before_it_is_a_crash_then_a_restart() {
        use crate::monitor::testkit::{daemon, ev, keys, text};
        let start = |ms| {
            ev(
                EventKind::ProcessStarted,
                "scm3",
                ms,
                vec![("service", text("StorageContainerManager"))],
            )
        };
        let tl = crate::monitor::testkit::timeline(vec![daemon(
            "scm",
            "scm3",
            vec![
                start(0),
                ev(
                    EventKind::SecretKeysFetched,
                    "scm3",
                    10,
                    vec![("keys", keys(&[("K1", 86_400_000)]))],
                ),
                ev(EventKind::CheckpointInstalled, "scm3", 20, vec![]),
                start(30),
            ],
        )]);
        let w = witnesses(&tl);
        assert_eq!(
            actions(&w),
            [
                "FetchKeys(scm3)",
                "ReplaceDb(scm3)",
                "Crash(scm3)",
                "Restart(scm3)"
            ]
        );
        assert_eq!(w.witnesses[2].event, w.witnesses[3].event);
    }

    /// The export replays: the trace of each built behaviour conforms through the mirror.
    #[test]
    fn exported_traces_replay_through_the_mirror() {
        for case in ["healthy", "violating", "midflight"] {
            let tl = timeline(case, false);
            assert_export_replays::<ScmSecretKeys>(&witnesses(&tl), |i| where_(&tl, i), case);
        }
    }

    /// TLC on fresh exports (only with `TLC_JAR` set): the healthy trace runs to its end, the violating one
    /// stops at state 12 with `KeyFileCoversDb` violated, as `traces/scm-secret-keys/tlc/export-*.out` record.
    #[test]
    fn tlc_accepts_the_healthy_export_and_finds_the_violation_in_the_violating_one() {
        let Some(jar) = tlc_jar() else {
            return;
        };
        for case in ["healthy", "violating"] {
            let tl = timeline(case, false);
            let (text, violated) =
                tlc_on_export::<ScmSecretKeys>(&jar, &format!("sk-{case}"), &tl, |i| {
                    where_(&tl, i)
                });
            match case {
                "healthy" => {
                    assert!(
                        text.contains("Model checking completed. No error has been found."),
                        "{text}"
                    );
                    assert!(!text.contains("Error:"), "{text}");
                }
                _ => {
                    assert!(
                        text.contains("Error: Invariant KeyFileCoversDb is violated."),
                        "{text}"
                    );
                    // The error trace ends at state 12 (b.states[11]).
                    assert_eq!(last_tlc_state(&text), Some(12), "{text}");
                    assert_eq!(violated, Some(("KeyFileCoversDb", 11)));
                }
            }
        }
    }
}
