//! `recon-om-sync` (HDDS-16462): the log monitor of `traces/recon-om-sync/ReconOmSync.tla`.
//! (The exact mirror of the spec is `mirror.rs`; this monitor is three-valued where the logs are silent.)
//!
//! Mirrored per Recon: `deltaSeq` (`Sequence number after sync: N`), the highest sequence number Recon had
//! processed (standing in for `taskSeq` of the derived tasks), `reinitQueued` and `reprocessed`. Actions:
//! `FullSnapshot` (`Successfully updated Recon OM DB with new snapshot.` then `Sequence number after sync`),
//! `ReinitDone` (`Re-initialization of tasks completed successfully.`), `Crash`/`Stop`/`Restart`, `Reconcile`
//! (the startup reconciliation between `Starting Ozone Manager Service Provider.` and `... is started.`).
//!
//! A lost line is never a violation: a full snapshot's number is read off the next cycle's `Last known sequence
//! number before sync` when its `Sequence number after sync` is lost (and is unknown if Recon restarts first); a
//! number that moves back proves a full snapshot whose install line is lost; a reprocess that ended
//! (`Completed async task reinitialization`, logged after a failed staged-DB swap too) with no outcome line in
//! view leaves the rebuild unknown. A full snapshot fetched by `start()` (local OM DB failed to open) queues no
//! reprocess: onto an earlier lineage, with no reprocess queued by the reconciliation, Recon serves stale tables.

use super::witness::{seq, task};
use super::ABOUT;
use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::monitor::{invariant, About, Ctx, Instance, Knowledge, Model, Violation};
use crate::value::Value;
use crate::vocab::EventKind;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

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
    /// The snapshot was fetched by Recon's `start()`, which queues no reprocess (`restart` is its fetch line).
    at_startup: bool,
    /// A reprocess ended (`Completed async task reinitialization` / `Completed processing reinitialization
    /// event`) with neither `Re-initialization of tasks completed successfully.` nor `... failed.` in view: it
    /// may have rebuilt the tasks, so a restart without a queue is no longer a proven violation.
    outcome_unknown: Option<usize>,
    /// Derived tasks whose reprocess completed since the new lineage was installed: their tables are
    /// rebuilt (the spec's `ReprocessTask(t)` sets `taskLineage[t]`, durably, even if `ReinitDone` never
    /// comes), and tasks that started one.
    completed: std::collections::BTreeSet<String>,
    started: std::collections::BTreeSet<String>,
}

/// TASK_STATUS rows that are sync cursors, not derived tasks.
const CURSOR_ROWS: &[&str] = &["OmDeltaRequest", "OmSnapshotRequest"];

/// How the reprocess that is running ended, as far as its lines tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Outcome {
    #[default]
    NotSeen,
    Succeeded,
    Failed,
}

#[derive(Debug, Default)]
struct Recon {
    /// Highest sequence number processed, and its line.
    highest: Option<(i64, usize)>,
    /// Whether `highest` is all there is: the logs show Recon's start with no OM DB, or its persisted cursors.
    history_known: bool,
    fallback: Option<usize>,
    /// `Obtaining full snapshot from Ozone Manager` of the current sync cycle.
    snapshot_requested: Option<usize>,
    /// A full snapshot was installed and its sequence number is not yet in view.
    snapshot_installed: Option<usize>,
    /// The snapshot was fetched by `start()` (Recon's local OM DB failed to open): that path queues no
    /// reprocess and leaves the task rows alone; only the startup reconciliation can still queue one.
    snapshot_at_startup: bool,
    /// Recon is between `Starting Ozone Manager Service Provider.` and `... is started.`.
    starting: bool,
    rebuild: Option<RebuildDue>,
    /// The outcome of the reprocess now running.
    outcome: Outcome,
    /// Derived tasks started and not completed, for the causal chain.
    running: HashMap<String, usize>,
    /// Derived tasks from `Registered Task: X` (TASK_STATUS rows, first insert; cursor rows left out): when
    /// in view, the whole set the rebuild must cover.
    registered: std::collections::BTreeSet<String>,
    /// Recon's OM DB sequence number after its last sync (`Sequence number after sync`), and its line.
    db_seq: Option<(i64, usize)>,
    /// Recon is stopping (a stop line since its last start): a sync that still runs reads a closed OM DB.
    stopping: bool,
    /// A sync has run (or a delta was applied) since Recon's last start.
    synced_since_start: bool,
}

/// What the monitor remembers is one [`Recon`] per Recon node: sequence numbers and lines of the last
/// sync, and sets of derived task names (the fixed set of tasks Recon registers), never a value per
/// line, so a long log needs no pruning.
#[derive(Default)]
pub struct ReconOmSync {
    recons: HashMap<u32, Recon>,
    knowledge: Knowledge,
}

impl ReconOmSync {
    /// How many task names and lines the monitor remembers, over every Recon (what a long log must not grow).
    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.recons
            .values()
            .map(|r| {
                let due = r
                    .rebuild
                    .as_ref()
                    .map_or(0, |d| d.completed.len() + d.started.len());
                1 + r.running.len() + r.registered.len() + due
            })
            .sum()
    }
}

impl Recon {
    /// The snapshot's sequence number is lost for good: what Recon processed before is no longer comparable.
    fn forget_sequence(&mut self) {
        self.snapshot_installed = None;
        self.snapshot_at_startup = false;
        self.snapshot_requested = None;
        self.highest = None;
        self.history_known = false;
        // The snapshot replaced the DB whose number the last sync printed.
        self.db_seq = None;
    }
}

