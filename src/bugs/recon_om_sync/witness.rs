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
//! The OM's own steps are read off Recon's sequence numbers (the spec says so: `OmWrite` and `OmRestore` have no
//! Recon line and are "visible through the sequence numbers"). A full snapshot that lands at or below the
//! cursor Recon held is a new OM lineage (`OmRestore`); one above it is the same lineage after OM writes.
//!
//! Sequence numbers are abstracted to small integers, order-preserving within each OM lineage; each restored
//! lineage is placed below every number of the lineage before it (the spec's environment assumption: a
//! restored lineage starts below every cursor Recon holds and never reaches them). The number 0 of the first
//! lineage is the spec's `Init`.

use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::model::{Ctx, Instance};
use crate::spec::export::{model_value_for, Witness, Witnessed};
use crate::spec::Constants;
use crate::timeline::Timeline;
use crate::tla::value::TlaValue;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use std::collections::{BTreeMap, BTreeSet};

/// The actions no Recon log line shows at the default INFO level: the OM's writes and restores (seen only
/// through Recon's sequence numbers) and a crash (seen only as a `STARTUP_MSG` with no shutdown before it).
pub const HIDDEN: &[&str] = &["OmWrite", "OmRestore", "Crash"];

/// TASK_STATUS rows that are sync cursors, not derived tasks.
const CURSOR_ROWS: &[&str] = &["OmDeltaRequest", "OmSnapshotRequest"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Down,
    Starting,
    Running,
}

fn seq(e: &crate::event::Event) -> Option<i64> {
    e.field("seq").and_then(Value::as_i64)
}

fn task(e: &crate::event::Event) -> Option<&str> {
    e.field("task").and_then(Value::as_str)
}

/// The Recon node the export follows: the first node with a Recon line. Returns its key and name.
fn recon_node(timeline: &Timeline) -> Option<(u32, String)> {
    let cx = Ctx { timeline };
    timeline.events.iter().find_map(|e| {
        if e.component != Component::Recon {
            return None;
        }
        match cx.instance(e, &super::monitor::ABOUT.role) {
            Instance::Of(node, key) => Some((key, node.to_string())),
            _ => None,
        }
    })
}

/// Lineage of every `Sequence number after sync` value: a full snapshot at or below the cursor starts a new
/// one. Returns, per event index of a `SyncCompleted`, its lineage (1-based), and the values of each lineage.
fn lineages(timeline: &Timeline, key: u32) -> (BTreeMap<usize, u32>, BTreeMap<u32, BTreeSet<i64>>) {
    let mut of_event = BTreeMap::new();
    let mut values: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
    let mut lineage = 1;
    let mut cursor = 0i64;
    let mut snapshot = false;
    for (i, e) in timeline.events.iter().enumerate() {
        if e.node_key != key {
            continue;
        }
        match e.kind {
            EventKind::FullSnapshotInstalled => snapshot = true,
            EventKind::SyncCompleted => {
                let Some(n) = seq(e) else { continue };
                if snapshot && n <= cursor {
                    lineage += 1;
                }
                snapshot = false;
                cursor = n;
                of_event.insert(i, lineage);
                values.entry(lineage).or_default().insert(n);
            }
            _ => {}
        }
    }
    (of_event, values)
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

/// What the whole timeline tells the witness table before its first step: the Recon node it follows, and
/// the OM lineages and abstraction of its sequence numbers.
#[derive(Debug)]
struct Followed {
    key: u32,
    node: String,
    lineage_of: BTreeMap<usize, u32>,
    values: BTreeMap<u32, BTreeSet<i64>>,
    abs: BTreeMap<(u32, i64), u32>,
}

impl Followed {
    fn of(timeline: &Timeline) -> Option<Followed> {
        let (key, node) = recon_node(timeline)?;
        let (lineage_of, values) = lineages(timeline, key);
        let abs = abstraction(&values);
        Some(Followed {
            key,
            node,
            lineage_of,
            values,
            abs,
        })
    }
}

/// Export's half of the `recon-om-sync` observer: the witnessed actions of `ReconOmSync`, event by event,
/// with the monitor's role and the timeline's lifecycle.
#[derive(Debug)]
pub struct Table {
    followed: Option<Option<Followed>>,
    tasks: BTreeSet<String>,
    w: Vec<Witness>,
    phase: Option<Phase>,
    om: u32,
    lineage: u32,
    snapshot_pending: Option<usize>,
    reprocessed: BTreeSet<String>,
    other_nodes: BTreeSet<String>,
    skipped: Vec<String>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            followed: None,
            tasks: BTreeSet::new(),
            w: Vec::new(),
            phase: None,
            om: 0,
            lineage: 1,
            snapshot_pending: None,
            reprocessed: BTreeSet::new(),
            other_nodes: BTreeSet::new(),
            skipped: Vec::new(),
        }
    }
}

