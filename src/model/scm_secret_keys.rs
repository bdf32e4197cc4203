//! `scm-secret-keys`: the Rust mirror of `traces/scm-secret-keys/ScmSecretKeys.tla` (HDDS-16923).
//!
//! Spec variables mirrored per SCM: `install[s]` (Idle → Fetched → Swapped → Idle), `fetchedKeys[s]`, and the
//! cluster's key knowledge standing in for `log` and `expired`. Actions: `FetchKeys(s)` = `Got secret keys from
//! leaders [...]`, `ReplaceDb(s)` = `Replaced DB with checkpoint`, `SaveKeys(s)` = `Saved [...] to file` after
//! `SCMStateMachine is reinitializing`, `FailSave(s)`/`Stop(s)` = a stop line, `Crash(s)` = a STARTUP_MSG with no
//! shutdown before it, `ReplicateKeys(s)`/`BecomeLeader(s)` = the key sets applied.

use super::lifecycle::LifeStep;
use super::{invariant, Ctx, Invariant, Knowledge, Model, Spec, Violation};
use crate::event::Event;
use crate::time::Timestamp;
use crate::value::{SecretKeyInfo, Value};
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

const INVARIANTS: &[Invariant] = &[
    Invariant {
        name: "KeyFileCoversDb",
        code: "OZ-SCM-KEYS-001",
        summary: "an SCM stopped after replacing scm.db with the leader's checkpoint but before saving the leader's secret keys",
        advice: "Do not let this SCM become leader until a key rotation has reached it (or run `ozone admin scm transfer` to another SCM); check that its secret_keys.json holds every unexpired key of the leader. The fix saves the keys before the DB swap.",
    },
    Invariant {
        name: "NoUnexpiredKeyDropped",
        code: "OZ-SCM-KEYS-002",
        summary: "an SCM applied a secret key set that drops keys that have not expired",
        advice: "Tokens signed with the dropped keys now fail (`Can't find the signing secret key`). Run `ozone admin om fetch-key` so OM signs with the new key, and expect clients with old tokens to fail until they renew.",
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Install {
    #[default]
    Idle,
    /// `FetchKeys(s)` done: the leader's keys are held in memory only.
    Fetched,
    /// `ReplaceDb(s)` done: scm.db is at the checkpoint, the key file is not yet.
    Swapped,
}

#[derive(Debug, Default)]
struct ScmNode {
    install: Install,
    fetched: Option<usize>,
    replaced: Option<usize>,
    reinitializing: Option<usize>,
}

/// A key id the cluster is known to have, with its expiry and where it was last seen.
#[derive(Debug, Clone, Copy)]
struct KnownKey {
    expires: Option<Timestamp>,
    last_seen: usize,
}

#[derive(Default)]
pub struct ScmSecretKeys {
    nodes: HashMap<u32, ScmNode>,
    known: HashMap<String, KnownKey>,
    knowledge: Knowledge,
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
        let at = n.replaced.map(|r| term_index(&ev[r])).unwrap_or_default();
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
            invariant: inv.name,
            code: inv.code,
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
        let required: Vec<(&String, &KnownKey)> = self
            .known
            .iter()
            .filter(|(_, k)| k.expires.is_some_and(|x| x > now))
            .collect();
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
            invariant: inv.name,
            code: inv.code,
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
                .map(|(id, k)| {
                    let _ = cx;
                    (k.last_seen, format!("key {id} last seen here, unexpired"))
                })
                .collect(),
            ambiguous_order: None,
        });
    }
}

