//! `scm-finalization`: which log events witness which actions of `traces/scm-finalization/ScmFinalization.tla`.
//!
//! | event (SCM node `s` unless said) | action |
//! |---|---|
//! | `ScmBecameLeader` (`current SCM X becomes leader of term T`) | `BecomeLeader(s)` |
//! | `FinalizeForced` (WARN `Forcing upgrade finalization ...`) | `Finalize` |
//! | last `VersionFinalized` of a run (`Version ZDU (100) has been finalized.`), outside an install and a startup | `ApplyEntry(s)` (the finalize entry) |
//! | `VersionAlreadyFinalized` outside an install (replay of the finalize entry) | `ApplyEntry(s)` |
//! | `DatanodeFinalizeSent` (`Sending finalize command to datanode D ...`) | `FinalizeDatanode(d)` |
//! | `CheckpointDownloaded` (`Downloaded checkpoint from Leader ...`) | `NotifyInstall(s)` |
//! | `CheckpointInstalled` (`Replaced DB with checkpoint, ...`) | `ReplaceDb(s)` |
//! | `ScmStateReloaded` (`Reloaded SCM state ...`), else `StateMachineReinitializing`, after a `ReplaceDb(s)` | `FinalizeFromSnapshot(s)` |
//! | `DatanodeRegistered` (`Registered datanode: D`) | `Register(s, d)` |
//! | `DatanodeFenced` (`Datanode D has apparent version ... higher than SCM apparent version ...`) | `FenceDatanode(s, d)` |
//! | `STARTUP_MSG` with no `SHUTDOWN_MSG` since the node's previous run ([`Lifecycle::observe`]) | `Crash(s)` |
//! | `SHUTDOWN_MSG` (daemon files); the first stop line of a run (test output, which has no banners) | `Stop(s)`; `Crash(s)` in the middle of an install (the spec's `Stop` needs an idle one) |
//! | `Initializing version manager ...` of a restart (the `STARTUP_MSG` when there is none) | `Restart(s)` |
//!
//! Not witnessed at the levels Ozone logs by default (the export may insert them): `Propose` and the `ApplyEntry`
//! of a "tx" entry (DEBUG `applyTransaction`), `Crash` (inferred, nothing is logged), and `PurgeLog`: its INFO
//! lines (`Current Snapshot Index {}, takeSnapshot took {} ms`, `Took a snapshot at index {}`) have no rule in
//! the shipped grammar, so the timeline does not show them.

use super::mirror::Action;
use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::mirror::export::{action_names, model_value_for, Witness, Witnessed};
use crate::mirror::Constants;
use crate::timeline::Timeline;
use crate::tla::value::TlaValue;
use crate::value::Value;
use crate::vocab::EventKind;
use std::collections::{BTreeSet, HashMap};

/// Actions no log line read by the shipped grammar witnesses: see the module documentation.
pub const HIDDEN: &[Action] = &[
    Action::Propose,
    Action::ApplyEntry,
    Action::PurgeLog,
    Action::Crash,
];

/// What the walk remembers of one SCM node.
#[derive(Debug, Default)]
struct Scm {
    /// An event of this node was seen: a later start is a restart.
    ran: bool,
    /// Its last run ended with a witnessed `Stop`.
    stopped: bool,
    /// A restart whose `Restart` witness is awaited at this event (its version-manager line).
    restart_at: Option<usize>,
    /// Between a restart and the start of its Raft server: `Version ... has been finalized.` lines here are the
    /// patched startup's, part of `Restart`.
    starting: bool,
    /// Inside an install after `ReplaceDb(s)`: awaiting `FinalizeFromSnapshot(s)`.
    swapped: bool,
    /// Inside an install after `NotifyInstall(s)`, before `ReplaceDb(s)`.
    downloaded: bool,
}

impl Scm {
    /// The spec's `install[s] # "Idle"`: a stop now is no `Stop(s)` (which needs an idle install) but the end
    /// of the process in the middle of an install, `Crash(s)`, which also resets the install.
    fn mid_install(&self) -> bool {
        self.downloaded || self.swapped
    }

    /// The action a logged stop witnesses.
    fn stop_action(&mut self) -> Action {
        let action = if self.mid_install() {
            Action::Crash
        } else {
            Action::Stop
        };
        self.stopped = true;
        self.downloaded = false;
        self.swapped = false;
        action
    }
}

