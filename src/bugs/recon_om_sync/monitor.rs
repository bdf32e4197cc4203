//! `recon-om-sync`: the Rust mirror of `traces/recon-om-sync/ReconOmSync.tla` (HDDS-16462).
//!
//! Mirrored per Recon: `deltaSeq` (`Sequence number after sync: N`), the highest sequence number Recon had
//! processed (standing in for `taskSeq` of the derived tasks), `reinitQueued` and `reprocessed`. Actions:
//! `FullSnapshot` (`Successfully updated Recon OM DB with new snapshot.` then `Sequence number after sync`),
//! `ReinitDone` (`Re-initialization of tasks completed successfully.`), `Crash`/`Stop`/`Restart`, `Reconcile`
//! (the startup reconciliation between `Starting Ozone Manager Service Provider.` and `... is started.`).

use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::model::{
    invariant, About, Ctx, Instance, Invariant, Knowledge, Model, Role, Spec, Violation,
};
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;

const INVARIANTS: &[Invariant] = &[Invariant {
    name: "DerivedTasksMatchOmLineage",
    code: "OZ-RECON-001",
    summary: "Recon serves derived tables built from an earlier OM lineage",
    advice: "Recon's container-key, namespace and file-size views show rows the current OM does not have, and will not heal by themselves. Trigger a full reprocess (restart Recon after deleting its task status rows, or `POST /api/v1/triggerdbsync/om`) and check the views afterwards.",
}];

pub(crate) const ABOUT: About = About {
    name: "recon-om-sync",
    spec: Spec {
            module: "ReconOmSync",
            path: "traces/recon-om-sync/ReconOmSync.tla",
            issue: "HDDS-16462",
        },
    invariants: INVARIANTS,
    role: Role::or_unknown(Component::Recon),
    nothing_checked: "no full snapshot with an earlier sequence number in view (`Sequence number after sync` before and after `Successfully updated Recon OM DB with new snapshot.`)",
};

/// A full snapshot left Recon at or below a sequence number it had processed: a new OM lineage, so every
/// derived task must be rebuilt.
#[derive(Debug, Clone, Default)]
struct RebuildDue {
    fallback: Option<usize>,
    snapshot: Option<usize>,
    sync_after: usize,
    highest: Option<usize>,
    restart: Option<usize>,
    queued_at_startup: bool,
    /// Derived tasks whose reprocess completed since the new lineage was installed: their tables are
    /// rebuilt (the spec's `ReprocessTask(t)` sets `taskLineage[t]`, durably, even if `ReinitDone` never
    /// comes), and tasks that started one.
    completed: std::collections::BTreeSet<String>,
    started: std::collections::BTreeSet<String>,
}

#[derive(Debug, Default)]
struct Recon {
    /// Highest sequence number processed, and its line.
    highest: Option<(i64, usize)>,
    /// Whether `highest` is all there is: the logs show Recon's start with no OM DB, or its persisted cursors.
    history_known: bool,
    fallback: Option<usize>,
    snapshot_installed: Option<usize>,
    rebuild: Option<RebuildDue>,
    /// Derived tasks started and not completed, for the causal chain.
    running: HashMap<String, usize>,
    /// Derived tasks from `Registered Task: X` (TASK_STATUS rows, first insert; cursor rows left out): when
    /// in view, the whole set the rebuild must cover.
    registered: std::collections::BTreeSet<String>,
}

/// TASK_STATUS rows that are sync cursors, not derived tasks.
const CURSOR_ROWS: &[&str] = &["OmDeltaRequest", "OmSnapshotRequest"];

#[derive(Default)]
pub struct ReconOmSync {
    recons: HashMap<u32, Recon>,
    knowledge: Knowledge,
    /// The observer's witness half (for `export`), fed by the same pass.
    table: super::witness::Table,
}

fn seq(e: &Event) -> Option<i64> {
    e.field("seq").and_then(Value::as_i64)
}

