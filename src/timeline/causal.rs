//! Causal facts the logs carry, as happens-before edges between nodes, which win over clocks in the merge.
//!
//! The facts are the bugs' own: each bug names the rules it needs in its registry entry
//! ([`crate::bugs::Bug::causal`]), and the merge applies every registered rule
//! ([`crate::bugs::causal_rules`]), so that every model reads one order whichever models a run checks.

use crate::event_store::{Gathered, Head, InputData, NO_NODE};
use crate::value::Value;
use crate::vocab::EventKind;
use std::collections::HashMap;
use std::sync::Arc;

/// A happens-before fact one log line carries, as a token (`key:<id>`, `term:<n>`): the first line that
/// makes a token comes before every line of another node that uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    Makes(String),
    Uses(String),
}

/// Reads the facts of one event (its kind and fields) into the list.
pub type ReadFacts = fn(EventKind, &[(&'static str, Value)], &mut Vec<Fact>);

/// A rule that reads causal facts off events: which kinds carry them, and the facts of one event.
pub struct CausalRule {
    /// Names the rule: a rule that two bugs list is applied once.
    pub name: &'static str,
    /// Does an event of this kind carry facts? (Only those events' fields are read back.)
    pub carries: fn(EventKind) -> bool,
    /// The facts of one event of a kind the rule carries.
    pub facts: ReadFacts,
}

impl std::fmt::Debug for CausalRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Adds an edge from the first event that makes each token to every event of another node that uses it.
pub(super) fn add_causal_edges(
    all: &Gathered,
    data: &[Arc<InputData>],
    rules: &[&CausalRule],
    edges: &mut Vec<(u32, u32)>,
) {
    if rules.is_empty() {
        return;
    }
    let fields_of = |h: &Head| data[h.span.input as usize].fields(h);
    let carried: Vec<bool> = EventKind::ALL
        .iter()
        .map(|&k| rules.iter().any(|r| (r.carries)(k)))
        .collect();
    // The maker and each user with its node, read in the one pass: no head is read again by number.
    let mut maker: HashMap<String, (u32, u32)> = HashMap::new();
    let mut uses: Vec<(u32, u32, String)> = Vec::new();
    let mut facts = Vec::new();
    for (i, h) in all.iter().enumerate() {
        if !carried[h.kind.index()] {
            continue;
        }
        let i = i as u32;
        let fields = fields_of(&h);
        facts.clear();
        for r in rules.iter().filter(|r| (r.carries)(h.kind)) {
            (r.facts)(h.kind, &fields, &mut facts);
        }
        for fact in facts.drain(..) {
            match fact {
                Fact::Makes(token) => {
                    maker.entry(token).or_insert((i, h.node));
                }
                Fact::Uses(token) => uses.push((i, h.node, token)),
            }
        }
    }
    for (i, node, token) in uses {
        let Some(&(from, maker_node)) = maker.get(&token) else {
            continue;
        };
        if from != i && maker_node != NO_NODE && maker_node != node {
            edges.push((from, i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_store::InputEvents;
    use crate::monitor::testkit::{ev, key, keys};
    use crate::spill::CHUNK;

    /// Past the memory budget the heads are on disk: the edges come from one pass over them, with no head
    /// read again by number.
    #[test]
    fn causal_edges_come_from_one_pass_over_the_heads() {
        let mut input = InputEvents::spilling();
        input.push(ev(
            EventKind::SecretKeyGenerated,
            "scm1",
            0,
            vec![("key", key("k1", 0))],
        ));
        for i in 1..3 * CHUNK {
            let node = if i % 2 == 0 { "scm1" } else { "scm2" };
            let e = ev(
                EventKind::SecretKeysUpdated,
                node,
                i as i64,
                vec![("keys", keys(&[("k1", 0)]))],
            );
            input.push(e);
        }
        let data = vec![Arc::new(input.data)];
        let mut all = Gathered::default();
        all.append(input.heads, vec![0, 1]);
        let mut edges = Vec::new();
        add_causal_edges(
            &all,
            &data,
            &[&crate::bugs::scm_secret_keys::KEY_ORIGIN],
            &mut edges,
        );
        // scm2's uses of the key scm1 made, and none of scm1's own.
        let expected: Vec<(u32, u32)> = (1..3 * CHUNK as u32)
            .filter(|i| i % 2 == 1)
            .map(|i| (0, i))
            .collect();
        assert_eq!(edges, expected);
        assert_eq!(all.chunks_read(), 3, "each chunk once");
    }
}