impl Table {
    /// Event `i`, with the lifecycle step it makes.
    pub fn step(&mut self, timeline: &Timeline, i: usize, e: &Event, life: Option<LifeStep>) {
        let Table {
            followed,
            tasks,
            w,
            phase,
            om,
            lineage,
            snapshot_pending,
            reprocessed,
            other_nodes,
            skipped,
        } = self;
        let Some(f) = followed.get_or_insert_with(|| Followed::of(timeline)) else {
            return;
        };
        let (key, lineage_of, abs) = (f.key, &f.lineage_of, &f.abs);
        let push = |w: &mut Vec<Witness>, event: usize, action: &'static str, params| {
            w.push(Witness {
                event,
                action,
                params,
            });
        };
        if e.node_key != key {
            if e.component == Component::Recon {
                if let Some(n) = &e.node {
                    other_nodes.insert(n.to_string());
                }
            }
            return;
        }
        match life {
            // Only the first start line of a run restarts it (STARTUP_MSG, then `Starting Recon server`).
            Some(LifeStep::Started { crashed })
                if crashed.is_some()
                    || (*phase != Some(Phase::Starting) && *phase != Some(Phase::Running)) =>
            {
                if crashed.is_some() {
                    push(w, i, "Crash", vec![]);
                }
                push(w, i, "Restart", vec![]);
                *phase = Some(Phase::Starting);
                reprocessed.clear();
                *snapshot_pending = None;
            }
            Some(LifeStep::Stopping) if *phase != Some(Phase::Down) => {
                if *phase == Some(Phase::Starting) {
                    skipped.push(format!(
                        "line {} stops Recon during its startup, which the spec has no graceful step for",
                        e.span.line
                    ));
                } else {
                    push(w, i, "Stop", vec![]);
                }
                *phase = Some(Phase::Down);
                reprocessed.clear();
                *snapshot_pending = None;
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
                if *phase == Some(Phase::Starting) || (phase.is_none() && w.is_empty()) {
                    push(w, i, "Reconcile", vec![]);
                }
                *phase = Some(Phase::Running);
            }
            EventKind::FullSnapshotInstalled => *snapshot_pending = Some(i),
            EventKind::SyncCompleted => {
                let (Some(n), Some(&l)) = (seq(e), lineage_of.get(&i)) else {
                    return;
                };
                let r = abs[&(l, n)];
                if snapshot_pending.take().is_some() {
                    if l != *lineage {
                        push(w, i, "OmRestore", vec![TlaValue::int(i64::from(r))]);
                        *lineage = l;
                        *om = r;
                    }
                    for _ in *om..r {
                        push(w, i, "OmWrite", vec![]);
                    }
                    *om = (*om).max(r);
                    push(w, i, "FullSnapshot", vec![]);
                    reprocessed.clear();
                } else if r > *om {
                    for _ in *om..r {
                        push(w, i, "OmWrite", vec![]);
                    }
                    *om = r;
                    push(w, i, "SyncDelta", vec![]);
                } else if r < *om {
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
                        push(w, i, "ReprocessTask", vec![model_value_for(t)]);
                    }
                }
            }
            EventKind::ReinitCompleted => {
                push(w, i, "ReinitDone", vec![]);
                reprocessed.clear();
            }
            _ => {}
        }
    }

    /// After the last event: the witnesses, and the constants sized to them.
    pub fn finish(&mut self, timeline: &Timeline) -> Witnessed {
        let mut out = Witnessed {
            hidden: HIDDEN,
            ..Witnessed::default()
        };
        let followed = self
            .followed
            .take()
            .unwrap_or_else(|| Followed::of(timeline));
        let Some(Followed {
            node, values, abs, ..
        }) = followed
        else {
            out.notes.push("no Recon line in these logs".into());
            return out;
        };
        let Table {
            tasks,
            w,
            lineage,
            other_nodes,
            skipped,
            ..
        } = std::mem::take(self);

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
        out.witnesses = w;

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
        out
    }
}

/// The witnessed actions of `ReconOmSync` along the timeline: the witness half of the observer, alone.
pub fn witnesses(timeline: &Timeline) -> Witnessed {
    let mut table = Table::default();
    for (i, e) in timeline.events.iter().enumerate() {
        table.step(timeline, i, e, timeline.life[i]);
    }
    table.finish(timeline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bugs::recon_om_sync::mirror::ReconOmSync;
    use crate::bugs::testkit::{
        self, assert_export_replays, last_tlc_state, tlc_jar, tlc_on_export,
    };
    use crate::spec::export::build_either;
    use crate::spec::Mirror;

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
        crate::check::replay(tl, models).remove(0)
    }

    #[test]
    fn scenarios_witness_the_expected_actions_and_violate_where_check_does() {
        for (case, merged, want, max_seq, max_lineage) in expected() {
            let what = format!("{case} merged={merged}");
            let tl = scenario(case, merged);
            let wd = witnesses(&tl);
            assert_eq!(actions(&wd), want, "{what}");
            assert_eq!(wd.hidden, HIDDEN);
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
                    let line = tl.events[primary].span.line;
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
                        .find(|&i| tl.events[i].kind == EventKind::OmServiceProviderStarting)
                        .unwrap();
                    let queued = tl.events[start..e]
                        .iter()
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
}
