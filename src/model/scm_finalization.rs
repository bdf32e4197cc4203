//! `scm-finalization`: the Rust mirror of `traces/scm-finalization/ScmFinalization.tla` (HDDS-17089).
//!
//! Mirrored per SCM: `dbVersion[s]` (the apparent version a checkpoint brought into scm.db, known from
//! `New snapshot received with higher apparent version V` after `Replaced DB with checkpoint`) and
//! `versionFile[s]` (from `Version V has been finalized.` and `Initializing version manager with apparent
//! version A`). Actions: `ReplaceDb(s)`, `FinalizeFromSnapshot(s)`, `Crash(s)`/`Stop(s)`/`Restart(s)`,
//! `ApplyEntry(s)` (a finalize step), `FenceDatanode(s, d)`.

use super::lifecycle::LifeStep;
use super::{invariant, Ctx, Invariant, Knowledge, Model, Spec, Violation};
use crate::event::Event;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

const INVARIANTS: &[Invariant] = &[
    Invariant {
        name: "VersionFileCoversDb",
        code: "OZ-SCM-FIN-001",
        summary: "an SCM restarted pre-finalized on top of a DB that a checkpoint had finalized",
        advice: "This SCM will fence every finalized datanode. Run `ozone admin scm finalizeupgrade` again (this SCM applies it), or reinstall its DB from the leader; then restart the datanodes it shut down.",
    },
    Invariant {
        name: "NoFinalizedDatanodeFenced",
        code: "OZ-SCM-FIN-002",
        summary: "an SCM fenced a datanode although the cluster is finalized to the datanode's version",
        advice: "The fencing SCM runs behind its peers' finalization and shuts down every finalized datanode that registers with it. Finalize it (`ozone admin scm finalizeupgrade`), then restart the stopped datanodes.",
    },
];

#[derive(Debug, Clone)]
struct Version {
    name: String,
    number: i64,
}

fn version(e: &Event, field: &str) -> Option<Version> {
    match e.field(field)? {
        Value::Version { name, number } => Some(Version {
            name: name.clone(),
            number: *number,
        }),
        _ => None,
    }
}

#[derive(Debug, Default)]
struct ScmNode {
    /// `ReplaceDb(s)`: the last `Replaced DB with checkpoint` line.
    replaced: Option<usize>,
    /// `dbVersion[s]` after a checkpoint, while the VERSION file has not caught up: version and its line.
    db_ahead: Option<(Version, usize)>,
    /// A stop or crash after `db_ahead` was set: the line that shows it.
    down: Option<usize>,
    /// The restart's first line (STARTUP_MSG or in-JVM start), while the version line is awaited.
    restarted: Option<usize>,
    /// Last `Version V has been finalized.` of this SCM.
    last_finalized: Option<(Version, usize)>,
    /// Last `Initializing version manager ...` of this SCM.
    version_line: Option<usize>,
}

#[derive(Default)]
pub struct ScmFinalization {
    nodes: HashMap<u32, ScmNode>,
    /// Highest version each SCM logged as finalized (the cluster's finalization, as peers see it).
    finalized: HashMap<Arc<str>, (Version, usize)>,
    knowledge: Knowledge,
}

impl ScmFinalization {
    fn version_file_violation(
        &self,
        node: &Arc<str>,
        n: &ScmNode,
        primary: usize,
        apparent: &str,
    ) -> Violation {
        let inv = invariant(self, "VersionFileCoversDb");
        let (v, snap) = n.db_ahead.clone().expect("armed");
        let mut related = Vec::new();
        if let Some(r) = n.replaced {
            related.push((
                r,
                "scm.db replaced with the leader's checkpoint".to_string(),
            ));
        }
        related.push((
            snap,
            format!(
                "the checkpoint carries apparent version {} ({})",
                v.name, v.number
            ),
        ));
        if let Some((f, i)) = &n.last_finalized {
            related.push((
                *i,
                format!("last finalize step this SCM did: {} ({})", f.name, f.number),
            ));
        }
        if let Some(d) = n.down {
            related.push((
                d,
                "the SCM stops before its VERSION file reaches that version".to_string(),
            ));
        }
        Violation {
            invariant: inv.name,
            code: inv.code,
            message: format!(
                "SCM {node} restarted at apparent version {apparent} although its DB came from a checkpoint at {} ({}): the VERSION file was not finalized before it stopped",
                v.name, v.number
            ),
            node: Some(node.clone()),
            instance: node.to_string(),
            primary,
            primary_label: format!("restarted pre-finalized at {apparent}"),
            related,
            ambiguous_order: None,
        }
    }
}