impl ReconOmSync {
    /// `FullSnapshot`: the pending snapshot left Recon's OM DB at `n` (read at `index`). At or below the highest
    /// number Recon processed, it is a new OM lineage and every derived task must be rebuilt.
    fn snapshot_seq(
        &mut self,
        cx: &Ctx,
        index: usize,
        node: &Arc<str>,
        key: u32,
        n: i64,
        out: &mut Vec<Violation>,
    ) {
        let Some(r) = self.recons.get_mut(&key) else {
            return;
        };
        let Some(snap) = r.snapshot_installed.take() else {
            return;
        };
        let at_startup = std::mem::take(&mut r.snapshot_at_startup);
        let requested = r.snapshot_requested.take();
        match r.highest {
            Some((h, at)) if n <= h => {
                r.rebuild = Some(RebuildDue {
                    fallback: r.fallback.take(),
                    snapshot: (snap != index).then_some(snap),
                    sync_after: index,
                    highest: Some(at),
                    // The startup path queues nothing: Recon serves stale tables from its start on.
                    restart: at_startup.then(|| requested.unwrap_or(snap)),
                    queued_at_startup: false,
                    outcome_unknown: None,
                    at_startup,
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
        let Some(r) = self.recons.get_mut(&key) else {
            return;
        };
        r.highest = Some((n, index));
        r.history_known = true;
        // Recon already serves (the number is read after `... is started.`): the stale tables are in use now.
        // A rebuild whose restart obligation was discharged (queued again at startup) has no restart left.
        if let Some(due) = r.rebuild.clone().filter(|d| d.at_startup && !r.starting) {
            if let Some(restart) = due.restart {
                self.lineage_violation(cx, index, node, key, &due, restart, out);
            }
        }
    }

    /// The rebuild obligation of Recon `key` is settled (reported, discharged or beyond telling).
    fn clear_rebuild(&mut self, key: u32) {
        if let Some(r) = self.recons.get_mut(&key) {
            r.rebuild = None;
        }
    }

    /// Recon serves (at `index`) derived tables of the previous lineage and nothing will rebuild them.
    #[allow(clippy::too_many_arguments)]
    fn lineage_violation(
        &mut self,
        cx: &Ctx,
        index: usize,
        node: &Arc<str>,
        key: u32,
        due: &RebuildDue,
        restart: usize,
        out: &mut Vec<Violation>,
    ) {
        let mut running: Vec<(String, usize)> = self
            .recons
            .get(&key)
            .map(|r| r.running.iter().map(|(t, i)| (t.clone(), *i)).collect())
            .unwrap_or_default();
        running.sort_by_key(|(_, i)| *i);
        let inv = invariant(self, "DerivedTasksMatchOmLineage");
        let ev = &cx.timeline.events;
        let after = seq(&ev.get(due.sync_after)).unwrap_or_default();
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
                seq(&ev.get(h)).or_else(|| ev.get(h).field("db_seq").and_then(Value::as_i64));
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
                seq(&ev.get(due.sync_after)).unwrap_or_default()
            ),
        ));
        if let Some((t, i)) = running.last() {
            related.push((*i, format!("task {t} started and never completed")));
        }
        related.push(if due.at_startup {
            (
                restart,
                "full snapshot fetched at startup: no reprocess is queued on this path".to_string(),
            )
        } else {
            (
                restart,
                "Recon restarts before the rebuild completed".to_string(),
            )
        });
        out.push(Violation {
            invariant: inv,
            message: if due.at_startup {
                format!(
                    "Recon {node} serves derived tables from the previous OM lineage: the full snapshot fetched at startup moved it back to sequence number {}, and neither that path nor the startup reconciliation queued a reprocess",
                    after
                )
            } else {
                format!(
                    "Recon {node} serves again with derived tables from the previous OM lineage: the full snapshot moved it back to sequence number {}, the rebuild did not finish before the restart, and the startup reconciliation queued nothing",
                    after
                )
            },
            node: Some(node.clone()),
            instance: node.to_string(),
            primary: index,
            primary_label: if due.at_startup {
                "Recon serves; no reprocess was queued for the snapshot fetched at startup".into()
            } else {
                "Recon serves; no reinitialization was queued at startup".into()
            },
            related,
            ambiguous_order: None,
        });
        self.clear_rebuild(key);
    }
}

impl Model for ReconOmSync {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn reads(&self, kind: EventKind) -> bool {
        matches!(
            kind,
            EventKind::SyncCompleted
                | EventKind::SyncStarted
                | EventKind::OmDbSeqObserved
                | EventKind::FullSnapshotRequested
                | EventKind::StartupSnapshotFetching
                | EventKind::StartupSnapshotFetched
                | EventKind::StartupSnapshotFailed
                | EventKind::FullSnapshotFailed
                | EventKind::OmServiceProviderStarting
                | EventKind::ReinitProcessing
                | EventKind::AsyncReinitStarted
                | EventKind::ReinitFailed
                | EventKind::AsyncReinitCompleted
                | EventKind::ReinitEventProcessed
                | EventKind::StartupReinitSkipped
                | EventKind::StartupTaskSeq
                | EventKind::DeltaApplied
                | EventKind::DeltaFallbackToFullSnapshot
                | EventKind::FullSnapshotInstalled
                | EventKind::ReinitCompleted
                | EventKind::StartupReinitQueued
                | EventKind::OmServiceProviderStarted
                | EventKind::TaskStatusRegistered
                | EventKind::TaskStarted
                | EventKind::TaskCompleted
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
                    self.knowledge.unattributed(index);
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
        if let (Some(LifeStep::Started { .. }), Some(snap)) = (life, r.snapshot_installed) {
            // The cycle's `Sequence number after sync` is lost and the run ended: the snapshot's sequence
            // number, hence its lineage, is not in view.
            self.knowledge.unknown(format!(
                "Recon {node} installed a full snapshot (line {}) whose sequence number is not in view (no `Sequence number after sync` before its restart), so whether it was an earlier OM lineage cannot be told",
                cx.timeline.events.head(snap).span.line
            ));
            r.forget_sequence();
        }
        if matches!(life, Some(LifeStep::Started { .. })) {
            r.outcome = Outcome::NotSeen;
            r.starting = false;
            r.snapshot_at_startup = false;
            r.stopping = false;
            r.synced_since_start = false;
        }
        if matches!(life, Some(LifeStep::Stopping)) {
            r.stopping = true;
        }
        match e.kind {
            EventKind::OmServiceProviderStarting => r.starting = true,
            EventKind::FullSnapshotRequested => r.snapshot_requested = Some(index),
            // start(): the local OM DB failed to open; the old DB is deleted and OM's current one fetched.
            EventKind::StartupSnapshotFetching => {
                r.snapshot_requested = Some(index);
                r.snapshot_at_startup = true;
            }
            // Nothing was installed: the DB is gone (sequence number 0) and the first scheduled sync takes a
            // full snapshot, which queues its reprocess as usual.
            EventKind::StartupSnapshotFailed => {
                r.snapshot_requested = None;
                r.snapshot_at_startup = false;
            }
            EventKind::StartupSnapshotFetched => {}
            // The scheduled snapshot installed nothing: the DB and its sequence number are unchanged.
            EventKind::FullSnapshotFailed => r.snapshot_requested = None,
            // The OM DB's sequence number at the start of a sync cycle: after a snapshot whose own `Sequence
            // number after sync` is lost, this is the snapshot's number (no delta runs in between). 0 means
            // no OM DB at all.
            EventKind::SyncStarted | EventKind::OmDbSeqObserved => {
                // Ozone 2.2.0 has no `Skipping startup task reinitialization ...`: a fresh Recon (its start in
                // view, nothing synced or fetched at startup since) shows an empty OM DB at its first sync.
                let fresh = seq(e) == Some(0)
                    && r.highest.is_none()
                    && !r.synced_since_start
                    && !r.snapshot_at_startup
                    && r.snapshot_installed.is_none()
                    && cx.timeline.started_in_view.contains(node);
                if fresh {
                    r.history_known = true;
                }
                let Some(n) = seq(e).filter(|n| *n > 0) else {
                    return;
                };
                if r.snapshot_installed.is_some() {
                    self.snapshot_seq(cx, index, node, key, n, out);
                } else if r.highest.is_none_or(|(h, _)| n > h) {
                    r.highest = Some((n, index));
                }
            }
            EventKind::ReinitProcessing | EventKind::AsyncReinitStarted => {
                r.outcome = Outcome::NotSeen;
            }
            EventKind::ReinitFailed => {
                r.outcome = Outcome::Failed;
                // The tasks reprocessed into a staging DB that a failed swap threw away: none is rebuilt.
                if let Some(due) = r.rebuild.as_mut() {
                    due.completed.clear();
                }
            }
            // The reprocess ended; `Completed async task reinitialization` is also logged after the staged DB
            // swap failed (reInitializeTasks still returns true), so only the outcome lines decide.
            EventKind::AsyncReinitCompleted | EventKind::ReinitEventProcessed
                if r.outcome == Outcome::NotSeen =>
            {
                if let Some(due) = r.rebuild.as_mut() {
                    due.outcome_unknown.get_or_insert(index);
                }
            }
            // Startup with no local OM DB: nothing was processed before.
            EventKind::StartupReinitSkipped => r.history_known = true,
            // Startup reconciliation prints the persisted cursors.
            EventKind::StartupTaskSeq => {
                if let Some(s) = seq(e) {
                    r.history_known = true;
                    // The delta cursor is the number of Recon's OM DB.
                    if task(e) == Some("OmDeltaRequest") {
                        r.db_seq = Some((s, index));
                    }
                    if r.highest.is_none_or(|(h, _)| s > h) {
                        r.highest = Some((s, index));
                    }
                }
            }
            EventKind::DeltaFallbackToFullSnapshot => r.fallback = Some(index),
            EventKind::FullSnapshotInstalled => {
                r.snapshot_installed = Some(index);
                // Inside start() the only install is its own fetch: the sync scheduler starts at its end.
                r.snapshot_at_startup = r.starting || r.snapshot_at_startup;
            }
            EventKind::DeltaApplied => {
                if let Some(s) = e.field("db_seq").and_then(Value::as_i64) {
                    if r.highest.is_none_or(|(h, _)| s > h) {
                        r.highest = Some((s, index));
                    }
                }
            }
            EventKind::SyncCompleted => {
                let Some(n) = seq(e) else { return };
                r.synced_since_start = true;
                if r.snapshot_installed.is_none() && (n == 0 || r.stopping) {
                    // A sync that ran while Recon stopped, against its closed OM DB (real 2.2.0 output: `Delta
                    // updates received from OM : 1 loops, -29 records`, then `Sequence number after sync: 0`):
                    // no snapshot was installed, and the number says nothing of OM's lineage.
                    return;
                }
                r.db_seq = Some((n, index));
                if r.snapshot_installed.is_some() {
                    self.snapshot_seq(cx, index, node, key, n, out);
                } else if r.highest.is_some_and(|(h, _)| n < h) {
                    // Only a full snapshot moves Recon's OM DB back; its install line is not in view.
                    r.snapshot_installed = r.snapshot_requested.or(Some(index));
                    self.snapshot_seq(cx, index, node, key, n, out);
                } else if r.highest.is_none_or(|(h, _)| n > h) {
                    r.highest = Some((n, index));
                }
            }
            EventKind::TaskStatusRegistered => {
                if let Some(t) = task(e) {
                    if !CURSOR_ROWS.contains(&t) {
                        r.registered.insert(t.to_string());
                    }
                }
            }
            EventKind::TaskStarted => {
                if let Some(t) = task(e) {
                    r.running.insert(t.to_string(), index);
                    if let Some(due) = r.rebuild.as_mut() {
                        due.started.insert(t.to_string());
                    }
                }
            }
            EventKind::TaskCompleted => {
                if let Some(t) = task(e) {
                    r.running.remove(t);
                    if let Some(due) = r.rebuild.as_mut() {
                        due.completed.insert(t.to_string());
                    }
                }
            }
            EventKind::ReinitCompleted => {
                r.outcome = Outcome::Succeeded;
                // The tasks were rebuilt from Recon's OM DB as it stands: what they processed is its number
                // now, not the stale task rows a startup listed (refinement: fixed config, seed 54645).
                if let Some(d) = r.db_seq {
                    r.highest = Some(d);
                }
                if r.rebuild.take().is_some() {
                    self.knowledge.checks += 1; // ReinitDone: the derived tasks match the lineage again
                }
                if r.snapshot_installed.is_some() {
                    // The snapshot's `Sequence number after sync` is lost, but the reprocess ran after it:
                    // whatever its lineage, the derived tasks match it. Its number is still unknown.
                    self.knowledge.checks += 1;
                    r.forget_sequence();
                }
                r.running.clear();
            }
            EventKind::StartupReinitQueued => {
                if let Some(due) = r.rebuild.as_mut().filter(|d| d.restart.is_some()) {
                    due.queued_at_startup = true;
                }
                if r.snapshot_at_startup {
                    // The reconciliation's reprocess reads the freshly fetched DB.
                    r.snapshot_at_startup = false;
                }
            }
            EventKind::OmServiceProviderStarted => {
                r.starting = false;
                let Some(due) = r.rebuild.clone() else { return };
                let Some(restart) = due.restart else { return };
                if let Some(ended) = due.outcome_unknown {
                    self.knowledge.unknown(format!(
                        "Recon {node} restarted after a reprocess that ended (line {}) with neither `Re-initialization of tasks completed successfully.` nor `Re-initialization of tasks failed.` in view, so whether the derived tasks were rebuilt for the new OM lineage cannot be told",
                        cx.timeline.events.head(ended).span.line
                    ));
                    self.clear_rebuild(key);
                    return;
                }
                if due.queued_at_startup {
                    // Reconcile queued the rebuild again: it may still run; the obligation stands until done.
                    self.knowledge.checks += 1;
                    if let Some(due) = self.recons.get_mut(&key).and_then(|r| r.rebuild.as_mut()) {
                        due.restart = None;
                    }
                    return;
                }
                // Which derived tasks are still built from the old lineage: those known (registered, or
                // started since) that completed no reprocess since it was installed. With none completed,
                // some task is stale whatever the set is; with every known one completed and the set not
                // in view, that cannot be told.
                let Some(r) = self.recons.get(&key) else {
                    return;
                };
                let known: std::collections::BTreeSet<&String> =
                    r.registered.iter().chain(&due.started).collect();
                let stale = known.iter().any(|t| !due.completed.contains(*t));
                if !due.completed.is_empty() && !stale {
                    if r.registered.is_empty() {
                        self.knowledge.unknown(format!(
                            "Recon {node} restarted after rebuilding {} derived task(s) for a new OM lineage without `Re-initialization of tasks completed successfully.`, and no `Registered Task:` lines show whether those were all of them",
                            due.completed.len()
                        ));
                    } else {
                        // Every derived task was rebuilt: the tables match the lineage.
                        self.knowledge.checks += 1;
                    }
                    self.clear_rebuild(key);
                    return;
                }
                self.lineage_violation(cx, index, node, key, &due, restart, out);
                self.clear_rebuild(key);
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

    // The witness table still reads the whole timeline at the end (its look-ahead for lost lines is not yet
    // stepped event by event, unlike the other three bugs').
    fn witness(&mut self, _cx: &Ctx, _index: usize, _e: &Event, _life: Option<LifeStep>) {}

    fn witnessed(&mut self, cx: &Ctx) -> crate::mirror::export::Witnessed {
        super::witness::witnesses(cx.timeline)
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Event;
    use crate::monitor::testkit::{daemon, ev, run, test_output, text};
    use crate::monitor::Verdict;
    use crate::value::Value;
    use crate::vocab::EventKind;

    const R: &str = "recon1";

    fn started(ms: i64) -> Event {
        ev(
            EventKind::ProcessStarted,
            R,
            ms,
            vec![("service", text("ReconServer"))],
        )
    }

    fn synced(ms: i64, seq: i64) -> Event {
        ev(
            EventKind::SyncCompleted,
            R,
            ms,
            vec![("seq", Value::I64(seq))],
        )
    }

    /// Recon processed up to 120, then a full snapshot moved it back to 40 (a new OM lineage), and a derived
    /// task started; indices 0..=6.
    fn regression() -> Vec<Event> {
        vec![
            started(0),
            ev(EventKind::StartupReinitSkipped, R, 100, vec![]),
            synced(1_000, 120),
            ev(EventKind::DeltaFallbackToFullSnapshot, R, 2_000, vec![]),
            ev(EventKind::FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 40),
            ev(
                EventKind::TaskStarted,
                R,
                2_300,
                vec![("task", text("NSSummaryTask"))],
            ),
        ]
    }

    fn restart_and_serve(at: i64, queued: bool) -> Vec<Event> {
        let mut v = vec![
            started(at),
            ev(EventKind::OmServiceProviderStarting, R, at + 100, vec![]),
        ];
        if queued {
            v.push(ev(EventKind::StartupReinitQueued, R, at + 200, vec![]));
        }
        v.push(ev(EventKind::OmServiceProviderStarted, R, at + 300, vec![]));
        v
    }

    /// A long log needs no pruning here: thirty days of a Recon that syncs every ten minutes, reprocesses
    /// its tasks after a daily full snapshot and restarts daily remembers no more than three days of it.
    #[test]
    fn a_month_of_syncs_and_rebuilds_keeps_the_state_of_a_few_days() {
        use crate::monitor::{Ctx, Model};
        const MINUTE: i64 = 60_000;
        const DAY: i64 = 86_400_000;
        let tasks = [
            "NSSummaryTask",
            "ContainerKeyMapperTask",
            "FileSizeCountTask",
        ];
        let days = |n: i64| {
            let mut v = vec![started(0)];
            v.extend(tasks.map(|t| {
                ev(
                    EventKind::TaskStatusRegistered,
                    R,
                    10,
                    vec![("task", text(t))],
                )
            }));
            let mut seq = 0;
            for d in 0..n {
                let day = d * DAY;
                for tick in 1..24 * 6 {
                    let ms = day + tick * 10 * MINUTE;
                    seq += 10;
                    v.push(ev(
                        EventKind::SyncStarted,
                        R,
                        ms,
                        vec![("seq", Value::I64(seq - 10))],
                    ));
                    v.push(synced(ms + 100, seq));
                }
                // A new OM lineage each day: a full snapshot, then every task rebuilt.
                let ms = day + 23 * 60 * MINUTE + 50 * MINUTE;
                v.push(ev(EventKind::DeltaFallbackToFullSnapshot, R, ms, vec![]));
                v.push(ev(EventKind::FullSnapshotInstalled, R, ms + 100, vec![]));
                seq = 5;
                v.push(synced(ms + 200, seq));
                v.push(ev(EventKind::ReinitProcessing, R, ms + 300, vec![]));
                for (k, t) in tasks.iter().enumerate() {
                    let at = ms + 400 + k as i64 * 100;
                    v.push(ev(EventKind::TaskStarted, R, at, vec![("task", text(t))]));
                    v.push(ev(
                        EventKind::TaskCompleted,
                        R,
                        at + 50,
                        vec![("task", text(t))],
                    ));
                }
                v.push(ev(EventKind::ReinitCompleted, R, ms + 1_000, vec![]));
                v.extend(restart_and_serve(ms + 2_000, false));
            }
            v
        };
        let most = |n: i64| {
            let tl = crate::monitor::testkit::timeline(vec![daemon("recon", R, days(n))]);
            let cx = Ctx { timeline: &tl };
            let mut m = super::ReconOmSync::default();
            let (mut most, mut out) = (0, Vec::new());
            for (i, e) in tl.events.iter().enumerate() {
                m.step(&cx, i, &e, tl.life[i], &mut out);
                most = most.max(m.remembered());
            }
            assert!(out.is_empty(), "{out:?}");
            assert!(m.knowledge().checks >= n as usize, "{:?}", m.knowledge());
            most
        };
        let (short, long) = (most(3), most(30));
        assert!(short > 1, "{short}");
        assert_eq!(long, short);
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
        assert_eq!(tl.events.head(9).kind, EventKind::OmServiceProviderStarted);
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
        events.extend([ev(EventKind::ComponentStopping, R, 9_000, vec![])]);
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
        let registered = |ms: i64, t: &str| {
            ev(
                EventKind::TaskStatusRegistered,
                R,
                ms,
                vec![("task", text(t))],
            )
        };
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
            task(2_400, EventKind::TaskCompleted, "NSSummaryTask"),
            task(2_500, EventKind::TaskStarted, "ContainerKeyMapperTask"),
            task(2_600, EventKind::TaskCompleted, "ContainerKeyMapperTask"),
        ]);
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events.clone())]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);

