//! The merge: every input's events in one order. Each input is in order, so is each node; across nodes
//! clocks decide, within the skew tolerance, and the happens-before graph wins over clocks. Kahn's
//! algorithm takes, among the events whose predecessors are done, the earliest clock first.
//!
//! The graph is chains and a few edges. A chain is one input's events of one node (of a test-output input,
//! all its events: one clock), in input order: its edges are implicit, each event's successor the next
//! event of its chain ([`Chains`]). The other edges are few, and kept as a list: a node's rotated files
//! after each other (its last event in one input before its first in the next) and the causal facts the
//! logs carry ([`super::causal`]). An event is ready when its chain predecessor is out and its listed
//! in-edges are done, so the ready set holds at most one event per chain: the merge is a k-way merge of the
//! chains, and holds no edge, in-degree or adjacency list per event (it used to, three times over, which
//! was the merge's peak memory).

use super::causal::CausalEdges;
use crate::event_store::{Gathered, Head, InputData, InputEvents, NO_NODE};
use crate::happens_before::HappensBefore;
use crate::ranked::Ranked;
use crate::spill::Run;
use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

/// Clock, input, byte offset: how ready events are ordered.
type OrderKey = (i64, u32, u64);

fn order_key(h: &Head) -> OrderKey {
    (
        h.time().map_or(i64::MIN, |t| t.millis),
        h.span.input,
        h.span.byte_offset,
    )
}

/// No event: the end of a chain.
const NONE: u32 = u32::MAX;

/// What the merge gives the timeline: the gathered heads and the order to read them in.
pub(super) struct Merged {
    /// Every head, each input's a contiguous range in input order; `node` is the run's node number.
    pub all: Gathered,
    /// Indexes into `all`, in merged order.
    pub order: Run<u32>,
    /// The happens-before graph, over places in the merged order.
    pub happens_before: HappensBefore,
    /// Edges of the graph that run backwards in time by more than the skew tolerance (places in the merged
    /// order).
    pub skew_warnings: Vec<(usize, usize)>,
    /// Each input's fields and excerpts.
    pub data: Vec<Arc<InputData>>,
    /// The run's node names, by run node number.
    pub run_nodes: Vec<Arc<str>>,
}

/// The chains of the happens-before graph: each event's successor in its chain, and whether its predecessor
/// in its chain is out.
struct Chains {
    /// `next[i]`: the event after `i` in its chain ([`NONE`] at a chain's end).
    next: Run<u32>,
    /// Bit `i`: event `i`'s chain predecessor is out (set from the start for the first event of a chain).
    pred_done: FixedBitSet,
}

impl Chains {
    fn pred_done(&self, i: u32) -> bool {
        self.pred_done.contains(i as usize)
    }

    fn set_pred_done(&mut self, i: u32) {
        self.pred_done.insert(i as usize);
    }
}

/// The chains of the gathered heads (`ranges`: each input's), and the edges between a node's rotated
/// files: its last event in the latest input before, to its first in this one. `visit` is given every
/// head, with its number, as the pass reads it.
fn chains(
    all: &Gathered,
    ranges: &[std::ops::Range<usize>],
    test_output: &[bool],
    edges: &mut Vec<(u32, u32)>,
    mut visit: impl FnMut(u32, &Head),
) -> Chains {
    let mut next = Run::with_own_cache(crate::memory::chains_cache_budget());
    for _ in 0..all.len() {
        next.push(NONE);
    }
    let mut chains = Chains {
        next,
        pred_done: FixedBitSet::with_capacity(all.len()),
    };
    let mut last_of_node: FxHashMap<u32, u32> = FxHashMap::default();
    let mut reader = all.reader();
    for (input, range) in ranges.iter().enumerate() {
        let one_chain = test_output.get(input).copied().unwrap_or(false);
        // Each node's latest event in this input (node-less events are a chain of their own).
        let mut prev_of_node: FxHashMap<u32, u32> = FxHashMap::default();
        let mut prev: Option<u32> = None;
        for ix in range.clone() {
            let h = reader.get(ix);
            let ix = ix as u32;
            visit(ix, &h);
            let node = h.node;
            let seen_here = prev_of_node.insert(node, ix);
            let before = if one_chain { prev } else { seen_here };
            match before {
                Some(p) => chains.next.set(p as usize, ix),
                None => chains.set_pred_done(ix),
            }
            // A node's first event in this input follows its last one in the inputs before (its older rotation).
            if node != NO_NODE && seen_here.is_none() {
                if let Some(&p) = last_of_node.get(&node) {
                    edges.push((p, ix));
                }
            }
            prev = Some(ix);
        }
        for (node, ix) in prev_of_node {
            if node != NO_NODE {
                last_of_node.insert(node, ix);
            }
        }
    }
    chains
}

