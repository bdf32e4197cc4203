//! One ordered stream of events from all inputs, in three steps:
//!
//! 1. [`identity`]: which node wrote each line, read across inputs (banners, aliases, rotated files, ports);
//!    [`repeats`]: inputs and records that retell others are read once.
//! 2. [`order`]: the merge. Each input is in order, so is each node. Across nodes, clocks decide, within a
//!    skew tolerance; causal facts the logs carry ([`causal`]: a secret key id is first generated on one SCM
//!    and only then applied elsewhere) are edges in a happens-before graph that win over clocks.
//! 3. Here: the merged events numbered per node, with their lifecycle steps and clocks, as a [`Timeline`].

pub mod causal;
mod identity;
mod order;
mod repeats;

use crate::clock::{Clocks, GivenOffsets, KeyLines};
use crate::event::Event;
use crate::event_store::{EventStore, Head, InputData, InputEvents};
use crate::excerpt::{self, Excerpt};
use crate::grammar::Grammar;
use crate::happens_before::HappensBefore;
use crate::input::Source;
use crate::lifecycle::{LifeSteps, Lifecycle};
use crate::scan::{scan_input, InputStats, ScanOptions, UnparsedLine};
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use causal::CausalRule;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;

/// Default tolerance for clock differences between nodes (defined with the clock, which the scan also uses).
pub use crate::time::DEFAULT_MAX_SKEW_MS;

/// Which nodes a model watches: the nodes the logs say run `service`, and, among the nodes whose service the
/// logs do not tell (stdin without a banner, a renamed file), those that log an event for which
/// `unknown_service_if` holds. The monitor and the witness table of a bug both ask this one question, so
/// `check` and `export` agree on a model's nodes.
#[derive(Debug, Clone, Copy)]
pub struct Role {
    pub service: Component,
    pub unknown_service_if: fn(EventKind) -> bool,
}

impl Role {
    /// Only nodes known to run `service`.
    pub const fn known(service: Component) -> Role {
        Role {
            service,
            unknown_service_if: |_| false,
        }
    }

    /// Nodes known to run `service`, and every node of unknown service.
    pub const fn or_unknown(service: Component) -> Role {
        Role {
            service,
            unknown_service_if: |_| true,
        }
    }
}

/// All events of a run, merged.
pub struct Timeline {
    pub inputs: Vec<InputStats>,
    /// Events in the merged order: heads in memory, fields read back per event ([`EventStore`]).
    pub events: EventStore,
    /// The happens-before graph, in the merged order.
    happens_before: HappensBefore,
    /// The service each node runs (`scm`, `datanode`, `recon`, `om`), where the logs tell.
    pub services: rustc_hash::FxHashMap<Arc<str>, Component>,
    /// Every node, indexed by `Event::node_key`.
    pub node_names: Vec<Arc<str>>,
    /// The service of each node, by key.
    service_by_key: Vec<Option<Component>>,
    /// Inputs that are single-JVM integration-test output, whose banners are not one process's (MiniOzoneCluster:
    /// one clock, components start and stop in the JVM). A daemon run with the test layout is not among them.
    pub test_output: Vec<bool>,
    pub max_skew_ms: i64,
    /// Causal edges that contradict the clocks by more than the tolerance: (earlier, later) event indices.
    pub skew_warnings: Vec<(usize, usize)>,
    /// Each node's offset from UTC (log4j prints local time) and whether its clock orders it against others.
    pub clocks: Clocks,
    /// Nodes whose logs begin with their start (a banner, an in-JVM start, or SCM construction): their
    /// whole run is in view.
    pub started_in_view: std::collections::HashSet<Arc<str>>,
    /// The lifecycle step each event makes for its node (same index as `events`), computed once here so that
    /// every monitor and every witness table sees the same starts, stops and crashes.
    pub life: LifeSteps,
    /// The event kinds each node logs (by `Event::node_key`), as bit sets over [`EventKind::ALL`]: what
    /// [`Timeline::plays`] asks of nodes whose service the logs do not tell.
    kinds_by_node: Vec<Vec<u64>>,
    /// What [`Timeline::earliest_date_from`] answers, one value per [`DATE_FLOOR_BLOCK`] events.
    date_floor: Vec<i64>,
}

/// Events per value of [`Timeline::earliest_date_from`]: a few bytes per block, so the answer costs no
/// memory per event.
pub const DATE_FLOOR_BLOCK: usize = 1024;

/// How inputs are merged: the clock skew tolerated between nodes, and the causal rules whose edges win over
/// clocks (every registered bug's: [`crate::bugs::merge_rules`]).
#[derive(Debug, Clone, Copy)]
pub struct MergeRules<'a> {
    pub max_skew_ms: i64,
    pub causal: &'a [&'a CausalRule],
}

/// Scans every input (in parallel) and merges their events.
pub fn build(
    sources: &[Source],
    grammar: &Grammar,
    options: &ScanOptions,
    rules: MergeRules,
    on_unparsed: &(dyn Fn(&str, &UnparsedLine) + Sync),
) -> Timeline {
    let (inputs, per_input, test_output) = scan_all(sources, grammar, options, on_unparsed);
    from_inputs(inputs, per_input, test_output, rules)
}