impl Model for ScmSecretKeys {
    fn name(&self) -> &'static str {
        "scm-secret-keys"
    }

    fn spec(&self) -> Spec {
        Spec {
            module: "ScmSecretKeys",
            path: "traces/scm-secret-keys/ScmSecretKeys.tla",
            issue: "HDDS-16923",
        }
    }

    fn invariants(&self) -> &'static [Invariant] {
        INVARIANTS
    }

    fn reads(&self, kind: EventKind) -> bool {
        use EventKind::*;
        matches!(
            kind,
            SecretKeysFetched
                | CheckpointInstalled
                | StateMachineReinitializing
                | SecretKeysSaved
                | SecretKeysUpdated
                | SecretKeysReloaded
                | SecretKeyGenerated
                | SecretKeyRotated
                | SecretKeysLoaded
                | CurrentSecretKeyUpdated
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
                self.knowledge.unknown("some SCM lines name no node (single-JVM output without node ids in thread names)");
            }
            return;
        };
        let key = e.node_key;
        if cx
            .timeline
            .service_of_key(key)
            .is_some_and(|s| s != Component::Scm)
        {
            return;
        }
        if self.reads(e.kind) {
            self.knowledge.events += 1;
        }
        // Crash(s) / Stop(s) / FailSave(s) while the DB is ahead of the key file.
        if let Some(step) = life {
            let swapped = self
                .nodes
                .get(&key)
                .is_some_and(|n| n.install == Install::Swapped);
            let stopped = match step {
                LifeStep::Stopping => Some(false),
                LifeStep::Started { crashed: Some(_) } => Some(true),
                LifeStep::Started { crashed: None } => Some(false),
            };
            if let (true, Some(crashed)) = (swapped, stopped) {
                let n = self.nodes.remove(&key).expect("present");
                out.push(self.key_file_covers_db_violated(cx, node, &n, index, crashed));
            }
        }
        match e.kind {
            EventKind::SecretKeysFetched => {
                let n = self.nodes.entry(key).or_default();
                *n = ScmNode {
                    install: Install::Fetched,
                    fetched: Some(index),
                    ..ScmNode::default()
                };
            }
            EventKind::CheckpointInstalled => {
                // Without the fetch in view there is no known key obligation (security off, or cut off).
                if let Some(n) = self
                    .nodes
                    .get_mut(&key)
                    .filter(|n| n.install == Install::Fetched)
                {
                    n.install = Install::Swapped;
                    n.replaced = Some(index);
                }
            }
            EventKind::StateMachineReinitializing => {
                if let Some(n) = self
                    .nodes
                    .get_mut(&key)
                    .filter(|n| n.install == Install::Swapped)
                {
                    n.reinitializing = Some(index);
                }
            }
            EventKind::SecretKeysSaved
                if self
                    .nodes
                    .get(&key)
                    .is_some_and(|n| n.install == Install::Swapped) =>
            {
                self.nodes.remove(&key);
                self.knowledge.checks += 1; // SaveKeys(s): the key file covers the DB again
            }
            _ => {}
        }
        if let Some(keys) = key_list(e) {
            // BecomeLeader(s) with empty memory: the keys it starts from can only be judged against a key
            // history in view. With none, the SCMs must all have started in view (a new cluster).
            if matches!(
                e.kind,
                EventKind::SecretKeysReloaded | EventKind::SecretKeyGenerated
            ) && self.known.is_empty()
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
            if matches!(
                e.kind,
                EventKind::SecretKeysUpdated
                    | EventKind::SecretKeysReloaded
                    | EventKind::SecretKeyGenerated
            ) {
                self.check_key_set(cx, index, e, node, keys, out);
            }
            for key in keys {
                match self.known.get_mut(&key.id) {
                    Some(k) => {
                        k.last_seen = index;
                        k.expires = k.expires.or(key.expires);
                    }
                    None => {
                        self.known.insert(
                            key.id.clone(),
                            KnownKey {
                                expires: key.expires,
                                last_seen: index,
                            },
                        );
                    }
                }
            }
        }
    }

    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {
        if self.nodes.values().any(|n| n.install == Install::Swapped) {
            self.knowledge.unknown(
                "an SCM's logs end between `Replaced DB with checkpoint` and the key save",
            );
        }
    }

    fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    fn nothing_checked_reason(&self) -> String {
        "no snapshot install with secret keys (`Got secret keys from leaders [...]` then `Replaced DB with checkpoint`) and no unexpired key history in view; security may be off, or the logs start after those steps".into()
    }
}