/// Merges per-input events whose nodes are named ([`super::identity::name_nodes`]). `test_output`: which
/// inputs are one JVM's output, whose whole order is the truth.
///
/// `visit` is given every head in merged order, with its place, each input's data and the run's node names:
/// it runs on a second thread as the order is made ([`visiting_in_merged_order`]).
pub(super) fn merge(
    mut per_input: Vec<InputEvents>,
    test_output: &[bool],
    rules: super::MergeRules,
    clock: &mut std::time::Instant,
    visit: &mut Visit,
) -> Merged {
    // From here on a head's node is the run's node number, not its input's.
    let mut run_nodes: Vec<Arc<str>> = Vec::new();
    let mut run_node_ids: HashMap<Arc<str>, u32> = HashMap::new();
    // Each input's node numbers to the run's, applied as the gathered heads are read.
    let mut to_run: Vec<Vec<u32>> = per_input
        .iter()
        .map(|events| {
            events
                .nodes
                .iter()
                .map(|n| {
                    *run_node_ids.entry(n.clone()).or_insert_with(|| {
                        run_nodes.push(n.clone());
                        (run_nodes.len() - 1) as u32
                    })
                })
                .collect()
        })
        .collect();

    // All heads numbered one after the other, each input's a contiguous range in input order, the largest
    // input first (as when they were gathered into one vector; the numbers break ties in the order).
    let largest = (0..per_input.len()).max_by_key(|&i| per_input[i].len());
    let mut all = Gathered::default();
    let mut ranges: Vec<std::ops::Range<usize>> = vec![0..0; per_input.len()];
    let inputs = largest
        .into_iter()
        .chain((0..per_input.len()).filter(|&i| Some(i) != largest));
    for i in inputs {
        let start = all.len();
        all.append(
            std::mem::take(&mut per_input[i].heads),
            std::mem::take(&mut to_run[i]),
        );
        ranges[i] = start..all.len();
    }
    let data: Vec<Arc<InputData>> = per_input.into_iter().map(|e| Arc::new(e.data)).collect();

    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut causal = CausalEdges::new(&data, rules.causal);
    let mut chains = chains(&all, &ranges, test_output, &mut edges, |i, h| {
        causal.observe(i, h)
    });
    crate::timings::phase("merge: gathering heads, chains and causal facts", clock);
    causal.add_to(&mut edges);
    crate::timings::phase("merge: causal edges", clock);
    // An edge the chains already hold (a causal fact within one test-output input) is not listed twice.
    edges.retain(|&(from, to)| chains.next.get(from as usize) != to);
    edges.sort_unstable();
    edges.dedup();
    let Ordered {
        order,
        places,
        skew_warnings,
        kept_every_edge,
    } = visiting_in_merged_order(&all, &data, &run_nodes, visit, |out| {
        kahn(&all, &mut chains, &edges, rules.max_skew_ms, out)
    });
    crate::timings::phase(
        "merge: ordering (and the pass in merged order beside it)",
        clock,
    );

    let place = |i: u32| places.of(i);
    let mut by_place: Vec<(u32, u32)> = edges.iter().map(|&(f, t)| (place(f), place(t))).collect();
    let skew_warnings = skew_warnings
        .into_iter()
        .map(|(a, b)| (a as usize, place(b) as usize))
        .collect();
    let happens_before = if kept_every_edge {
        by_place.sort_unstable();
        HappensBefore::chains(by_place)
    } else {
        // The logs contradict themselves and the order broke an edge: the whole graph, over places.
        let mut position = vec![0u32; all.len()];
        for (p, i) in order.iter().enumerate() {
            position[i as usize] = p as u32;
        }
        by_place.extend(
            chains
                .next
                .iter()
                .enumerate()
                .filter(|&(_, next)| next != NONE)
                .map(|(i, next)| (position[i], position[next as usize])),
        );
        by_place.sort_unstable();
        HappensBefore::whole(all.len(), &by_place)
    };
    Merged {
        all,
        order,
        happens_before,
        skew_warnings,
        data,
        run_nodes,
    }
}