impl Model for ReconOmSync {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn reads(&self, kind: EventKind) -> bool {
        use EventKind::*;
        matches!(
            kind,
            SyncCompleted
                | StartupReinitSkipped
                | StartupTaskSeq
                | DeltaApplied
                | DeltaFallbackToFullSnapshot
                | FullSnapshotInstalled
                | ReinitCompleted
                | StartupReinitQueued
                | OmServiceProviderStarted
                | TaskStarted
                | TaskCompleted
                | TaskStatusRegistered
        )
    }

    fn step(
        &mut self,
        cx: &Ctx,
        index: usize,
        e: &Event,
        life: Option<LifeStep>,
        out: &mut Vec<Violation>,
    ) {
        let (node, key) = match cx.instance(e, &ABOUT.role) {
            Instance::Of(node, key) => (node, key),
            Instance::NoNode => {
                if self.reads(e.kind) {
                    self.knowledge.unknown("some Recon lines name no node");
                }
                return;
            }
            Instance::OtherService => return,
        };
        if !self.reads(e.kind) && life.is_none() {
            return;
        }
        if self.reads(e.kind) {
            self.knowledge.events += 1;
        }
        let r = self.recons.entry(key).or_default();
        if let (Some(LifeStep::Started { .. }), Some(due)) = (life, r.rebuild.as_mut()) {
            // Restart before the rebuild completed: the startup reconciliation is the only net left.
            // The first line of the restart (its STARTUP_MSG where there is one).
            if due.restart.is_none() {
                due.restart = Some(index);
                due.queued_at_startup = false;
            }
        }
        match e.kind {
            // Startup with no local OM DB: nothing was processed before.
            EventKind::StartupReinitSkipped => r.history_known = true,
            // Startup reconciliation prints the persisted cursors.
            EventKind::StartupTaskSeq => {
                if let Some(s) = seq(e) {
                    r.history_known = true;
                    if r.highest.is_none_or(|(h, _)| s > h) {
                        r.highest = Some((s, index));
                    }
                }
            }
            EventKind::DeltaFallbackToFullSnapshot => r.fallback = Some(index),
            EventKind::FullSnapshotInstalled => r.snapshot_installed = Some(index),
            EventKind::DeltaApplied => {
                if let Some(s) = e.field("db_seq").and_then(Value::as_i64) {
                    if r.highest.is_none_or(|(h, _)| s > h) {
                        r.highest = Some((s, index));
                    }
                }
            }
            EventKind::SyncCompleted => {
                let Some(n) = seq(e) else { return };
                if let Some(snap) = r.snapshot_installed.take() {
                    // FullSnapshot: is this a new OM lineage?
                    match r.highest {
                        Some((h, at)) if n <= h => {
                            r.rebuild = Some(RebuildDue {
                                fallback: r.fallback.take(),
                                snapshot: Some(snap),
                                sync_after: index,
                                highest: Some(at),
                                restart: None,
                                queued_at_startup: false,
                                completed: Default::default(),
                                started: Default::default(),
                            });
                        }
                        Some(_) => self.knowledge.checks += 1,
                        None if r.history_known => self.knowledge.checks += 1,
                        None => self.knowledge.unknown(format!(
                            "Recon {node} installed a full snapshot at sequence number {n} with no earlier sequence number in view, so a new OM lineage cannot be told"
                        )),
                    }
                    let r = self.recons.get_mut(&key).expect("present");
                    r.highest = Some((n, index));
                    r.history_known = true;
                } else if r.highest.is_none_or(|(h, _)| n > h) {
                    r.highest = Some((n, index));
                }
            }
            EventKind::TaskStatusRegistered => {
                if let Some(t) = e.field("task").and_then(Value::as_str) {
                    if !CURSOR_ROWS.contains(&t) {
                        r.registered.insert(t.to_string());
                    }
                }
            }
            EventKind::TaskStarted => {
                if let Some(t) = e.field("task").and_then(Value::as_str) {
                    r.running.insert(t.to_string(), index);
                    if let Some(due) = r.rebuild.as_mut() {
                        due.started.insert(t.to_string());
                    }
                }
            }
            EventKind::TaskCompleted => {
                if let Some(t) = e.field("task").and_then(Value::as_str) {
                    r.running.remove(t);
                    if let Some(due) = r.rebuild.as_mut() {
                        due.completed.insert(t.to_string());
                    }
                }
            }
            EventKind::ReinitCompleted => {
                if r.rebuild.take().is_some() {
                    self.knowledge.checks += 1; // ReinitDone: the derived tasks match the lineage again
                }
                r.running.clear();
            }
            EventKind::StartupReinitQueued => {
                if let Some(due) = r.rebuild.as_mut().filter(|d| d.restart.is_some()) {
                    due.queued_at_startup = true;
                }
            }
            EventKind::OmServiceProviderStarted => {
                let Some(due) = r.rebuild.clone() else { return };
                let Some(restart) = due.restart else { return };
                if due.queued_at_startup {
                    // Reconcile queued the rebuild again: it may still run; the obligation stands until done.
                    self.knowledge.checks += 1;
                    let r = self.recons.get_mut(&key).expect("present");
                    r.rebuild.as_mut().expect("present").restart = None;
                    return;
                }
                // Which derived tasks are still built from the old lineage: those known (registered, or
                // started since) that completed no reprocess since it was installed. With none completed,
                // some task is stale whatever the set is; with every known one completed and the set not
                // in view, that cannot be told.
                let known: std::collections::BTreeSet<&String> =
                    r.registered.iter().chain(&due.started).collect();
                let stale: Vec<&String> = known
                    .iter()
                    .copied()
                    .filter(|t| !due.completed.contains(*t))
                    .collect();
                if !due.completed.is_empty() && stale.is_empty() {
                    if r.registered.is_empty() {
                        self.knowledge.unknown(format!(
                            "Recon {node} restarted after rebuilding {} derived task(s) for a new OM lineage without `Re-initialization of tasks completed successfully.`, and no `Registered Task:` lines show whether those were all of them",
                            due.completed.len()
                        ));
                    } else {
                        // Every derived task was rebuilt: the tables match the lineage.
                        self.knowledge.checks += 1;
                    }
                    self.recons.get_mut(&key).expect("present").rebuild = None;
                    return;
                }
                let mut running: Vec<(String, usize)> =
                    r.running.iter().map(|(t, i)| (t.clone(), *i)).collect();
                running.sort_by_key(|(_, i)| *i);
                let inv = invariant(self, "DerivedTasksMatchOmLineage");
                let ev = &cx.timeline.events;
                let mut related = Vec::new();
                if let Some(f) = due.fallback {
                    related.push((
                        f,
                        "delta updates failed: fallback to a full snapshot".to_string(),
                    ));
                }
                if let Some(s) = due.snapshot {
                    related.push((s, "full snapshot of the OM DB installed".to_string()));
                }
                if let Some(h) = due.highest {
                    let processed =
                        seq(&ev[h]).or_else(|| ev[h].field("db_seq").and_then(Value::as_i64));
                    related.push((
                        h,
                        format!(
                            "sequence number {} already processed",
                            processed.map(|v| v.to_string()).unwrap_or_default()
                        ),
                    ));
                }
                related.push((
                    due.sync_after,
                    format!(
                        "sequence number after sync {}: not above it, a new OM lineage",
                        seq(&ev[due.sync_after]).unwrap_or_default()
                    ),
                ));
                if let Some((t, i)) = running.last() {
                    related.push((*i, format!("task {t} started and never completed")));
                }
                related.push((
                    restart,
                    "Recon restarts before the rebuild completed".to_string(),
                ));
                out.push(Violation {
                    invariant: inv,
                    message: format!(
                        "Recon {node} serves again with derived tables from the previous OM lineage: the full snapshot moved it back to sequence number {}, the rebuild did not finish before the restart, and the startup reconciliation queued nothing",
                        seq(&ev[due.sync_after]).unwrap_or_default()
                    ),
                    node: Some(node.clone()),
                    instance: node.to_string(),
                    primary: index,
                    primary_label: "Recon serves; no reinitialization was queued at startup".into(),
                    related,
                    ambiguous_order: None,
                });
                self.recons.get_mut(&key).expect("present").rebuild = None;
            }
            _ => {}
        }
    }

    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {
        if self.recons.values().any(|r| r.rebuild.is_some()) {
            self.knowledge.unknown(
                "Recon's logs end before the derived tasks were rebuilt for the new OM lineage",
            );
        }
    }

    fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    fn witness(&mut self, cx: &Ctx, index: usize, e: &Event, life: Option<LifeStep>) {
        self.table.step(cx.timeline, index, e, life);
    }

    fn witnessed(&mut self, cx: &Ctx) -> crate::spec::export::Witnessed {
        self.table.finish(cx.timeline)
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Event;
    use crate::model::testkit::{daemon, ev, run, test_output, text};
    use crate::model::Verdict;
    use crate::value::Value;
    use crate::vocab::EventKind::*;

    const R: &str = "recon1";

    fn started(ms: i64) -> Event {
        ev(
            ProcessStarted,
            R,
            ms,
            vec![("service", text("ReconServer"))],
        )
    }

    fn synced(ms: i64, seq: i64) -> Event {
        ev(SyncCompleted, R, ms, vec![("seq", Value::I64(seq))])
    }

    /// Recon processed up to 120, then a full snapshot moved it back to 40 (a new OM lineage), and a derived
    /// task started; indices 0..=6.
    fn regression() -> Vec<Event> {
        vec![
            started(0),
            ev(StartupReinitSkipped, R, 100, vec![]),
            synced(1_000, 120),
            ev(DeltaFallbackToFullSnapshot, R, 2_000, vec![]),
            ev(FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 40),
            ev(TaskStarted, R, 2_300, vec![("task", text("NSSummaryTask"))]),
        ]
    }

    fn restart_and_serve(at: i64, queued: bool) -> Vec<Event> {
        let mut v = vec![
            started(at),
            ev(OmServiceProviderStarting, R, at + 100, vec![]),
        ];
        if queued {
            v.push(ev(StartupReinitQueued, R, at + 200, vec![]));
        }
        v.push(ev(OmServiceProviderStarted, R, at + 300, vec![]));
        v
    }

    #[test]
    fn a_restart_that_queues_nothing_after_a_lineage_regression_is_a_violation() {
        let mut events = regression();
        events.extend(restart_and_serve(10_000, false));
        let (tl, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "DerivedTasksMatchOmLineage");
        assert_eq!(v.invariant.code, "OZ-RECON-001");
        assert_eq!(v.instance, R);
        assert_eq!(v.primary, 9);
        assert_eq!(tl.events[9].kind, OmServiceProviderStarted);
        // fallback, snapshot, highest processed, sync after, running task, restart.
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![3, 4, 2, 5, 6, 7]);
        assert!(v.related[2].1.contains("120"), "{}", v.related[2].1);
        assert!(v.related[3].1.contains("40"), "{}", v.related[3].1);
        assert!(
            v.related[4].1.contains("NSSummaryTask"),
            "{}",
            v.related[4].1
        );
        assert!(v.related[5].1.contains("restarts"), "{}", v.related[5].1);
        assert!(
            v.message.contains("back to sequence number 40"),
            "{}",
            v.message
        );
        assert!(v.message.contains("queued nothing"), "{}", v.message);
    }

