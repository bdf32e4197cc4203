//! `scm-finalization` (HDDS-17089): the log monitor of `traces/scm-finalization/ScmFinalization.tla`.
//! (The exact mirror of the spec is `mirror.rs`; this monitor is three-valued where the logs are silent.)
//!
//! Mirrored per SCM: `dbVersion[s]` (the apparent version a checkpoint brought into scm.db, known from
//! `New snapshot received with higher apparent version V` after `Replaced DB with checkpoint`) and
//! `versionFile[s]` (from `Version V has been finalized.` and `Initializing version manager with apparent
//! version A`). Actions: `ReplaceDb(s)`, `FinalizeFromSnapshot(s)`, `Crash(s)`/`Stop(s)`/`Restart(s)`,
//! `ApplyEntry(s)` (a finalize step), `FenceDatanode(s, d)`.

use super::witness::datanode_of;
use super::ABOUT;
use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::monitor::{invariant, About, Ctx, Instance, Knowledge, Model, Violation};
use crate::value::Value;
use crate::vocab::EventKind;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

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

/// `dbVersion[s]` ahead of `versionFile[s]`: a checkpoint's version that the VERSION file has not caught up
/// with, and what the SCM did since. Everything about one such window lives in one value, so discharging or
/// reporting it (taking the value) can never leave half of it behind.
#[derive(Debug, Clone)]
struct DbAhead {
    /// The checkpoint's apparent version, and the `New snapshot received ...` line that shows it.
    version: Version,
    snapshot_line: usize,
    /// A stop or crash since: the line that shows it.
    down: Option<usize>,
    /// The restart's first line (STARTUP_MSG or in-JVM start), while the version line is awaited.
    restarted: Option<usize>,
    /// A restart read a VERSION file below the DB's version (line, apparent version as printed); the verdict
    /// waits for the end of startup, where the patched SCM finalizes to the DB's version first.
    restart_below_db: Option<(usize, String)>,
}

#[derive(Debug, Default)]
struct ScmNode {
    /// `ReplaceDb(s)`: the last `Replaced DB with checkpoint` line.
    replaced: Option<usize>,
    /// The open window in which the DB is ahead of the VERSION file, if any.
    db_ahead: Option<DbAhead>,
    /// Last `Version V has been finalized.` of this SCM.
    last_finalized: Option<(Version, usize)>,
    /// Last `Initializing version manager ...` of this SCM.
    version_line: Option<usize>,
    /// `Replaced DB with checkpoint` with neither `New snapshot received with higher apparent version` nor
    /// `Reloaded SCM state` after it yet: the checkpoint's version is not in view.
    install_open: Option<usize>,
    /// `<scmId>: Install checkpoint T#N` with no `Replaced DB with checkpoint` after it yet: the DB swap may
    /// be done (Ozone logs it after doing it).
    swap_begun: Option<usize>,
}

#[derive(Default)]
pub struct ScmFinalization {
    nodes: HashMap<u32, ScmNode>,
    /// Highest version each SCM logged as finalized (the cluster's finalization, as peers see it).
    finalized: HashMap<Arc<str>, (Version, usize)>,
    /// Fences with no peer finalization before them, by the fence line's time in ms (`i64::MIN`: undated):
    /// (line, fencing SCM, datanode version). A finalization weighs the fences within the clock skew before
    /// it, not every fence of a long-running cluster.
    unexplained_fences: BTreeMap<i64, Vec<(usize, Arc<str>, i64)>>,
    /// A fence came from an SCM whose clock is in doubt: a later finalization weighs every unexplained fence.
    fence_clock_doubt: bool,
    /// The block of events ([`crate::timeline::DATE_FLOOR_BLOCK`]) the last pruning ran in.
    pruned_in_block: Option<usize>,
    /// Some node's clock is in doubt, asked of the clocks once: then nothing is pruned.
    any_clock_suspect: Option<bool>,
    /// Keep every fence (tests: the verdicts with pruning are those without).
    keep_all_fences: bool,
    knowledge: Knowledge,
    /// The observer's witness half (for `export`), fed by the same pass.
    table: super::witness::Table,
}

impl ScmFinalization {
    /// A monitor that never forgets a fence (tests compare its verdicts with the pruning monitor's).
    #[cfg(test)]
    fn keeping_all_fences() -> ScmFinalization {
        ScmFinalization {
            keep_all_fences: true,
            ..ScmFinalization::default()
        }
    }