impl Model for ScmFinalization {
    fn name(&self) -> &'static str {
        "scm-finalization"
    }

    fn spec(&self) -> Spec {
        Spec {
            module: "ScmFinalization",
            path: "traces/scm-finalization/ScmFinalization.tla",
            issue: "HDDS-17089",
        }
    }

    fn invariants(&self) -> &'static [Invariant] {
        INVARIANTS
    }

    fn reads(&self, kind: EventKind) -> bool {
        use EventKind::*;
        matches!(
            kind,
            CheckpointInstalled
                | SnapshotVersionHigher
                | VersionFinalized
                | VersionManagerInitialized
                | DatanodeFenced
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
            if self.reads(e.kind) && e.kind != EventKind::VersionManagerInitialized {
                self.knowledge.unknown("some SCM lines name no node (single-JVM output without node ids in thread names)");
            }
            return;
        };
        let key = e.node_key;
        // Datanodes, OM and Recon log the same version-manager lines; only SCMs are modelled.
        if cx.timeline.service_of_key(key) != Some(Component::Scm) {
            return;
        }
        if self.reads(e.kind) {
            self.knowledge.events += 1;
        }
        if let Some(step) = life {
            if let Some(n) = self.nodes.get_mut(&key).filter(|n| n.db_ahead.is_some()) {
                match step {
                    LifeStep::Stopping => n.down = n.down.or(Some(index)),
                    LifeStep::Started { crashed } => {
                        n.down = n.down.or(crashed.map(|_| index));
                        n.restarted = Some(index);
                    }
                }
            }
        }
        match e.kind {
            EventKind::CheckpointInstalled => {
                let n = self.nodes.entry(key).or_default();
                n.replaced = Some(index);
            }
            EventKind::SnapshotVersionHigher => {
                let n = self.nodes.entry(key).or_default();
                if n.replaced.is_some() {
                    if let Some(v) = version(e, "version") {
                        n.db_ahead = Some((v, index));
                        n.down = None;
                        n.restarted = None;
                    }
                }
            }
            EventKind::VersionFinalized => {
                let Some(v) = version(e, "version") else {
                    return;
                };
                let n = self.nodes.entry(key).or_default();
                if n.db_ahead
                    .as_ref()
                    .is_some_and(|(target, _)| v.number >= target.number)
                {
                    n.db_ahead = None; // FinalizeFromSnapshot(s) reached the DB's version
                    self.knowledge.checks += 1;
                }
                n.last_finalized = Some((v.clone(), index));
                let best = self
                    .finalized
                    .entry(node.clone())
                    .or_insert((v.clone(), index));
                if v.number >= best.0.number {
                    *best = (v, index);
                }
            }
            EventKind::VersionManagerInitialized => {
                let Some(a) = version(e, "apparent") else {
                    return;
                };
                let n = self.nodes.entry(key).or_default();
                n.version_line = Some(index);
                // Restart(s): the VERSION file is read; it must cover the DB.
                if let Some((target, _)) = &n.db_ahead {
                    if a.number < target.number {
                        let v = self.version_file_violation(
                            node,
                            self.nodes.get(&key).expect("present"),
                            index,
                            &format!("{} ({})", a.name, a.number),
                        );
                        out.push(v);
                    } else {
                        self.knowledge.checks += 1;
                    }
                    let n = self.nodes.get_mut(&key).expect("present");
                    n.db_ahead = None;
                }
            }
            EventKind::DatanodeFenced => {
                let (Some(dn_v), Some(scm_v)) =
                    (version(e, "datanode_version"), version(e, "scm_version"))
                else {
                    return;
                };
                // Restart(s) with no version-manager line in view: the fencing line tells the apparent version.
                if let Some(n) = self.nodes.get(&key) {
                    if let (Some((target, _)), Some(restart)) = (&n.db_ahead, n.restarted) {
                        if scm_v.number < target.number {
                            let v = self.version_file_violation(
                                node,
                                n,
                                restart,
                                &format!("{} ({})", scm_v.name, scm_v.number),
                            );
                            out.push(v);
                            self.nodes.get_mut(&key).expect("present").db_ahead = None;
                        }
                    }
                }
                // FenceDatanode(s, d) while a peer SCM has finalized to the datanode's version.
                let peer = self
                    .finalized
                    .iter()
                    .filter(|(p, (v, _))| *p != node && v.number >= dn_v.number)
                    .min_by_key(|(_, (_, i))| *i)
                    .map(|(p, (v, i))| (p.clone(), v.clone(), *i));
                match peer {
                    Some((p, v, at)) => {
                        let inv = invariant(self, "NoFinalizedDatanodeFenced");
                        let dn = match e.field("datanode") {
                            Some(Value::Datanode { uuid, host, .. }) => match host {
                                Some(h) => format!("{uuid} ({h})"),
                                None => uuid.clone(),
                            },
                            _ => "a datanode".into(),
                        };
                        let mut related = vec![(at, format!("peer SCM {p} finalized to {} ({})", v.name, v.number))];
                        if let Some(vl) = self.nodes.get(&key).and_then(|n| n.version_line) {
                            related.push((vl, format!("SCM {node} runs at apparent version {} ({})", scm_v.name, scm_v.number)));
                        }
                        out.push(Violation {
                            invariant: inv.name,
                            code: inv.code,
                            message: format!(
                                "SCM {node} fenced datanode {dn} at {} ({}) although peer SCM {p} had finalized the cluster to {} ({}); the datanode shuts down",
                                dn_v.name, dn_v.number, v.name, v.number
                            ),
                            node: Some(node.clone()),
                            instance: format!("{node}/{dn}"),
                            primary: index,
                            primary_label: format!("fences a datanode at {} ({})", dn_v.name, dn_v.number),
                            related,
                            ambiguous_order: None,
                        });
                    }
                    None => self.knowledge.unknown(format!(
                        "SCM {node} fenced a datanode at {} ({}), and no peer SCM's `Version ... has been finalized.` is in view to tell whether the cluster was finalized",
                        dn_v.name, dn_v.number
                    )),
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {
        if self.nodes.values().any(|n| n.db_ahead.is_some()) {
            self.knowledge.unknown(
                "an SCM's logs end while its DB is ahead of its VERSION file (no restart in view)",
            );
        }
    }

    fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    fn nothing_checked_reason(&self) -> String {
        "no checkpoint install that raised the apparent version (`New snapshot received with higher apparent version`) and no datanode fencing in view".into()
    }
}