/// Scans every input (in parallel): each one's counters and events (kept compactly as they come,
/// [`crate::event_store`]), and which are in the test layout; what [`from_inputs`] merges.
pub fn scan_all(
    sources: &[Source],
    grammar: &Grammar,
    options: &ScanOptions,
    on_unparsed: &(dyn Fn(&str, &UnparsedLine) + Sync),
) -> (Vec<InputStats>, Vec<InputEvents>, Vec<bool>) {
    let scanned: Vec<(InputStats, InputEvents)> = sources
        .par_iter()
        .enumerate()
        .map(|(i, source)| {
            let path = source.display();
            let mut events = InputEvents::new();
            let stats = scan_input(
                i as u32,
                source,
                grammar,
                options,
                |e| events.push(e),
                |u| on_unparsed(&path, u),
            );
            (stats, events)
        })
        .collect();
    let (inputs, per_input): (Vec<_>, Vec<_>) = scanned.into_iter().unzip();
    let test_output = test_layout(&inputs);
    (inputs, per_input, test_output)
}

/// Which of these inputs `check` leaves out because they retell the per-node logs given with them (their
/// `repeats`), for `stats` to say; the scan is `check`'s own.
pub fn retold(sources: &[Source], grammar: &Grammar, options: &ScanOptions) -> Vec<Option<String>> {
    let (mut inputs, mut per_input, test_output) = scan_all(sources, grammar, options, &|_, _| {});
    repeats::drop_repeated_story(&mut inputs, &mut per_input, &test_output);
    inputs.into_iter().map(|i| i.repeats).collect()
}

/// Which inputs are in the test layout (single-JVM output, whose order is the truth).
pub fn test_layout(inputs: &[InputStats]) -> Vec<bool> {
    inputs
        .iter()
        .map(|s| s.layout.as_deref() == Some("test"))
        .collect()
}

/// [`from_inputs`] for events held whole (event streams, live checks, tests).
pub fn from_events(
    inputs: Vec<InputStats>,
    per_input: Vec<Vec<Event>>,
    test_output: Vec<bool>,
    rules: MergeRules,
) -> Timeline {
    let per_input = per_input
        .into_iter()
        .map(InputEvents::from_events)
        .collect();
    from_inputs(inputs, per_input, test_output, rules)
}

/// Merges per-input events (each in input order). `test_output`: which inputs are in the test layout.
///
/// Within one input, order is kept per node, not across nodes: per-node logs concatenated into one file (or
/// piped on stdin) are merged by clocks and causal edges like separate files. Single-JVM test output has one
/// clock, so there the whole input's order is the truth.
pub fn from_inputs(
    mut inputs: Vec<InputStats>,
    mut per_input: Vec<InputEvents>,
    test_output: Vec<bool>,
    rules: MergeRules,
) -> Timeline {
    let max_skew_ms = rules.max_skew_ms;
    let mut clock = std::time::Instant::now();
    crate::event_store::release_freed_memory();
    let test_output = identity::name_nodes(
        &mut inputs,
        &mut per_input,
        test_output,
        max_skew_ms,
        &mut clock,
    );
    repeats::drop_repeated_story(&mut inputs, &mut per_input, &test_output);
    repeats::drop_repeated_records(&mut inputs, &mut per_input);
    crate::timings::phase("merge: repeated stories and records", &mut clock);
    let services = identity::learn_services(&inputs, &per_input);
    crate::timings::phase("merge: services", &mut clock);

    // One pass in merged order, beside the ordering (past the memory budget each pass reads the heads back
    // from disk): the node keys, each node's first line, the kinds each node logs, the lifecycle steps and
    // each block's earliest date. Models key their state by a small integer per node rather than by name:
    // node keys are numbered in the order nodes first appear in the merged timeline.
    let mut node_names: Vec<Arc<str>> = Vec::new();
    let mut key_of_run_node: Vec<u32> = Vec::new();
    let mut started_in_view = std::collections::HashSet::new();
    let words = EventKind::ALL.len().div_ceil(64);
    let mut kinds_by_node: Vec<Vec<u64>> = Vec::new();
    let mut lifecycle = Lifecycle::default();
    let mut life = LifeSteps::default();
    let total: usize = per_input.iter().map(InputEvents::len).sum();
    let mut date_floor = vec![i64::MAX; total.div_ceil(DATE_FLOOR_BLOCK)];
    let mut key_lines = KeyLines::default();
    let mut in_merged_order =
        |i: usize, mut h: Head, data: &[Arc<InputData>], run_nodes: &[Arc<str>]| {
            if h.has_node() {
                if key_of_run_node.is_empty() {
                    key_of_run_node = vec![u32::MAX; run_nodes.len()];
                }
                let k = &mut key_of_run_node[h.node as usize];
                let first_seen = *k == u32::MAX;
                if first_seen {
                    node_names.push(run_nodes[h.node as usize].clone());
                    kinds_by_node.push(vec![0u64; words]);
                    *k = (node_names.len() - 1) as u32;
                }
                h.node = *k;
                if first_seen
                    && matches!(
                        h.kind,
                        EventKind::ProcessStarted
                            | EventKind::ComponentStarting
                            | EventKind::ScmNodeIdentified
                            | EventKind::ScmRaftServerCreated
                    )
                {
                    started_in_view.insert(node_names[h.node as usize].clone());
                }
                let kind = h.kind.index();
                kinds_by_node[h.node as usize][kind / 64] |= 1 << (kind % 64);
            }
            let test = test_output
                .get(h.span.input as usize)
                .copied()
                .unwrap_or(false);
            if let Some(step) = lifecycle.observe_step(i, h.kind, h.node(), test) {
                life.set(i, step);
            }
            let dated = match h.time() {
                Some(t) if t.has_date => t.millis,
                _ => i64::MIN,
            };
            let block = &mut date_floor[i / DATE_FLOOR_BLOCK];
            *block = (*block).min(dated);
            key_lines.observe(i, &h, || data[h.span.input as usize].fields(&h));
        };
    let order::Merged {
        all,
        order,
        happens_before,
        skew_warnings,
        data,
        run_nodes,
    } = order::merge(
        per_input,
        &test_output,
        rules,
        &mut clock,
        &mut in_merged_order,
    );
    crate::event_store::release_freed_memory();
    // A run whose events name no node.
    key_of_run_node.resize(run_nodes.len(), u32::MAX);
    drop(run_nodes);
    crate::timings::note(&format!(
        "events: {} heads, {} of them on disk; {} lifecycle steps",
        all.len(),
        all.on_disk(),
        life.len()
    ));
    let events = EventStore::new(all, order, key_of_run_node, data, node_names.clone());
    let service_by_key = node_names
        .iter()
        .map(|n| services.get(n).copied())
        .collect();
    // A block's floor is the earliest date of it and every block after it.
    for b in (0..date_floor.len().saturating_sub(1)).rev() {
        date_floor[b] = date_floor[b].min(date_floor[b + 1]);
    }
    let clocks = Clocks::new(key_lines, &events, &node_names, &skew_warnings, max_skew_ms);
    crate::timings::phase("merge: renumbering, nodes and lifecycle", &mut clock);
    let mut timeline = Timeline {
        kinds_by_node,
        date_floor,
        life,
        inputs,
        events,
        happens_before,
        services,
        node_names,
        service_by_key,
        test_output,
        max_skew_ms,
        skew_warnings,
        started_in_view,
        clocks,
    };
    timeline.set_utc_offsets(GivenOffsets::default());
    timeline
}

