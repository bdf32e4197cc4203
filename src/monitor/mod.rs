//! The log monitors' common ground: the [`Model`] trait every bug's `monitor.rs` implements, invariants,
//! violations and three-valued [`Knowledge`]. (The exact, TLC-checked mirrors of the specs are in `src/mirror/`.)
//!
//! A monitor reads the merged timeline event by event, keeps one instance per SCM, datanode or Recon, and
//! reports the first event at which an invariant of its spec fails. Knowledge is three-valued: a variable a log
//! has not shown is unknown, and an unknown never yields a violation; it makes the verdict *inconclusive*.

pub mod replay;

use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::mirror::export::Witnessed;
use crate::timeline::Timeline;
use crate::vocab::EventKind;
use std::sync::Arc;

/// An invariant of a spec, with its stable diagnostic code. Invariants are compared, hashed and printed by
/// name (`v.invariant == "KeyFileCoversDb"`), so a violation carries the whole definition.
#[derive(Debug, Clone, Copy)]
pub struct Invariant {
    pub name: &'static str,
    pub code: &'static str,
    /// One line, in an operator's words.
    pub summary: &'static str,
    /// What the operator should do now.
    pub advice: &'static str,
    /// The lines whose absence is this bug's mark, each `RuleId: in an operator's words`: deleting one of them
    /// from a healthy log may rightly yield this violation (tests/deletion_sweep.rs holds every other line to
    /// "never a violation").
    pub signature: &'static [&'static str],
}

impl PartialEq for Invariant {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Invariant {}

impl PartialEq<str> for Invariant {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl std::hash::Hash for Invariant {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl PartialOrd for Invariant {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Invariant {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name.cmp(other.name)
    }
}

impl std::fmt::Display for Invariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl serde::Serialize for Invariant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

/// Where a model's spec is: TLA+ module and file.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub module: &'static str,
    pub path: &'static str,
    pub issue: &'static str,
}

#[derive(Debug, Clone)]
pub struct Violation {
    /// The invariant violated, with its code, summary and advice.
    pub invariant: &'static Invariant,
    pub message: String,
    pub node: Option<Arc<str>>,
    /// The model instance (node, block, ...) this violation belongs to; `--all` reports one per instance.
    pub instance: String,
    /// Index of the violating event in the timeline.
    pub primary: usize,
    pub primary_label: String,
    /// Earlier events that made it possible, with what each contributed.
    pub related: Vec<(usize, String)>,
    /// Set when the order this verdict depends on rests on clocks within the skew tolerance.
    pub ambiguous_order: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Violated,
    Conforms,
    Inconclusive,
}

/// What the model could and could not decide, besides violations.
#[derive(Debug, Default, Clone)]
pub struct Knowledge {
    /// Events this model read.
    pub events: usize,
    /// Invariant checks made with everything they needed in view.
    pub checks: usize,
    /// Why some check could not be made (first reason kept per kind).
    pub unknowns: Vec<String>,
    /// Lines this model needs that no node could be tied to: the first one's event index, and how many.
    pub unattributed: Option<(usize, usize)>,
}

impl Knowledge {
    /// Event `index`, which this model reads, names no node: it cannot be checked, and the verdict says so,
    /// pointing at the first such line.
    pub fn unattributed(&mut self, index: usize) {
        match &mut self.unattributed {
            Some((_, n)) => *n += 1,
            None => self.unattributed = Some((index, 1)),
        }
    }

    /// Every reason, with the unattributed lines (`service`: whose lines they are) said where they are.
    pub fn reasons(&self, timeline: &crate::timeline::Timeline, service: &str) -> Vec<String> {
        let mut out = self.unknowns.clone();
        if let Some((first, n)) = self.unattributed {
            let h = timeline.events.head(first);
            let path = timeline
                .inputs
                .get(h.span.input as usize)
                .map_or("?", |s| s.path.as_str());
            let excerpt = timeline.excerpt(first);
            let text = excerpt
                .text
                .get(excerpt.message_offset..)
                .unwrap_or(&excerpt.text);
            let service = match service {
                "scm" => "SCM",
                "om" => "OM",
                "recon" => "Recon",
                other => other,
            };
            out.push(format!(
                "{n} {service} line(s) this model needs name no node, so they were not checked (the logs tie them to no process: no node id in the thread name, no construction line, port or banner before them); the first: {path}:{} `{}`",
                h.span.line,
                text.chars().take(120).collect::<String>()
            ));
        }
        out
    }