/// The datanode a fence or finalize line names: its uuid and, where the line shows it, its host; the monitor
/// names the fenced datanode with it too.
pub(super) fn datanode_of(e: &Event) -> Option<(String, Option<String>)> {
    match e.field("datanode")? {
        Value::Datanode { uuid, host, .. } => Some((uuid.clone(), host.clone())),
        _ => None,
    }
}

/// What the whole timeline tells the witness table before its first step: how datanodes are named, and each
/// SCM's scmId.
#[derive(Debug)]
struct Names {
    /// Datanodes are named by host when every datanode has its own host (daemon logs), else by uuid (test
    /// output: one host for all).
    by_host: bool,
    /// scmId → node name, from each SCM's own `starting Raft server for scm:<id>` / `becomes leader` lines.
    scm_ids: HashMap<String, String>,
}

impl Names {
    fn of(timeline: &Timeline) -> Names {
        let events = &timeline.events;
        let mut dn_hosts: HashMap<String, BTreeSet<String>> = HashMap::new();
        for e in events.iter() {
            if let Some((uuid, Some(host))) = datanode_of(&e) {
                dn_hosts.entry(host).or_default().insert(uuid);
            }
        }
        let by_host = dn_hosts.values().all(|uuids| uuids.len() == 1);
        let mut scm_ids: HashMap<String, String> = HashMap::new();
        for e in events.iter() {
            if let (Some(node), Some(Value::Str(id))) = (
                e.node.as_ref(),
                match e.kind {
                    EventKind::ScmRaftServerCreated => e.field("scm_id"),
                    EventKind::ScmBecameLeader => e.field("scm"),
                    _ => None,
                },
            ) {
                scm_ids.insert(id.clone(), node.to_string());
            }
        }
        Names { by_host, scm_ids }
    }
}

/// Export's half of the `scm-finalization` observer: the witnessed actions of `ScmFinalization`, event by
/// event, with the monitor's role and the timeline's lifecycle.
#[derive(Debug, Default)]
pub struct Table {
    names: Option<Names>,
    scms: HashMap<u32, Scm>,
    out: Vec<Witness<Action>>,
    ignored: BTreeSet<&'static str>,
    named_leaders: BTreeSet<String>,
}