        // One task left: still a violation.
        let mut one_left = events.clone();
        one_left.retain(|e| {
            !(e.kind == EventKind::TaskCompleted
                && e.field("task").and_then(Value::as_str) == Some("ContainerKeyMapperTask"))
        });
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, one_left)]);
        assert_eq!(r.verdict, Verdict::Violated);

        // Without the registrations the set of tasks is not in view: inconclusive, with the reason.
        events.retain(|e| e.kind != EventKind::TaskStatusRegistered);
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
        events.push(ev(EventKind::ReinitCompleted, R, 20_000, vec![]));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
    }

    #[test]
    fn a_queue_before_the_restart_does_not_count() {
        // The queue line must come from the restart's own reconciliation.
        let mut events = regression();
        events.push(ev(EventKind::StartupReinitQueued, R, 3_000, vec![]));
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.first().unwrap().primary, 10);
    }

    #[test]
    fn a_rebuild_completed_before_the_restart_is_no_violation() {
        let mut events = regression();
        events.push(ev(EventKind::ReinitCompleted, R, 5_000, vec![]));
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
            ev(EventKind::FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 500),
            started(10_000),
            ev(EventKind::OmServiceProviderStarted, R, 10_300, vec![]),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn a_first_full_snapshot_without_history_is_inconclusive() {
        let events = vec![
            ev(EventKind::FullSnapshotInstalled, R, 2_100, vec![]),
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
            ev(EventKind::StartupReinitSkipped, R, 100, vec![]),
            ev(EventKind::FullSnapshotInstalled, R, 2_100, vec![]),
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
            ev(EventKind::FullSnapshotInstalled, R, 2_100, vec![]),
            synced(2_200, 120),
            started(10_000),
            ev(EventKind::OmServiceProviderStarted, R, 10_300, vec![]),
        ];
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().unwrap();
        assert_eq!(v.primary, 5);
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![2, 1, 3, 4]);
    }

    /// Phase A of the healthy fixture, made small: a regression to 40, the reprocess completes, then a restart
    /// that queues nothing.
    fn completed_rebuild_then_restart() -> Vec<Event> {
        let mut v = regression();
        v.extend([
            ev(EventKind::ReinitProcessing, R, 2_250, vec![]),
            ev(
                EventKind::TaskCompleted,
                R,
                4_000,
                vec![("task", text("NSSummaryTask"))],
            ),
            ev(EventKind::ReinitCompleted, R, 4_100, vec![]),
            ev(EventKind::AsyncReinitCompleted, R, 4_101, vec![]),
            ev(EventKind::ReinitEventProcessed, R, 4_102, vec![]),
            ev(
                EventKind::SyncStarted,
                R,
                6_000,
                vec![("seq", Value::I64(40))],
            ),
            synced(6_100, 56),
        ]);
        v.extend(restart_and_serve(10_000, false));
        v
    }

    #[test]
    fn a_lost_sequence_number_after_sync_is_no_violation_when_the_reprocess_completed() {
        // Issue 9: deleting `Sequence number after sync: 1180` paired the snapshot with the next cycle's number.
        let mut events = completed_rebuild_then_restart();
        events.retain(|e| !(e.kind == EventKind::SyncCompleted && seq_of(e) == Some(40)));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
    }

    #[test]
    fn a_lost_sequence_number_after_sync_before_a_restart_is_inconclusive() {
        // The violating story with its `Sequence number after sync: 1180` lost: the lineage is not in view.
        let mut events = regression();
        events.retain(|e| !(e.kind == EventKind::SyncCompleted && seq_of(e) == Some(40)));
        events.extend(restart_and_serve(10_000, false));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.unwrap();
        assert!(
            reason.contains("whose sequence number is not in view"),
            "{reason}"
        );
    }

    #[test]
    fn the_next_cycles_first_number_stands_for_a_lost_sequence_number_after_sync() {
        // `Last known sequence number before sync: 40` is the snapshot's number: the regression is in view.
        let mut events = regression();
        events.retain(|e| !(e.kind == EventKind::SyncCompleted && seq_of(e) == Some(40)));
        events.push(ev(
            EventKind::SyncStarted,
            R,
            3_000,
            vec![("seq", Value::I64(40))],
        ));
        events.extend(restart_and_serve(10_000, false));
        let (tl, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().unwrap();
        assert_eq!(
            tl.events.head(v.primary).kind,
            EventKind::OmServiceProviderStarted
        );
        assert!(
            v.message.contains("back to sequence number 40"),
            "{}",
            v.message
        );
    }

    #[test]
    fn a_lost_reprocess_success_line_is_not_a_violation() {
        // Issue 9: `Re-initialization of tasks completed successfully.` lost while `Completed async task
        // reinitialization` and `Completed processing reinitialization event` remain. The first is also logged
        // after a failed staged-DB swap, so the outcome is unknown: inconclusive, naming the missing lines.
        let mut events = completed_rebuild_then_restart();
        events.retain(|e| e.kind != EventKind::ReinitCompleted);
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events.clone())]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.unwrap();
        assert!(reason.contains("neither `Re-initialization of tasks completed successfully.` nor `Re-initialization of tasks failed.` in view"), "{reason}");
        // With the failure line in view the bug is proven again.
        let at = events
            .iter()
            .position(|e| e.kind == EventKind::AsyncReinitCompleted)
            .unwrap();
        events.insert(at, ev(EventKind::ReinitFailed, R, 4_100, vec![]));
        let (_, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
    }

    #[test]
    fn a_sequence_number_that_moves_back_is_a_full_snapshot_even_with_its_install_line_lost() {
        let mut events = regression();
        events.retain(|e| e.kind != EventKind::FullSnapshotInstalled);
        events.extend(restart_and_serve(10_000, false));
        let (tl, r) = run("recon-om-sync", vec![daemon("recon", R, events)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().unwrap();
        assert_eq!(v.primary, 8);
        assert_eq!(tl.events.head(8).kind, EventKind::OmServiceProviderStarted);
    }

    use crate::grammar::Grammar;

    fn seq_of(e: &Event) -> Option<i64> {
        e.field("seq").and_then(Value::as_i64)
    }

    /// Recon's daemon log `lines` (`HH:MM:SS,mmm|thread|LEVEL|logger suffix|message`) through the real pipeline.
    fn check_log(lines: &[&str]) -> crate::check::ModelReport {
        check_log_timeline(lines).1
    }

    fn check_log_timeline(
        lines: &[&str],
    ) -> (crate::timeline::Timeline, crate::check::ModelReport) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ozone-hadoop-recon-recon1.log");
        let mut text = String::new();
        for l in lines {
            let f: Vec<&str> = l.splitn(5, '|').collect();
            if f.len() < 5 {
                text.push_str(l); // a continuation line (stack trace)
            } else {
                let logger = match f[3] {
                    "P" => "org.apache.hadoop.ozone.recon.spi.impl.OzoneManagerServiceProviderImpl",
                    "T" => "org.apache.hadoop.ozone.recon.tasks.ReconTaskControllerImpl",
                    "S" => "org.apache.hadoop.ozone.recon.ReconServer",
                    "M" => "org.apache.hadoop.ozone.recon.recovery.ReconOmMetadataManagerImpl",
                    other => other,
                };
                text.push_str(&format!(
                    "2026-08-23 {} [{}] {} {logger}: {}",
                    f[0], f[1], f[2], f[4]
                ));
            }
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        let sources = crate::input::resolve(&[path.to_string_lossy().into_owned()]).unwrap();
        let grammar = crate::grammar::Grammar::embedded().unwrap();
        let tl = crate::timeline::build(
            &sources,
            &grammar,
            &crate::scan::ScanOptions::default(),
            crate::bugs::merge_rules(crate::timeline::DEFAULT_MAX_SKEW_MS),
            &|_, _| {},
        );
        let r = crate::monitor::testkit::replay_one(&tl, "recon-om-sync");
        (tl, r)
    }

    /// Recon processed 2410 and rebuilt its tasks, stopped, and on restart its local OM DB failed to open:
    /// `start()` fetches OM's current DB. `fetch` is the lines of that fetch, `after` what follows the start.
    fn startup_story(fetch: &[&'static str], after: &[&'static str]) -> Vec<&'static str> {
        let mut v = vec![
            "12:00:02,001|main|INFO|S|Starting Recon server",
            "12:00:02,038|main|INFO|P|Starting Ozone Manager Service Provider.",
            "12:00:02,041|main|INFO|P|Skipping startup task reinitialization because the local OM DB store is not initialized yet (no OM snapshot present). The scheduled full snapshot sync will download the OM DB and initialize tasks.",
            "12:00:02,044|main|INFO|P|Ozone Manager Service Provider is started.",
            "12:01:01,427|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 0",
            "12:01:01,428|Recon-SyncOM-0|INFO|P|Obtaining full snapshot from Ozone Manager",
            "12:01:03,349|Recon-SyncOM-0|INFO|P|Successfully updated Recon OM DB with new snapshot.",
            "12:01:03,353|Recon-SyncOM-0|INFO|P|Queueing async reinitialization event instead of blocking call",
            "12:01:03,540|Recon-SyncOM-0|INFO|P|Sequence number after sync: 2410",
            "12:01:03,545|ReconEventProcessor-0|INFO|T|Processing reinitialization event: reason=MANUAL_TRIGGER, timestamp=1787486463488",
            "12:01:06,753|ReconEventProcessor-0|INFO|T|Re-initialization of tasks completed successfully.",
            "12:45:10,059|shutdown-hook-0|INFO|S|Stopping Recon server",
            "12:45:42,228|main|INFO|S|Starting Recon server",
            "12:45:42,265|main|INFO|P|Starting Ozone Manager Service Provider.",
        ];
        v.extend_from_slice(fetch);
        v.push("12:45:45,269|main|INFO|P|Ozone Manager Service Provider is started.");
        v.extend_from_slice(after);
        v
    }

    const CORRUPT: &[&str] = &[
        "12:45:42,270|main|WARN|P|Unexpected runtime error starting Recon OM Metadata Manager.",
        "java.lang.RuntimeException: Failed to open the OM DB",
        "\tat org.apache.hadoop.ozone.recon.recovery.ReconOmMetadataManagerImpl.start(ReconOmMetadataManagerImpl.java:113)",
        "12:45:42,271|main|WARN|P|Trying to delete existing recon OM snapshot DB and fetch new one.",
        "12:45:42,271|main|INFO|P|Fetching full snapshot from Ozone Manager",
        "12:45:44,120|main|INFO|P|Attempting to update Recon OM DB with new snapshot located at: /data/metadata/recon/om.snapshot.db_1787489143069",
        "12:45:44,213|main|INFO|P|Successfully updated Recon OM DB with new snapshot.",
        "12:45:44,214|main|INFO|P|Successfully fetched a full snapshot from Ozone Manager",
    ];

    #[test]
    fn a_startup_snapshot_onto_an_earlier_lineage_that_queues_nothing_is_a_violation() {
        // start()'s fetch sets no task row and queues no reprocess; the reconciliation compares the old rows.
        let r = check_log(&startup_story(
            CORRUPT,
            &["12:46:41,251|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 1180"],
        ));
        assert_eq!(r.verdict, Verdict::Violated, "{:?}", r.reason);
        let v = r.first().unwrap();
        assert!(
            v.message
                .contains("fetched at startup moved it back to sequence number 1180"),
            "{}",
            v.message
        );
        assert!(
            v.related
                .iter()
                .any(|(_, l)| l.contains("no reprocess is queued on this path")),
            "{:?}",
            v.related
        );
    }

    /// The scheduled sync may read the fetched DB's number before `... is started.`: Recon does not serve the
    /// stale tables yet, so the violation is at the end of the start, not at that line.
    #[test]
    fn a_startup_snapshot_whose_number_is_read_while_starting_is_reported_when_the_start_ends() {
        let mut fetch = CORRUPT.to_vec();
        fetch.push(
            "12:45:44,500|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 1180",
        );
        let (tl, r) = check_log_timeline(&startup_story(&fetch, &[]));
        assert_eq!(r.verdict, Verdict::Violated, "{:?}", r.reason);
        let v = r.first().unwrap();
        assert_eq!(
            tl.events.head(v.primary).kind,
            EventKind::OmServiceProviderStarted,
            "{}",
            v.message
        );
    }

    #[test]
    fn a_startup_snapshot_above_the_processed_number_or_with_a_reprocess_queued_is_no_violation() {
        let r = check_log(&startup_story(
            CORRUPT,
            &["12:46:41,251|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 5210"],
        ));
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        // The reconciliation after the fetch queues a reprocess of the fetched DB, which completes.
        let mut fetch = CORRUPT.to_vec();
        fetch.push(
            "12:45:44,300|main|INFO|P|Queueing async reinitialization events during startup.",
        );
        let r = check_log(&startup_story(
            &fetch,
            &[
                "12:45:46,000|ReconEventProcessor-0|INFO|T|Re-initialization of tasks completed successfully.",
                "12:46:41,251|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 1180",
            ],
        ));
        assert!(r.violations.is_empty(), "{:?}", r.violations);
    }

    #[test]
    fn a_startup_snapshot_with_no_earlier_sequence_number_in_view_is_inconclusive() {
        let lines: Vec<&str> = startup_story(
            CORRUPT,
            &["12:46:41,251|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 1180"],
        )
        .into_iter()
        .skip(11) // the log starts at the stop: nothing Recon processed before is in view
        .collect();
        let r = check_log(&lines);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r
            .reason
            .unwrap()
            .contains("no earlier sequence number in view"));
    }

    #[test]
    fn a_failed_startup_fetch_falls_back_to_the_scheduled_snapshot_and_its_reprocess() {
        // Nothing installed, the old DB already deleted: the first sync sees 0 and takes a full snapshot, which
        // queues its reprocess; a regression there is the ordinary FullSnapshot, healed by ReinitDone.
        let fetch = &[
            "12:45:42,270|main|WARN|P|Unexpected runtime error starting Recon OM Metadata Manager.",
            "12:45:42,271|main|WARN|P|Trying to delete existing recon OM snapshot DB and fetch new one.",
            "12:45:42,271|main|INFO|P|Fetching full snapshot from Ozone Manager",
            "12:45:44,100|main|ERROR|org.apache.hadoop.ozone.recon.spi.impl.OzoneManagerServiceProviderImpl|Unable to obtain Ozone Manager DB Snapshot.",
            "12:45:44,101|main|ERROR|P|Failed to obtain a valid DB snapshot from Ozone Manager. This could be due to missing SST files or other fetch issues.",
            "12:45:44,102|main|ERROR|P|Failed fetching a full snapshot from Ozone Manager",
        ];
        let after = &[
            "12:46:41,251|Recon-SyncOM-0|INFO|P|Last known sequence number before sync: 0",
            "12:46:41,252|Recon-SyncOM-0|INFO|P|Seq number of Recon's OM DB : 0",
            "12:46:41,253|Recon-SyncOM-0|INFO|P|Obtaining full snapshot from Ozone Manager",
            "12:46:43,213|Recon-SyncOM-0|INFO|P|Successfully updated Recon OM DB with new snapshot.",
            "12:46:43,217|Recon-SyncOM-0|INFO|P|Queueing async reinitialization event instead of blocking call",
            "12:46:43,404|Recon-SyncOM-0|INFO|P|Sequence number after sync: 1180",
            "12:46:46,907|ReconEventProcessor-0|INFO|T|Re-initialization of tasks completed successfully.",
        ];
        let r = check_log(&startup_story(fetch, after));
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        // Without the reprocess completing, the new lineage is still owed its rebuild when the logs end.
        let r = check_log(&startup_story(fetch, &after[..6]));
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r
            .reason
            .unwrap()
            .contains("end before the derived tasks were rebuilt"));
    }

    #[test]
    fn the_delta_paths_queue_and_fallback_lines_are_read() {
        // The new rules match real lines (their events reach the model).
        let (tl, r) = check_log_timeline(&[
            "12:00:02,001|main|INFO|S|Starting Recon server",
            "12:11:01,514|Recon-SyncOM-0|WARN|P|Detected condition for task reinitialization: TASK_FAILURES, queueing async reinitialization event",
            "12:11:01,515|Recon-SyncOM-0|INFO|P|Reinitialization event successfully queued",
            "12:21:01,514|Recon-SyncOM-0|WARN|P|Reinitialization queue failures exceeded maximum retries, triggering full snapshot fallback",
            "12:21:01,515|Recon-SyncOM-0|ERROR|P|ReInitializationResult is null, something went wrong in queueing reinitialization event",
            "12:21:02,000|Recon-SyncOM-0|ERROR|P|Unable to update Recon's metadata with new OM DB. ",
            "java.io.IOException: boom",
            "12:21:03,000|ReconEventProcessor-0|ERROR|T|Task reinitialization failed, tasksFailed flag set to true",
        ]);
        let rules: Vec<&str> = tl
            .events
            .iter()
            .map(|e| {
                Grammar::embedded().unwrap().rules[e.rule as usize]
                    .id
                    .clone()
                    .leak() as &str
            })
            .collect();
        assert_eq!(
            rules,
            [
                "ComponentStarting#recon-start",
                "ReinitConditionDetected",
                "ReinitEventQueued#delta",
                "DeltaFallbackToFullSnapshot#reinit_retries",
                "DeltaFallbackToFullSnapshot#reinit_null",
                "FullSnapshotFailed#sync",
                "ReinitFailed#async",
            ]
        );
        // Both fallbacks, the failed snapshot and the failed reprocess reach the model.
        assert_eq!(r.events, 4, "{:?}", r.reason);
    }
}
