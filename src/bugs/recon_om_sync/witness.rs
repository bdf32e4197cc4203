//! Which Recon log lines witness which actions of `traces/recon-om-sync/ReconOmSync.tla` (HDDS-16462).
//!
//! | log line (event kind) | action |
//! |---|---|
//! | first start line of a run (`STARTUP_MSG` / `Starting Recon server`, a lifecycle `Started`) | `Restart` |
//! | that `STARTUP_MSG` when the previous run logged no shutdown (daemon logs only) | `Crash`, then `Restart` |
//! | first stop line of a run (`Stopping Recon server`, a lifecycle `Stopping`) | `Stop` |
//! | `Ozone Manager Service Provider is started.` (`OmServiceProviderStarted`) after a start | `Reconcile` |
//! | `Sequence number after sync: N` (`SyncCompleted`) after `Successfully updated Recon OM DB with new snapshot.` | `OmWrite`s or `OmRestore(n)`, then `FullSnapshot` |
//! | `Sequence number after sync: N` of a delta cycle, N above the cursor | `OmWrite`s, then `SyncDelta` |
//! | `Task X completed execution` (`TaskCompleted`) | `ReprocessTask(X)` |
//! | `Re-initialization of tasks completed successfully.` (`ReinitCompleted`) | `ReinitDone` |
//!
//! Lines read as `check` reads them: a snapshot whose `Sequence number after sync` is lost takes the next
//! cycle's first number (witnessed at its install line when a reprocess step comes first); a number below the
//! cursor is a `FullSnapshot` onto a new lineage even without its install line. The export ends, with a note,
//! where `check` is inconclusive: a snapshot with no number before Recon stops, a reprocess that ended with no
//! outcome line, and a full snapshot fetched by `start()`, which is no step of the spec.
//!
//! The OM's own steps are read off Recon's sequence numbers (the spec says so: `OmWrite` and `OmRestore` have no
//! Recon line and are "visible through the sequence numbers"). A full snapshot that lands at or below the
//! cursor Recon held is a new OM lineage (`OmRestore`); one above it is the same lineage after OM writes.
//!
//! Sequence numbers are abstracted to small integers, order-preserving within each OM lineage; each restored
//! lineage is placed below every number of the lineage before it (the spec's environment assumption: a
//! restored lineage starts below every cursor Recon holds and never reaches them). The number 0 of the first
//! lineage is the spec's `Init`.

use super::mirror::Action;
use crate::lifecycle::LifeStep;
use crate::mirror::export::{action_names, model_value_for, Witness, Witnessed};
use crate::mirror::Constants;
use crate::monitor::{Ctx, Instance};
use crate::timeline::Timeline;
use crate::tla::value::TlaValue;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use std::collections::{BTreeMap, BTreeSet};

/// The actions no Recon log line shows at the default INFO level: the OM's writes and restores (seen only
/// through Recon's sequence numbers) and a crash (seen only as a `STARTUP_MSG` with no shutdown before it).
pub const HIDDEN: &[Action] = &[Action::OmWrite, Action::OmRestore, Action::Crash];

/// TASK_STATUS rows that are sync cursors, not derived tasks.
const CURSOR_ROWS: &[&str] = &["OmDeltaRequest", "OmSnapshotRequest"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Down,
    Starting,
    Running,
}

/// The sequence number a sync line shows (`seq`); the monitor reads it here too.
pub(super) fn seq(e: &crate::event::Event) -> Option<i64> {
    e.field("seq").and_then(Value::as_i64)
}

/// The derived task a reprocess line names (`task`); the monitor reads it here too.
pub(super) fn task(e: &crate::event::Event) -> Option<&str> {
    e.field("task").and_then(Value::as_str)
}

/// The Recon node the export follows: the first node with a Recon line. Returns its key and name.
fn recon_node(timeline: &Timeline) -> Option<(u32, String)> {
    let cx = Ctx { timeline };
    timeline.events.iter().find_map(|e| {
        if e.component != Component::Recon {
            return None;
        }
        match cx.instance(&e, &super::ABOUT.role) {
            Instance::Of(node, key) => Some((key, node.to_string())),
            _ => None,
        }
    })
}