    #[test]
    fn a_restart_in_test_output_is_the_banner_too() {
        let mut events = regression();
        events.extend([ev(ComponentStopping, R, 9_000, vec![])]);
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![test_output(events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().unwrap();
        assert_eq!(v.primary, 10);
        // The restart is the STARTUP_MSG after the stop line.
        assert_eq!(v.related.last().unwrap().0, 8);
    }

    /// Refinement regression (seed 26 of the bug config): every derived task completed its reprocess for the
    /// new lineage, then Recon restarted before `Re-initialization of tasks completed successfully.`. The
    /// spec's `ReprocessTask` rebuilt every task's tables, so the restart that queues nothing violates nothing.
    #[test]
    fn a_restart_after_every_task_was_rebuilt_is_no_violation() {
        let registered =
            |ms: i64, t: &str| ev(TaskStatusRegistered, R, ms, vec![("task", text(t))]);
        let task = |ms: i64, kind, t: &str| ev(kind, R, ms, vec![("task", text(t))]);
        let mut events = regression();
        events.splice(
            1..1,
            [
                registered(50, "NSSummaryTask"),
                registered(60, "ContainerKeyMapperTask"),
                registered(70, "OmDeltaRequest"),
            ],
        );
        events.extend([
            task(2_400, TaskCompleted, "NSSummaryTask"),
            task(2_500, TaskStarted, "ContainerKeyMapperTask"),
            task(2_600, TaskCompleted, "ContainerKeyMapperTask"),
        ]);
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events.clone())]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);

