//! `scm-secret-keys` (HDDS-16923): the log monitor of `traces/scm-secret-keys/ScmSecretKeys.tla`.
//! (The exact mirror of the spec is `mirror.rs`; this monitor is three-valued where the logs are silent.)
//!
//! Spec variables mirrored per SCM: `install[s]` (Idle → Fetched → Swapped → Idle), `fetchedKeys[s]`, and the
//! cluster's key knowledge standing in for `log` and `expired`. Actions: `FetchKeys(s)` = `Got secret keys from
//! leaders [...]`, `ReplaceDb(s)` = `Replaced DB with checkpoint`, `SaveKeys(s)` = `Saved [...] to file` after
//! `SCMStateMachine is reinitializing`, `FailSave(s)`/`Stop(s)` = a stop line, `Crash(s)` = a STARTUP_MSG with no
//! shutdown before it, `ReplicateKeys(s)`/`BecomeLeader(s)` = the key sets applied.

use super::mirror::Phase;
use super::ABOUT;
use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::monitor::{invariant, About, Ctx, Instance, Knowledge, Model, Violation};
use crate::time::Timestamp;
use crate::value::{SecretKeyInfo, Value};
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The largest offset of any time zone from UTC (+14:00), in milliseconds.
use crate::clock::{Offset, MAX_UTC_OFFSET_MS};

#[derive(Debug, Default)]
struct ScmNode {
    /// `install[s]`, in the mirror's phases, of which the monitor needs three: `Idle`; `Fetched`
    /// (`FetchKeys(s)` done: the leader's keys are held in memory only); `Swapped` (`ReplaceDb(s)` done:
    /// scm.db is at the checkpoint, the key file is not yet). `Downloaded` and the patched order's `Saved`
    /// decide nothing here.
    install: Phase,
    fetched: Option<usize>,
    replaced: Option<usize>,
    reinitializing: Option<usize>,
    /// After the swap, the save began: `Updating keys with [...]` (the key file is written right after it).
    applying: Option<usize>,
    /// After the swap, the state machine failed (`... caught a Throwable.`): the save did not complete.
    failed: Option<usize>,
}

/// A key id the cluster is known to have, with its expiry and where it was last seen.
#[derive(Debug, Clone, Copy)]
struct KnownKey {
    expires: Option<Timestamp>,
    last_seen: usize,
    first_seen: usize,
}

#[derive(Default)]
pub struct ScmSecretKeys {
    nodes: HashMap<u32, ScmNode>,
    known: HashMap<String, KnownKey>,
    /// The known keys with an expiry, by (expiry millis, id): a key set is checked against the keys that
    /// expire after its line only, not against every key a long-running cluster ever had.
    by_expiry: BTreeSet<(i64, String)>,
    /// The newest key generated in view (`A new key is generated` / `rotation ... new key generated`): every
    /// updateKeys entry appended after it holds it, but a stale reload, so an applied list without it is an
    /// older entry a lagging SCM replays, not the cluster's current list.
    newest: Option<String>,
    /// Per SCM, the key ids of its last `Saved [...] to file` (its key file, which survives restarts).
    key_file: HashMap<u32, Vec<String>>,
    /// Per SCM, the key ids of an `Updating keys with [...]` that no `Saved [...] to file` has followed yet.
    unsaved: HashMap<u32, Vec<String>>,
    /// Per SCM, key ids its key file may hold: a stop cut a save of them off between `Updating keys with` and
    /// `Saved [...] to file` (the file is written just before that line).
    maybe_in_file: HashMap<u32, Vec<String>>,
    /// Per SCM, an `<scmId>: Install checkpoint T#N` line with no `Replaced DB with checkpoint` after it yet:
    /// the DB swap may be done (Ozone logs it after doing it), and a crash can take the line with it.
    swap_begun: HashMap<u32, usize>,
    /// Per SCM, its last `Downloaded checkpoint from Leader X` line and X: the checkpoint is X's DB then.
    downloaded: HashMap<u32, (usize, String)>,
    /// Per key id, the (SCM, line) of the first `Updating keys with [...]` on each SCM that applied it.
    applied: HashMap<String, Vec<(u32, usize)>>,
    /// A key was ever known (`known` is pruned, so its emptiness no longer tells).
    ever_known: bool,
    /// A key without an expiry was seen (only an event stream can carry one): pruning stops, see
    /// [`ScmSecretKeys::prune_expired`].
    undated_key_seen: bool,
    /// The block of events ([`crate::timeline::DATE_FLOOR_BLOCK`]) the last pruning ran in.
    pruned_in_block: Option<usize>,
    /// The largest offset from UTC any node's clock may have (ms), asked of the clocks once.
    max_offset_ms: Option<i64>,
    /// Keep every key (tests: the verdicts with pruning are those without).
    keep_all_keys: bool,
    knowledge: Knowledge,
    /// The observer's witness half (for `export`), fed by the same pass.
    table: super::witness::Table,
}

/// The UTC instant of local time `local` on the node of `e`, the slack it is known within, and what to say
/// where the slack leaves a key's expiry undecided (why the node's offset is unknown).
fn utc_now(cx: &Ctx, e: &Event, local: i64) -> (i64, i64, String) {
    let node = e.node.as_deref().unwrap_or("this SCM");
    match cx.timeline.clocks.offset(e.node_key) {
        Offset::Known(offset) => (local - offset, 0, String::new()),
        Offset::Unknown(why) if why.is_empty() => (
            local,
            MAX_UTC_OFFSET_MS,
            format!("pass --log-utc-offset (or {node}=±HH:MM) to decide (no key generation line in view to read it from)"),
        ),
        Offset::Unknown(why) => (
            local,
            MAX_UTC_OFFSET_MS,
            format!("{why}; pass --log-utc-offset {node}=±HH:MM to decide"),
        ),
    }
}

fn key_list(e: &Event) -> Option<&[SecretKeyInfo]> {
    match e
        .fields
        .iter()
        .find(|(n, _)| *n == "keys" || *n == "key")
        .map(|(_, v)| v)?
    {
        Value::SecretKeys(ks) => Some(ks),
        Value::SecretKey(k) => Some(std::slice::from_ref(k)),
        _ => None,
    }
}

fn term_index(e: &Event) -> String {
    match (
        e.field("term").and_then(Value::as_u64),
        e.field("index").and_then(Value::as_u64),
    ) {
        (Some(t), Some(i)) => format!("term {t}, index {i}"),
        _ => "the checkpoint".into(),
    }
}

impl ScmSecretKeys {
    /// A monitor that never forgets a key (tests compare its verdicts with the pruning monitor's).
    #[cfg(test)]
    fn keeping_all_keys() -> ScmSecretKeys {
        ScmSecretKeys {
            keep_all_keys: true,
            ..ScmSecretKeys::default()
        }
    }