    /// Forgets the unexplained fences no later finalization can weigh, so that a long-running cluster's
    /// fences do not grow with the log.
    ///
    /// A dated `Version V has been finalized.` weighs the dated fences no more than the skew before it,
    /// and the undated ones; every later line is dated no earlier than [`Timeline::earliest_date_from`], so
    /// a dated fence more than the skew before that is never weighed again. Undated fences are kept. A later
    /// undated line (which weighs every fence) makes the floor `i64::MIN`, and nothing is pruned. A clock
    /// in doubt makes a finalization weigh every fence: with any node's clock in doubt nothing is pruned.
    ///
    /// What else the monitor keeps is one value per SCM (`nodes`, `finalized`), not per line.
    ///
    /// [`Timeline::earliest_date_from`]: crate::timeline::Timeline::earliest_date_from
    fn prune_fences(&mut self, cx: &Ctx, index: usize) {
        let block = index / crate::timeline::DATE_FLOOR_BLOCK;
        if self.keep_all_fences || self.pruned_in_block == Some(block) {
            return;
        }
        self.pruned_in_block = Some(block);
        let suspect = *self.any_clock_suspect.get_or_insert_with(|| {
            (0..cx.timeline.node_names.len() as u32)
                .any(|k| cx.timeline.clocks.suspect(k).is_some())
        });
        let floor = cx.timeline.earliest_date_from(index);
        if suspect || self.fence_clock_doubt || floor == i64::MIN {
            return;
        }
        // Fences at or after `from` may still be weighed; `i64::MIN` (undated) sorts first and is kept.
        let from = floor.saturating_sub(cx.timeline.max_skew_ms);
        let mut kept = self.unexplained_fences.split_off(&from);
        if let Some(undated) = self.unexplained_fences.remove(&i64::MIN) {
            kept.insert(i64::MIN, undated);
        }
        self.unexplained_fences = kept;
    }

    /// How many unexplained fences the monitor remembers (what pruning bounds).
    #[cfg(test)]
    fn fences_remembered(&self) -> usize {
        self.unexplained_fences.values().map(Vec::len).sum()
    }