impl Table {
    /// Event `i`, with the lifecycle step it makes.
    pub fn step(&mut self, timeline: &Timeline, i: usize, e: &Event, life: Option<LifeStep>) {
        let names = self.names.get_or_insert_with(|| Names::of(timeline));
        let Table {
            scms,
            out,
            ignored,
            named_leaders,
            ..
        } = self;
        let by_host = names.by_host;
        let events = &timeline.events;
        let is_scm = |i: usize| {
            let h = events.head(i);
            h.has_node() && timeline.plays(h.node, &super::ABOUT.role)
        };
        let test_output = |i: usize| timeline.is_test_output(events.head(i).span.input);
        let dn_value = |e: &Event| {
            datanode_of(e).map(|(uuid, host)| match host {
                Some(h) if by_host => model_value_for(&h),
                _ => model_value_for(&uuid),
            })
        };
        let w = |out: &mut Vec<Witness<Action>>,
                 event: usize,
                 action: Action,
                 params: Vec<TlaValue>| {
            out.push(Witness {
                event,
                action,
                params,
            })
        };
        if e.kind == EventKind::FinalizeForced {
            // Only an SCM logs it; test output may not tell which (an IPC handler thread), and Finalize has no
            // parameter.
            w(out, i, Action::Finalize, vec![]);
            return;
        }
        // An SCM's event: one with a node that plays the SCM role (the node is what names it below).
        let Some(node) = e.node.as_ref().filter(|_| is_scm(i)) else {
            if matches!(
                e.kind,
                EventKind::VersionFinalized
                    | EventKind::DatanodeFinalizeCommandReceived
                    | EventKind::DatanodeFinalizeStarted
                    | EventKind::DatanodeRegistrationRejected
                    | EventKind::DatanodeShutdownOnError
            ) {
                ignored.insert(e.kind.name());
            }
            return;
        };
        let s = model_value_for(node);
        let st = scms.entry(e.node_key).or_default();

        // Lifecycle: stops, crashes and restarts.
        match life {
            Some(LifeStep::Started { crashed }) if st.ran && (st.stopped || crashed.is_some()) => {
                if crashed.is_some() && !st.stopped {
                    w(out, i, Action::Crash, vec![s.clone()]);
                }
                st.stopped = false;
                st.swapped = false;
                st.downloaded = false;
                st.starting = true;
                // The restart is complete once the version manager is built from VERSION.
                st.restart_at = events
                    .heads_in(i + 1..events.len())
                    .enumerate()
                    .take_while(|(_, x)| {
                        x.node != e.node_key
                            || !matches!(
                                x.kind,
                                EventKind::ProcessStarted | EventKind::ScmRaftServerCreated
                            )
                    })
                    .find(|(_, x)| {
                        x.node == e.node_key && x.kind == EventKind::VersionManagerInitialized
                    })
                    .map(|(k, _)| i + 1 + k);
                if st.restart_at.is_none() {
                    w(out, i, Action::Restart, vec![s.clone()]);
                }
            }
            Some(LifeStep::Stopping) if test_output(i) && !st.stopped => {
                let action = st.stop_action();
                w(out, i, action, vec![s.clone()]);
            }
            _ => {}
        }
        st.ran = true;

        match e.kind {
            EventKind::ProcessShutdown if !test_output(i) && !st.stopped => {
                let action = st.stop_action();
                w(out, i, action, vec![s.clone()]);
            }
            EventKind::VersionManagerInitialized if st.restart_at == Some(i) => {
                w(out, i, Action::Restart, vec![s.clone()]);
                st.restart_at = None;
            }
            EventKind::ScmRaftServerCreated => st.starting = false,
            EventKind::ScmBecameLeader => w(out, i, Action::BecomeLeader, vec![s.clone()]),
            EventKind::VersionFinalized => {
                // One line per version step: the last of the run completes the step.
                let last = events
                    .heads_in(i + 1..events.len())
                    .find(|x| x.node == e.node_key)
                    .is_none_or(|x| x.kind != EventKind::VersionFinalized);
                if st.starting || st.swapped || !last {
                    ignored.insert("VersionFinalized");
                } else {
                    w(out, i, Action::ApplyEntry, vec![s.clone()]);
                }
            }
            EventKind::VersionAlreadyFinalized if !st.swapped => {
                w(out, i, Action::ApplyEntry, vec![s.clone()])
            }
            EventKind::CheckpointDownloaded => {
                w(out, i, Action::NotifyInstall, vec![s.clone()]);
                st.downloaded = true;
            }
            EventKind::CheckpointInstalled => {
                w(out, i, Action::ReplaceDb, vec![s.clone()]);
                st.downloaded = false;
                st.swapped = true;
            }
            EventKind::ScmStateReloaded | EventKind::StateMachineReinitializing if st.swapped => {
                w(out, i, Action::FinalizeFromSnapshot, vec![s.clone()]);
                st.swapped = false;
            }
            // Only from a known SCM: `FinalizeDatanode(d)` needs `d` registered with the leader, and a line
            // on an IPC handler thread whose SCM no port tells leaves that registration unwitnessed too.
            EventKind::DatanodeFinalizeSent => {
                if let Some(d) = dn_value(e) {
                    w(out, i, Action::FinalizeDatanode, vec![d]);
                }
            }
            EventKind::DatanodeRegistered => {
                if let Some(d) = dn_value(e) {
                    w(out, i, Action::Register, vec![s.clone(), d]);
                }
            }
            EventKind::DatanodeFenced => {
                if let Some(d) = dn_value(e) {
                    w(out, i, Action::FenceDatanode, vec![s.clone(), d]);
                }
            }
            EventKind::ScmFollowerLeaderChanged => {
                if let Some(Value::Str(l)) = e.field("leader") {
                    named_leaders.insert(l.clone());
                }
            }
            EventKind::SnapshotVersionHigher
            | EventKind::CheckpointInstallStarted
            | EventKind::SnapshotInstallNotified
            | EventKind::RaftSnapshotInstallNotified
            | EventKind::RaftLeaderReady
            | EventKind::DatanodeReregisterRequested => {
                ignored.insert(e.kind.name());
            }
            _ => {}
        }
    }