impl Timeline {
    /// No event at index `index` or later is dated before this local time (ms; `i64::MIN` when one of them
    /// is undated, `i64::MAX` when none is left). Merged order is not time order (a clock steps back, a
    /// causal edge wins over clocks), so this is what tells a monitor that a fact of the past can no longer
    /// matter to any later line.
    pub fn earliest_date_from(&self, index: usize) -> i64 {
        self.date_floor
            .get(index / DATE_FLOOR_BLOCK)
            .copied()
            .unwrap_or(i64::MAX)
    }

    /// Takes the user's `--log-utc-offset` values, and warns (on the input of the node's first event) about every
    /// node whose clock its lines contradict.
    pub fn set_utc_offsets(&mut self, given: GivenOffsets) {
        let prefix = "clock: ";
        for stats in &mut self.inputs {
            stats.warnings.retain(|w| !w.starts_with(prefix));
        }
        self.clocks.set_given(given);
        for (key, warning) in self.clocks.warnings() {
            let input = self
                .events
                .heads()
                .find(|h| h.node() == Some(key))
                .map_or(0, |h| h.span.input as usize);
            if let Some(stats) = self.inputs.get_mut(input) {
                stats.warnings.push(format!("{prefix}{warning}"));
            }
        }
    }

    /// The first line of event `index`'s record, as a report shows it: the event's own, or read back from its
    /// input file ([`crate::excerpt`]), or the note that the file no longer holds it.
    pub fn excerpt(&self, index: usize) -> Excerpt<'_> {
        let h = self.events.head(index);
        let message_offset = h.message_offset as usize;
        let read_back = self
            .inputs
            .get(h.span.input as usize)
            .and_then(|s| s.read_back.as_deref());
        if read_back.is_none() {
            if let Some(text) = self.events.get(index).excerpt {
                return Excerpt {
                    text: Cow::Owned(text.to_string()),
                    message_offset,
                };
            }
        }
        read_back
            .and_then(|path| excerpt::read_back(path, h.span.byte_offset, h.excerpt_hash))
            .map_or_else(Excerpt::unavailable, |text| Excerpt {
                text: Cow::Owned(text),
                message_offset,
            })
    }

    /// Is the order of events `a` and `b` (indices in the merged order) fixed by the logs themselves, or only
    /// by clocks that may be skewed?
    pub fn order_is_certain(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.events.head(a), self.events.head(b));
        // One input's order is certain for one node, and for every node of single-JVM test output (one clock).
        if (x.has_node() && x.node == y.node)
            || (x.span.input == y.span.input
                && (x.node == y.node || self.is_test_output(x.span.input)))
        {
            return true;
        }
        // Clocks order lines of different nodes only where both clocks are trusted.
        let suspect = |h: &Head| h.node().is_some_and(|k| self.clocks.suspect(k).is_some());
        if let (Some(tx), Some(ty), false) = (x.time(), y.time(), suspect(&x) || suspect(&y)) {
            if (tx.millis - ty.millis).abs() > self.max_skew_ms {
                return true;
            }
        }
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        self.happens_before
            .reaches(lo, hi, |i| self.chain(&self.events.head(i)))
    }

    /// The chain of the happens-before graph an event is on: its input's events of its node, or every event
    /// of a test-output input (one clock).
    fn chain(&self, h: &Head) -> u64 {
        let node = if self.is_test_output(h.span.input) {
            u32::MAX - 1
        } else {
            h.node
        };
        (u64::from(h.span.input) << 32) | u64::from(node)
    }

    pub fn service_of(&self, node: &str) -> Option<Component> {
        self.services.get(node).copied()
    }

    /// The service of the node with this `Event::node_key`.
    #[inline]
    pub fn service_of_key(&self, key: u32) -> Option<Component> {
        self.service_by_key.get(key as usize).copied().flatten()
    }

    /// Does the node with this key play `role`: does it run the role's service, or, of unknown service, log an
    /// event the role accepts from such nodes?
    pub fn plays(&self, key: u32, role: &Role) -> bool {
        match self.service_of_key(key) {
            Some(s) => s == role.service,
            // Only the kinds the node logs are looked at: a few dozen set bits.
            None => self.kinds_by_node.get(key as usize).is_some_and(|bits| {
                bits.iter().enumerate().any(|(word, &w)| {
                    let mut w = w;
                    while w != 0 {
                        let i = word * 64 + w.trailing_zeros() as usize;
                        if (role.unknown_service_if)(EventKind::ALL[i]) {
                            return true;
                        }
                        w &= w - 1;
                    }
                    false
                })
            }),
        }
    }

    /// Is input `input` (an `Event::span.input`) single-JVM test output? What [`Lifecycle::observe`] needs
    /// to know: its banners are not one process's, so a start there never implies a crash.
    ///
    /// [`Lifecycle::observe`]: crate::lifecycle::Lifecycle::observe
    #[inline]
    pub fn is_test_output(&self, input: u32) -> bool {
        self.test_output
            .get(input as usize)
            .copied()
            .unwrap_or(false)
    }
}