/// Lineage of every `Sequence number after sync` value: a full snapshot at or below the cursor starts a new
/// one. Returns, per event index of a `SyncCompleted`, its lineage (1-based) and number, and the values of each
/// lineage.
type Lineages = (BTreeMap<usize, (u32, i64)>, BTreeMap<u32, BTreeSet<i64>>);
fn lineages(timeline: &Timeline, key: u32) -> Lineages {
    let mut of_event = BTreeMap::new();
    let mut values: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
    let mut lineage = 1;
    let mut cursor = 0i64;
    let mut snapshot = false;
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        if e.node_key != key {
            continue;
        }
        if let Some(n) = snapshot_seq(e, snapshot) {
            // Only a full snapshot moves Recon's OM DB back, so a number below the cursor is one even with
            // its install line lost.
            if (snapshot && n <= cursor) || n < cursor {
                lineage += 1;
            }
            snapshot = false;
            cursor = n;
            of_event.insert(i, (lineage, n));
            values.entry(lineage).or_default().insert(n);
        } else if e.kind == EventKind::FullSnapshotInstalled {
            snapshot = true;
        }
    }
    (of_event, values)
}

/// The number `e` shows for Recon's OM DB after a sync: `Sequence number after sync: N`, or, while a snapshot's
/// own `Sequence number after sync` is still to come (lost), the next cycle's `Last known sequence number before
/// sync: N` / `Seq number of Recon's OM DB : N` (no delta runs in between; 0 means no OM DB).
fn snapshot_seq(e: &crate::event::Event, snapshot_pending: bool) -> Option<i64> {
    match e.kind {
        EventKind::SyncCompleted => seq(e),
        EventKind::SyncStarted | EventKind::OmDbSeqObserved if snapshot_pending => {
            seq(e).filter(|n| *n > 0)
        }
        _ => None,
    }
}

/// The abstraction of sequence numbers: `(lineage, n)` → a small integer. Later lineages sit below earlier
/// ones; the first lineage's 0 stays 0 (the spec's `Init`).
fn abstraction(values: &BTreeMap<u32, BTreeSet<i64>>) -> BTreeMap<(u32, i64), u32> {
    let mut map = BTreeMap::new();
    let mut next = 1u32;
    for (&lineage, vs) in values.iter().rev() {
        for &v in vs {
            if lineage == 1 && v == 0 {
                map.insert((1, 0), 0);
            } else {
                map.insert((lineage, v), next);
                next += 1;
            }
        }
    }
    map
}