    pub fn unknown(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.unknowns.contains(&reason) {
            self.unknowns.push(reason);
        }
    }
}

/// What a model sees at each step besides the event: the timeline (for names and services).
pub struct Ctx<'a> {
    pub timeline: &'a Timeline,
}

/// Whose instance an event concerns.
pub enum Instance<'e> {
    /// A node of the model's service (or of no known service, where the model accepts that): name and key.
    Of(&'e Arc<str>, u32),
    /// The event names no node.
    NoNode,
    /// The node runs another service (datanodes log some SCM-looking lines too).
    OtherService,
}

impl Ctx<'_> {
    /// The instance `e` belongs to, for a model whose nodes play `role` ([`Timeline::plays`]).
    pub fn instance<'e>(&self, e: &'e Event, role: &Role) -> Instance<'e> {
        let Some(node) = e.node.as_ref() else {
            return Instance::NoNode;
        };
        if self.timeline.plays(e.node_key, role) {
            Instance::Of(node, e.node_key)
        } else {
            Instance::OtherService
        }
    }
}

pub use crate::timeline::Role;

/// What a model is: its name, its spec, its invariants.
#[derive(Debug)]
pub struct About {
    /// The model's name, as used by `--model`.
    pub name: &'static str,
    pub spec: Spec,
    pub invariants: &'static [Invariant],
    /// The nodes the model watches.
    pub role: Role,
    /// The reason given when no check could be made at all.
    pub nothing_checked: &'static str,
    /// The grammar files (`grammars/`) whose lines tell this bug's story, its own first: the structure-aware
    /// fuzzer (`src/log_gen.rs`) writes logs from these rules together.
    pub grammars: &'static [&'static str],
}

pub trait Model: Send {
    fn about(&self) -> &'static About;
    fn name(&self) -> &'static str {
        self.about().name
    }
    fn spec(&self) -> Spec {
        self.about().spec
    }
    fn invariants(&self) -> &'static [Invariant] {
        self.about().invariants
    }
    /// Does this model read events of this kind? (Lifecycle steps always reach it.)
    fn reads(&self, kind: EventKind) -> bool;
    /// One step: the event at `index`, and the lifecycle step it makes for its node, if any.
    fn step(
        &mut self,
        cx: &Ctx,
        index: usize,
        event: &Event,
        life: Option<LifeStep>,
        out: &mut Vec<Violation>,
    );
    /// Called once after the last event.
    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {}
    /// Export's half of the observer: every event of the timeline, with the same lifecycle step `step` gets;
    /// the spec actions it witnesses are kept for [`Model::witnessed`].
    fn witness(&mut self, cx: &Ctx, index: usize, event: &Event, life: Option<LifeStep>);
    /// After the last event: the witnessed spec actions, with the constants sized to them.
    fn witnessed(&mut self, cx: &Ctx) -> Witnessed;
    fn knowledge(&self) -> &Knowledge;
    fn nothing_checked_reason(&self) -> &'static str {
        self.about().nothing_checked
    }
}

pub fn invariant(model: &dyn Model, name: &str) -> &'static Invariant {
    model
        .invariants()
        .iter()
        .find(|i| i.name == name)
        .expect("model declares its invariants")
}

