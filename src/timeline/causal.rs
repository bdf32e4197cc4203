//! Causal facts the logs carry, as happens-before edges between nodes, which win over clocks in the merge.
//!
//! The facts are the bugs' own: each bug names the rules it needs in its registry entry
//! ([`crate::bugs::Bug::causal`]), and the merge applies every registered rule
//! ([`crate::bugs::causal_rules`]), so that every model reads one order whichever models a run checks.

use crate::event_store::{Head, InputData, NO_NODE};
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

/// Adds an edge from the first event that makes each token to every event of another node that uses it, in
/// one pass over the heads (the merge reads them in its chain pass instead: [`CausalEdges`]).
#[cfg(test)]
pub(super) fn add_causal_edges(
    all: &crate::event_store::Gathered,
    data: &[Arc<InputData>],
    rules: &[&CausalRule],
    edges: &mut Vec<(u32, u32)>,
) {
    let mut causal = CausalEdges::new(data, rules);
    for (i, h) in all.iter().enumerate() {
        causal.observe(i as u32, &h);
    }
    causal.add_to(edges);
}

/// The causal edges of a run's events, read an event at a time in any order: the merge's chain pass reads
/// every head already, so the facts cost no pass of their own (past the memory budget a pass reads every
/// head back from disk).
pub(super) struct CausalEdges<'a> {
    data: &'a [Arc<InputData>],
    rules: &'a [&'a CausalRule],
    /// Which kinds some rule reads facts off (only their fields are read back).
    carried: Vec<bool>,
    /// The first event (lowest number) that makes each token, with its node.
    maker: HashMap<String, (u32, u32)>,
    /// Each use of a token, with the event's node.
    uses: Vec<(u32, u32, String)>,
    facts: Vec<Fact>,
}

impl<'a> CausalEdges<'a> {
    pub(super) fn new(data: &'a [Arc<InputData>], rules: &'a [&'a CausalRule]) -> CausalEdges<'a> {
        let carried = EventKind::ALL
            .iter()
            .map(|&k| rules.iter().any(|r| (r.carries)(k)))
            .collect();
        CausalEdges {
            data,
            rules,
            carried,
            maker: HashMap::new(),
            uses: Vec::new(),
            facts: Vec::new(),
        }
    }

    /// Head number `i` of the gathered heads (whose `node` is the run's node number).
    pub(super) fn observe(&mut self, i: u32, h: &Head) {
        if !self.carried[h.kind.index()] {
            return;
        }
        let fields = self.data[h.span.input as usize].fields(h);
        self.facts.clear();
        for r in self.rules.iter().filter(|r| (r.carries)(h.kind)) {
            (r.facts)(h.kind, &fields, &mut self.facts);
        }
        for fact in self.facts.drain(..) {
            match fact {
                Fact::Makes(token) => {
                    let first = self.maker.entry(token).or_insert((i, h.node));
                    if i < first.0 {
                        *first = (i, h.node);
                    }
                }
                Fact::Uses(token) => self.uses.push((i, h.node, token)),
            }
        }
    }

    /// Adds an edge from the first event that makes each token to every event of another node that uses it.
    pub(super) fn add_to(self, edges: &mut Vec<(u32, u32)>) {
        for (i, node, token) in self.uses {
            let Some(&(from, maker_node)) = self.maker.get(&token) else {
                continue;
            };
            if from != i && maker_node != NO_NODE && maker_node != node {
                edges.push((from, i));
            }
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
        let mut all = crate::event_store::Gathered::default();
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
