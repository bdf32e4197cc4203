//! The merge: every input's events in one order. Each input is in order, so is each node; across nodes
//! clocks decide, within the skew tolerance, and the happens-before graph wins over clocks: each node's order
//! within an input (a test-output input's whole order), a node's rotated files after each other, and the
//! causal facts the logs carry ([`super::causal`]). Kahn's algorithm takes, among the events whose
//! predecessors are done, the earliest clock first.

use super::causal::add_causal_edges;
use crate::event_store::{Head, InputData, InputEvents, NO_NODE};
use crate::happens_before::HappensBefore;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

/// Clock, input, byte offset: how ready events are ordered.
type OrderKey = (i64, u32, u64);

/// What the merge gives the timeline: the gathered heads and the order to read them in.
pub(super) struct Merged {
    /// Every head, each input's a contiguous range in input order; `node` is the run's node number.
    pub all: Vec<Head>,
    /// Indexes into `all`, in merged order.
    pub order: Vec<u32>,
    /// The happens-before graph over indexes into `all`.
    pub graph: HappensBefore,
    /// Edges of the graph that run backwards in time by more than the skew tolerance (indexes into `all`).
    pub skew_warnings: Vec<(usize, usize)>,
    /// Each input's fields and excerpts.
    pub data: Vec<Arc<InputData>>,
    /// The run's node names, by run node number.
    pub run_nodes: Vec<Arc<str>>,
}

/// Merges per-input events whose nodes are named ([`super::identity::name_nodes`]). `test_output`: which
/// inputs are one JVM's output, whose whole order is the truth.
pub(super) fn merge(
    mut per_input: Vec<InputEvents>,
    test_output: &[bool],
    rules: super::MergeRules,
    clock: &mut std::time::Instant,
) -> Merged {
    let max_skew_ms = rules.max_skew_ms;
    // From here on a head's node is the run's node number, not its input's.
    let mut run_nodes: Vec<Arc<str>> = Vec::new();
    let mut run_node_ids: HashMap<Arc<str>, u32> = HashMap::new();
    for events in &mut per_input {
        let to_run: Vec<u32> = events
            .nodes
            .iter()
            .map(|n| {
                *run_node_ids.entry(n.clone()).or_insert_with(|| {
                    run_nodes.push(n.clone());
                    (run_nodes.len() - 1) as u32
                })
            })
            .collect();
        for h in &mut events.heads {
            if h.has_node() {
                h.node = to_run[h.node as usize];
            }
        }
    }

    // All heads in one list, each input's a contiguous range in input order. The list grows from the
    // largest input's own (a large vector grows in place), and each input's list is freed once moved, so
    // that no second copy of every head is held while they are gathered.
    let total: usize = per_input.iter().map(InputEvents::len).sum();
    let largest = (0..per_input.len()).max_by_key(|&i| per_input[i].len());
    let mut all: Vec<Head> = match largest {
        Some(i) => std::mem::take(&mut per_input[i].heads),
        None => Vec::new(),
    };
    all.reserve_exact(total - all.len());
    let mut ranges: Vec<std::ops::Range<usize>> = vec![0..0; per_input.len()];
    if let Some(i) = largest {
        ranges[i] = 0..all.len();
    }
    for (i, events) in per_input.iter_mut().enumerate() {
        if Some(i) != largest {
            let start = all.len();
            all.append(&mut events.heads);
            events.heads = Vec::new();
            ranges[i] = start..all.len();
        }
    }
    let data: Vec<Arc<InputData>> = per_input.into_iter().map(|e| Arc::new(e.data)).collect();

    // The happens-before graph: each node's order within an input (a test-output input's whole order), the
    // rotated files of one node after each other, then causal facts.
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(total + total / 8);
    let mut last_of_node: HashMap<u32, u32> = HashMap::new();
    for (input, range) in ranges.iter().enumerate() {
        let one_chain = test_output.get(input).copied().unwrap_or(false);
        let mut prev_of_node: HashMap<u32, u32> = HashMap::new();
        let mut prev: Option<u32> = None;
        for ix in range.clone() {
            let node = all[ix].node;
            let ix = ix as u32;
            let before = if one_chain {
                prev
            } else {
                prev_of_node.get(&node).copied()
            };
            if let Some(p) = before {
                edges.push((p, ix));
            }
            // A node's first event in this input follows its last one in the inputs before (its older rotation).
            if node != NO_NODE && !prev_of_node.contains_key(&node) {
                if let Some(&p) = last_of_node.get(&node) {
                    edges.push((p, ix));
                }
            }
            prev_of_node.insert(node, ix);
            prev = Some(ix);
        }
        for (node, ix) in prev_of_node {
            if node != NO_NODE {
                last_of_node.insert(node, ix);
            }
        }
    }
    crate::timings::phase("merge: gathering heads and node edges", clock);
    add_causal_edges(&all, &data, rules.causal, &mut edges);
    crate::timings::phase("merge: causal edges", clock);
    edges.sort_unstable();
    edges.dedup();
    let graph = HappensBefore::new(all.len(), &edges);
    drop(edges);

    // Kahn's algorithm, earliest clock first among the ready events.
    let mut indegree: Vec<u32> = vec![0; all.len()];
    for i in 0..all.len() {
        for &j in graph.successors(i) {
            indegree[j as usize] += 1;
        }
    }
    let key = |i: usize| {
        let h = &all[i];
        (
            h.time().map_or(i64::MIN, |t| t.millis),
            h.span.input,
            h.span.byte_offset,
        )
    };
    let mut ready: BinaryHeap<Reverse<(OrderKey, u32)>> = (0..all.len())
        .filter(|&i| indegree[i] == 0)
        .map(|i| Reverse((key(i), i as u32)))
        .collect();
    let mut order: Vec<u32> = Vec::with_capacity(all.len());
    let mut skew_warnings = Vec::new();
    while let Some(Reverse((_, i))) = ready.pop() {
        let i = i as usize;
        order.push(i as u32);
        for &j in graph.successors(i) {
            let j = j as usize;
            if let (Some(a), Some(b)) = (all[i].time(), all[j].time()) {
                let apart = all[i].span.input != all[j].span.input || all[i].node != all[j].node;
                if a.millis - b.millis > max_skew_ms && apart {
                    skew_warnings.push((i, j));
                }
            }
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(Reverse((key(j), j as u32)));
            }
        }
    }
    drop(indegree);
    crate::timings::phase("merge: ordering", clock);
    if order.len() < all.len() {
        // The logs contradict themselves (a key used before it was made): fall back to clocks for the rest.
        let mut done = vec![false; all.len()];
        for &i in &order {
            done[i as usize] = true;
        }
        let mut rest: Vec<u32> = (0..all.len() as u32)
            .filter(|&i| !done[i as usize])
            .collect();
        rest.sort_by_key(|&i| key(i as usize));
        order.extend(rest);
    }
    Merged {
        all,
        order,
        graph,
        skew_warnings,
        data,
        run_nodes,
    }
}