    /// Forgets the keys that expired so long before every later line that no later step can read them, so
    /// that a long-running cluster's key history (a key a day) does not grow with the log.
    ///
    /// Where `known` and `applied` are read, and why a pruned key is never missed there:
    /// * [`Self::check_key_set`] reads only keys expiring after `now_utc - slack` of its line. Every later
    ///   line is dated no earlier than [`Timeline::earliest_date_from`] (local time), and `now_utc - slack`
    ///   is at least that minus the largest UTC offset (known offset: `local - offset`; unknown:
    ///   `local - MAX_UTC_OFFSET_MS`). Keys expiring before that bound are pruned; an undated line ahead
    ///   makes the bound `i64::MIN` and nothing is pruned.
    /// * A stop after a swap reads the keys of the node's `Got secret keys` line (expiry, first line,
    ///   where applied): those of every node with a fetch in flight are kept. A key fetched after it was
    ///   pruned comes back with its expiry (a key id's expiry never changes) and later lines: it is
    ///   expired at every later dated line, so never `live`, and the lines only decide for live keys.
    /// * `known.is_empty()` (no key history in view) is `ever_known`.
    /// * A key without an expiry (from an event stream, not a log: the grammar needs both instants) would
    ///   read as unexpired if an expired one of that id had been pruned: after one such key nothing is
    ///   pruned. One listed before the dated one was pruned is not caught; a log cannot hold it.
    ///
    /// [`Timeline::earliest_date_from`]: crate::timeline::Timeline::earliest_date_from
    fn prune_expired(&mut self, cx: &Ctx, index: usize) {
        let block = index / crate::timeline::DATE_FLOOR_BLOCK;
        if self.keep_all_keys || self.undated_key_seen || self.pruned_in_block == Some(block) {
            return;
        }
        self.pruned_in_block = Some(block);
        let floor = cx.timeline.earliest_date_from(index);
        if floor == i64::MIN {
            return;
        }
        let max_offset = *self.max_offset_ms.get_or_insert_with(|| {
            (0..cx.timeline.node_names.len() as u32)
                .filter_map(|k| match cx.timeline.clocks.offset(k) {
                    Offset::Known(o) => Some(o.saturating_abs()),
                    Offset::Unknown(_) => None,
                })
                .fold(MAX_UTC_OFFSET_MS, i64::max)
        });
        let bound = floor.saturating_sub(max_offset);
        let first_live = (bound, String::new());
        if self.by_expiry.first().is_none_or(|k| *k >= first_live) {
            return;
        }
        let pinned: std::collections::HashSet<String> = self
            .nodes
            .values()
            .filter_map(|n| n.fetched)
            .flat_map(|f| {
                key_list(&cx.timeline.events.get(f))
                    .map(|ks| ks.iter().map(|k| k.id.clone()).collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .collect();
        let live = self.by_expiry.split_off(&first_live);
        let expired = std::mem::replace(&mut self.by_expiry, live);
        for (x, id) in expired {
            if pinned.contains(&id) {
                self.by_expiry.insert((x, id));
            } else {
                self.known.remove(&id);
                self.applied.remove(&id);
            }
        }
    }

    /// How many keys the monitor remembers (what pruning bounds).
    #[cfg(test)]
    fn keys_remembered(&self) -> usize {
        self.known.len().max(self.applied.len())
    }

    fn key_file_covers_db_violated(
        &self,
        cx: &Ctx,
        node: &Arc<str>,
        n: &ScmNode,
        primary: usize,
        crashed: bool,
    ) -> Violation {
        let inv = invariant(self, "KeyFileCoversDb");
        let ev = &cx.timeline.events;
        let at = n
            .replaced
            .map(|r| term_index(&ev.get(r)))
            .unwrap_or_default();
        let how = if crashed {
            "crashed (this STARTUP_MSG follows no shutdown)"
        } else {
            "stopped"
        };
        let mut related = Vec::new();
        if let Some(f) = n.fetched {
            related.push((
                f,
                "the leader's secret keys, fetched and held in memory only".to_string(),
            ));
        }
        if let Some(r) = n.replaced {
            related.push((
                r,
                format!("scm.db replaced with the leader's checkpoint ({at})"),
            ));
        }
        if let Some(r) = n.reinitializing {
            related.push((r, "reinitializing: the key save was due next".to_string()));
        }
        Violation {
            invariant: inv,
            message: format!("SCM {node} {how} after replacing scm.db with the leader's checkpoint ({at}) and before saving the leader's secret keys: its key file lags its DB"),
            node: Some(node.clone()),
            instance: node.to_string(),
            primary,
            primary_label: if crashed { "restart after a crash; the keys were never saved".into() } else { "stops before `Saved [...] to file`".into() },
            related,
            ambiguous_order: None,
        }
    }

    /// `ReplicateKeys(s)` / `BecomeLeader(s)`: a key set applied on an SCM must hold every unexpired known key.
    fn check_key_set(
        &mut self,
        cx: &Ctx,
        index: usize,
        e: &Event,
        node: &Arc<str>,
        keys: &[SecretKeyInfo],
        out: &mut Vec<Violation>,
    ) {
        let Some(now) = e.time.filter(|t| t.has_date) else {
            self.knowledge
                .unknown("a key set was applied at a time the log does not date");
            return;
        };
        // Log4j prints local time, Java prints expiry instants in UTC. Without the log's offset, a key is
        // surely unexpired only if it outlives the line by more than any time zone's offset; a key dropped
        // inside that window is unknown, never a violation.
        let (now_utc, slack, clock) = utc_now(cx, e, now.millis);
        let mut ambiguous = Vec::new();
        // Only a key expiring after `now_utc - slack` can be required or ambiguous.
        let from = (now_utc - slack).saturating_add(1);
        let required: Vec<(&String, &KnownKey)> = self
            .by_expiry
            .range((from, String::new())..)
            .filter_map(|(_, id)| Some((id, self.known.get(id)?)))
            .filter(|(id, k)| match k.expires {
                Some(x) if x.millis > now_utc + slack => true,
                Some(x) if x.millis > now_utc - slack && !keys.iter().any(|key| &key.id == *id) => {
                    ambiguous.push((*id).clone());
                    false
                }
                _ => false,
            })
            .collect();
        if !ambiguous.is_empty() {
            self.knowledge.unknown(format!(
                "SCM {node} applied a key set without key(s) {} that expire within a time-zone offset of that line; {clock}",
                ambiguous.join(", ")
            ));
        }
        if required.is_empty() {
            return; // nothing known to keep: a vacuous check
        }
        self.knowledge.checks += 1;
        let mut dropped: Vec<(&String, &KnownKey)> = required
            .into_iter()
            .filter(|(id, _)| !keys.iter().any(|k| &k.id == *id))
            .collect();
        if dropped.is_empty() {
            return;
        }
        dropped.sort_by_key(|(_, k)| k.last_seen);
        let inv = invariant(self, "NoUnexpiredKeyDropped");
        let names: Vec<String> = dropped
            .iter()
            .map(|(id, k)| {
                format!(
                    "{id} (expires {})",
                    k.expires.map(|t| t.to_string()).unwrap_or_default()
                )
            })
            .collect();
        let what = match e.kind {
            EventKind::SecretKeyGenerated => "generated a new key set",
            EventKind::SecretKeysReloaded => "reloaded a stale key file",
            _ => "applied a key set",
        };
        out.push(Violation {
            invariant: inv,
            message: format!(
                "SCM {node} {what} that drops {} unexpired secret key(s): {}",
                dropped.len(),
                names.join(", ")
            ),
            node: Some(node.clone()),
            instance: node.to_string(),
            primary: index,
            primary_label: format!(
                "key set without {}",
                dropped
                    .iter()
                    .map(|(id, _)| id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            related: dropped
                .iter()
                .map(|(id, k)| (k.last_seen, format!("key {id} last seen here, unexpired")))
                .collect(),
            ambiguous_order: None,
        });
    }
}

impl Model for ScmSecretKeys {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn reads(&self, kind: EventKind) -> bool {
        matches!(
            kind,
            EventKind::SecretKeysFetched
                | EventKind::CheckpointInstallStarted
                | EventKind::CheckpointInstalled
                | EventKind::StateMachineReinitializing
                | EventKind::SecretKeysSaved
                | EventKind::SecretKeysUpdated
                | EventKind::SecretKeysReloaded
                | EventKind::SecretKeyGenerated
                | EventKind::SecretKeyRotated
                | EventKind::SecretKeysLoaded
                | EventKind::CurrentSecretKeyUpdated
                | EventKind::CheckpointDownloaded
                | EventKind::StateMachineUpdaterFailed
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
        self.prune_expired(cx, index);
        // A checkpoint download only dates the checkpoint's key lists, and the install's first line only
        // opens the window of its swap; neither is evidence of its own.
        if self.reads(e.kind)
            && !matches!(
                e.kind,
                EventKind::CheckpointDownloaded | EventKind::CheckpointInstallStarted
            )
        {
            self.knowledge.events += 1;
        }
        // A stop or start of this SCM cuts off any save in progress: the file may or may not hold its keys.
        let cut_save = life.is_some().then(|| self.unsaved.remove(&key)).flatten();
        if let Some(begun) = life.and_then(|_| self.swap_begun.remove(&key)) {
            let line = cx.timeline.events.head(begun).span.line;
            self.knowledge.unknown(format!(
                "SCM {node} went down after `Install checkpoint` (line {line}) with no `Replaced DB with checkpoint` after it: whether its DB was replaced before its key save is not in view"
            ));
        }
        // Crash(s) / Stop(s) / FailSave(s) while the DB is ahead of the key file.
        if let Some(step) = life {
            let crashed = match step {
                LifeStep::Stopping => false,
                LifeStep::Started { crashed: Some(_) } => true,
                LifeStep::Started { crashed: None } => false,
            };
            // The SCM's install state, taken out when it was swapped (the DB ahead of the key file).
            let swapped = match self.nodes.get(&key) {
                Some(n) if n.install == Phase::Swapped => self.nodes.remove(&key),
                _ => None,
            };
            // A stop after the save began, with no failure in view: the key file may have been written just
            // before the stop, and Ozone logs the write only after it (`Saved [...] to file`).
            let save_unknown = swapped
                .as_ref()
                .is_some_and(|n| n.applying.is_some() && n.failed.is_none());
            if save_unknown {
                self.knowledge.unknown(format!(
                    "SCM {node} stopped after `Updating keys with [...]` began the key save after `Replaced DB with checkpoint`, with neither `Saved [...] to file` nor a failure in view: whether its key file was written is not logged"
                ));
            } else if let Some(n) = swapped {
                // The key file may already hold every key the leader sent (this SCM applied them before
                // it fell behind): then the DB's keys are likely covered, and no line tells otherwise.
                let fetched: Vec<String> = n
                    .fetched
                    .and_then(|f| {
                        key_list(&cx.timeline.events.get(f))
                            .map(|ks| ks.iter().map(|k| k.id.clone()).collect())
                    })
                    .unwrap_or_default();
                // The keys the DB's list may hold: those the leader sent, surely unexpired now, and known
                // before the checkpoint was downloaded (a later rotation is not in the checkpoint).
                let dated = e
                    .time
                    .filter(|t| t.has_date)
                    .map(|t| utc_now(cx, e, t.millis));
                let clock = dated
                    .as_ref()
                    .map(|(_, _, c)| c.clone())
                    .unwrap_or_default();
                let now = dated.map(|(now, slack, _)| (now, slack));
                // A crash happened at some instant after the run's last line and before this restart: a key
                // that expired in between may have been live when it crashed.
                let crash_window = match step {
                    LifeStep::Started {
                        crashed: Some(last),
                    } => cx
                        .timeline
                        .events
                        .get(last)
                        .time
                        .filter(|t| t.has_date)
                        .map(|t| utc_now(cx, e, t.millis).0),
                    _ => None,
                };
                let went_down_from = crash_window
                    .zip(now)
                    .map_or(now.map(|(n, _)| n), |(c, (n, _))| Some(c.min(n)));
                // The checkpoint holds the key lists the leader had applied when it was downloaded.
                let downloaded = self.downloaded.get(&key).map(|(at, leader)| {
                    let lk = cx
                        .timeline
                        .node_names
                        .iter()
                        .position(|n| **n == **leader)
                        .map(|k| k as u32);
                    (*at, lk)
                });
                let in_checkpoint = |id: &String| match downloaded {
                    None => true,
                    Some((at, Some(lk))) => self
                        .applied
                        .get(id)
                        .is_some_and(|v| v.iter().any(|(n, i)| *n == lk && *i < at)),
                    Some((at, None)) => self.known.get(id).is_none_or(|k| k.first_seen < at),
                };
                let unexpired =
                    |id: &String| match (self.known.get(id).and_then(|k| k.expires), now) {
                        (Some(x), Some((now, slack))) => x.millis > now + slack,
                        _ => true,
                    };
                // Expired or not depending on the logs' UTC offset: neither evidence nor a pass.
                let maybe_expired = |id: &String| match (
                    self.known.get(id).and_then(|k| k.expires),
                    now,
                    went_down_from,
                ) {
                    (Some(x), Some((now, slack)), Some(from)) => {
                        x.millis <= now + slack && x.millis > from - slack
                    }
                    _ => false,
                };
                // Expired by this line, but perhaps not yet at the crash.
                let expired_in_crash_window = |id: &&String| {
                    crash_window.is_some()
                        && self
                            .known
                            .get(*id)
                            .and_then(|k| k.expires)
                            .zip(now)
                            .is_some_and(|(x, (now, slack))| x.millis <= now - slack)
                };
                let live: Vec<&String> = fetched.iter().filter(|id| unexpired(id)).collect();
                let file = self.key_file.get(&key);
                let undecided: Vec<&String> = fetched
                    .iter()
                    .filter(|id| maybe_expired(id))
                    .filter(|id| !file.is_some_and(|f| f.contains(id)))
                    .collect();
                let maybe = self.maybe_in_file.get(&key);
                let (interrupted, missing): (Vec<&&String>, Vec<&&String>) = live
                    .iter()
                    .filter(|id| !file.is_some_and(|f| f.contains(id)))
                    .filter(|id| in_checkpoint(id))
                    .partition(|id| maybe.is_some_and(|m| m.contains(id)));
                if missing.is_empty() && !interrupted.is_empty() {
                    self.knowledge.unknown(format!(
                        "SCM {node} stopped between `Replaced DB with checkpoint` and the key save, and its key file may hold key(s) {}: an earlier save of them was cut off by a stop between `Updating keys with [...]` and `Saved [...] to file`",
                        interrupted.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                } else if !missing.is_empty() {
                    out.push(self.key_file_covers_db_violated(cx, node, &n, index, crashed));
                } else if !undecided.is_empty() && undecided.iter().all(expired_in_crash_window) {
                    self.knowledge.unknown(format!(
                        "SCM {node} crashed between `Replaced DB with checkpoint` and the key save, and key(s) {} of the leader's expired between its last line before the crash and its restart: whether they were still valid when it crashed is not in view",
                        undecided.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                } else if !undecided.is_empty() {
                    self.knowledge.unknown(format!(
                        "SCM {node} stopped between `Replaced DB with checkpoint` and the key save, with key(s) {} of the leader's that expire within a time-zone offset of that line; {clock}",
                        undecided.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                } else if live.is_empty() {
                    // Every key the leader sent has expired: the key file has nothing left to cover.
                    self.knowledge.checks += 1;
                } else {
                    self.knowledge.unknown(format!(
                        "SCM {node} stopped between `Replaced DB with checkpoint` and the key save, but its key file already held every unexpired key the leader sent that predates the checkpoint; the checkpoint's own key list is not logged"
                    ));
                }
            }
        }
        if let Some(ids) = cut_save {
            self.maybe_in_file.entry(key).or_default().extend(ids);
        }
        match e.kind {
            EventKind::CheckpointDownloaded => {
                let leader = e
                    .field("leader")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                self.downloaded.insert(key, (index, leader));
            }
            EventKind::SecretKeysFetched => {
                // A new install begins: a save that never logged `Saved [...]` before it was cut off (in one
                // JVM an SCM's crash and restart show as no lifecycle step of its own).
                if let Some(ids) = self.unsaved.remove(&key) {
                    self.maybe_in_file.entry(key).or_default().extend(ids);
                }
                let n = self.nodes.entry(key).or_default();
                *n = ScmNode {
                    install: Phase::Fetched,
                    fetched: Some(index),
                    ..ScmNode::default()
                };
            }
            EventKind::CheckpointInstallStarted => {
                self.swap_begun.insert(key, index);
            }
            EventKind::CheckpointInstalled => {
                self.swap_begun.remove(&key);
                // Without the fetch in view there is no known key obligation (security off, or cut off).
                if let Some(n) = self
                    .nodes
                    .get_mut(&key)
                    .filter(|n| n.install == Phase::Fetched)
                {
                    n.install = Phase::Swapped;
                    n.replaced = Some(index);
                }
            }
            EventKind::SecretKeysUpdated | EventKind::StateMachineUpdaterFailed => {
                if let Some(n) = self
                    .nodes
                    .get_mut(&key)
                    .filter(|n| n.install == Phase::Swapped)
                {
                    if e.kind == EventKind::SecretKeysUpdated {
                        n.applying.get_or_insert(index);
                    } else {
                        n.failed.get_or_insert(index);
                    }
                }
            }
            EventKind::StateMachineReinitializing => {
                if let Some(n) = self
                    .nodes
                    .get_mut(&key)
                    .filter(|n| n.install == Phase::Swapped)
                {
                    n.reinitializing = Some(index);
                }
            }
            // SaveKeys(s): unpatched after the swap, the key file covers the DB again; patched (HDDS-16923)
            // before it, so the swap that follows leaves nothing to cover.
            EventKind::SecretKeysSaved
                if self
                    .nodes
                    .get(&key)
                    .is_some_and(|n| matches!(n.install, Phase::Swapped | Phase::Fetched)) =>
            {
                self.nodes.remove(&key);
                self.knowledge.checks += 1;
            }
            _ => {}
        }
        if matches!(
            e.kind,
            EventKind::SecretKeyGenerated | EventKind::SecretKeyRotated
        ) {
            if let Some(Value::SecretKey(k)) = e.field("key") {
                self.newest = Some(k.id.clone());
            }
        }
        if let (EventKind::SecretKeysUpdated, Some(keys)) = (e.kind, key_list(e)) {
            for k in keys {
                // Only the first line on each SCM counts (was it applied before a download?): a key listed
                // by every update of a long-running cluster is kept once per SCM, not once per line.
                let on = self.applied.entry(k.id.clone()).or_default();
                if !on.iter().any(|(n, _)| *n == key) {
                    on.push((key, index));
                }
            }
        }
        if let (EventKind::SecretKeysSaved, Some(keys)) = (e.kind, key_list(e)) {
            self.key_file
                .insert(key, keys.iter().map(|k| k.id.clone()).collect());
            self.unsaved.remove(&key);
            self.maybe_in_file.remove(&key);
        }
        if let (EventKind::SecretKeysUpdated, Some(keys)) = (e.kind, key_list(e)) {
            self.unsaved
                .insert(key, keys.iter().map(|k| k.id.clone()).collect());
        }
        if e.kind == EventKind::StateMachineUpdaterFailed {
            // The save failed (`Error saving SecretKeys to file`): nothing of it reached the file.
            self.unsaved.remove(&key);
        }
        if let Some(keys) = key_list(e) {
            // BecomeLeader(s) with empty memory: the keys it starts from can only be judged against a key
            // history in view. With none, the SCMs must all have started in view (a new cluster).
            if matches!(
                e.kind,
                EventKind::SecretKeysReloaded | EventKind::SecretKeyGenerated
            ) && !self.ever_known
            {
                let all_started = cx
                    .timeline
                    .services
                    .iter()
                    .filter(|(_, s)| **s == Component::Scm)
                    .all(|(n, _)| cx.timeline.started_in_view.contains(n));
                if !all_started {
                    self.knowledge.unknown(format!(
                        "SCM {node} {} with no earlier key history in view: the logs start after the key rotations this depends on",
                        if e.kind == EventKind::SecretKeyGenerated { "generated a new key set" } else { "reloaded its key file" }
                    ));
                }
            }
            let older_entry = e.kind == EventKind::SecretKeysUpdated
                && self
                    .newest
                    .as_ref()
                    .is_some_and(|n| !keys.iter().any(|k| &k.id == n));
            if matches!(
                e.kind,
                EventKind::SecretKeysUpdated
                    | EventKind::SecretKeysReloaded
                    | EventKind::SecretKeyGenerated
            ) && !older_entry
            {
                self.check_key_set(cx, index, e, node, keys, out);
            }
            self.ever_known |= !keys.is_empty();
            for key in keys {
                self.undated_key_seen |= key.expires.is_none();
                match self.known.get_mut(&key.id) {
                    Some(k) => {
                        k.last_seen = index;
                        if let (None, Some(x)) = (k.expires, key.expires) {
                            k.expires = Some(x);
                            self.by_expiry.insert((x.millis, key.id.clone()));
                        }
                    }
                    None => {
                        if let Some(x) = key.expires {
                            self.by_expiry.insert((x.millis, key.id.clone()));
                        }
                        self.known.insert(
                            key.id.clone(),
                            KnownKey {
                                expires: key.expires,
                                last_seen: index,
                                first_seen: index,
                            },
                        );
                    }
                }
            }
        }
    }

    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {
        if self.nodes.values().any(|n| n.install == Phase::Swapped) {
            self.knowledge.unknown(
                "an SCM's logs end between `Replaced DB with checkpoint` and the key save",
            );
        }
        if !self.swap_begun.is_empty() {
            self.knowledge.unknown(
                "an SCM's logs end after `Install checkpoint` with no `Replaced DB with checkpoint` after it: whether its DB was replaced before its key save is not in view",
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
    use crate::monitor::testkit::{daemon, ev, key, keys, run, text};
    use crate::monitor::Verdict;
    use crate::vocab::EventKind;

    const DAY: i64 = 86_400_000;

    /// Replays one daemon log of SCM scm3 through the model.
    fn scm3(
        events: Vec<crate::event::Event>,
    ) -> (crate::timeline::Timeline, crate::check::ModelReport) {
        run("scm-secret-keys", vec![daemon("scm", "scm3", events)])
    }

    fn started(ms: i64) -> crate::event::Event {
        ev(
            EventKind::ProcessStarted,
            "scm3",
            ms,
            vec![("service", text("StorageContainerManager"))],
        )
    }

    fn installed(ms: i64) -> crate::event::Event {
        ev(
            EventKind::CheckpointInstalled,
            "scm3",
            ms,
            vec![
                ("term", crate::value::Value::U64(1)),
                ("index", crate::value::Value::U64(202)),
            ],
        )
    }

    fn fetched(ms: i64) -> crate::event::Event {
        ev(
            EventKind::SecretKeysFetched,
            "scm3",
            ms,
            vec![("keys", keys(&[("K2", 9 * DAY), ("K1", 8 * DAY)]))],
        )
    }

    #[test]
    fn key_file_covers_db_is_violated_by_a_stop_before_the_save() {
        let (tl, r) = scm3(vec![
            started(0),
            fetched(1_000),
            installed(2_000),
            ev(EventKind::StateMachineReinitializing, "scm3", 3_000, vec![]),
            ev(EventKind::ComponentStopping, "scm3", 4_000, vec![]),
            ev(EventKind::ProcessShutdown, "scm3", 5_000, vec![]),
            started(6_000),
        ]);
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "KeyFileCoversDb");
        assert_eq!(v.invariant.code, "OZ-SCM-KEYS-001");
        assert_eq!(v.instance, "scm3");
        // The first stop line, not SHUTDOWN_MSG nor the next start.
        assert_eq!(v.primary, 4);
        assert_eq!(tl.events.head(v.primary).kind, EventKind::ComponentStopping);
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![1, 2, 3]);
        assert!(v.message.contains("stopped"), "{}", v.message);
        assert!(v.message.contains("term 1, index 202"), "{}", v.message);
        assert!(v.related[1].1.contains("term 1, index 202"));
        assert!(v.primary_label.contains("Saved"), "{}", v.primary_label);
    }

    /// A crash between `Updating keys with` and `Saved [...] to file` leaves the key file unknown: Ozone writes
    /// the file just before that line. A stop inside the install's own save, and a later install whose keys
    /// only that cut-off save may have written, are undecided, not violations; a failed save is still one.
    #[test]
    fn a_save_cut_off_between_updating_and_saved_is_undecided_not_a_violation() {
        let updating = |ms| {
            ev(
                EventKind::SecretKeysUpdated,
                "scm3",
                ms,
                vec![("keys", keys(&[("K2", 9 * DAY), ("K1", 8 * DAY)]))],
            )
        };
        let failed = |ms| {
            ev(
                EventKind::StateMachineUpdaterFailed,
                "scm3",
                ms,
                vec![(
                    "member",
                    crate::value::Value::Str("c3d4e5f6@group-1".into()),
                )],
            )
        };
        // The install's own save cut off.
        let scm3 = |events| run("scm-secret-keys", vec![daemon("scm", "scm3", events)]).1;
        let r = scm3(vec![
            started(0),
            fetched(1_000),
            installed(2_000),
            updating(3_000),
            started(9_000),
        ]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        let reason = r.reason.unwrap_or_default();
        assert!(
            reason.contains("whether its key file was written is not logged"),
            "{reason}"
        );
        // An earlier save cut off by a crash; then an install that fails with its keys: the file may hold them.
        let r = scm3(vec![
            started(0),
            updating(500),
            started(700),
            fetched(1_000),
            installed(2_000),
            failed(3_000),
            started(9_000),
        ]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        let reason = r.reason.unwrap_or_default();
        assert!(
            reason.contains("an earlier save of them was cut off"),
            "{reason}"
        );
        // The install's save failing outright is the bug.
        let r = scm3(vec![
            started(0),
            fetched(1_000),
            installed(2_000),
            updating(2_500),
            failed(3_000),
            started(9_000),
        ]);
        assert_eq!(r.verdict, Verdict::Violated, "{:?}", r.reason);
        assert_eq!(r.violations[0].invariant, "KeyFileCoversDb");
    }

    #[test]
    fn key_file_covers_db_is_violated_by_a_crash_at_the_startup_line() {
        let (tl, r) = scm3(vec![
            started(0),
            fetched(1_000),
            installed(2_000),
            started(9_000),
        ]);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = r.first().expect("a violation");
        assert_eq!(v.invariant, "KeyFileCoversDb");
        assert_eq!(v.primary, 3);
        assert_eq!(tl.events.head(v.primary).kind, EventKind::ProcessStarted);
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![1, 2]);
        assert!(v.message.contains("crashed"), "{}", v.message);
        assert!(v.primary_label.contains("crash"), "{}", v.primary_label);
    }

    #[test]
    fn key_file_covers_db_is_not_armed_without_a_fetch() {
        // Security off: `Got secret keys from leaders null` gives no SecretKeysFetched.
        let (_, r) = scm3(vec![started(0), installed(2_000), started(9_000)]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert_eq!(r.checks, 0);
        let reason = r.reason.expect("a reason");
        assert!(reason.contains("security may be off"), "{reason}");
    }

    #[test]
    fn key_file_covers_db_is_discharged_by_the_save() {
        let (_, r) = scm3(vec![
            started(0),
            fetched(1_000),
            installed(2_000),
            ev(EventKind::StateMachineReinitializing, "scm3", 3_000, vec![]),
            ev(
                EventKind::SecretKeysSaved,
                "scm3",
                3_500,
                vec![("keys", keys(&[("K2", 9 * DAY), ("K1", 8 * DAY)]))],
            ),
            ev(EventKind::ComponentStopping, "scm3", 4_000, vec![]),
            started(9_000),
        ]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms);
        assert_eq!(r.checks, 1);
        assert_eq!(r.reason, None);
    }

    #[test]
    fn a_log_ending_between_swap_and_save_is_inconclusive() {
        let (_, r) = scm3(vec![started(0), fetched(1_000), installed(2_000)]);
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(reason.contains("logs end between"), "{reason}");
    }

    /// A crash after the swap: the restart's line is past the key's expiry, the run's last line before the
    /// crash is not, so whether the key was live when the SCM went down is not in view.
    #[test]
    fn a_key_that_expired_between_the_crash_window_ends_leaves_the_crash_undecided() {
        const HOUR: i64 = 3_600_000;
        let (_, r) = scm3(vec![
            started(0),
            ev(
                EventKind::SecretKeysFetched,
                "scm3",
                1_000,
                vec![("keys", keys(&[("K1", 20 * HOUR)]))],
            ),
            installed(2_000),
            started(40 * HOUR),
        ]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("expired between its last line before the crash and its restart"),
            "{reason}"
        );
    }

    /// `Replaced DB with checkpoint` is logged after the swap: a crash can take it, leaving `Install
    /// checkpoint` as the install's last line.
    #[test]
    fn a_crash_after_install_checkpoint_with_no_replaced_db_is_undecided() {
        let install_started = |ms| ev(EventKind::CheckpointInstallStarted, "scm3", ms, vec![]);
        let (_, r) = scm3(vec![
            started(0),
            fetched(1_000),
            install_started(2_000),
            started(9_000),
        ]);
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("went down after `Install checkpoint`"),
            "{reason}"
        );
        let (_, r) = scm3(vec![started(0), fetched(1_000), install_started(2_000)]);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("logs end after `Install checkpoint`"),
            "{reason}"
        );
    }

    fn updated(node: &str, ms: i64, ks: &[(&str, i64)]) -> crate::event::Event {
        ev(
            EventKind::SecretKeysUpdated,
            node,
            ms,
            vec![("keys", keys(ks))],
        )
    }

    #[test]
    fn dropping_an_unexpired_known_key_is_a_violation() {
        let (tl, r) = run(
            "scm-secret-keys",
            vec![
                daemon(
                    "scm",
                    "scm1",
                    vec![updated("scm1", 0, &[("K1", DAY), ("K2", 2 * DAY)])],
                ),
                daemon(
                    "scm",
                    "scm2",
                    vec![updated("scm2", 10_000, &[("K2", 2 * DAY), ("K3", 3 * DAY)])],
                ),
            ],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "NoUnexpiredKeyDropped");
        assert_eq!(v.invariant.code, "OZ-SCM-KEYS-002");
        assert_eq!(v.instance, "scm2");
        assert_eq!(v.primary, 1);
        assert_eq!(tl.events.get(1).node.as_deref(), Some("scm2"));
        assert_eq!(v.related.len(), 1);
        assert_eq!(v.related[0].0, 0);
        assert!(v.related[0].1.contains("K1"), "{}", v.related[0].1);
        assert!(
            v.message.contains("drops 1 unexpired secret key(s): K1"),
            "{}",
            v.message
        );
        assert!(!v.message.contains("K2 ("), "{}", v.message);
        assert_eq!(v.primary_label, "key set without K1");
        // Clocks 10 s apart on two nodes: the order is certain.
        assert_eq!(v.ambiguous_order, None);
    }

    /// A long-running cluster: a thousand hourly rotations, each key living two days. A key set is checked
    /// against the keys that outlive its line only (an index by expiry, not a scan of every key ever seen),
    /// and a key whose expiry is first unknown and learnt later is held to it from then on.
    #[test]
    fn a_long_key_history_checks_only_the_unexpired_keys() {
        use crate::monitor::testkit::at;
        use crate::value::{SecretKeyInfo, Value};
        const HOUR: i64 = 3_600_000;
        let key = |id: &str, expires: Option<i64>| SecretKeyInfo {
            id: id.into(),
            created: None,
            expires: expires.map(at),
        };
        // The keys made in the two days up to hour `h`, each expiring 48 hours after it was made, then `extra`.
        let set = |ms: i64, h: i64, skip: Option<i64>, extra: Vec<SecretKeyInfo>| {
            let mut ks: Vec<SecretKeyInfo> = (h.saturating_sub(47)..=h)
                .filter(|k| Some(*k) != skip)
                .map(|k| key(&format!("K{k}"), Some((k + 48) * HOUR)))
                .collect();
            ks.extend(extra);
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                ms,
                vec![("keys", Value::SecretKeys(ks))],
            )
        };
        let mut lines: Vec<_> = (0..1000)
            .map(|h| set(h * HOUR + 1_000, h, None, vec![]))
            .collect();
        // LATE is first listed without its expiry, then with it.
        let t = 1000 * HOUR;
        lines.push(set(t + 1_000, 999, None, vec![key("LATE", None)]));
        lines.push(set(
            t + 2_000,
            999,
            None,
            vec![key("LATE", Some(1100 * HOUR))],
        ));
        let healthy = lines.clone();
        // Then a set that drops K990 and LATE, both unexpired.
        lines.push(set(t + 3_000, 999, Some(990), vec![]));

        let replay = |lines: Vec<crate::event::Event>| {
            let mut tl = crate::monitor::testkit::timeline(vec![daemon("scm", "scm1", lines)]);
            tl.set_utc_offsets(crate::clock::GivenOffsets::all(0));
            crate::monitor::testkit::replay_one(&tl, "scm-secret-keys")
        };
        let r = replay(healthy);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.violations);
        // Every set but the first (nothing known yet) had unexpired keys to keep.
        assert_eq!(r.checks, 1001);
        let r = replay(lines);
        assert_eq!(r.verdict, Verdict::Violated);
        let v = &r.violations[0];
        assert!(
            v.message.contains("drops 2 unexpired secret key(s): K990"),
            "{}",
            v.message
        );
        assert!(v.message.contains("LATE (expires"), "{}", v.message);
    }

    #[test]
    fn dropping_an_expired_key_is_no_violation() {
        let inputs = || {
            vec![daemon(
                "scm",
                "scm1",
                vec![
                    updated("scm1", 0, &[("K1", 5_000), ("K2", 2 * DAY)]),
                    updated("scm1", 10_000, &[("K2", 2 * DAY), ("K3", 3 * DAY)]),
                ],
            )]
        };
        // With the logs' UTC offset known, K1 has expired when it is dropped.
        let mut tl = crate::monitor::testkit::timeline(inputs());
        tl.set_utc_offsets(crate::clock::GivenOffsets::all(0));
        let r = crate::monitor::testkit::replay_one(&tl, "scm-secret-keys");
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms);
        // The first set was vacuous (nothing known), the second kept K2.
        assert_eq!(r.checks, 1);
        // Without it, K1 expires within a time zone's offset of the line: unknown, never a violation.
        let (_, r) = run("scm-secret-keys", inputs());
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r.reason.as_deref().unwrap().contains("--log-utc-offset"));
    }

    /// Issue 19, item 4: scm1's log is at UTC (its rotation lines say so); scm2's host is an hour behind, and
    /// its lines carry no generation line of its own. Read at scm1's offset, scm2 would apply K2 and K3 at a
    /// time when K1 (expired at +30 min) was still valid: a false alarm. Its own key lists rule that offset
    /// out (K3 listed before its creation), so K1's drop is undecided, naming scm2 and the skew; with scm2's
    /// offset given, K1 has expired and the run conforms.
    #[test]
    fn a_node_whose_key_lists_precede_the_keys_creation_has_an_unknown_offset_not_a_false_alarm() {
        use crate::time::Timestamp;
        use crate::value::{SecretKeyInfo, Value};
        const MIN: i64 = 60_000;
        let utc = |m: i64| Timestamp {
            millis: crate::monitor::testkit::at(0).millis + m * MIN,
            has_date: true,
        };
        let k = |id: &str, created: i64, expires: i64| SecretKeyInfo {
            id: id.into(),
            created: Some(utc(created)),
            expires: Some(utc(expires)),
        };
        let keys = |ks: Vec<SecretKeyInfo>| vec![("keys", Value::SecretKeys(ks))];
        let scm1 = vec![
            ev(
                EventKind::SecretKeyGenerated,
                "scm1",
                0,
                vec![("key", Value::SecretKey(k("K1", 0, 30)))],
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                5,
                keys(vec![k("K1", 0, 30)]),
            ),
            ev(
                EventKind::SecretKeyRotated,
                "scm1",
                20 * MIN,
                vec![("key", Value::SecretKey(k("K2", 20, 50)))],
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                20 * MIN + 5,
                keys(vec![k("K1", 0, 30), k("K2", 20, 50)]),
            ),
            ev(
                EventKind::SecretKeyRotated,
                "scm1",
                40 * MIN,
                vec![("key", Value::SecretKey(k("K3", 40, 70)))],
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                40 * MIN + 5,
                keys(vec![k("K2", 20, 50), k("K3", 40, 70)]),
            ),
        ];
        // scm2 applies what scm1 applied, 20 ms later in UTC, printed an hour earlier.
        let scm2 = vec![
            ev(
                EventKind::SecretKeysUpdated,
                "scm2",
                25 - 60 * MIN,
                keys(vec![k("K1", 0, 30)]),
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm2",
                20 * MIN + 25 - 60 * MIN,
                keys(vec![k("K1", 0, 30), k("K2", 20, 50)]),
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm2",
                40 * MIN + 25 - 60 * MIN,
                keys(vec![k("K2", 20, 50), k("K3", 40, 70)]),
            ),
        ];
        let inputs = || {
            vec![
                daemon("scm", "scm1", scm1.clone()),
                daemon("scm", "scm2", scm2.clone()),
            ]
        };
        let (tl, r) = run("scm-secret-keys", inputs());
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.unwrap();
        assert!(
            reason.contains("scm2's clock or zone is off by at least 59 min"),
            "{reason}"
        );
        assert!(reason.contains("K1"), "{reason}");
        let warnings: Vec<&String> = tl.inputs.iter().flat_map(|i| &i.warnings).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("scm2's clock or zone is off") && w.contains("scm2=±HH:MM")),
            "{warnings:?}"
        );
        // Given scm2's offset, every check is decided.
        let mut tl = crate::monitor::testkit::timeline(inputs());
        let mut given = crate::clock::GivenOffsets::default();
        given.by_node.insert("scm2".into(), -60 * MIN);
        tl.set_utc_offsets(given);
        let r = crate::monitor::testkit::replay_one(&tl, "scm-secret-keys");
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        // (Inconclusive only because the logs start after the cluster's first key: nothing about clocks.)
        let reason = r.reason.unwrap_or_default();
        assert!(!reason.contains("scm2"), "{reason}");
        assert!(r.checks >= 6, "{}", r.checks);
        // And a real drop on scm2 (K2 missing while valid) is still found at its line.
        let mut dropping = scm2.clone();
        dropping[2] = ev(
            EventKind::SecretKeysUpdated,
            "scm2",
            40 * MIN + 25 - 60 * MIN,
            keys(vec![k("K3", 40, 70)]),
        );
        let mut tl = crate::monitor::testkit::timeline(vec![
            daemon("scm", "scm1", scm1.clone()),
            daemon("scm", "scm2", dropping),
        ]);
        let mut given = crate::clock::GivenOffsets::default();
        given.by_node.insert("scm2".into(), -60 * MIN);
        tl.set_utc_offsets(given);
        let r = crate::monitor::testkit::replay_one(&tl, "scm-secret-keys");
        assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
        assert_eq!(r.violations[0].invariant, "NoUnexpiredKeyDropped");
        assert_eq!(r.violations[0].node.as_deref(), Some("scm2"));
    }

    /// A cluster whose log clock runs 10 hours behind UTC: K1 has expired (in UTC) when the key set without
    /// it is applied, though the log's local time is hours before K1's expiry instant. The offset is read off
    /// the rotation line (its local time minus its key's `creation at`), so there is no false alarm.
    #[test]
    fn the_logs_utc_offset_is_read_off_a_key_generation_line() {
        use crate::time::Timestamp;
        use crate::value::{SecretKeyInfo, Value};
        const HOUR: i64 = 3_600_000;
        let utc = |h: i64| Timestamp {
            millis: crate::monitor::testkit::at(0).millis + h * HOUR,
            has_date: true,
        };
        let k = |id: &str, created: i64, expires: i64| SecretKeyInfo {
            id: id.into(),
            created: Some(utc(created)),
            expires: Some(utc(expires)),
        };
        // `utc(h)` is an instant h hours after 10:00Z; `local(h)` the log time of that instant.
        let local = |h: i64| (h + 5 - 10) * HOUR;
        let events = vec![
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                local(2),
                vec![("keys", Value::SecretKeys(vec![k("K1", -200, 9)]))],
            ),
            ev(
                EventKind::SecretKeyRotated,
                "scm1",
                local(4),
                vec![("key", Value::SecretKey(k("K2", 9, 300)))],
            ),
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                local(5),
                vec![("keys", Value::SecretKeys(vec![k("K2", 9, 300)]))],
            ),
        ];
        let (_, r) = run(
            "scm-secret-keys",
            vec![daemon("scm", "scm1", events.clone())],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        // Told the wrong offset (UTC) for scm1 itself, K1 would still be unexpired at 05:00 and its drop a
        // violation: the user's word for one node is obeyed.
        let mut tl = crate::monitor::testkit::timeline(vec![daemon("scm", "scm1", events)]);
        let mut given = crate::clock::GivenOffsets::default();
        given.by_node.insert("scm1".into(), 0);
        tl.set_utc_offsets(given);
        let r = crate::monitor::testkit::replay_one(&tl, "scm-secret-keys");
        assert_eq!(r.violations.len(), 1);
        // One offset for every node yields to what a node's own generation line shows, with a warning.
        tl.set_utc_offsets(crate::clock::GivenOffsets::all(0));
        let r = crate::monitor::testkit::replay_one(&tl, "scm-secret-keys");
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        let warnings: Vec<&String> = tl.inputs.iter().flat_map(|i| &i.warnings).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("scm1") && w.contains("-10:00") && w.contains("+00:00")),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_generated_key_with_no_history_is_inconclusive_unless_every_scm_started_in_view() {
        let generated = |node: &str, ms| {
            ev(
                EventKind::SecretKeyGenerated,
                node,
                ms,
                vec![("key", key("K3", 7 * DAY))],
            )
        };
        let scm_start = |node: &str, ms| {
            ev(
                EventKind::ProcessStarted,
                node,
                ms,
                vec![("service", text("StorageContainerManager"))],
            )
        };
        // scm1's log starts mid-run: the key history may be out of view.
        let (_, r) = run(
            "scm-secret-keys",
            vec![
                daemon("scm", "scm1", vec![generated("scm1", 0)]),
                daemon("scm", "scm2", vec![scm_start("scm2", 0)]),
            ],
        );
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Inconclusive);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("SCM scm1 generated a new key set"),
            "{reason}"
        );
        assert!(
            reason.contains("no earlier key history in view"),
            "{reason}"
        );

        // Every SCM started in view (a new cluster): the generated key starts the history, and a later key set
        // that keeps it conforms.
        let (_, r) = run(
            "scm-secret-keys",
            vec![
                daemon(
                    "scm",
                    "scm1",
                    vec![
                        scm_start("scm1", 0),
                        generated("scm1", 1_000),
                        updated("scm1", 2_000, &[("K3", 7 * DAY)]),
                    ],
                ),
                daemon("scm", "scm2", vec![scm_start("scm2", 0)]),
            ],
        );
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn datanode_nodes_are_not_scms() {
        let (_, r) = run(
            "scm-secret-keys",
            vec![daemon(
                "datanode",
                "dn1",
                vec![
                    ev(
                        EventKind::SecretKeysFetched,
                        "dn1",
                        0,
                        vec![("keys", keys(&[("K1", DAY)]))],
                    ),
                    ev(EventKind::CheckpointInstalled, "dn1", 1, vec![]),
                    ev(EventKind::ProcessStarted, "dn1", 2, vec![]),
                ],
            )],
        );
        assert!(r.violations.is_empty());
        assert_eq!(r.events, 0);
    }
}

/// Pruning (`ScmSecretKeys::prune_expired`): a month of a cluster that rotates a key a day keeps about a
/// week of keys, and gives the report a monitor that keeps every key gives.
#[cfg(test)]
mod pruning {
    use super::ScmSecretKeys;
    use crate::monitor::testkit::{daemon, ev, keys, text, timeline};
    use crate::monitor::{Ctx, Model, Violation};
    use crate::timeline::Timeline;
    use crate::vocab::EventKind;

    const MINUTE: i64 = 60_000;
    const DAY: i64 = 86_400_000;

    /// The keys current on day `d` (made each day, valid a week), without `drop`.
    fn current(d: i64, drop: Option<i64>) -> crate::value::Value {
        let ids: Vec<(String, i64)> = ((d - 6).max(0)..=d)
            .filter(|k| Some(*k) != drop)
            .map(|k| (format!("K{k}"), (k + 7) * DAY))
            .collect();
        let refs: Vec<(&str, i64)> = ids.iter().map(|(id, x)| (id.as_str(), *x)).collect();
        keys(&refs)
    }

    /// Thirty days of three SCMs: scm1 rotates a key a day, scm1 and scm2 apply the key set every five
    /// minutes; scm3 installs a checkpoint on day 10 (fetching an expired key among the current ones) and
    /// stops on day 13 without saving the keys (KeyFileCoversDb), scm2 drops an unexpired key on day 20
    /// (NoUnexpiredKeyDropped), and scm1 lists a key expired weeks before on day 25.
    /// Without pruning, `known` holds all 30 keys at the end.
    fn thirty_days() -> Timeline {
        let (mut scm1, mut scm2) = (Vec::new(), Vec::new());
        for tick in 0..30 * 24 * 12 {
            let ms = tick * 5 * MINUTE;
            let d = ms / DAY;
            if ms % DAY == 0 {
                scm1.push(ev(
                    EventKind::SecretKeyRotated,
                    "scm1",
                    ms,
                    vec![(
                        "key",
                        crate::monitor::testkit::key(&format!("K{d}"), (d + 7) * DAY),
                    )],
                ));
            }
            let mut set = current(d, None);
            if tick == 25 * 24 * 12 {
                if let crate::value::Value::SecretKeys(ks) = &mut set {
                    ks.push(crate::value::SecretKeyInfo {
                        id: "K1".into(),
                        created: None,
                        expires: Some(crate::monitor::testkit::at(8 * DAY)),
                    });
                }
            }
            scm1.push(ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                ms + 1_000,
                vec![("keys", set)],
            ));
            let drop = (tick == 20 * 24 * 12).then_some(18);
            scm2.push(ev(
                EventKind::SecretKeysUpdated,
                "scm2",
                ms + 2_000,
                vec![("keys", current(d, drop))],
            ));
        }
        let started = |ms| {
            ev(
                EventKind::ProcessStarted,
                "scm3",
                ms,
                vec![("service", text("StorageContainerManager"))],
            )
        };
        let mut fetched_keys = current(10, None);
        if let crate::value::Value::SecretKeys(ks) = &mut fetched_keys {
            ks.push(crate::value::SecretKeyInfo {
                id: "K0".into(),
                created: None,
                expires: Some(crate::monitor::testkit::at(7 * DAY)),
            });
        }
        let install = 10 * DAY + 3_000;
        let scm3 = vec![
            started(0),
            ev(
                EventKind::SecretKeysFetched,
                "scm3",
                install,
                vec![("keys", fetched_keys)],
            ),
            ev(
                EventKind::CheckpointInstalled,
                "scm3",
                install + 1_000,
                vec![
                    ("term", crate::value::Value::U64(1)),
                    ("index", crate::value::Value::U64(202)),
                ],
            ),
            ev(
                EventKind::StateMachineReinitializing,
                "scm3",
                install + 2_000,
                vec![],
            ),
            ev(
                EventKind::ComponentStopping,
                "scm3",
                13 * DAY + 3_000,
                vec![],
            ),
            ev(EventKind::ProcessShutdown, "scm3", 13 * DAY + 4_000, vec![]),
            started(13 * DAY + 5_000),
        ];
        // scm4 fetches two keys on day 20 that have expired when it stops on day 26, well past the pruning
        // bound: the key file had nothing left to cover (a pass), if the fetched keys are kept meanwhile.
        let scm4 = vec![
            ev(
                EventKind::ProcessStarted,
                "scm4",
                0,
                vec![("service", text("StorageContainerManager"))],
            ),
            ev(
                EventKind::SecretKeysFetched,
                "scm4",
                20 * DAY + 3_000,
                vec![("keys", keys(&[("K14", 21 * DAY), ("K15", 22 * DAY)]))],
            ),
            ev(
                EventKind::CheckpointInstalled,
                "scm4",
                20 * DAY + 4_000,
                vec![
                    ("term", crate::value::Value::U64(2)),
                    ("index", crate::value::Value::U64(303)),
                ],
            ),
            ev(
                EventKind::ComponentStopping,
                "scm4",
                26 * DAY + 3_000,
                vec![],
            ),
        ];
        timeline(vec![
            daemon("scm", "scm1", scm1),
            daemon("scm", "scm2", scm2),
            daemon("scm", "scm3", scm3),
            daemon("scm", "scm4", scm4),
        ])
    }

    /// Steps `m` over the timeline as the replay does; the most keys it held at once.
    fn most_keys_held(tl: &Timeline, mut m: ScmSecretKeys) -> (usize, Vec<Violation>) {
        let cx = Ctx { timeline: tl };
        let (mut most, mut out) = (0, Vec::new());
        for (i, e) in tl.events.iter().enumerate() {
            m.step(&cx, i, &e, tl.life[i], &mut out);
            most = most.max(m.keys_remembered());
        }
        (most, out)
    }

    #[test]
    fn a_month_of_daily_keys_keeps_a_week_of_them() {
        let tl = thirty_days();
        let (pruned, found) = most_keys_held(&tl, ScmSecretKeys::default());
        let (kept, found_keeping) = most_keys_held(&tl, ScmSecretKeys::keeping_all_keys());
        assert_eq!(kept, 30, "without pruning every day's key stays");
        // A week of valid keys (7); those expired within the 14 hours any time zone may hide plus the
        // block of events the floor is read per (1024 events, 1.8 days here: 3); K0, kept while scm3's
        // install is in flight, and K1, listed again after it expired (2).
        assert!(pruned <= 12, "{pruned} keys held");
        assert_eq!(format!("{found:?}"), format!("{found_keeping:?}"));
        let invariants: Vec<&str> = found.iter().map(|v| v.invariant.name).collect();
        assert_eq!(invariants, ["KeyFileCoversDb", "NoUnexpiredKeyDropped"]);
    }

    #[test]
    fn the_report_with_pruning_is_the_report_without() {
        let tl = thirty_days();
        let report = |m: ScmSecretKeys| {
            let monitors = vec![Box::new(m) as Box<dyn Model>];
            let reports = crate::check::replay(&tl, monitors, &Default::default()).reports;
            crate::render::report::to_json(&tl, &reports, true)
        };
        let pruned = report(ScmSecretKeys::default());
        assert_eq!(pruned["models"][0]["verdict"], "violated", "{pruned}");
        assert_eq!(pruned, report(ScmSecretKeys::keeping_all_keys()));
    }
}