        // One task left: still a violation.
        let mut one_left = events.clone();
        one_left.retain(|e| {
            !(e.kind == TaskCompleted
                && e.field("task").and_then(Value::as_str) == Some("ContainerKeyMapperTask"))
        });
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, one_left)]);
        assert_eq!(r.verdict, Verdict::Violated);

        // Without the registrations the set of tasks is not in view: inconclusive, with the reason.
        events.retain(|e| e.kind != TaskStatusRegistered);
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(reason.contains("no `Registered Task:` lines"), "{reason}");
    }

    #[test]
    fn a_startup_reinit_queued_is_no_violation() {
        let mut events = regression();
        events.extend(restart_and_serve(10_000, true));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events.clone())]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        // The rebuild is still due when the logs end.
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("end before the derived tasks were rebuilt"),
            "{reason}"
        );
        // ... and done once the reinitialization completes.
        events.push(ev(ReinitCompleted, R, 20_000, vec![]));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
    }

    #[test]
    fn a_queue_before_the_restart_does_not_count() {
        // The queue line must come from the restart's own reconciliation.
        let mut events = regression();
        events.push(ev(StartupReinitQueued, R, 3_000, vec![]));
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.first().unwrap().primary, 10);
    }

    #[test]
    fn a_rebuild_completed_before_the_restart_is_no_violation() {
        let mut events = regression();
        events.push(ev(ReinitCompleted, R, 5_000, vec![]));
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn a_snapshot_above_the_processed_sequence_is_no_regression() {
        let events = vec![
            started(0),
            synced(1_000, 120),
            ev(FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 500),
            started(10_000),
            ev(OmServiceProviderStarted, R, 10_300, vec![]),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn a_first_full_snapshot_without_history_is_inconclusive() {
        let events = vec![
            ev(FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 40),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("Recon recon1 installed a full snapshot at sequence number 40"),
            "{reason}"
        );
        assert!(
            reason.contains("no earlier sequence number in view"),
            "{reason}"
        );
    }

    #[test]
    fn a_first_full_snapshot_after_a_skipped_startup_reinit_is_checked() {
        let events = vec![
            started(0),
            ev(StartupReinitSkipped, R, 100, vec![]),
            ev(FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 40),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn a_full_snapshot_at_the_processed_sequence_number_is_a_new_lineage() {
        // "At or below": landing exactly on the highest processed number is a regression too.
        let events = vec![
            started(0),
            synced(1_000, 120),
            ev(FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 120),
            started(10_000),
            ev(OmServiceProviderStarted, R, 10_300, vec![]),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().unwrap();
        assert_eq!(v.primary, 5);
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![2, 1, 3, 4]);
    }
}