/// The value of field `name`.
pub(super) fn field<'f>(fields: &'f [(&'static str, Value)], name: &str) -> Option<&'f Value> {
    fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::identity::{end_banner_where_another_log_begins, ipc_port};
    use super::*;
    use crate::event::NodeSource;

    #[test]
    fn ipc_ports() {
        assert_eq!(
            ipc_port("IPC Server handler 0 on default port 15062"),
            Some(15062)
        );
        assert_eq!(ipc_port("IPC Server handler 3 on 9861"), Some(9861));
        assert_eq!(ipc_port("main"), None);
    }

    use crate::monitor::testkit::{
        daemon, ev, key, keys, on_thread, test_output, text, timeline, timeline_with_skew, Input,
    };

    const DAY: i64 = 86_400_000;

    /// Past the memory budget every pass over an input reads its heads back from disk: a pass that can
    /// change nothing in an input (no banner-named, node-less or aliased heads: a daemon log named by its
    /// file) does not read them, and the one that learns services stops at the first head.
    #[test]
    fn passes_that_can_change_nothing_in_an_input_read_none_of_its_heads_back_from_disk() {
        let mut input = InputEvents::spilling();
        for i in 0..3 * crate::spill::CHUNK {
            let mut e = ev(EventKind::SecretKeysUpdated, "scm1", i as i64, vec![]);
            e.node_from = Some(NodeSource::FileName);
            input.push(e);
        }
        let mut per_input = vec![input];
        let mut inputs = vec![InputStats {
            path: "ozone-hadoop-scm-scm1.log".into(),
            ..InputStats::default()
        }];
        let mut clock = std::time::Instant::now();
        let test_output = identity::name_nodes(
            &mut inputs,
            &mut per_input,
            vec![false],
            DEFAULT_MAX_SKEW_MS,
            &mut clock,
        );
        assert_eq!(test_output, vec![false]);
        assert_eq!(per_input[0].heads.chunks_read(), 0);
        let services = identity::learn_services(&inputs, &per_input);
        assert_eq!(services.get("scm1"), Some(&Component::Scm));
        assert_eq!(per_input[0].heads.chunks_read(), 1, "the first chunk only");
        // A node-less head is one a pass may name: the passes read the input again.
        let mut nodeless = ev(EventKind::SecretKeysUpdated, "scm1", 0, vec![]);
        nodeless.node = None;
        per_input[0].push(nodeless);
        identity::name_nodes(
            &mut inputs,
            &mut per_input,
            vec![false],
            DEFAULT_MAX_SKEW_MS,
            &mut clock,
        );
        assert!(per_input[0].heads.chunks_read() > 1);
    }

    #[test]
    fn a_banner_stops_naming_lines_where_another_nodes_log_begins_in_one_input() {
        let scm3 = "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83-server-thread1";
        let scm2 = "8a2c9d3e-4f5a-4b6c-8d7e-9f0a1b2c3d72-server-thread1";
        let banner = |e: Event| Event {
            node_from: Some(NodeSource::Banner),
            ..e
        };
        let events = vec![
            banner(ev(EventKind::ProcessStarted, "scm3", 1_000, vec![])),
            banner(on_thread(
                ev(EventKind::RaftRoleChanged, "scm3", 10_000, vec![]),
                scm3,
            )),
            // A new identity a few ms back (an async appender): still scm3's log.
            banner(on_thread(
                ev(EventKind::SecretKeysInitializing, "scm3", 9_995, vec![]),
                "scm3-SecretKeyManagerService",
            )),
            // Seconds back and an identity not seen since the banner: scm2's log, started mid-run.
            banner(on_thread(
                ev(EventKind::RaftLeaderChanged, "scm3", 5_000, vec![]),
                scm2,
            )),
            banner(ev(EventKind::SecretKeysUpdated, "scm3", 5_100, vec![])),
            // The next banner names its lines again.
            banner(ev(EventKind::ProcessStarted, "scm1", 2_000, vec![])),
            banner(on_thread(
                ev(EventKind::RaftRoleChanged, "scm1", 2_100, vec![]),
                scm2,
            )),
        ];
        let mut store = InputEvents::from_events(events);
        end_banner_where_another_log_begins(&mut store, DEFAULT_MAX_SKEW_MS);
        let events = store.events();
        let got: Vec<(Option<&str>, Option<NodeSource>)> = events
            .iter()
            .map(|e| (e.node.as_deref(), e.node_from))
            .collect();
        let b = Some(NodeSource::Banner);
        assert_eq!(
            got,
            vec![
                (Some("scm3"), b),
                (Some("scm3"), b),
                (Some("scm3"), b),
                (Some(&scm2[..36]), Some(NodeSource::ThreadPrefix)),
                (None, None),
                (Some("scm1"), b),
                (Some("scm1"), b),
            ]
        );
    }

    fn names(tl: &Timeline) -> Vec<(Option<&str>, EventKind)> {
        (0..tl.events.len())
            .map(|i| (tl.events.node_name(i).map(|n| &**n), tl.events.head(i).kind))
            .collect()
    }

    /// scm1 generates key `K9` at `gen_ms` on its clock; scm2 applies `applied` at 1000 ms on its own.
    /// scm1 generates key K9 at `gen_ms`; scm2 applies a key set holding `applied` at 1 s.
    fn key_generated_then_applied(gen_ms: i64, applied: &str) -> Vec<Input> {
        vec![
            daemon(
                "scm",
                "scm1",
                vec![ev(
                    EventKind::SecretKeyGenerated,
                    "scm1",
                    gen_ms,
                    vec![("key", key("K9", 7 * DAY))],
                )],
            ),
            daemon(
                "scm",
                "scm2",
                vec![ev(
                    EventKind::SecretKeysUpdated,
                    "scm2",
                    1_000,
                    vec![("keys", keys(&[(applied, 7 * DAY)]))],
                )],
            ),
        ]
    }

    fn generated_then_applied(gen_ms: i64, applied: &str, skew: i64) -> Timeline {
        timeline_with_skew(key_generated_then_applied(gen_ms, applied), skew)
    }

    #[test]
    fn a_key_id_orders_its_generation_before_its_use_whatever_the_clocks() {
        // scm2's clock is 2 s behind: by clocks its apply would come first.
        let tl = generated_then_applied(3_000, "K9", 1_000);
        assert_eq!(
            names(&tl),
            vec![
                (Some("scm1"), EventKind::SecretKeyGenerated),
                (Some("scm2"), EventKind::SecretKeysUpdated),
            ]
        );
        // The edge contradicts the clocks by more than the tolerance.
        assert_eq!(tl.skew_warnings, vec![(0, 1)]);
        assert!(tl.order_is_certain(0, 1));

        // Within the tolerance: reordered, no warning, and the order is certain through the edge alone.
        let tl = generated_then_applied(1_500, "K9", 1_000);
        assert_eq!(tl.events.get(0).kind, EventKind::SecretKeyGenerated);
        assert!(tl.skew_warnings.is_empty());
        assert!(tl.order_is_certain(0, 1));
        assert!(tl.order_is_certain(1, 0));

        // Another key id: no edge, so clocks decide.
        let tl = generated_then_applied(3_000, "K8", 1_000);
        assert_eq!(
            names(&tl),
            vec![
                (Some("scm2"), EventKind::SecretKeysUpdated),
                (Some("scm1"), EventKind::SecretKeyGenerated),
            ]
        );
        assert!(tl.skew_warnings.is_empty());
    }

    /// The key edge is scm-secret-keys' rule, not the merge's: without the registered rules clocks decide.
    #[test]
    fn causal_edges_come_from_the_rules_the_merge_is_given() {
        let bare = crate::monitor::testkit::timeline_with_rules(
            key_generated_then_applied(3_000, "K9"),
            MergeRules {
                max_skew_ms: 1_000,
                causal: &[],
            },
        );
        assert_eq!(bare.events.get(0).kind, EventKind::SecretKeysUpdated);
        assert!(bare.skew_warnings.is_empty());
        let only_keys = crate::monitor::testkit::timeline_with_rules(
            key_generated_then_applied(3_000, "K9"),
            MergeRules {
                max_skew_ms: 1_000,
                causal: &[&crate::bugs::scm_secret_keys::KEY_ORIGIN],
            },
        );
        assert_eq!(only_keys.events.get(0).kind, EventKind::SecretKeyGenerated);
        assert_eq!(only_keys.skew_warnings, vec![(0, 1)]);
    }

    #[test]
    fn a_leader_election_comes_before_other_scms_use_its_term_whatever_the_clocks() {
        // scm2's clock is 2 s ahead: by clocks it would install the term-4 checkpoint before scm1 led term 4.
        let tl = timeline(vec![
            daemon(
                "scm",
                "scm1",
                vec![ev(
                    EventKind::ScmBecameLeader,
                    "scm1",
                    3_000,
                    vec![("scm", text("scm1")), ("term", Value::U64(4))],
                )],
            ),
            daemon(
                "scm",
                "scm2",
                vec![ev(
                    EventKind::CheckpointInstalled,
                    "scm2",
                    1_500,
                    vec![("term", Value::U64(4)), ("index", Value::U64(5120))],
                )],
            ),
        ]);
        assert_eq!(tl.events.get(0).kind, EventKind::ScmBecameLeader);
        assert_eq!(tl.events.get(1).kind, EventKind::CheckpointInstalled);
        assert!(tl.order_is_certain(0, 1));
    }

    /// A batch check of a plain file keeps no lines and reads them back; gzip keeps its own; a file changed
    /// since it was read gives the unavailable note, never another line.
    #[test]
    fn excerpts_are_read_back_from_plain_files_only_while_unchanged() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm3.log"
        );
        let text = std::fs::read_to_string(fixture).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("ozone-hadoop-scm-scm3.log");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.path().join("ozone-hadoop-scm-scm2.log.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let sources = vec![Source::File(plain.clone()), Source::File(gz)];
        let options = ScanOptions {
            read_back: true,
            ..ScanOptions::default()
        };
        let grammar = Grammar::embedded().unwrap();
        let tl = build(
            &sources,
            &grammar,
            &options,
            crate::bugs::merge_rules(DEFAULT_MAX_SKEW_MS),
            &|_, _| {},
        );
        let lines: Vec<&str> = text.lines().collect();
        let (mut plain_events, mut gz_events) = (0, 0);
        for i in 0..tl.events.len() {
            let e = &tl.events.get(i);
            let logged = lines[e.span.line as usize - 1];
            if e.span.input == 0 {
                plain_events += 1;
                assert_eq!(e.excerpt, None);
            } else {
                gz_events += 1;
                assert_eq!(e.excerpt.as_deref(), Some(logged));
            }
            let shown = tl.excerpt(i);
            assert_eq!(shown.text, logged);
            assert_eq!(shown.message_offset, e.message_offset as usize);
        }
        assert!(plain_events > 10 && gz_events > 10);
        // Rotated: the name now holds another log, its lines shifted by one.
        std::fs::write(&plain, format!("x\n{text}")).unwrap();
        for i in (0..tl.events.len()).filter(|&i| tl.events.get(i).span.input == 0) {
            assert_eq!(tl.excerpt(i), crate::excerpt::Excerpt::unavailable());
        }
    }

    #[test]
    fn cross_node_order_is_certain_only_beyond_the_skew_tolerance() {
        let two = |gap: i64, skew: i64| {
            timeline_with_skew(
                vec![
                    daemon(
                        "scm",
                        "scm1",
                        vec![ev(EventKind::CheckpointInstalled, "scm1", 0, vec![])],
                    ),
                    daemon(
                        "scm",
                        "scm2",
                        vec![ev(EventKind::CheckpointInstalled, "scm2", gap, vec![])],
                    ),
                ],
                skew,
            )
        };
        let tl = two(400, 1_000);
        assert_eq!(tl.events.get(0).node.as_deref(), Some("scm1"));
        assert!(!tl.order_is_certain(0, 1));
        assert!(!tl.order_is_certain(1, 0));
        // Exactly at the tolerance is still within it.
        assert!(!two(1_000, 1_000).order_is_certain(0, 1));
        assert!(two(1_001, 1_000).order_is_certain(0, 1));
        assert!(two(1_500, 1_000).order_is_certain(0, 1));
        // A tighter tolerance makes 400 ms decisive.
        assert!(two(400, 100).order_is_certain(0, 1));
    }

    #[test]
    fn same_input_and_same_node_orders_are_certain_and_rotated_files_follow_each_other() {
        let tl = timeline(vec![
            // scm1's older file, then its newer one, whose clock stepped back.
            daemon(
                "scm",
                "scm1",
                vec![
                    ev(EventKind::CheckpointInstalled, "scm1", 0, vec![]),
                    ev(EventKind::ScmStateReloaded, "scm1", 100, vec![]),
                ],
            ),
            daemon(
                "scm",
                "scm1",
                vec![ev(EventKind::SecretKeysInitializing, "scm1", 50, vec![])],
            ),
            daemon(
                "scm",
                "scm2",
                vec![ev(EventKind::CheckpointInstalled, "scm2", 60, vec![])],
            ),
        ]);
        assert_eq!(
            names(&tl),
            vec![
                (Some("scm1"), EventKind::CheckpointInstalled),
                (Some("scm2"), EventKind::CheckpointInstalled),
                (Some("scm1"), EventKind::ScmStateReloaded),
                (Some("scm1"), EventKind::SecretKeysInitializing),
            ]
        );
        // Same input.
        assert!(tl.order_is_certain(0, 2));
        // Same node across its files.
        assert!(tl.order_is_certain(0, 3));
        assert!(tl.order_is_certain(2, 3));
        // scm2 against scm1, 10 ms to 60 ms apart with no causal path: clocks only.
        assert!(!tl.order_is_certain(1, 3));
        assert!(!tl.order_is_certain(0, 1));
    }

    #[test]
    fn an_scm_id_is_aliased_to_the_node_id_constructed_on_the_same_thread() {
        let scm_id = "5f1b7e2a-3c4d-4e8f-9a0b-1c2d3e4f5a61";
        let other = "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83";
        let tl = timeline(vec![
            test_output(vec![
                ev(
                    EventKind::ScmNodeIdentified,
                    "",
                    0,
                    vec![("node_id", text("scmNode-1"))],
                ),
                ev(
                    EventKind::ScmRaftServerCreated,
                    "",
                    10,
                    vec![("scm_id", text(scm_id))],
                ),
                // A Ratis member id names the node by its scmId.
                on_thread(
                    ev(EventKind::CheckpointInstalled, scm_id, 20, vec![]),
                    "5f1b7e2a-3c4d-4e8f-9a0b-1c2d3e4f5a61@group-9F3A1C2B4D5E-StateMachineUpdater",
                ),
                // Node id and Raft server on different threads: no alias.
                on_thread(
                    ev(
                        EventKind::ScmNodeIdentified,
                        "",
                        30,
                        vec![("node_id", text("scmNode-3"))],
                    ),
                    "other",
                ),
                on_thread(
                    ev(
                        EventKind::ScmRaftServerCreated,
                        "",
                        40,
                        vec![("scm_id", text(other))],
                    ),
                    "another",
                ),
                on_thread(
                    ev(EventKind::CheckpointInstalled, other, 50, vec![]),
                    "x-StateMachineUpdater",
                ),
                // The harness names the SCM it stops by scmId; the stop line after it is that SCM's.
                ev(
                    EventKind::HarnessScmShutdown,
                    "",
                    60,
                    vec![("scm_id", text(scm_id))],
                ),
                ev(EventKind::ComponentStopping, "", 70, vec![]),
            ]),
            // The alias holds in every input.
            daemon(
                "scm",
                "x",
                vec![ev(EventKind::CheckpointInstalled, scm_id, 80, vec![])],
            ),
        ]);
        let nodes: Vec<Option<&str>> = (0..tl.events.len())
            .map(|i| tl.events.node_name(i).map(|n| &**n))
            .collect();
        assert_eq!(
            nodes,
            vec![
                Some("scmNode-1"),
                Some("scmNode-1"),
                Some("scmNode-1"),
                Some("scmNode-3"),
                // No context on that thread, and several SCMs in this input.
                None,
                Some(other),
                Some("scmNode-1"),
                Some("scmNode-1"),
                Some("scmNode-1"),
            ]
        );
        assert_eq!(tl.events.get(0).node_from, Some(NodeSource::Context));
        assert!(!tl.node_names.iter().any(|n| &**n == scm_id));
        assert!(tl.started_in_view.contains("scmNode-1"));
        assert_eq!(tl.service_of("scmNode-1"), Some(Component::Scm));
    }

    #[test]
    fn a_datanode_built_on_the_scm_construction_thread_keeps_its_version_lines() {
        let on_main = |kind, ms, fields, component| {
            let mut e = ev(kind, "", ms, fields);
            e.component = component;
            e
        };
        let vm = |ms| {
            on_main(
                EventKind::VersionManagerInitialized,
                ms,
                vec![
                    (
                        "apparent",
                        crate::monitor::testkit::version("INITIAL_VERSION", 0),
                    ),
                    ("software", crate::monitor::testkit::version("ZDU", 100)),
                ],
                Component::Scm,
            )
        };
        let tl = timeline(vec![test_output(vec![
            on_main(
                EventKind::ScmNodeIdentified,
                0,
                vec![("node_id", text("scmNode-1"))],
                Component::Scm,
            ),
            vm(10),
            on_main(
                EventKind::ScmNodeIdentified,
                20,
                vec![("node_id", text("scmNode-3"))],
                Component::Scm,
            ),
            vm(30),
            // MiniOzoneCluster starts a datanode on `main`: its version manager line is not scmNode-3's.
            on_main(
                EventKind::ComponentStarting,
                40,
                vec![(
                    "detail",
                    text("0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(ci-runner-7/10.1.0.57)"),
                )],
                Component::Datanode,
            ),
            vm(50),
            // startInactiveSCM: scmNode-3's start is still told by the construction context.
            on_main(
                EventKind::ComponentStarting,
                60,
                vec![("detail", text("/127.0.0.1:15061"))],
                Component::Scm,
            ),
            // The harness names scmNode-3 again: its restart's version line is its own.
            on_main(
                EventKind::ScmNodeIdentified,
                70,
                vec![("node_id", text("scmNode-3"))],
                Component::Scm,
            ),
            vm(80),
        ])]);
        let nodes: Vec<Option<&str>> = (0..tl.events.len())
            .map(|i| tl.events.node_name(i).map(|n| &**n))
            .collect();
        assert_eq!(
            nodes,
            vec![
                Some("scmNode-1"),
                Some("scmNode-1"),
                Some("scmNode-3"),
                Some("scmNode-3"),
                None,
                None,
                Some("scmNode-3"),
                Some("scmNode-3"),
                Some("scmNode-3"),
            ]
        );
    }

    /// Events whose fields and excerpts were moved to the spill file read back to the same check, JSON
    /// report for JSON report (`--all`), on every directory of logs under `tests/fixtures` (scenarios
    /// healthy and violating, per-node and merged test output, real Ozone, surefire reports, lifecycle and
    /// fuzz cases): the arena's file path changes nothing a user sees.
    #[test]
    fn a_check_of_spilled_events_is_the_check_of_events_in_memory() {
        let grammar = Grammar::embedded().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let dirs = crate::input::log_dirs(&root);
        let (mut runs, mut violated) = (0, 0);
        for dir in &dirs {
            let args = vec![dir.to_string_lossy().into_owned()];
            let sources = crate::input::resolve(&args).unwrap();
            let check = |spill: bool| {
                let (stats, per_input, test) =
                    scan_all(&sources, &grammar, &ScanOptions::default(), &|_, _| {});
                let per_input = per_input
                    .into_iter()
                    .map(|store| {
                        if !spill {
                            return store;
                        }
                        let mut spilled = InputEvents::spilling();
                        for e in store.events() {
                            spilled.push(e);
                        }
                        spilled
                    })
                    .collect();
                let tl = from_inputs(
                    stats,
                    per_input,
                    test,
                    crate::bugs::merge_rules(DEFAULT_MAX_SKEW_MS),
                );
                let monitors = crate::check::monitors(&[]);
                let reports = crate::check::replay(&tl, monitors, &Default::default()).reports;
                crate::render::report::to_json(&tl, &reports, true)
            };
            let (memory, spilled) = (check(false), check(true));
            assert!(memory["models"].as_array().is_some_and(|m| !m.is_empty()));
            assert_eq!(memory, spilled, "{}", dir.display());
            runs += 1;
            let models = memory["models"].as_array().into_iter().flatten();
            violated += models.filter(|m| m["verdict"] == "violated").count();
        }
        assert!(runs >= 40, "{runs} fixture directories");
        assert!(violated >= 8, "{violated} violated verdicts");
    }

    #[test]
    fn ipc_handler_threads_belong_to_the_node_listening_on_their_port() {
        let identified = |id: &str, ms| {
            ev(
                EventKind::ScmNodeIdentified,
                "",
                ms,
                vec![("node_id", text(id))],
            )
        };
        let listening = |port: u16, ms| {
            ev(
                EventKind::RpcServerListening,
                "",
                ms,
                vec![("address", text(&format!("/127.0.0.1:{port}")))],
            )
        };
        let handled = |port: u16, ms| {
            on_thread(
                ev(EventKind::DatanodeFenced, "", ms, vec![]),
                &format!("IPC Server handler 0 on default port {port}"),
            )
        };
        let tl = timeline(vec![test_output(vec![
            handled(15062, 0),
            identified("scmNode-1", 10),
            listening(15022, 20),
            identified("scmNode-3", 30),
            listening(15062, 40),
            handled(15062, 50),
            handled(15022, 60),
            handled(15042, 70),
            on_thread(
                ev(EventKind::DatanodeFenced, "", 80, vec![]),
                "IPC Server handler 2 on 15022",
            ),
        ])]);
        let got: Vec<(Option<&str>, Option<NodeSource>)> = (0..tl.events.len())
            .map(|i| {
                let name = tl.events.node_name(i).map(|n| &**n);
                (name, tl.events.head(i).node_from)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                // Before the port is known: no node.
                (None, None),
                (Some("scmNode-1"), Some(NodeSource::Context)),
                (Some("scmNode-1"), Some(NodeSource::Context)),
                (Some("scmNode-3"), Some(NodeSource::Context)),
                (Some("scmNode-3"), Some(NodeSource::Context)),
                (Some("scmNode-3"), Some(NodeSource::IpcPort)),
                (Some("scmNode-1"), Some(NodeSource::IpcPort)),
                // No server listens on 15042.
                (None, None),
                (Some("scmNode-1"), Some(NodeSource::IpcPort)),
            ]
        );
    }

    /// A datanode's STARTUP_MSG on `main` after an SCM was constructed there is the datanode's: it starts
    /// no new run of that SCM (which would hide the SCM's later crash).
    #[test]
    fn another_services_banner_on_an_scms_thread_is_not_the_scms() {
        let identified = ev(
            EventKind::ScmNodeIdentified,
            "",
            0,
            vec![("node_id", text("scm2"))],
        );
        let banner = |service: &str, ms| {
            ev(
                EventKind::ProcessStarted,
                "",
                ms,
                vec![("service", text(service))],
            )
        };
        let tl = timeline(vec![test_output(vec![
            identified,
            banner("HddsDatanodeService", 10),
            banner("StorageContainerManager", 20),
        ])]);
        let names: Vec<Option<&str>> = (0..tl.events.len())
            .map(|i| tl.events.node_name(i).map(|n| &**n))
            .collect();
        assert_eq!(names, vec![Some("scm2"), None, Some("scm2")]);
    }
}