    /// After the last event: the witnesses, and the constants sized to them.
    pub fn finish(&mut self, timeline: &Timeline) -> Witnessed {
        let names = self.names.take().unwrap_or_else(|| Names::of(timeline));
        let (by_host, scm_ids) = (names.by_host, names.scm_ids);
        let out = std::mem::take(&mut self.out);
        let ignored = std::mem::take(&mut self.ignored);
        let named_leaders = std::mem::take(&mut self.named_leaders);
        // Constants, sized to the witnesses.
        let mut scm_set: BTreeSet<TlaValue> = BTreeSet::new();
        let mut dn_set: BTreeSet<TlaValue> = BTreeSet::new();
        let mut finalizes = 0;
        for x in &out {
            match x.action {
                Action::FinalizeDatanode => {
                    dn_set.insert(x.params[0].clone());
                }
                Action::Register | Action::FenceDatanode => {
                    scm_set.insert(x.params[0].clone());
                    dn_set.insert(x.params[1].clone());
                }
                Action::Finalize => finalizes += 1,
                Action::Propose | Action::PurgeLog => {}
                _ => {
                    scm_set.insert(x.params[0].clone());
                }
            }
        }
        let mut notes = Vec::new();
        // A leader the followers name but whose own logs are not in view is an SCM too (an install needs one).
        for id in &named_leaders {
            let v = model_value_for(scm_ids.get(id).map_or(id.as_str(), |n| n.as_str()));
            if !scm_set.contains(&v) && !out.is_empty() {
                notes.push(format!(
                    "SCM {v}: the leader named by `Leader changed to {id}`; none of its lines are in view"
                ));
                scm_set.insert(v);
            }
        }
        let mut constants = Constants::new();
        constants.insert("Scms".into(), TlaValue::set(scm_set.iter().cloned()));
        constants.insert("Datanodes".into(), TlaValue::set(dn_set.iter().cloned()));
        constants.insert("NoNode".into(), TlaValue::model("NoNode"));
        // One "finalize" entry per witnessed Finalize; "tx" entries are DEBUG-only and never needed by a witness.
        constants.insert("MaxLog".into(), TlaValue::int(finalizes.max(1)));

        notes.insert(
            0,
            format!(
                "model values: SCM and datanode names from the logs with every character outside [A-Za-z0-9] as `_`; datanodes by {} (Scms = {}, Datanodes = {})",
                if by_host { "host name" } else { "uuid (the hosts are shared)" },
                TlaValue::set(scm_set.iter().cloned()),
                TlaValue::set(dn_set.iter().cloned()),
            ),
        );
        notes.push("a node's first start in view is part of Init (every SCM is up there); a later start is Restart, witnessed by its `Initializing version manager ...` line, with a Crash inferred when no SHUTDOWN_MSG ended the previous run".into());
        notes.push("not witnessed at default levels, so inserted where needed: Propose and ApplyEntry of \"tx\" entries (DEBUG applyTransaction), Crash (inferred), PurgeLog (`Current Snapshot Index ...`/`Took a snapshot at index ...` are INFO, but the grammar has no rule for them)".into());
        if !ignored.is_empty() {
            notes.push(format!(
                "lines read but not witnesses (another line of the same step witnesses it, or a datanode-side line): {}",
                ignored.into_iter().collect::<Vec<_>>().join(", ")
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

/// The witnessed actions of `ScmFinalization` along the timeline: the witness half of the observer, alone.
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
    use crate::bugs::scm_finalization::mirror::ScmFinalization;
    use crate::bugs::testkit::{file_line, scenario, tlc_jar, tlc_on_export};
    use crate::mirror::export::{build_either, to_trace, Stuck};
    use crate::mirror::replay::{replay_with, Outcome};
    use crate::mirror::Mirror;

    /// The timeline of a case's daemon files.
    fn timeline(case: &str) -> Timeline {
        scenario("scm-finalization", case, false)
    }

    /// `file:line` of an event.
    fn at(tl: &Timeline, i: usize) -> String {
        file_line(tl, i, "ozone-hadoop-")
    }

    /// The witnesses as `Action(params) @ file:line`.
    fn listed(tl: &Timeline, w: &Witnessed) -> Vec<String> {
        w.witnesses
            .iter()
            .map(|x| {
                format!(
                    "{} @ {}",
                    crate::mirror::replay::action_text(x.action, &x.params),
                    at(tl, x.event)
                )
            })
            .collect()
    }

    fn primary_of_check(tl: &Timeline, invariant: &str) -> String {
        let r = crate::monitor::testkit::replay_one(tl, "scm-finalization");
        let v = r
            .violations
            .iter()
            .find(|v| v.invariant == invariant)
            .unwrap_or_else(|| panic!("check reports {invariant}"));
        at(tl, v.primary)
    }

    const VIOLATING: &[&str] = &[
        "BecomeLeader(scm1) @ scm-scm1.log:38",
        "Register(scm1, dn1) @ scm-scm1.log:42",
        "Register(scm1, dn2) @ scm-scm1.log:44",
        "Register(scm1, dn3) @ scm-scm1.log:46",
        "Register(scm2, dn1) @ scm-scm2.log:35",
        "Register(scm2, dn2) @ scm-scm2.log:37",
        "Register(scm2, dn3) @ scm-scm2.log:39",
        "Finalize @ scm-scm1.log:55",
        "ApplyEntry(scm1) @ scm-scm1.log:66",
        "ApplyEntry(scm2) @ scm-scm2.log:52",
        "FinalizeDatanode(dn1) @ scm-scm1.log:67",
        "FinalizeDatanode(dn2) @ scm-scm1.log:68",
        "FinalizeDatanode(dn3) @ scm-scm1.log:69",
        "NotifyInstall(scm3) @ scm-scm3.log:38",
        "ReplaceDb(scm3) @ scm-scm3.log:45",
        "Crash(scm3) @ scm-scm3.log:48",
        "Restart(scm3) @ scm-scm3.log:61",
        "FenceDatanode(scm3, dn1) @ scm-scm3.log:82",
        "FenceDatanode(scm3, dn2) @ scm-scm3.log:83",
        "FenceDatanode(scm3, dn3) @ scm-scm3.log:84",
    ];

    #[test]
    fn violating_daemon_logs_witness_the_interrupted_install_and_the_fences() {
        let tl = timeline("violating");
        let w = witnesses(&tl);
        assert_eq!(listed(&tl, &w), VIOLATING);
        assert_eq!(w.hidden, action_names(HIDDEN));
        assert_eq!(
            w.constants["Scms"].to_string(),
            "{scm1, scm2, scm3}",
            "{:?}",
            w.constants
        );
        assert_eq!(w.constants["Datanodes"].to_string(), "{dn1, dn2, dn3}");
        assert_eq!(w.constants["MaxLog"], TlaValue::int(1));
        assert!(!w.constants.contains_key("FinalizeFromDbOnStartup"));

        let (patched, constants, b) = build_either::<ScmFinalization>(&w).unwrap();
        assert!(!patched, "the bug constants admit the logs");
        // Only the purge before the install is inferred.
        let inferred: Vec<_> = b
            .steps
            .iter()
            .filter(|s| s.event.is_none())
            .map(|s| s.action)
            .collect();
        assert_eq!(inferred, ["PurgeLog"]);
        // VersionFileCoversDb fails in the state Restart(scm3) reaches: states[18], TLC's state 19.
        let (inv, k) = b.violated.expect("violated");
        assert_eq!((inv, k), ("VersionFileCoversDb", 18));
        let step = &b.steps[k - 1];
        assert_eq!(step.action, "Restart");
        assert_eq!(
            at(&tl, step.event.unwrap()),
            primary_of_check(&tl, "VersionFileCoversDb")
        );
        assert_eq!(
            primary_of_check(&tl, "VersionFileCoversDb"),
            "scm-scm3.log:61"
        );
        // The first fence is the one check reports for NoFinalizedDatanodeFenced, and it violates it.
        let mirror = ScmFinalization::new(&constants).unwrap();
        let fence = b
            .steps
            .iter()
            .position(|s| s.action == "FenceDatanode")
            .unwrap();
        assert_eq!(
            at(&tl, b.steps[fence].event.unwrap()),
            primary_of_check(&tl, "NoFinalizedDatanodeFenced")
        );
        assert!(!mirror.holds("NoFinalizedDatanodeFenced", &b.states[fence + 1]));
        assert!(mirror.holds("NoFinalizedDatanodeFenced", &b.states[fence]));

        // The export replays through the mirror.
        // The export ends at state 19, where the mirror first sees VersionFileCoversDb fail, and claims it
        // there, as TLC's traces do.
        let trace = to_trace(&mirror, &b, |i| at(&tl, i));
        assert_eq!(trace.states.len(), k + 1);
        assert_eq!(
            trace.violation.as_ref().and_then(|v| v.name.as_deref()),
            Some("VersionFileCoversDb")
        );
        match replay_with(&mirror, &trace) {
            Outcome::Conforms(a) => {
                assert_eq!(a.states, 19);
                assert_eq!(a.violated, Some(("VersionFileCoversDb".to_string(), 19)));
                assert_eq!(a.actions[17], "Restart(scm3)");
            }
            Outcome::Diverges(d) => panic!("{d:?}"),
        }
    }

    #[test]
    fn healthy_daemon_logs_are_a_behaviour_with_no_violation() {
        let tl = timeline("healthy");
        let w = witnesses(&tl);
        let l = listed(&tl, &w);
        // The same story as the violating case up to the DB swap; then the install completes.
        assert_eq!(l[..15], VIOLATING[..15]);
        assert_eq!(
            l[15..17],
            [
                "FinalizeFromSnapshot(scm3) @ scm-scm3.log:59",
                "Register(scm3, dn1) @ scm-scm3.log:65",
            ]
        );
        assert_eq!(
            &l[17..],
            [
                "Register(scm3, dn2) @ scm-scm3.log:67",
                "Register(scm3, dn3) @ scm-scm3.log:69",
                "Stop(scm3) @ scm-scm3.log:95",
                "Restart(scm3) @ scm-scm3.log:112",
                "Register(scm3, dn1) @ scm-scm3.log:136",
                "Register(scm3, dn2) @ scm-scm3.log:138",
                "Register(scm3, dn3) @ scm-scm3.log:140",
            ]
        );
        assert!(crate::monitor::testkit::replay_one(&tl, "scm-finalization")
            .violations
            .is_empty());
        let (patched, constants, b) = build_either::<ScmFinalization>(&w).unwrap();
        assert!(!patched);
        assert_eq!(b.violated, None);
        assert_eq!(b.states.len(), 26);
        let mirror = ScmFinalization::new(&constants).unwrap();
        let trace = to_trace(&mirror, &b, |i| at(&tl, i));
        assert!(matches!(replay_with(&mirror, &trace), Outcome::Conforms(_)));
    }

    #[test]
    fn midflight_daemon_logs_fail_at_the_second_fence_whose_finalize_is_not_in_view() {
        let tl = timeline("midflight");
        let w = witnesses(&tl);
        assert_eq!(
            listed(&tl, &w),
            [
                "FenceDatanode(scm3, dn1) @ scm-scm3.log:35",
                "FenceDatanode(scm3, dn2) @ scm-scm3.log:36",
                "FenceDatanode(scm3, dn3) @ scm-scm3.log:37",
            ]
        );
        // The leader scm3 follows is an SCM of the export although none of its lines are in view.
        assert_eq!(
            w.constants["Scms"].to_string(),
            "{n_5f1b7e2a_3c4d_4e8f_9a0b_1c2d3e4f5a61, scm3}"
        );
        // Before the first witness anything may be inferred (the logs start mid-flight), but no inferred step
        // may break an invariant: the only prefixes that let scm3 fence a finalized dn1 pass through a stale
        // VERSION file, so the export stops at the first fence rather than guess the bug happened out of view.
        let err: Stuck = build_either::<ScmFinalization>(&w).unwrap_err();
        assert_eq!(err.witness, 0);
        assert_eq!(at(&tl, err.event), "scm-scm3.log:35");
        assert_eq!(err.action, "FenceDatanode(scm3, dn1)");
    }

    /// TLC's stdout on a fresh export of a case.
    fn tlc_on(jar: &str, case: &str) -> String {
        let tl = timeline(case);
        tlc_on_export::<ScmFinalization>(jar, &format!("fin-{case}"), &tl, |i| at(&tl, i)).0
    }

    #[test]
    fn tlc_accepts_the_healthy_export_and_finds_the_violation_in_the_violating_one() {
        let Some(jar) = tlc_jar() else {
            return;
        };
        let healthy = tlc_on(&jar, "healthy");
        assert!(
            healthy.contains("Model checking completed. No error has been found."),
            "{healthy}"
        );
        let violating = tlc_on(&jar, "violating");
        assert!(
            violating.contains("Invariant VersionFileCoversDb is violated"),
            "{violating}"
        );
        // The violating state is the 19th, reached by Restart(scm3).
        let last = violating
            .lines()
            .rfind(|l| l.starts_with("State "))
            .unwrap();
        assert!(last.starts_with("State 19:"), "{last}");
    }
}
