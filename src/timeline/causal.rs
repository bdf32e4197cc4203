//! Causal facts the logs carry, as happens-before edges between nodes, which win over clocks in the merge.
//!
//! The facts are the bugs' own: each bug names the rules it needs in its registry entry
//! ([`crate::bugs::Bug::causal`]), and the merge applies every registered rule
//! ([`crate::bugs::causal_rules`]), so that every model reads one order whichever models a run checks.

use crate::event_store::{Gathered, Head, InputData};
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
    let mut maker: HashMap<String, u32> = HashMap::new();
    let mut uses: Vec<(u32, String)> = Vec::new();
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
                    maker.entry(token).or_insert(i);
                }
                Fact::Uses(token) => uses.push((i, token)),
            }
        }
    }
    for (i, token) in uses {
        let Some(&from) = maker.get(&token) else {
            continue;
        };
        let (f, t) = (all.get(from as usize), all.get(i as usize));
        if from != i && f.has_node() && f.node != t.node {
            edges.push((from, i));
        }
    }
}