pub fn witnesses(timeline: &Timeline) -> Witnessed {
    let mut out = Witnessed {
        hidden: action_names(HIDDEN),
        ..Witnessed::default()
    };
    let Some((key, node)) = recon_node(timeline) else {
        out.notes.push("no Recon line in these logs".into());
        return out;
    };
    let (lineage_of, values) = lineages(timeline, key);
    let abs = abstraction(&values);

    let mut tasks: BTreeSet<String> = BTreeSet::new();
    let mut w: Vec<Witness<Action>> = Vec::new();
    let push = |w: &mut Vec<Witness<Action>>, event: usize, action: Action, params| {
        w.push(Witness {
            event,
            action,
            params,
        });
    };
    // Where this Recon stops or starts, for the look-ahead below.
    let life_steps: BTreeSet<usize> = timeline
        .life
        .indices()
        .into_iter()
        .filter(|&i| timeline.events.head(i).node == key)
        .collect();
    let mut phase: Option<Phase> = None;
    let mut om = 0u32;
    let mut lineage = 1u32;
    let mut snapshot_pending: Option<usize> = None;
    let mut reprocessed: BTreeSet<String> = BTreeSet::new();
    // The reprocess now running logged its outcome (`Re-initialization of tasks completed successfully.` or
    // `... failed.`).
    let mut outcome_seen = true;
    // Where the logs stop telling a behaviour of the spec (as check says inconclusive there): the export ends.
    let mut stop: Option<(usize, String)> = None;
    let mut other_nodes: BTreeSet<String> = BTreeSet::new();
    // Numbers already used for a snapshot whose own `Sequence number after sync` is lost.
    let mut resolved_early: BTreeSet<usize> = BTreeSet::new();
    let mut skipped: Vec<String> = Vec::new();
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        let life = timeline.life[i];
        if stop.is_some() {
            break;
        }
        if e.node_key != key {
            if e.component == Component::Recon {
                if let Some(n) = &e.node {
                    other_nodes.insert(n.to_string());
                }
            }
            continue;
        }
        if let (Some(_), Some(snap)) = (life, snapshot_pending) {
            stop = Some((i, format!(
                "the export ends at line {}: the full snapshot installed at line {} shows no sequence number before Recon stops or restarts, so its OM lineage is not in view",
                e.span.line, timeline.events.head(snap).span.line
            )));
            break;
        }
        // A reprocess step while the snapshot's own `Sequence number after sync` is lost: the snapshot comes
        // first, with the number the next cycle starts from.
        if let Some(snap) = snapshot_pending.filter(|_| {
            matches!(
                e.kind,
                EventKind::TaskCompleted | EventKind::ReinitCompleted
            )
        }) {
            snapshot_pending = None;
            // The number must come from the same run: after a stop or restart, check calls it unknown.
            let resolved = lineage_of
                .range(snap..)
                .next()
                .map(|(&j, &(l, n))| (j, l, n))
                .filter(|(j, _, _)| life_steps.range(snap..*j).next().is_none());
            // The abstraction holds every (lineage, number) that `lineages` gave an event.
            let Some((j, l, r)) = resolved.and_then(|(j, l, n)| Some((j, l, *abs.get(&(l, n))?)))
            else {
                stop = Some((i, format!(
                    "the export ends at line {}: the full snapshot installed at line {} shows no sequence number in these logs",
                    e.span.line, timeline.events.head(snap).span.line
                )));
                break;
            };
            if l != lineage {
                push(
                    &mut w,
                    snap,
                    Action::OmRestore,
                    vec![TlaValue::int(i64::from(r))],
                );
                lineage = l;
                om = r;
            }
            for _ in om..r {
                push(&mut w, snap, Action::OmWrite, vec![]);
            }
            om = om.max(r);
            push(&mut w, snap, Action::FullSnapshot, vec![]);
            reprocessed.clear();
            resolved_early.insert(j);
        }
        match life {
            // Only the first start line of a run restarts it (STARTUP_MSG, then `Starting Recon server`).
            Some(LifeStep::Started { crashed })
                if crashed.is_some()
                    || (phase != Some(Phase::Starting) && phase != Some(Phase::Running)) =>
            {
                if crashed.is_some() {
                    push(&mut w, i, Action::Crash, vec![]);
                }
                push(&mut w, i, Action::Restart, vec![]);
                phase = Some(Phase::Starting);
                reprocessed.clear();
                snapshot_pending = None;
            }
            Some(LifeStep::Stopping) if phase != Some(Phase::Down) => {
                if phase == Some(Phase::Starting) {
                    skipped.push(format!(
                        "line {} stops Recon during its startup, which the spec has no graceful step for",
                        e.span.line
                    ));
                } else {
                    push(&mut w, i, Action::Stop, vec![]);
                }
                phase = Some(Phase::Down);
                reprocessed.clear();
                snapshot_pending = None;
            }
            _ => {}
        }
        match e.kind {
            EventKind::TaskStatusRegistered
            | EventKind::TaskStarted
            | EventKind::StartupTaskSeq => {
                if let Some(t) = task(e).filter(|t| !CURSOR_ROWS.contains(t)) {
                    tasks.insert(t.to_string());
                }
            }
            EventKind::OmServiceProviderStarted => {
                if phase == Some(Phase::Starting) || (phase.is_none() && w.is_empty()) {
                    push(&mut w, i, Action::Reconcile, vec![]);
                }
                phase = Some(Phase::Running);
            }
            EventKind::FullSnapshotInstalled if phase == Some(Phase::Starting) => {
                stop = Some((i, format!(
                    "the export ends at line {}: a full snapshot fetched by Recon's start() (its local OM DB failed to open) is no step of the spec: it queues no reprocess and leaves the task rows alone",
                    e.span.line
                )));
            }
            EventKind::FullSnapshotInstalled => snapshot_pending = Some(i),
            EventKind::ReinitProcessing | EventKind::AsyncReinitStarted => outcome_seen = false,
            EventKind::ReinitFailed => outcome_seen = true,
            EventKind::AsyncReinitCompleted | EventKind::ReinitEventProcessed if !outcome_seen => {
                stop = Some((i, format!(
                    "the export ends at line {}: the reprocess ended with neither `Re-initialization of tasks completed successfully.` nor `... failed.` in view, so whether ReinitDone happened is not in view",
                    e.span.line
                )));
            }
            EventKind::SyncCompleted | EventKind::SyncStarted | EventKind::OmDbSeqObserved
                if lineage_of.contains_key(&i) && !resolved_early.contains(&i) =>
            {
                let (Some(n), Some((l, r))) = (
                    snapshot_seq(e, snapshot_pending.is_some()),
                    lineage_of
                        .get(&i)
                        .and_then(|&(l, n)| Some((l, *abs.get(&(l, n))?))),
                ) else {
                    continue;
                };
                if snapshot_pending.take().is_some() || l != lineage {
                    if l != lineage {
                        push(
                            &mut w,
                            i,
                            Action::OmRestore,
                            vec![TlaValue::int(i64::from(r))],
                        );
                        lineage = l;
                        om = r;
                    }
                    for _ in om..r {
                        push(&mut w, i, Action::OmWrite, vec![]);
                    }
                    om = om.max(r);
                    push(&mut w, i, Action::FullSnapshot, vec![]);
                    reprocessed.clear();
                } else if r > om {
                    for _ in om..r {
                        push(&mut w, i, Action::OmWrite, vec![]);
                    }
                    om = r;
                    push(&mut w, i, Action::SyncDelta, vec![]);
                } else if r < om {
                    skipped.push(format!(
                        "line {}: a delta sync that moved the cursor back to {n} is no step of the spec",
                        e.span.line
                    ));
                }
            }
            EventKind::TaskCompleted => {
                if let Some(t) = task(e) {
                    tasks.insert(t.to_string());
                    if reprocessed.insert(t.to_string()) {
                        push(&mut w, i, Action::ReprocessTask, vec![model_value_for(t)]);
                    }
                }
            }
            EventKind::ReinitCompleted => {
                push(&mut w, i, Action::ReinitDone, vec![]);
                reprocessed.clear();
                outcome_seen = true;
            }
            _ => {}
        }
    }

    let max_seq = abs.values().copied().max().unwrap_or(0);
    let max_lineage = values.keys().copied().max().unwrap_or(1).max(lineage);
    let mut constants = Constants::new();
    constants.insert(
        "Tasks".into(),
        TlaValue::set(tasks.iter().map(|t| model_value_for(t))),
    );
    constants.insert("MaxSeq".into(), TlaValue::int(i64::from(max_seq)));
    constants.insert("MaxLineage".into(), TlaValue::int(i64::from(max_lineage)));
    out.constants = constants;
    out.witnesses = w.into_iter().map(Witness::named).collect();

    out.notes.push(format!(
        "Recon node `{node}` is the spec's single Recon process; its derived tasks (the `Tasks` model values) are named as Recon logs them"
    ));
    if !other_nodes.is_empty() {
        out.notes.push(format!(
            "lines of other Recon nodes ignored (the spec has one Recon): {}",
            other_nodes.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let mapping: Vec<String> = abs
        .iter()
        .map(|((l, n), a)| format!("{n} (lineage {l}) -> {a}"))
        .collect();
    out.notes.push(format!(
        "OM sequence numbers are abstracted, order-preserving within a lineage, each restored lineage below the one before (the spec's assumption): {}",
        mapping.join(", ")
    ));
    out.notes.push(
        "OmWrite and OmRestore are read off `Sequence number after sync: N` (no Recon line shows them); a full snapshot at or below the cursor is a new OM lineage; Crash is inferred from a STARTUP_MSG with no SHUTDOWN_MSG before it (daemon logs only)".into(),
    );
    out.notes.push(
        "lines read but not witnessing (one witness per action): sync start/`Seq number of Recon's OM DB`/delta batch lines (the cycle's `Sequence number after sync` completes SyncDelta), the fallback WARN and snapshot download/install/queue lines (completed by `Sequence number after sync` for FullSnapshot), `Task X started execution` and the tasks' own reprocess lines (completed by `Task X completed execution`), `Completed async task reinitialization`/`Completed processing reinitialization event` (after `Re-initialization of tasks completed successfully.`), SIGTERM/SHUTDOWN_MSG and later stop lines (after the first), the startup mismatch list and `Queueing async reinitialization events during startup.` (Reconcile's queueing branch is decided by the spec's state, completed by `Ozone Manager Service Provider is started.`)".into(),
    );
    out.notes.push(
        "no step of this spec needs a DEBUG line: every Recon step is INFO; the OM's steps and crashes are inferred".into(),
    );
    out.notes.extend(skipped);
    if let Some((at, note)) = stop {
        out.ends_at = Some(at);
        out.notes.push(note);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bugs::recon_om_sync::mirror::ReconOmSync;
    use crate::bugs::testkit::{
        self, assert_export_replays, last_tlc_state, tlc_jar, tlc_on_export,
    };
    use crate::mirror::export::build_either;
    use crate::mirror::Mirror;
    use rayon::prelude::*;

    /// The case's daemon log (Recon's only), or its merged test output.
    fn scenario(case: &str, merged: bool) -> Timeline {
        testkit::scenario("recon-om-sync", case, merged)
    }

    /// The witnessed actions, `OmWrite` runs folded (`OmWrite*4`), task parameters in parentheses.
    fn actions(wd: &Witnessed) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut writes = 0;
        for w in &wd.witnesses {
            if w.action == "OmWrite" {
                writes += 1;
                continue;
            }
            if writes > 0 {
                out.push(format!("OmWrite*{writes}"));
                writes = 0;
            }
            out.push(match w.params.first() {
                Some(p) => format!("{}({p})", w.action),
                None => w.action.to_string(),
            });
        }
        if writes > 0 {
            out.push(format!("OmWrite*{writes}"));
        }
        out.join(" ")
    }

    const ALL6: &str = "ReprocessTask(OmTableInsightTask) ReprocessTask(FileSizeCountTaskOBS) ReprocessTask(FileSizeCountTaskFSO) ReprocessTask(ContainerKeyMapperTaskOBS) ReprocessTask(ContainerKeyMapperTaskFSO) ReprocessTask(NSSummaryTask)";
    const TWO: &str = "ReprocessTask(OmTableInsightTask) ReprocessTask(FileSizeCountTaskOBS)";

    /// (case, merged, witnessed actions, MaxSeq, MaxLineage).
    fn expected() -> Vec<(&'static str, bool, String, i64, i64)> {
        // The first snapshot's number sits above every number of the restored lineage: 3 of them in the
        // daemon log (1180, 1236, 1307), 2 in the merged one.
        let regression = |writes: u32| {
            format!("Restart Reconcile OmWrite*{writes} FullSnapshot {ALL6} ReinitDone OmWrite*1 SyncDelta OmWrite*1 SyncDelta OmRestore(1) FullSnapshot")
        };
        let healthy_a = format!(
            "Restart Reconcile OmWrite*5 FullSnapshot {ALL6} ReinitDone OmWrite*1 SyncDelta OmWrite*1 SyncDelta OmRestore(1) FullSnapshot {ALL6} ReinitDone OmWrite*1 SyncDelta"
        );
        vec![
            (
                "violating",
                false,
                format!("{} {TWO} Crash Restart Reconcile OmWrite*1 SyncDelta OmWrite*1 SyncDelta", regression(4)),
                6,
                2,
            ),
            (
                "violating",
                true,
                format!("{} {TWO} Stop Restart Reconcile OmWrite*1 SyncDelta Stop", regression(3)),
                5,
                2,
            ),
            (
                "healthy",
                false,
                format!("{healthy_a} Stop Restart Reconcile OmWrite*1 FullSnapshot ReprocessTask(OmTableInsightTask) Crash Restart Reconcile {ALL6} ReinitDone OmWrite*1 SyncDelta"),
                7,
                2,
            ),
            (
                "healthy",
                true,
                format!("{healthy_a} Stop Restart Reconcile OmWrite*1 FullSnapshot ReprocessTask(OmTableInsightTask) Stop Restart Reconcile {ALL6} ReinitDone OmWrite*1 SyncDelta Stop"),
                7,
                2,
            ),
            (
                "midflight",
                false,
                format!("OmWrite*1 FullSnapshot {TWO} Crash Restart Reconcile OmWrite*1 SyncDelta OmWrite*1 SyncDelta"),
                3,
                1,
            ),
            (
                "midflight",
                true,
                format!("OmWrite*1 FullSnapshot {TWO} Stop Restart Reconcile OmWrite*1 SyncDelta Stop"),
                2,
                1,
            ),
        ]
    }

    fn check_report(tl: &Timeline) -> crate::check::ModelReport {
        let models = crate::check::select(&["recon-om-sync".to_string()]).unwrap();
        crate::check::replay(tl, models, &Default::default())
            .reports
            .remove(0)
    }

    #[test]
    fn scenarios_witness_the_expected_actions_and_violate_where_check_does() {
        for (case, merged, want, max_seq, max_lineage) in expected() {
            let what = format!("{case} merged={merged}");
            let tl = scenario(case, merged);
            let wd = witnesses(&tl);
            assert_eq!(actions(&wd), want, "{what}");
            assert_eq!(wd.hidden, action_names(HIDDEN));
            assert_eq!(wd.constants["MaxSeq"], TlaValue::int(max_seq), "{what}");
            assert_eq!(
                wd.constants["MaxLineage"],
                TlaValue::int(max_lineage),
                "{what}"
            );
            assert_eq!(
                wd.constants["Tasks"],
                TlaValue::set(
                    [
                        "ContainerKeyMapperTaskFSO",
                        "ContainerKeyMapperTaskOBS",
                        "FileSizeCountTaskFSO",
                        "FileSizeCountTaskOBS",
                        "NSSummaryTask",
                        "OmTableInsightTask"
                    ]
                    .map(TlaValue::model)
                ),
                "{what}"
            );
            assert!(!wd.constants.contains_key(ReconOmSync::PATCH_CONSTANT));
            let (patched, _, b) = build_either::<ReconOmSync>(&wd)
                .unwrap_or_else(|s| panic!("{what}: stuck at {s:?}"));
            assert!(!patched, "{what}: the bug constants admit the logs");
            // Only the state before the first witness is inferred in these stories (Init has Recon running
            // before the logs' first start), plus nothing else.
            let inferred: Vec<&str> = b
                .steps
                .iter()
                .filter(|s| s.event.is_none())
                .map(|s| s.action)
                .collect();
            let report = check_report(&tl);
            match case {
                "violating" => {
                    let (inv, k) = b.violated.expect("the mirror finds the violation");
                    assert_eq!(inv, "DerivedTasksMatchOmLineage", "{what}");
                    let primary = report.first().expect("check reports it").primary;
                    assert_eq!(report.first().unwrap().invariant, inv);
                    // The step into state k is the Reconcile witnessed by the line check points at.
                    let step = &b.steps[k - 1];
                    assert_eq!(step.action, "Reconcile", "{what}");
                    assert_eq!(step.event, Some(primary), "{what}");
                    let line = tl.events.head(primary).span.line;
                    assert_eq!(line, if merged { 189 } else { 161 }, "{what}");
                    assert_eq!(k, if merged { 25 } else { 26 }, "{what}");
                    assert_eq!(inferred, ["Crash"], "{what}");
                }
                "healthy" => {
                    assert_eq!(b.violated, None, "{what}");
                    assert!(report.violations.is_empty());
                    assert_eq!(inferred, ["Crash"], "{what}");
                }
                _ => {
                    // Not violated, as check must not say so either.
                    assert_eq!(b.violated, None, "{what}");
                    assert!(report.violations.is_empty());
                    assert!(inferred.is_empty(), "{what}: {inferred:?}");
                }
            }
            // Every Reconcile of a full-history story takes the branch its log shows: a queue line iff the
            // reinitialization was queued. (midflight starts after the history that decides it: see notes.)
            if case != "midflight" {
                let mut states = b.states.iter().skip(1);
                for step in &b.steps {
                    let next = states.next().unwrap();
                    if step.action != "Reconcile" {
                        continue;
                    }
                    let e = step.event.unwrap();
                    let start = (0..e)
                        .rev()
                        .find(|&i| tl.events.head(i).kind == EventKind::OmServiceProviderStarting)
                        .unwrap();
                    let queued = tl
                        .events
                        .heads_in(start..e)
                        .any(|x| x.kind == EventKind::StartupReinitQueued);
                    assert_eq!(next.reinit_queued, queued, "{what}: Reconcile at {e}");
                }
            }
        }
    }

    #[test]
    fn exported_traces_replay_through_the_mirror() {
        for (case, merged, ..) in expected() {
            let what = format!("{case} merged={merged}");
            let wd = witnesses(&scenario(case, merged));
            assert_export_replays::<ReconOmSync>(&wd, |i| format!("event {i}"), &what);
        }
    }

    /// TLC itself accepts the healthy export and finds the violation of the violating one at the state the
    /// mirror does. Needs `TLC_JAR` (the path of tla2tools.jar) and java.
    #[test]
    fn tlc_checks_the_exports() {
        let Some(jar) = tlc_jar() else {
            return;
        };
        for case in ["healthy", "violating"] {
            let tl = scenario(case, false);
            let (text, violated) =
                tlc_on_export::<ReconOmSync>(&jar, &format!("recon-{case}"), &tl, |i| {
                    format!("event {i}")
                });
            match violated {
                None => {
                    assert!(text.contains("No error has been found"), "{case}: {text}");
                    assert!(text.contains("50 distinct states found"), "{case}: {text}");
                }
                Some((inv, k)) => {
                    assert!(
                        text.contains(&format!("Invariant {inv} is violated")),
                        "{case}: {text}"
                    );
                    // TLC numbers states from 1, the behaviour from 0.
                    assert_eq!(last_tlc_state(&text), Some(k + 1), "{case}: {text}");
                }
            }
        }
    }

    /// Each event record of the recon fixtures deleted in turn (as tests/deletion_sweep.rs does for check):
    /// the export never has the mirror find a violation that check does not report. Returns how many
    /// exports were stuck (no behaviour of the spec), for the figure.
    ///
    /// Sized for `cargo test`: every third of these records is deleted (each case's 1st, 4th, 7th, ...). All
    /// of them took 80 CPU-seconds at opt-level 1, the slowest unit test by far; `OZONE_CONFORM_LONG=1`
    /// (`benches/long_tests.sh`) deletes every one. The floor on the sweep's size counts the records either
    /// form samples from.
    #[test]
    fn a_lost_line_never_makes_the_export_violate_where_check_does_not() {
        let stride = if testkit::long() { 1 } else { 3 };
        let mut stuck = 0;
        let mut runs = 0;
        let mut lines = 0;
        // The sequence-number, snapshot and reprocess-outcome lines (the ones whose loss once made a false
        // alarm); the daemon logs only: an export that has no behaviour of the spec is slow to rule out.
        let read = [
            EventKind::SyncCompleted,
            EventKind::SyncStarted,
            EventKind::OmDbSeqObserved,
            EventKind::FullSnapshotInstalled,
            EventKind::ReinitCompleted,
            EventKind::AsyncReinitCompleted,
            EventKind::ReinitEventProcessed,
            EventKind::TaskCompleted,
        ];
        for case in ["healthy", "violating"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/scenarios/recon-om-sync")
                .join(case);
            let file = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.is_file())
                .unwrap();
            let text = std::fs::read_to_string(&file).unwrap();
            let intact = scenario(case, false);
            let mut spans: Vec<(u64, usize)> = intact
                .events
                .iter()
                .filter(|e| read.contains(&e.kind))
                .map(|e| {
                    let body = &text[e.span.byte_offset as usize
                        ..(e.span.byte_offset + e.span.byte_len) as usize];
                    (
                        e.span.line,
                        body.trim_end_matches('\n').matches('\n').count() + 1,
                    )
                })
                .collect();
            spans.dedup();
            let tmp = tempfile::tempdir().unwrap();
            lines += spans.len();
            // The deletions are independent: they run on the thread pool, each on its own copy (the
            // sweep is the longest unit test, and would otherwise end `cargo test` on one core).
            let deletions: Vec<(usize, (u64, usize))> =
                spans.into_iter().step_by(stride).enumerate().collect();
            let outcomes: Vec<bool> = deletions
                .par_iter()
                .map(|&(k, (line, n))| {
                    let first = line as usize - 1;
                    let kept: String = text
                        .split_inclusive('\n')
                        .enumerate()
                        .filter(|(k, _)| *k < first || *k >= first + n)
                        .map(|(_, l)| l)
                        .collect();
                    let cut = tmp.path().join(k.to_string()).join(file.file_name().unwrap());
                    std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
                    std::fs::write(&cut, kept).unwrap();
                    let tl = testkit::timeline_of(&[cut.to_string_lossy().into_owned()]);
                    let report = check_report(&tl);
                    match build_either::<ReconOmSync>(&witnesses(&tl)) {
                        Ok((_, _, b)) => {
                            if report.violations.is_empty() {
                                assert_eq!(
                                    b.violated, None,
                                    "{case}: line {line} deleted: the export violates, check does not ({:?})",
                                    report.reason
                                );
                            }
                            false
                        }
                        Err(_) => true,
                    }
                })
                .collect();
            runs += outcomes.len();
            stuck += outcomes.iter().filter(|&&s| s).count();
        }
        println!(
            "{runs} exports of a fixture with one line lost (of {lines}), {stuck} without a behaviour of the spec"
        );
        assert!(lines > 60, "{lines}");
        assert!(runs > 60 / stride, "{runs}");
    }
}