/// Synthetic events and one-model replays for the models' unit tests.
#[cfg(test)]
pub(crate) mod testkit {
    use crate::check::{replay, ModelReport};
    use crate::event::{Event, Span};
    use crate::scan::InputStats;
    use crate::time::Timestamp;
    use crate::timeline::{from_events, Timeline, DEFAULT_MAX_SKEW_MS};
    use crate::value::{SecretKeyInfo, Value};
    use crate::vocab::{Component, EventKind};
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};

    /// 2026-08-23T10:00:00.000, the clock every synthetic time counts from.
    pub fn base() -> i64 {
        Timestamp::from_parts(2026, 8, 23, 10, 0, 0, 0).millis
    }

    /// A dated timestamp `ms` after [`base`].
    pub fn at(ms: i64) -> Timestamp {
        Timestamp {
            millis: base() + ms,
            has_date: true,
        }
    }

    /// The component the shipped grammar gives this kind (`Any` when its rules disagree or there is none).
    fn component_of(kind: EventKind) -> Component {
        static BY_KIND: OnceLock<HashMap<EventKind, Component>> = OnceLock::new();
        let by_kind = BY_KIND.get_or_init(|| {
            let grammar = crate::grammar::Grammar::embedded().expect("shipped grammar loads");
            let mut m: HashMap<EventKind, Component> = HashMap::new();
            for r in &grammar.rules {
                m.entry(r.event)
                    .and_modify(|c| {
                        if *c != r.component {
                            *c = Component::Any;
                        }
                    })
                    .or_insert(r.component);
            }
            m
        });
        by_kind.get(&kind).copied().unwrap_or(Component::Any)
    }

    /// An event of `kind` on `node` (`""` for none) at `ms` after [`base`], on thread `main`. Its span is set
    /// by [`timeline`].
    pub fn ev(kind: EventKind, node: &str, ms: i64, fields: Vec<(&'static str, Value)>) -> Event {
        Event {
            kind,
            rule: 0,
            component: component_of(kind),
            node: (!node.is_empty()).then(|| Arc::from(node)),
            node_key: u32::MAX,
            node_from: None,
            time: Some(at(ms)),
            level: None,
            thread: Arc::from("main"),
            fields,
            span: Span {
                input: 0,
                line: 0,
                byte_offset: 0,
                byte_len: 0,
            },
            excerpt: Some(Arc::from(kind.name())),
            excerpt_hash: crate::excerpt::hash(kind.name()),
            message_offset: 0,
        }
    }

    /// The same event on another thread.
    pub fn on_thread(mut e: Event, thread: &str) -> Event {
        e.thread = Arc::from(thread);
        e
    }

    /// A list of secret keys `(id, expiry in ms after base)`.
    pub fn keys(ks: &[(&str, i64)]) -> Value {
        Value::SecretKeys(ks.iter().map(|(id, x)| secret(id, *x)).collect())
    }

    /// One secret key expiring `expires` ms after base.
    pub fn key(id: &str, expires: i64) -> Value {
        Value::SecretKey(secret(id, expires))
    }

    fn secret(id: &str, expires: i64) -> SecretKeyInfo {
        SecretKeyInfo {
            id: id.into(),
            created: None,
            expires: Some(at(expires)),
        }
    }

    pub fn version(name: &str, number: i64) -> Value {
        Value::Version {
            name: name.into(),
            number,
        }
    }

    pub fn block(container: u64, local: u64) -> Value {
        Value::BlockId {
            container,
            local,
            bcs_id: 0,
            replica_index: None,
        }
    }

    pub fn text(s: &str) -> Value {
        Value::Str(s.into())
    }

    /// One input: its path (which may tell node and service, as `ozone-hadoop-scm-scm1.log` does), whether it
    /// is single-JVM test output, and its events in input order.
    pub struct Input {
        pub path: String,
        pub test_output: bool,
        pub events: Vec<Event>,
    }

    /// A daemon log file `ozone-hadoop-<service>-<host>.log`.
    pub fn daemon(service: &str, host: &str, events: Vec<Event>) -> Input {
        Input {
            path: format!("ozone-hadoop-{service}-{host}.log"),
            test_output: false,
            events,
        }
    }

    /// Single-JVM integration-test output.
    pub fn test_output(events: Vec<Event>) -> Input {
        Input {
            path: "TestSomething-output.txt".into(),
            test_output: true,
            events,
        }
    }

    /// Merges the inputs with the default skew tolerance; event `k` of input `i` gets line `k + 1`.
    pub fn timeline(inputs: Vec<Input>) -> Timeline {
        timeline_with_skew(inputs, DEFAULT_MAX_SKEW_MS)
    }

    pub fn timeline_with_skew(inputs: Vec<Input>, max_skew_ms: i64) -> Timeline {
        timeline_with_rules(inputs, crate::bugs::merge_rules(max_skew_ms))
    }

    /// Merges the inputs by `rules` (a skew tolerance, and causal rules other than the registered ones).
    pub fn timeline_with_rules(inputs: Vec<Input>, rules: crate::timeline::MergeRules) -> Timeline {
        let mut stats = Vec::new();
        let mut per_input = Vec::new();
        let mut test = Vec::new();
        for (i, input) in inputs.into_iter().enumerate() {
            let events: Vec<Event> = input
                .events
                .into_iter()
                .enumerate()
                .map(|(k, mut e)| {
                    e.span = Span {
                        input: i as u32,
                        line: k as u64 + 1,
                        byte_offset: k as u64 * 100,
                        byte_len: 99,
                    };
                    e
                })
                .collect();
            stats.push(InputStats {
                path: input.path,
                layout: Some(if input.test_output { "test" } else { "daemon" }.into()),
                events: events.len() as u64,
                ..InputStats::default()
            });
            per_input.push(events);
            test.push(input.test_output);
        }
        from_events(stats, per_input, test, rules)
    }

    /// Replays the timeline through the one model named `model`.
    pub fn replay_one(timeline: &Timeline, model: &str) -> ModelReport {
        let models = crate::check::select(&[model.to_string()]).expect("a known model");
        let mut reports = replay(timeline, models, &Default::default()).reports;
        assert_eq!(reports.len(), 1);
        reports.pop().expect("one report")
    }

    /// Builds the timeline of `inputs` and replays it through `model`.
    pub fn run(model: &str, inputs: Vec<Input>) -> (Timeline, ModelReport) {
        let tl = timeline(inputs);
        let report = replay_one(&tl, model);
        (tl, report)
    }
}
