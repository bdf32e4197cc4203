//! The Raft facts SCM logs carry, which both SCM bugs need to order their nodes' lines.

use crate::timeline::causal::{CausalRule, Fact};
use crate::value::Value;
use crate::vocab::EventKind;

/// An SCM log entry of term T is written by the leader of term T: that SCM's `changes role ... to LEADER at
/// term T` comes before any other SCM installs, reloads or restores state at term T.
pub const LEADER_TERM: CausalRule = CausalRule {
    name: "leader-term",
    carries: |kind| kind == EventKind::ScmBecameLeader || entry_term_kind(kind),
    facts: |kind, fields, out| {
        let of = |name: &str| fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        if kind == EventKind::ScmBecameLeader {
            if let Some(t) = of("term").and_then(Value::as_i64) {
                out.push(Fact::Makes(format!("term:{t}")));
            }
        }
        let term = match kind {
            EventKind::CheckpointInstalled | EventKind::ScmStateReloaded => {
                of("term").and_then(Value::as_i64)
            }
            EventKind::AppliedIndexRestored => match of("tx") {
                Some(Value::TermIndex { term, .. }) => Some(*term),
                _ => None,
            },
            EventKind::StateMachineReinitializing => match of("term_index") {
                Some(Value::TermIndex { term, .. }) => Some(*term),
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = term {
            out.push(Fact::Uses(format!("term:{t}")));
        }
    },
};

/// The kinds whose log entry or checkpoint belongs to a Raft term.
fn entry_term_kind(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::CheckpointInstalled
            | EventKind::ScmStateReloaded
            | EventKind::AppliedIndexRestored
            | EventKind::StateMachineReinitializing
    )
}
