//! `recon-om-sync`: the Rust mirror of `traces/recon-om-sync/ReconOmSync.tla` (HDDS-16462).
//!
//! Mirrored per Recon: `deltaSeq` (`Sequence number after sync: N`), the highest sequence number Recon had
//! processed (standing in for `taskSeq` of the derived tasks), `reinitQueued` and `reprocessed`. Actions:
//! `FullSnapshot` (`Successfully updated Recon OM DB with new snapshot.` then `Sequence number after sync`),
//! `ReinitDone` (`Re-initialization of tasks completed successfully.`), `Crash`/`Stop`/`Restart`, `Reconcile`
//! (the startup reconciliation between `Starting Ozone Manager Service Provider.` and `... is started.`).

use super::lifecycle::LifeStep;
use super::{invariant, Ctx, Invariant, Knowledge, Model, Spec, Violation};
use crate::event::Event;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;

const INVARIANTS: &[Invariant] = &[Invariant {
    name: "DerivedTasksMatchOmLineage",
    code: "OZ-RECON-001",
    summary: "Recon serves derived tables built from an earlier OM lineage",
    advice: "Recon's container-key, namespace and file-size views show rows the current OM does not have, and will not heal by themselves. Trigger a full reprocess (restart Recon after deleting its task status rows, or `POST /api/v1/triggerdbsync/om`) and check the views afterwards.",
}];

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
}

#[derive(Default)]
pub struct ReconOmSync {
    recons: HashMap<u32, Recon>,
    knowledge: Knowledge,
}

fn seq(e: &Event) -> Option<i64> {
    e.field("seq").and_then(Value::as_i64)
}

impl Model for ReconOmSync {
    fn name(&self) -> &'static str {
        "recon-om-sync"
    }

    fn spec(&self) -> Spec {
        Spec {
            module: "ReconOmSync",
            path: "traces/recon-om-sync/ReconOmSync.tla",
            issue: "HDDS-16462",
        }
    }

    fn invariants(&self) -> &'static [Invariant] {
        INVARIANTS
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
        let Some(node) = e.node.as_ref() else {
            if self.reads(e.kind) {
                self.knowledge.unknown("some Recon lines name no node");
            }
            return;
        };
        let key = e.node_key;
        if cx
            .timeline
            .service_of_key(key)
            .is_some_and(|s| s != Component::Recon)
        {
            return;
        }
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
            EventKind::TaskStarted => {
                if let Some(t) = e.field("task").and_then(Value::as_str) {
                    r.running.insert(t.to_string(), index);
                }
            }
            EventKind::TaskCompleted => {
                if let Some(t) = e.field("task").and_then(Value::as_str) {
                    r.running.remove(t);
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
                    invariant: inv.name,
                    code: inv.code,
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

    fn nothing_checked_reason(&self) -> String {
        "no full snapshot with an earlier sequence number in view (`Sequence number after sync` before and after `Successfully updated Recon OM DB with new snapshot.`)".into()
    }
}