    fn version_file_violation(
        &self,
        node: &Arc<str>,
        n: Option<&ScmNode>,
        ahead: &DbAhead,
        primary: usize,
        apparent: &str,
    ) -> Violation {
        let inv = invariant(self, "VersionFileCoversDb");
        let (v, snap) = (&ahead.version, ahead.snapshot_line);
        let mut related = Vec::new();
        if let Some(r) = n.and_then(|n| n.replaced) {
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
        if let Some((f, i)) = n.and_then(|n| n.last_finalized.as_ref()) {
            related.push((
                *i,
                format!("last finalize step this SCM did: {} ({})", f.name, f.number),
            ));
        }
        if let Some(d) = ahead.down {
            related.push((
                d,
                "the SCM stops before its VERSION file reaches that version".to_string(),
            ));
        }
        Violation {
            invariant: inv,
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

impl ScmFinalization {
    /// The end of a startup that read a VERSION file below the DB's version and did not finalize. With its
    /// Raft server started (`served`), the SCM runs pre-finalized: a violation at its version line. A startup
    /// cut short (a crash, a stop, the end of the logs before `starting Raft server`) never served: the
    /// patched SCM finalizes before that line, so whether this one would have is not in view.
    fn settle_restart(
        &mut self,
        node: &Arc<str>,
        key: u32,
        served: bool,
        out: &mut Vec<Violation>,
    ) {
        let Some(n) = self.nodes.get_mut(&key) else {
            return;
        };
        let Some(ahead) = n.db_ahead.take_if(|a| a.restart_below_db.is_some()) else {
            return;
        };
        let Some((line, apparent)) = &ahead.restart_below_db else {
            return;
        };
        if served {
            let v =
                self.version_file_violation(node, self.nodes.get(&key), &ahead, *line, apparent);
            out.push(v);
        } else {
            self.knowledge.unknown(format!(
                "SCM {node} read a VERSION file at {apparent}, below its DB's {} ({}), and its startup ended before `starting Raft server` (a crash, a stop, or the end of the logs): whether it would have finalized before serving is not in view",
                ahead.version.name, ahead.version.number
            ));
        }
    }
}

impl Model for ScmFinalization {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn reads(&self, kind: EventKind) -> bool {
        matches!(
            kind,
            EventKind::CheckpointInstalled
                | EventKind::CheckpointInstallStarted
                | EventKind::SnapshotVersionHigher
                | EventKind::VersionFinalized
                | EventKind::VersionManagerInitialized
                | EventKind::DatanodeFenced
                | EventKind::ScmRaftServerCreated
                | EventKind::ScmStateReloaded
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
        // Datanodes, OM and Recon log the same version-manager lines: only nodes known to be SCMs count.
        let (node, key) = match cx.instance(e, &ABOUT.role) {
            Instance::Of(node, key) => (node, key),
            Instance::NoNode => {
                if self.reads(e.kind) && e.kind != EventKind::VersionManagerInitialized {
                    self.knowledge.unattributed(index);
                }
                return;
            }
            Instance::OtherService => return,
        };
        self.prune_fences(cx, index);
        // The Raft-server and reload lines only bound a startup or an install; they are no evidence of their
        // own (a log with only those has no events for this model).
        if self.reads(e.kind)
            && !matches!(
                e.kind,
                EventKind::ScmRaftServerCreated
                    | EventKind::ScmStateReloaded
                    | EventKind::CheckpointInstallStarted
            )
        {
            self.knowledge.events += 1;
        }
        if life.is_some() {
            // The startup that read the VERSION file ended (stop or new start) without finalizing or serving.
            self.settle_restart(node, key, false, out);
        }
        if let Some(LifeStep::Started { .. }) = life {
            if let Some(n) = self.nodes.get_mut(&key) {
                if let Some(begun) = n.swap_begun.take() {
                    let line = cx.timeline.events.head(begun).span.line;
                    self.knowledge.unknown(format!(
                        "SCM {node} restarted after `Install checkpoint` (line {line}) with no `Replaced DB with checkpoint` after it: whether its DB was replaced before it went down is not in view, so VersionFileCoversDb cannot be checked for that restart"
                    ));
                }
                if n.install_open.take().is_some() {
                    self.knowledge.unknown(format!(
                        "SCM {node} restarted after replacing its DB with a checkpoint whose apparent version no line shows (no `New snapshot received with higher apparent version` or `Reloaded SCM state` before the restart), so VersionFileCoversDb cannot be checked for that restart"
                    ));
                }
            }
        }
        if let Some(step) = life {
            if let Some(a) = self.nodes.get_mut(&key).and_then(|n| n.db_ahead.as_mut()) {
                match step {
                    LifeStep::Stopping => a.down = a.down.or(Some(index)),
                    LifeStep::Started { crashed } => {
                        a.down = a.down.or(crashed.map(|_| index));
                        a.restarted = Some(index);
                    }
                }
            }
        }
        match e.kind {
            EventKind::CheckpointInstallStarted => {
                self.nodes.entry(key).or_default().swap_begun = Some(index);
            }
            EventKind::CheckpointInstalled => {
                let n = self.nodes.entry(key).or_default();
                n.replaced = Some(index);
                n.install_open = Some(index);
                n.swap_begun = None;
            }
            EventKind::ScmStateReloaded => {
                if let Some(n) = self.nodes.get_mut(&key) {
                    n.install_open = None;
                }
            }
            EventKind::SnapshotVersionHigher => {
                let n = self.nodes.entry(key).or_default();
                if n.replaced.is_some() {
                    n.install_open = None;
                    if let Some(v) = version(e, "version") {
                        n.db_ahead = Some(DbAhead {
                            version: v,
                            snapshot_line: index,
                            down: None,
                            restarted: None,
                            restart_below_db: None,
                        });
                    }
                }
            }
            EventKind::VersionFinalized => {
                let Some(v) = version(e, "version") else {
                    return;
                };
                // A peer finalizing right after a fence, within the clock skew: the order that decides the
                // verdict rests on clocks alone.
                let skew = cx.timeline.max_skew_ms;
                // Close enough: dated fences no more than the skew before this line, and undated ones (kept
                // at `i64::MIN`, which the range holds when this line is undated too).
                let from = e.time.map_or(i64::MIN, |b| b.millis.saturating_sub(skew));
                let undated = self
                    .unexplained_fences
                    .get(&i64::MIN)
                    .filter(|_| from > i64::MIN);
                // With a clock in doubt (its node's lines contradict the order the logs fix), any earlier fence
                // may have come after this line: every one is weighed.
                let doubt =
                    cx.timeline.clocks.suspect(e.node_key).is_some() || self.fence_clock_doubt;
                let from = if doubt { i64::MIN } else { from };
                let mut close: Vec<&(usize, Arc<str>, i64)> = undated
                    .filter(|_| !doubt)
                    .into_iter()
                    .chain(self.unexplained_fences.range(from..).map(|(_, f)| f))
                    .flatten()
                    .collect();
                close.sort_by_key(|(fence, _, _)| *fence);
                for (fence, scm, dn_number) in close {
                    if scm != node
                        && v.number >= *dn_number
                        && !cx.timeline.order_is_certain(*fence, index)
                    {
                        let clock = [e.node_key, cx.timeline.events.head(*fence).node]
                            .into_iter()
                            .find_map(|k| cx.timeline.clocks.suspect(k));
                        self.knowledge.unknown(match clock {
                            Some(why) => format!(
                                "SCM {scm} fenced a datanode and peer SCM {node} finalized to {} ({}), in an order only clocks tell, and {why}: in the other order the fence violates NoFinalizedDatanodeFenced",
                                v.name, v.number
                            ),
                            None => format!(
                                "SCM {scm} fenced a datanode and peer SCM {node} finalized to {} ({}) within the {skew} ms clock skew tolerance: in the other order the fence violates NoFinalizedDatanodeFenced",
                                v.name, v.number
                            ),
                        });
                    }
                }
                let n = self.nodes.entry(key).or_default();
                if n.db_ahead
                    .take_if(|a| v.number >= a.version.number)
                    .is_some()
                {
                    // FinalizeFromSnapshot(s) reached the DB's version, or the patched startup did.
                    self.knowledge.checks += 1;
                }
                n.last_finalized = Some((v.clone(), index));
                let best = self
                    .finalized
                    .entry(node.clone())
                    .or_insert((v.clone(), index));
                // Keep the first line that reached the highest version: later repeats are not the cause.
                if v.number > best.0.number {
                    *best = (v, index);
                }
            }
            EventKind::VersionManagerInitialized => {
                let Some(a) = version(e, "apparent") else {
                    return;
                };
                let n = self.nodes.entry(key).or_default();
                n.version_line = Some(index);
                // Restart(s): the VERSION file is read; it must cover the DB by the end of startup (the
                // patched SCM finalizes to the DB's version before its Raft server starts).
                if let Some(ahead) = n.db_ahead.as_mut() {
                    if a.number < ahead.version.number {
                        ahead.restart_below_db =
                            Some((index, format!("{} ({})", a.name, a.number)));
                    } else {
                        self.knowledge.checks += 1;
                        n.db_ahead = None;
                    }
                }
            }
            EventKind::ScmRaftServerCreated => self.settle_restart(node, key, true, out),
            EventKind::DatanodeFenced => {
                let (Some(dn_v), Some(scm_v)) =
                    (version(e, "datanode_version"), version(e, "scm_version"))
                else {
                    return;
                };
                // Restart(s) with no version-manager line in view: the fencing line tells the apparent version.
                // The violation's line is the restart's version line where one was read, else its first line.
                let below = |a: &DbAhead| a.restarted.is_some() && scm_v.number < a.version.number;
                if let Some(ahead) = self
                    .nodes
                    .get_mut(&key)
                    .and_then(|n| n.db_ahead.take_if(|a| below(a)))
                {
                    let (primary, apparent) = match &ahead.restart_below_db {
                        Some((line, apparent)) => (*line, apparent.clone()),
                        None => (
                            ahead.restarted.unwrap_or(index),
                            format!("{} ({})", scm_v.name, scm_v.number),
                        ),
                    };
                    let n = self.nodes.get(&key);
                    let v = self.version_file_violation(node, n, &ahead, primary, &apparent);
                    out.push(v);
                }
                // FenceDatanode(s, d) while a peer SCM has finalized to the datanode's version.
                let peer = self
                    .finalized
                    .iter()
                    .filter(|(p, (v, _))| *p != node && v.number >= dn_v.number)
                    .min_by_key(|(_, (_, i))| *i)
                    .map(|(p, (v, i))| (p.clone(), v.clone(), *i));
                // A peer finalization before the fence by clocks that are in doubt: no order to judge by.
                let doubted = peer.as_ref().and_then(|(_, _, at)| {
                    let clock = [e.node_key, cx.timeline.events.head(*at).node]
                        .into_iter()
                        .find_map(|k| cx.timeline.clocks.suspect(k))?;
                    (!cx.timeline.order_is_certain(*at, index)).then(|| clock.to_string())
                });
                if let (Some(why), Some((p, v, _))) = (&doubted, &peer) {
                    self.knowledge.unknown(format!(
                        "SCM {node} fenced a datanode at {} ({}) after peer SCM {p} finalized to {} ({}) by the clocks only, and {why}: whether the fence came after the finalization cannot be told",
                        dn_v.name, dn_v.number, v.name, v.number
                    ));
                }
                if cx.timeline.clocks.suspect(e.node_key).is_some() {
                    self.fence_clock_doubt = true;
                }
                match peer.filter(|_| doubted.is_none()) {
                    Some((p, v, at)) => {
                        let inv = invariant(self, "NoFinalizedDatanodeFenced");
                        let dn = match datanode_of(e) {
                            Some((uuid, Some(h))) => format!("{uuid} ({h})"),
                            Some((uuid, None)) => uuid,
                            None => "a datanode".into(),
                        };
                        let mut related = vec![(
                            at,
                            format!("peer SCM {p} finalized to {} ({})", v.name, v.number),
                        )];
                        if let Some(vl) = self.nodes.get(&key).and_then(|n| n.version_line) {
                            related.push((
                                vl,
                                format!(
                                    "SCM {node} runs at apparent version {} ({})",
                                    scm_v.name, scm_v.number
                                ),
                            ));
                        }
                        out.push(Violation {
                            invariant: inv,
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
                    None => {
                        self.unexplained_fences
                            .entry(e.time.map_or(i64::MIN, |t| t.millis))
                            .or_default()
                            .push((index, node.clone(), dn_v.number));
                        self.knowledge.unknown(format!(
                            "SCM {node} fenced a datanode at {} ({}), and no peer SCM's `Version ... has been finalized.` at that version or above is in view to tell whether the cluster was finalized",
                            dn_v.name, dn_v.number
                        ))
                    }
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, cx: &Ctx, out: &mut Vec<Violation>) {
        // Logs that end right after the version line: no finalization followed it.
        let mut pending: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(_, n)| {
                n.db_ahead
                    .as_ref()
                    .is_some_and(|a| a.restart_below_db.is_some())
            })
            .map(|(k, _)| *k)
            .collect();
        pending.sort_unstable();
        for key in pending {
            if let Some(node) = cx.timeline.node_names.get(key as usize).cloned() {
                self.settle_restart(&node, key, false, out);
            }
        }
        if self.nodes.values().any(|n| n.db_ahead.is_some()) {
            self.knowledge.unknown(
                "an SCM's logs end while its DB is ahead of its VERSION file (no restart in view)",
            );
        }
    }

    fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    fn witness(&mut self, cx: &Ctx, index: usize, e: &Event, life: Option<LifeStep>) {
        self.table.step(cx.timeline, index, e, life);
    }

    fn witnessed(&mut self, cx: &Ctx) -> crate::mirror::export::Witnessed {
        self.table.finish(cx.timeline)
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Event;
    use crate::monitor::testkit::{daemon, ev, run, text, version};
    use crate::monitor::Verdict;
    use crate::value::Value;
    use crate::vocab::EventKind;

    fn started(node: &str, ms: i64) -> Event {
        ev(
            EventKind::ProcessStarted,
            node,
            ms,
            vec![("service", text("StorageContainerManager"))],
        )
    }

    fn vm_init(node: &str, ms: i64, apparent: (&str, i64)) -> Event {
        ev(
            EventKind::VersionManagerInitialized,
            node,
            ms,
            vec![
                ("apparent", version(apparent.0, apparent.1)),
                ("software", version("ZDU", 100)),
            ],
        )
    }

    fn finalized(node: &str, ms: i64, v: (&str, i64)) -> Event {
        ev(
            EventKind::VersionFinalized,
            node,
            ms,
            vec![("version", version(v.0, v.1))],
        )
    }

    fn fenced(node: &str, ms: i64, dn: i64, scm: i64) -> Event {
        ev(
            EventKind::DatanodeFenced,
            node,
            ms,
            vec![
                (
                    "datanode",
                    Value::Datanode {
                        uuid: "0e4a1c7b".into(),
                        host: Some("dn1".into()),
                        ip: None,
                    },
                ),
                ("datanode_version", version("ZDU", dn)),
                ("scm_version", version("INITIAL_VERSION", scm)),
            ],
        )
    }

    /// scm3 starts at INITIAL_VERSION (0) and installs a checkpoint at ZDU (100): its DB is ahead.
    fn install() -> Vec<Event> {
        vec![
            started("scm3", 0),
            vm_init("scm3", 100, ("INITIAL_VERSION", 0)),
            ev(
                EventKind::CheckpointInstalled,
                "scm3",
                1_000,
                vec![("term", Value::U64(1)), ("index", Value::U64(300))],
            ),
            ev(
                EventKind::SnapshotVersionHigher,
                "scm3",
                1_100,
                vec![("version", version("ZDU", 100))],
            ),
        ]
    }

    /// [`install`], then scm3 finalizes to `finalize_to` if any, stops, and restarts at INITIAL_VERSION (0).
    fn install_and_restart(finalize_to: Option<i64>) -> Vec<Event> {
        let mut v = install();
        if let Some(n) = finalize_to {
            v.push(finalized("scm3", 1_200, ("ZDU", n)));
        }
        v.extend([
            ev(EventKind::ComponentStopping, "scm3", 2_000, vec![]),
            ev(EventKind::ProcessShutdown, "scm3", 2_100, vec![]),
            started("scm3", 5_000),
            vm_init("scm3", 5_100, ("INITIAL_VERSION", 0)),
        ]);
        v
    }

    /// The restarted SCM's Raft server starting: it serves.
    fn serving(node: &str, ms: i64) -> Event {
        ev(
            EventKind::ScmRaftServerCreated,
            node,
            ms,
            vec![("scm_id", text("c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83"))],
        )
    }

    #[test]
    fn version_file_covers_db_is_violated_by_a_pre_finalized_restart() {
        // Without its Raft server in view, the restart never served (refinement: a crash may cut the startup
        // of the patched SCM before it finalizes): not a violation, and the verdict says why.
        let (_, r) = run(
            "scm-finalization",
            vec![daemon("scm", "scm3", install_and_restart(None))],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r
            .reason
            .as_deref()
            .unwrap()
            .contains("before `starting Raft server`"));
        let mut served = install_and_restart(None);
        served.push(serving("scm3", 5_300));
        let (tl, r) = run("scm-finalization", vec![daemon("scm", "scm3", served)]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "VersionFileCoversDb");
        assert_eq!(v.invariant.code, "OZ-SCM-FIN-001");
        assert_eq!(v.instance, "scm3");
        assert_eq!(v.primary, 7);
        assert_eq!(tl.events.head(7).kind, EventKind::VersionManagerInitialized);
        // replaced, the snapshot's version, and the first stop line.
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![2, 3, 4]);
        assert!(v.related[1].1.contains("ZDU (100)"), "{}", v.related[1].1);
        assert!(
            v.message
                .contains("restarted at apparent version INITIAL_VERSION (0)"),
            "{}",
            v.message
        );
        assert!(v.message.contains("ZDU (100)"), "{}", v.message);
    }

    /// Refinement regression (seed 745 of the fixed config): the patched startup reads the pre-finalized
    /// VERSION file, then finalizes to the DB's version before its Raft server starts. No violation; and the
    /// same restart without that finalization is one, at the version line, decided when the server starts.
    #[test]
    fn a_patched_restart_that_finalizes_to_the_db_version_is_no_violation() {
        let mut patched = install_and_restart(None);
        patched.extend([
            finalized("scm3", 5_200, ("ZDU", 100)),
            serving("scm3", 5_300),
        ]);
        let (_, r) = run("scm-finalization", vec![daemon("scm", "scm3", patched)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);

        let mut unpatched = install_and_restart(None);
        unpatched.push(serving("scm3", 5_300));
        let (_, r) = run("scm-finalization", vec![daemon("scm", "scm3", unpatched)]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].primary, 7);
    }

    /// Issue 19's panic: a crash after the checkpoint, and a fence that arrives during the restart's startup
    /// (before `starting Raft server`), with no shutdown in view. The fence reports the restart once; the end
    /// of the logs must neither panic nor report it a second time.
    #[test]
    fn a_fence_during_a_crashed_restarts_startup_is_reported_once_and_never_panics() {
        let mut events = install();
        events.extend([
            // Crash: a new banner with no shutdown before it.
            started("scm3", 5_000),
            vm_init("scm3", 5_100, ("INITIAL_VERSION", 0)),
            fenced("scm3", 5_200, 100, 0),
        ]);
        let (_, r) = run(
            "scm-finalization",
            vec![daemon("scm", "scm3", events.clone())],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        let restarts: Vec<_> = r
            .violations
            .iter()
            .filter(|v| v.invariant == "VersionFileCoversDb")
            .collect();
        assert_eq!(restarts.len(), 1, "{:?}", r.violations);
        assert_eq!(restarts[0].primary, 5);
        // The same with the Raft server's line after the fence, and with a second crash after it.
        events.push(started("scm3", 9_000));
        let (_, r) = run("scm-finalization", vec![daemon("scm", "scm3", events)]);
        let restarts = r
            .violations
            .iter()
            .filter(|v| v.invariant == "VersionFileCoversDb")
            .count();
        assert_eq!(restarts, 1, "{:?}", r.violations);
    }

    /// Issue 19, item 3: an SCM line no node can be tied to is named in the verdict, by file and line.
    #[test]
    fn an_unattributed_scm_line_is_named_in_the_verdict() {
        // One JVM's output: the SCM's own lines carry its name, the fence does not.
        let mut events = install_and_restart(None);
        // A second SCM in the same output: a line without a name could be either's.
        events.insert(
            0,
            ev(
                EventKind::CheckpointInstalled,
                "scm1",
                0,
                vec![("term", Value::U64(1)), ("index", Value::U64(10))],
            ),
        );
        events.push(fenced("", 5_200, 100, 0));
        let (_, r) = run(
            "scm-finalization",
            vec![crate::monitor::testkit::test_output(events)],
        );
        let reason = r.reason.expect("the unattributed line is a reason");
        assert!(
            reason.contains("1 SCM line(s) this model needs name no node")
                && reason.contains(":10 `Datanode"),
            "{reason}"
        );
    }

    #[test]
    fn version_file_covers_db_is_violated_when_finalized_short_of_the_snapshot() {
        let mut served = install_and_restart(Some(99));
        served.push(serving("scm3", 5_300));
        let (_, r) = run("scm-finalization", vec![daemon("scm", "scm3", served)]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "VersionFileCoversDb");
        assert_eq!(v.primary, 8);
        // The last finalize step is part of the chain.
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![2, 3, 4, 5]);
        assert!(v.related[2].1.contains("ZDU (99)"), "{}", v.related[2].1);
    }

    #[test]
    fn version_file_covers_db_is_discharged_by_finalizing_to_the_snapshot_version() {
        for to in [100, 101] {
            let (_, r) = run(
                "scm-finalization",
                vec![daemon("scm", "scm3", install_and_restart(Some(to)))],
            );
            assert!(r.violations.is_empty(), "{to}: {:?}", r.violations);
            assert_eq!(r.verdict, Verdict::Conforms, "{to}: {:?}", r.reason);
            assert_eq!(r.checks, 1);
        }
    }

    #[test]
    fn a_crash_restart_shown_only_by_the_fence_line_is_a_violation_at_the_restart() {
        let (tl, r) = run(
            "scm-finalization",
            vec![daemon(
                "scm",
                "scm3",
                vec![
                    started("scm3", 0),
                    ev(EventKind::CheckpointInstalled, "scm3", 1_000, vec![]),
                    ev(
                        EventKind::SnapshotVersionHigher,
                        "scm3",
                        1_100,
                        vec![("version", version("ZDU", 100))],
                    ),
                    started("scm3", 5_000),
                    fenced("scm3", 6_000, 100, 0),
                ],
            )],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r
            .violations
            .iter()
            .find(|v| v.invariant == "VersionFileCoversDb")
            .expect("VersionFileCoversDb");
        assert_eq!(v.primary, 3);
        assert_eq!(tl.events.head(3).kind, EventKind::ProcessStarted);
        // The crash is shown by the restart line itself.
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![1, 2, 3]);
        // No peer finalized: the fence itself is undecided.
        let reason = r.reason.expect("the fence is unknown");
        assert!(reason.contains("no peer SCM"), "{reason}");
    }

    #[test]
    fn fencing_a_datanode_a_peer_finalized_for_is_a_violation() {
        let (tl, r) = run(
            "scm-finalization",
            vec![
                daemon("scm", "scm1", vec![finalized("scm1", 0, ("ZDU", 100))]),
                daemon(
                    "scm",
                    "scm2",
                    vec![
                        vm_init("scm2", 1_000, ("INITIAL_VERSION", 0)),
                        fenced("scm2", 5_000, 100, 0),
                    ],
                ),
            ],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "NoFinalizedDatanodeFenced");
        assert_eq!(v.invariant.code, "OZ-SCM-FIN-002");
        assert_eq!(v.primary, 2);
        assert_eq!(tl.events.head(2).kind, EventKind::DatanodeFenced);
        assert_eq!(v.instance, "scm2/0e4a1c7b (dn1)");
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![0, 1]);
        assert!(
            v.related[0]
                .1
                .contains("peer SCM scm1 finalized to ZDU (100)"),
            "{}",
            v.related[0].1
        );
        assert!(v.message.contains("peer SCM scm1"), "{}", v.message);
        // 5 s apart: beyond the skew tolerance.
        assert_eq!(v.ambiguous_order, None);
    }

    #[test]
    fn a_fence_within_the_skew_of_the_peer_finalize_is_flagged_ambiguous() {
        let (_, r) = run(
            "scm-finalization",
            vec![
                daemon("scm", "scm1", vec![finalized("scm1", 500, ("ZDU", 100))]),
                daemon("scm", "scm3", vec![fenced("scm3", 900, 100, 0)]),
            ],
        );
        let v = r.first().expect("a violation");
        let note = v.ambiguous_order.as_deref().expect("ambiguous");
        assert!(
            note.contains("400 ms") && note.contains("1000 ms"),
            "{note}"
        );
    }

    /// A long-running cluster: scm3 fences a datanode every hour for a thousand hours with no peer
    /// finalization in view, then scm1 finalizes. Only a fence within the skew before the finalize makes the
    /// order ambiguous: the old ones are not weighed (they are kept by time), an undated one always is.
    #[test]
    fn only_fences_within_the_skew_before_a_finalize_are_weighed() {
        const HOUR: i64 = 3_600_000;
        let ambiguous = |last: Option<Event>| {
            let mut fences: Vec<Event> = (0..1000)
                .map(|h| fenced("scm3", h * HOUR, 100, 0))
                .collect();
            fences.extend(last);
            let (_, r) = run(
                "scm-finalization",
                vec![
                    daemon(
                        "scm",
                        "scm1",
                        vec![finalized("scm1", 1000 * HOUR + 300, ("ZDU", 100))],
                    ),
                    daemon("scm", "scm3", fences),
                ],
            );
            assert!(r.violations.is_empty(), "{:?}", r.violations);
            assert_eq!(r.verdict, Verdict::Inconclusive);
            r.reason
                .expect("a reason")
                .contains("within the 1000 ms clock skew tolerance")
        };
        assert!(!ambiguous(None));
        assert!(ambiguous(Some(fenced("scm3", 1000 * HOUR, 100, 0))));
        let mut undated = fenced("scm3", 1000 * HOUR, 100, 0);
        undated.time = None;
        assert!(ambiguous(Some(undated)));
    }

    /// Pruning (`ScmFinalization::prune_fences`): thirty days of scm3 fencing a datanode every five minutes
    /// with no peer finalization in view, an undated fence of scm2's on day 5, then scm1 finalizing 300 ms
    /// after scm3's last fence. The pruning monitor keeps about a block of fences (and the undated one)
    /// and gives the report of a monitor that keeps every fence: both fences that can be weighed are.
    #[test]
    fn a_month_of_fences_keeps_a_block_of_them_and_the_same_report() {
        use super::ScmFinalization;
        use crate::monitor::{Ctx, Model};
        const MINUTE: i64 = 60_000;
        let last = 30 * 24 * 12;
        let fences: Vec<Event> = (0..=last)
            .map(|t| fenced("scm3", t * 5 * MINUTE, 100, 0))
            .collect();
        let mut undated = fenced("scm2", 5 * 24 * 60 * MINUTE, 100, 0);
        undated.time = None;
        let tl = crate::monitor::testkit::timeline(vec![
            daemon(
                "scm",
                "scm1",
                vec![finalized("scm1", last * 5 * MINUTE + 300, ("ZDU", 100))],
            ),
            daemon("scm", "scm2", vec![started("scm2", 0), undated]),
            daemon("scm", "scm3", fences),
        ]);
        let most_fences_held = |mut m: ScmFinalization| {
            let cx = Ctx { timeline: &tl };
            let (mut most, mut out) = (0, Vec::new());
            for (i, e) in tl.events.iter().enumerate() {
                m.step(&cx, i, &e, tl.life[i], &mut out);
                most = most.max(m.fences_remembered());
            }
            assert!(out.is_empty(), "{out:?}");
            most
        };
        assert_eq!(
            most_fences_held(ScmFinalization::keeping_all_fences()),
            last as usize + 2
        );
        // A block of events (1024) and the undated fence.
        let held = most_fences_held(ScmFinalization::default());
        assert!(held <= 1024 + 1, "{held} fences held");
        let report = |m: ScmFinalization| {
            let monitors = vec![Box::new(m) as Box<dyn Model>];
            let reports = crate::check::replay(&tl, monitors, &Default::default()).reports;
            crate::render::report::to_json(&tl, &reports, true)
        };
        let pruned = report(ScmFinalization::default());
        let reason = pruned["models"][0]["reason"].as_str().unwrap_or_default();
        for scm in ["scm2", "scm3"] {
            assert!(
                reason.contains(&format!(
                    "SCM {scm} fenced a datanode and peer SCM scm1 finalized to ZDU (100)"
                )),
                "{scm}: {reason}"
            );
        }
        assert_eq!(pruned, report(ScmFinalization::keeping_all_fences()));
    }

    #[test]
    fn a_fence_with_no_peer_finalize_in_view_is_inconclusive() {
        // The fencing SCM's own finalize does not count, nor a peer's finalize below the datanode's version.
        let (_, r) = run(
            "scm-finalization",
            vec![
                daemon("scm", "scm1", vec![finalized("scm1", 0, ("ZDU", 99))]),
                daemon(
                    "scm",
                    "scm2",
                    vec![
                        finalized("scm2", 0, ("ZDU", 100)),
                        fenced("scm2", 5_000, 100, 0),
                    ],
                ),
            ],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("SCM scm2 fenced a datanode at ZDU (100)"),
            "{reason}"
        );
        assert!(
            reason.contains(
                "no peer SCM's `Version ... has been finalized.` at that version or above is in view"
            ),
            "{reason}"
        );
    }

    #[test]
    fn datanode_service_nodes_are_ignored() {
        let (_, r) = run(
            "scm-finalization",
            vec![
                // A datanode logs the same version-manager lines; it is neither a peer SCM nor modelled.
                daemon(
                    "datanode",
                    "dn1",
                    vec![
                        vm_init("dn1", 0, ("INITIAL_VERSION", 0)),
                        finalized("dn1", 100, ("ZDU", 100)),
                        ev(EventKind::CheckpointInstalled, "dn1", 200, vec![]),
                        ev(
                            EventKind::SnapshotVersionHigher,
                            "dn1",
                            300,
                            vec![("version", version("ZDU", 100))],
                        ),
                        ev(EventKind::ProcessStarted, "dn1", 400, vec![]),
                        vm_init("dn1", 500, ("INITIAL_VERSION", 0)),
                    ],
                ),
                daemon("scm", "scm2", vec![fenced("scm2", 5_000, 100, 0)]),
            ],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.events, 1);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(reason.contains("no peer SCM"), "{reason}");
    }

    #[test]
    fn a_datanode_started_on_main_is_not_a_restart_of_the_scm_built_there() {
        use crate::monitor::testkit::{on_thread, test_output};
        use crate::vocab::Component;
        let ratis = "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83@group-9F3A1C2B4D5E-StateMachineUpdater";
        let mut dn_start = ev(
            EventKind::ComponentStarting,
            "",
            3_000,
            vec![(
                "detail",
                text("0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(ci-runner-7/10.1.0.57)"),
            )],
        );
        dn_start.component = Component::Datanode;
        let (_, r) = run(
            "scm-finalization",
            vec![test_output(vec![
                // An HA cluster: scmNode-1, then scmNode-3, built on `main`.
                ev(
                    EventKind::ScmNodeIdentified,
                    "",
                    0,
                    vec![("node_id", text("scmNode-1"))],
                ),
                ev(
                    EventKind::ScmNodeIdentified,
                    "",
                    0,
                    vec![("node_id", text("scmNode-3"))],
                ),
                vm_init("", 10, ("INITIAL_VERSION", 0)),
                ev(
                    EventKind::ScmRaftServerCreated,
                    "",
                    20,
                    vec![("scm_id", text("c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83"))],
                ),
                on_thread(
                    ev(
                        EventKind::CheckpointInstalled,
                        "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83",
                        1_000,
                        vec![],
                    ),
                    ratis,
                ),
                on_thread(
                    ev(
                        EventKind::SnapshotVersionHigher,
                        "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83",
                        1_100,
                        vec![("version", version("ZDU", 100))],
                    ),
                    ratis,
                ),
                // A datanode (re)starts on `main` while scmNode-3 runs with its DB ahead.
                dn_start,
                vm_init("", 3_010, ("INITIAL_VERSION", 0)),
                on_thread(
                    finalized("c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83", 4_000, ("ZDU", 100)),
                    ratis,
                ),
            ])],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }
}
