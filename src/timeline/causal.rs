//! Causal facts the logs carry, as happens-before edges between nodes, which win over clocks in the merge.

use super::field;
use crate::event_store::{Head, InputData};
use crate::value::Value;
use crate::vocab::EventKind;
use std::collections::HashMap;
use std::sync::Arc;

/// The key ids an event names (its `keys` or `key` field).
fn key_ids(fields: &[(&'static str, Value)]) -> Vec<String> {
    match fields
        .iter()
        .find(|(n, _)| *n == "keys" || *n == "key")
        .map(|(_, v)| v)
    {
        Some(Value::SecretKeys(ks)) => ks.iter().map(|k| k.id.clone()).collect(),
        Some(Value::SecretKey(k)) => vec![k.id.clone()],
        _ => Vec::new(),
    }
}

/// The Raft term an SCM event's log entry or checkpoint belongs to.
fn entry_term(kind: EventKind, fields: &[(&'static str, Value)]) -> Option<i64> {
    match kind {
        EventKind::CheckpointInstalled | EventKind::ScmStateReloaded => {
            field(fields, "term").and_then(Value::as_i64)
        }
        EventKind::AppliedIndexRestored => match field(fields, "tx") {
            Some(Value::TermIndex { term, .. }) => Some(*term),
            _ => None,
        },
        EventKind::StateMachineReinitializing => match field(fields, "term_index") {
            Some(Value::TermIndex { term, .. }) => Some(*term),
            _ => None,
        },
        _ => None,
    }
}

/// The kinds whose fields [`add_causal_edges`] reads: those with a key field in the vocabulary, the term
/// kinds of [`entry_term`], and leader elections. The fields of other events are not read back.
fn causal_kind(kind: EventKind) -> bool {
    static KINDS: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        EventKind::ALL
            .iter()
            .map(|&k| {
                k.fields()
                    .iter()
                    .any(|f| f.name == "keys" || f.name == "key")
                    || matches!(
                        k,
                        EventKind::CheckpointInstalled
                            | EventKind::ScmStateReloaded
                            | EventKind::AppliedIndexRestored
                            | EventKind::StateMachineReinitializing
                            | EventKind::ScmBecameLeader
                    )
            })
            .collect()
    })[kind as usize]
}

/// Causal facts the logs carry, as happens-before edges between nodes:
/// * a secret key id is generated on one SCM before any other SCM can know it;
/// * an SCM log entry of term T is written by the leader of term T, so that SCM's `becomes leader of term T`
///   comes before any other SCM installs, reloads or restores state at term T.
pub(super) fn add_causal_edges(all: &[Head], data: &[Arc<InputData>], edges: &mut Vec<(u32, u32)>) {
    let fields_of = |h: &Head| data[h.span.input as usize].fields(h);
    let causal: Vec<u32> = (0..all.len() as u32)
        .filter(|&i| causal_kind(all[i as usize].kind))
        .collect();
    let mut origin: HashMap<String, u32> = HashMap::new();
    let mut leader_of_term: HashMap<i64, u32> = HashMap::new();
    // (event, its key ids, its entry term), read back once.
    let mut facts: Vec<(u32, Vec<String>, Option<i64>)> = Vec::with_capacity(causal.len());
    for &i in &causal {
        let h = &all[i as usize];
        let fields = fields_of(h);
        let ids = key_ids(&fields);
        if matches!(
            h.kind,
            EventKind::SecretKeyGenerated | EventKind::SecretKeyRotated
        ) {
            for id in &ids {
                origin.entry(id.clone()).or_insert(i);
            }
        }
        if h.kind == EventKind::ScmBecameLeader {
            if let Some(t) = field(&fields, "term").and_then(Value::as_i64) {
                leader_of_term.entry(t).or_insert(i);
            }
        }
        facts.push((i, ids, entry_term(h.kind, &fields)));
    }
    let mut edge = |from: u32, to: u32| {
        let (f, t) = (&all[from as usize], &all[to as usize]);
        if from != to && f.has_node() && f.node != t.node {
            edges.push((from, to));
        }
    };
    for (i, ids, term) in facts {
        for id in &ids {
            if let Some(&o) = origin.get(id) {
                edge(o, i);
            }
        }
        if let Some(&l) = term.and_then(|t| leader_of_term.get(&t)) {
            edge(l, i);
        }
    }
}
