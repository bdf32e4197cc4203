//! Live checking: inputs that are still growing (`--follow`, a pipe on stdin) are scanned as lines arrive,
//! and the models are replayed over what has arrived so far at every tick, so a violation is reported
//! moments after its line is written rather than when the input ends.
//!
//! Each tick rebuilds the merged timeline from the events so far and replays it from the start: the verdicts
//! are those a batch check of the same prefix gives, the merge across nodes stays the one [`crate::timeline`]
//! makes, and a violation already reported is not reported again. Memory grows with the *events* (the few
//! lines the grammar turns into events), not with the input: lines are not kept.

use crate::check::{monitors, replay_until, ModelReport};
use crate::event::Event;
use crate::grammar::Grammar;
use crate::input::Source;
use crate::model::Violation;
use crate::scan::{scan_input, InputStats, ScanOptions, UnparsedLine};
use crate::timeline::{from_events, Timeline};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How often the models look at what has arrived.
pub const TICK: Duration = Duration::from_millis(250);

/// What the scanning threads share with the checking one.
struct Arrived {
    per_input: Vec<Vec<Event>>,
    /// Set when an input ends (a followed file never does).
    stats: Vec<Option<InputStats>>,
}

/// A violation's identity across ticks: model, invariant, instance, and where its primary line is.
type Seen = (&'static str, &'static str, String, u32, u64);

fn identity(timeline: &Timeline, model: &'static str, v: &Violation) -> Seen {
    let span = timeline.events[v.primary].span;
    (
        model,
        v.invariant.name,
        v.instance.clone(),
        span.input,
        span.line,
    )
}

/// Checks `sources` live; `on_violation` gets each new violation as soon as it is found (the first one per
/// model unless `all`). Returns the final timeline and reports when every input has ended.
#[allow(clippy::too_many_arguments)]
pub fn check_live(
    sources: &[Source],
    grammar: &Grammar,
    options: &ScanOptions,
    models: &[crate::bugs::Bug],
    all: bool,
    max_skew_ms: i64,
    utc_offset_ms: Option<i64>,
    on_unparsed: &(dyn Fn(&str, &UnparsedLine) + Sync),
    on_violation: &mut dyn FnMut(&Timeline, &ModelReport, &Violation),
) -> (Timeline, Vec<ModelReport>) {
    let arrived = Mutex::new(Arrived {
        per_input: vec![Vec::new(); sources.len()],
        stats: vec![None; sources.len()],
    });
    let news = AtomicBool::new(false);
    let ended = AtomicUsize::new(0);
    let mut seen: HashSet<Seen> = HashSet::new();
    let mut report_new = |timeline: &Timeline, reports: &[ModelReport]| {
        for r in reports {
            let shown: Vec<&Violation> = if all {
                r.violations.iter().collect()
            } else {
                r.first().into_iter().collect()
            };
            for v in shown {
                if seen.insert(identity(timeline, r.model, v)) {
                    on_violation(timeline, r, v);
                }
            }
        }
    };
    let snapshot = |at_end: bool| -> Timeline {
        let a = arrived
            .lock()
            .expect("no scanner panics while holding the lock");
        let inputs: Vec<InputStats> = a
            .stats
            .iter()
            .zip(sources)
            .map(|(s, src)| {
                s.clone().unwrap_or_else(|| InputStats {
                    path: src.display(),
                    ..InputStats::default()
                })
            })
            .collect();
        let test_output = inputs
            .iter()
            .map(|s| s.layout.as_deref() == Some("test"))
            .collect();
        debug_assert!(!at_end || a.stats.iter().all(Option::is_some));
        let mut timeline = from_events(inputs, a.per_input.clone(), test_output, max_skew_ms);
        timeline.utc_offset_ms = utc_offset_ms;
        timeline
    };
    std::thread::scope(|scope| {
        for (i, source) in sources.iter().enumerate() {
            let (arrived, news, ended) = (&arrived, &news, &ended);
            scope.spawn(move || {
                let path = source.display();
                let stats = scan_input(
                    i as u32,
                    source,
                    grammar,
                    options,
                    |e| {
                        arrived.lock().expect("lock").per_input[i].push(e);
                        news.store(true, Ordering::Release);
                    },
                    |u| on_unparsed(&path, u),
                );
                arrived.lock().expect("lock").stats[i] = Some(stats);
                ended.fetch_add(1, Ordering::AcqRel);
            });
        }
        // Each look replays everything so far; waiting at least twice as long as the last look took keeps
        // that work under a third of the time on a fast pipe, however long the input.
        let mut pause = TICK;
        while ended.load(Ordering::Acquire) < sources.len() {
            std::thread::sleep(pause);
            if news.swap(false, Ordering::AcqRel) {
                let started = std::time::Instant::now();
                let timeline = snapshot(false);
                let models = monitors(models);
                let reports = replay_until(&timeline, models, false);
                report_new(&timeline, &reports);
                pause = TICK.max(started.elapsed() * 2);
            }
        }
    });
    let timeline = snapshot(true);
    let models = monitors(models);
    let reports = replay_until(&timeline, models, true);
    report_new(&timeline, &reports);
    (timeline, reports)
}