/// What is given every head in merged order ([`merge`]): its place, the head (the run's node number), each
/// input's data and the run's node names.
pub(super) type Visit<'v> = dyn FnMut(usize, Head, &[Arc<InputData>], &[Arc<str>]) + Send + 'v;

/// Heads go to the visiting thread in batches of this many.
const VISIT_BATCH: usize = 4096;

/// Runs `order`, which gives each event's number as it goes out, while a second thread reads those heads
/// and gives each to `visit` with its place: a pass in merged order that needs nothing of the ordering but
/// the order runs beside it on another CPU, instead of reading every head again after it.
fn visiting_in_merged_order<R>(
    all: &Gathered,
    data: &[Arc<InputData>],
    run_nodes: &[Arc<str>],
    visit: &mut Visit,
    order: impl FnOnce(&mut dyn FnMut(u32)) -> R,
) -> R {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u32>>(16);
    std::thread::scope(|scope| {
        let visitor = scope.spawn(move || {
            let mut reader = all.reader();
            let mut place = 0;
            for batch in rx {
                for at in batch {
                    visit(place, reader.get(at as usize), data, run_nodes);
                    place += 1;
                }
            }
        });
        let mut batch = Vec::with_capacity(VISIT_BATCH);
        let result = order(&mut |at| {
            batch.push(at);
            if batch.len() == VISIT_BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(VISIT_BATCH));
                // A visitor that stopped has panicked: the join below says so.
                let _ = tx.send(full);
            }
        });
        let _ = tx.send(batch);
        drop(tx);
        if let Err(panic) = visitor.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

/// What Kahn's algorithm gives.
struct Ordered {
    /// Indexes into the gathered heads, in merged order.
    order: Run<u32>,
    /// The place in `order` of every event an edge or a skew warning names.
    places: Places,
    /// Edges that run backwards in time by more than the tolerance between two nodes or inputs: the earlier
    /// event's place, the later event's index.
    skew_warnings: Vec<(u32, u32)>,
    /// False when the logs contradict themselves and the rest went by clocks.
    kept_every_edge: bool,
}

/// The place in the merged order of every event an edge or a skew warning names ([`NONE`] until it is out):
/// by rank for the edges' events, known before the merge starts, and in a map for the few a skew warning
/// names besides.
#[derive(Default)]
struct Places {
    by_rank: Ranked<u32>,
    others: FxHashMap<u32, u32>,
}

impl Places {
    /// Names event `i` (a skew warning's), if no edge named it.
    fn name(&mut self, i: u32) {
        if !self.by_rank.contains(i as usize) {
            self.others.entry(i).or_insert(NONE);
        }
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut u32> {
        match self.by_rank.get_mut(i as usize) {
            Some(p) => Some(p),
            None if self.others.is_empty() => None,
            None => self.others.get_mut(&i),
        }
    }

    /// The place of a named event.
    fn of(&self, i: u32) -> u32 {
        match self.by_rank.get(i as usize) {
            Some(&p) => p,
            None => self.others[&i],
        }
    }
}

/// Kahn's algorithm, earliest clock first among the ready events, over `chains` and the listed `edges`
/// (sorted, none a chain's). `out` is given each event as it goes out.
fn kahn(
    all: &Gathered,
    chains: &mut Chains,
    edges: &[(u32, u32)],
    max_skew_ms: i64,
    out: &mut dyn FnMut(u32),
) -> Ordered {
    // Ready events are read chain by chain, each forwards: a reader that holds each run's chunk.
    let mut reader = all.reader();
    // Every event out is looked up among the events edges leave, enter and name, in chain order: by rank
    // ([`Ranked`]), near the lookup before it. Hash maps missed the cache on every lookup past a few million
    // edges (most of the ordering's time on a 4.8 GB log), and a binary search of the edges per event was a
    // third of what was left.
    // The listed edges each event leaves: its range of `edges` (sorted by their first event).
    let mut leaving: Ranked<(u32, u32)> = Ranked::default();
    let mut start = 0u32;
    for group in edges.chunk_by(|x, y| x.0 == y.0) {
        let end = start + group.len() as u32;
        leaving.push(group[0].0 as usize, (start, end));
        start = end;
    }
    // The listed in-edges not yet done, of each event that has some.
    let mut entering: Vec<u32> = edges.iter().map(|e| e.1).collect();
    entering.sort_unstable();
    let mut waiting: Ranked<u32> = Ranked::default();
    for group in entering.chunk_by(|x, y| x == y) {
        waiting.push(group[0] as usize, group.len() as u32);
    }
    drop(entering);
    // The place of each event an edge names, once it is out.
    let mut named: Vec<u32> = edges.iter().flat_map(|&(f, t)| [f, t]).collect();
    named.sort_unstable();
    named.dedup();
    let mut places = Places::default();
    for i in named {
        places.by_rank.push(i as usize, NONE);
    }
    let ready_now = |chains: &Chains, waiting: &Ranked<u32>, j: u32| {
        chains.pred_done(j) && waiting.get(j as usize).is_none_or(|&w| w == 0)
    };
    // The first events of the chains: only their heads are read.
    let mut ready: BinaryHeap<Reverse<(OrderKey, u32)>> = (0..all.len() as u32)
        .filter(|&i| ready_now(chains, &waiting, i))
        .map(|i| Reverse((order_key(&reader.get(i as usize)), i)))
        .collect();
    let mut order: Run<u32> = Run::new();
    let mut skew_warnings = Vec::new();
    let mut successors: Vec<u32> = Vec::new();
    while let Some(Reverse((_, i))) = ready.pop() {
        let at = order.len() as u32;
        order.push(i);
        out(i);
        if let Some(p) = places.get_mut(i) {
            *p = at;
        }
        // The successors in increasing order, as the warnings have always been listed.
        successors.clear();
        if let Some(&(start, end)) = leaving.get(i as usize) {
            successors.extend(edges[start as usize..end as usize].iter().map(|e| e.1));
        }
        let next = chains.next.get(i as usize);
        if next != NONE {
            let k = successors.partition_point(|&j| j < next);
            successors.insert(k, next);
        }
        let a = reader.get(i as usize);
        for &j in &successors {
            let b = reader.get(j as usize);
            if let (Some(ta), Some(tb)) = (a.time(), b.time()) {
                let apart = a.span.input != b.span.input || a.node != b.node;
                if ta.millis - tb.millis > max_skew_ms && apart {
                    skew_warnings.push((at, j));
                    places.name(j);
                }
            }
            if j == next {
                chains.set_pred_done(j);
            } else if let Some(w) = waiting.get_mut(j as usize) {
                *w -= 1;
            }
            if ready_now(chains, &waiting, j) {
                ready.push(Reverse((order_key(&b), j)));
            }
        }
    }
    let kept_every_edge = order.len() == all.len();
    if !kept_every_edge {
        // The logs contradict themselves (a key used before it was made): fall back to clocks for the rest.
        let mut done = vec![false; all.len()];
        for i in order.iter() {
            done[i as usize] = true;
        }
        let mut rest: Vec<u32> = (0..all.len() as u32)
            .filter(|&i| !done[i as usize])
            .collect();
        rest.sort_by_key(|&i| order_key(&reader.get(i as usize)));
        for i in rest {
            if let Some(p) = places.get_mut(i) {
                *p = order.len() as u32;
            }
            order.push(i);
            out(i);
        }
    }
    Ordered {
        order,
        places,
        skew_warnings,
        kept_every_edge,
    }
}

#[cfg(test)]
mod tests {
    use super::super::causal::{add_causal_edges, CausalRule, Fact};
    use super::super::MergeRules;
    use super::*;
    use crate::event::Span;
    use crate::happens_before::Adjacency;
    use crate::monitor::testkit::{ev, text};
    use crate::value::Value;
    use crate::vocab::EventKind;
    use proptest::prelude::*;

    /// Facts from the test events' own fields: `makes` and `uses` a token.
    fn test_facts(_: EventKind, fields: &[(&'static str, Value)], out: &mut Vec<Fact>) {
        for (name, value) in fields {
            if let Value::Str(token) = value {
                match *name {
                    "makes" => out.push(Fact::Makes(token.clone())),
                    "uses" => out.push(Fact::Uses(token.clone())),
                    _ => {}
                }
            }
        }
    }

    static TOKENS: CausalRule = CausalRule {
        name: "test-tokens",
        carries: |_| true,
        facts: test_facts,
    };

    /// The merge as it was before chains: every edge listed, Kahn's algorithm over in-degrees, then the
    /// whole graph renumbered into the merged order. The oracle the chains must agree with exactly.
    fn merge_by_whole_graph(
        all: &[Head],
        gathered: &Gathered,
        ranges: &[std::ops::Range<usize>],
        data: &[Arc<InputData>],
        test_output: &[bool],
        max_skew_ms: i64,
    ) -> (Vec<u32>, Vec<(usize, usize)>, Adjacency) {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut last_of_node: HashMap<u32, u32> = HashMap::new();
        for (input, range) in ranges.iter().enumerate() {
            let one_chain = test_output[input];
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
        add_causal_edges(gathered, data, &[&TOKENS], &mut edges);
        edges.sort_unstable();
        edges.dedup();
        let graph = Adjacency::new(all.len(), &edges);
        let mut indegree: Vec<u32> = vec![0; all.len()];
        for &(_, to) in &edges {
            indegree[to as usize] += 1;
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
        let mut order: Vec<u32> = Vec::new();
        let mut warnings = Vec::new();
        while let Some(Reverse((_, i))) = ready.pop() {
            let i = i as usize;
            order.push(i as u32);
            for &j in graph.successors(i) {
                let j = j as usize;
                if let (Some(a), Some(b)) = (all[i].time(), all[j].time()) {
                    let apart =
                        all[i].span.input != all[j].span.input || all[i].node != all[j].node;
                    if a.millis - b.millis > max_skew_ms && apart {
                        warnings.push((i, j));
                    }
                }
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    ready.push(Reverse((key(j), j as u32)));
                }
            }
        }
        if order.len() < all.len() {
            let mut rest: Vec<u32> = (0..all.len() as u32)
                .filter(|i| !order.contains(i))
                .collect();
            rest.sort_by_key(|&i| key(i as usize));
            order.extend(rest);
        }
        let mut position = vec![0u32; all.len()];
        for (p, &i) in order.iter().enumerate() {
            position[i as usize] = p as u32;
        }
        let warnings = warnings
            .into_iter()
            .map(|(a, b)| (position[a] as usize, position[b] as usize))
            .collect();
        let renumbered: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(f, t)| (position[f as usize], position[t as usize]))
            .collect();
        (order, warnings, Adjacency::new(all.len(), &renumbered))
    }

    /// One generated event: node (0 = none), clock, and the token it makes or uses.
    type Gen = (u8, i64, Option<(bool, u8)>);

    fn inputs_of(spec: &[(bool, Vec<Gen>)]) -> Vec<InputEvents> {
        spec.iter()
            .enumerate()
            .map(|(input, (_, events))| {
                let mut store = InputEvents::new();
                for (line, &(node, ms, token)) in events.iter().enumerate() {
                    let name = if node == 0 {
                        String::new()
                    } else {
                        format!("n{node}")
                    };
                    let fields = token
                        .map(|(makes, t)| {
                            let name = if makes { "makes" } else { "uses" };
                            vec![(name, text(&format!("t{t}")))]
                        })
                        .unwrap_or_default();
                    let mut e = ev(EventKind::SecretKeysUpdated, &name, ms, fields);
                    e.span = Span {
                        input: input as u32,
                        line: line as u64 + 1,
                        byte_offset: line as u64 * 10,
                        byte_len: 10,
                    };
                    store.push(e);
                }
                store
            })
            .collect()
    }

    fn an_input() -> impl Strategy<Value = (bool, Vec<Gen>)> {
        let event = (
            0u8..4,
            0i64..40,
            proptest::option::weighted(0.3, (any::<bool>(), 0u8..4)),
        );
        (
            proptest::bool::weighted(0.3),
            proptest::collection::vec(event, 0..24),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// The chains give the order, the skew warnings and the happens-before answers the whole graph gave,
        /// whatever the nodes, clocks and causal facts (cycles included).
        #[test]
        fn the_chains_merge_as_the_whole_graph_did(
            spec in proptest::collection::vec(an_input(), 1..4),
            skew in 0i64..10,
        ) {
            let test_output: Vec<bool> = spec.iter().map(|(t, _)| *t).collect();
            let rules = MergeRules { max_skew_ms: skew, causal: &[&TOKENS] };
            let mut clock = std::time::Instant::now();
            let got = merge(inputs_of(&spec), &test_output, rules, &mut clock, &mut |_, _, _, _| {});

            let mut lens = spec.iter().map(|(_, e)| e.len());
            // The oracle reads the heads as the merge gathered them.
            let largest = (0..spec.len()).max_by_key(|&i| spec[i].1.len()).unwrap();
            let mut ranges = vec![0..0; spec.len()];
            let mut start = spec[largest].1.len();
            ranges[largest] = 0..start;
            for (i, len) in (0..spec.len()).zip(&mut lens) {
                if i != largest {
                    ranges[i] = start..start + len;
                    start += len;
                }
            }
            let heads: Vec<Head> = got.all.iter().collect();
            let mut all = Gathered::default();
            all.append_as_is(heads.iter().copied().collect());
            let (order, warnings, whole) =
                merge_by_whole_graph(&heads, &all, &ranges, &got.data, &test_output, skew);
            let got_order: Vec<u32> = got.order.iter().collect();
            prop_assert_eq!(&got_order, &order);
            prop_assert_eq!(&got.skew_warnings, &warnings);
            let chain = |p: usize| {
                let h = &heads[got.order.get(p) as usize];
                let node = if test_output[h.span.input as usize] { u32::MAX - 1 } else { h.node };
                (u64::from(h.span.input) << 32) | u64::from(node)
            };
            for a in 0..order.len() {
                for b in a..order.len() {
                    prop_assert_eq!(
                        got.happens_before.reaches(a, b, chain),
                        whole.reaches(a, b),
                        "{} -> {}", a, b
                    );
                }
            }
        }
    }
}
