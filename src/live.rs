//! Live checking: inputs that are still growing (`--follow`, a pipe on stdin) are scanned as lines arrive,
//! and the models are replayed over what has arrived so far at every tick, so a violation is reported
//! moments after its line is written rather than when the input ends.
//!
//! Each tick rebuilds the merged timeline from the events so far and replays it from the start: the verdicts
//! are those a batch check of the same prefix gives, the merge across nodes stays the one [`crate::timeline`]
//! makes, and a violation already reported is not reported again. Without `--all` a model's first is
//! printed once; a later look that finds an earlier one (an input that arrived late) says it supersedes it.
//! SIGINT and SIGTERM end the loop (a `stop` flag): the verdicts of what arrived are then given as at an end. Lines are not kept, and the
//! events are kept as a batch check keeps them, to the memory budget ([`InputEvents`]).

use crate::check::{Checked, Inputs, ModelReport, Pipeline, Scanned};
use crate::event_store::InputEvents;
use crate::grammar::Grammar;
use crate::input::Source;
use crate::monitor::Violation;
use crate::scan::{scan_input, InputStats, ScanOptions, UnparsedLine};
use crate::timeline::Timeline;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the models look at what has arrived.
pub const TICK: Duration = Duration::from_millis(250);

/// What the scanning threads share with the checking one.
struct Arrived {
    /// Kept compactly, and on disk past the memory budget ([`InputEvents`]).
    per_input: Vec<InputEvents>,
    /// Set when an input ends (a followed file never does).
    stats: Vec<Option<InputStats>>,
}

struct Shared {
    arrived: Mutex<Arrived>,
    /// Events arrived since the last look.
    news: AtomicBool,
    /// Inputs that have ended.
    ended: AtomicUsize,
}

/// A violation's identity across ticks: model, invariant, instance, and where its primary line is.
type Seen = (&'static str, &'static str, String, u32, u64);

fn identity(timeline: &Timeline, model: &'static str, v: &Violation) -> Seen {
    let span = timeline.events.head(v.primary).span;
    (
        model,
        v.invariant.name,
        v.instance.clone(),
        span.input,
        span.line,
    )
}

/// Told each line that belongs to no record, with its input's path (from the scanning threads).
pub type OnUnparsed = Arc<dyn Fn(&str, &UnparsedLine) + Send + Sync>;

/// What a live look tells its caller.
pub enum Found<'a> {
    /// A violation not reported before: the first of its model, or (with `all`) any.
    New(&'a Violation),
    /// Without `all`: a violation earlier in the timeline than the model's first already printed (an input
    /// that arrived late), which is the model's first now.
    Supersedes {
        printed: &'a Printed,
        first: &'a Violation,
    },
}

pub use crate::render::Printed;

/// How a live check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every input ended (a pipe closed).
    Inputs,
    /// `stop` was set (SIGINT, SIGTERM): the verdicts are those of what had arrived.
    Stopped,
}

/// Checks `sources` live with `pipeline` (whose every look but the last is [`Pipeline::partial`]);
/// `on_violation` gets each new violation as soon as it is found (the first one per model unless `all`).
/// Returns the final timeline and reports when every input has ended or `stop` is set.
///
/// The scanning threads are detached, not scoped: a thread blocked reading a pipe or waiting for a followed
/// file to grow cannot be woken, so a stopped check leaves them to end with the process.
#[allow(clippy::too_many_arguments)]
pub fn check_live(
    pipeline: &Pipeline,
    sources: &[Source],
    grammar: &Grammar,
    options: &ScanOptions,
    all: bool,
    stop: &AtomicBool,
    on_unparsed: OnUnparsed,
    on_violation: &mut dyn FnMut(&Timeline, &ModelReport, Found),
) -> (Timeline, Vec<ModelReport>, End) {
    let shared = Arc::new(Shared {
        arrived: Mutex::new(Arrived {
            per_input: (0..sources.len()).map(|_| InputEvents::new()).collect(),
            stats: vec![None; sources.len()],
        }),
        news: AtomicBool::new(false),
        ended: AtomicUsize::new(0),
    });
    let mut seen: HashSet<Seen> = HashSet::new();
    // Without `all`: each model's first as printed, to tell a later-found earlier one apart.
    let mut printed: HashMap<&'static str, (Seen, Printed)> = HashMap::new();
    let mut report_new = |timeline: &Timeline, reports: &[ModelReport]| {
        for r in reports {
            if all {
                for v in &r.violations {
                    if seen.insert(identity(timeline, r.model(), v)) {
                        on_violation(timeline, r, Found::New(v));
                    }
                }
                continue;
            }
            let Some(v) = r.first() else { continue };
            let id = identity(timeline, r.model(), v);
            match printed.get(r.model()) {
                Some((before, _)) if *before == id => {}
                Some((_, before)) => {
                    // Replay finds violations in timeline order, so a different first is an earlier one.
                    let before = before.clone();
                    on_violation(
                        timeline,
                        r,
                        Found::Supersedes {
                            printed: &before,
                            first: v,
                        },
                    );
                    printed.insert(r.model(), (id, printed_as(timeline, v)));
                }
                None => {
                    on_violation(timeline, r, Found::New(v));
                    printed.insert(r.model(), (id, printed_as(timeline, v)));
                }
            }
        }
    };
    // What has arrived so far, checked by the pipeline as a batch check of these inputs would check it: a
    // copy while more may arrive, the events themselves at the end.
    let look = |pipeline: &Pipeline, last: bool| -> Checked {
        let scanned = {
            let mut a = shared
                .arrived
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
            let events = if last {
                // A stopped check's scanners may still push: they find empty inputs.
                let fresh = (0..a.per_input.len()).map(|_| InputEvents::new()).collect();
                std::mem::replace(&mut a.per_input, fresh)
            } else {
                a.per_input.iter().map(InputEvents::copy).collect()
            };
            Scanned::new(inputs, events)
        };
        pipeline.run(Inputs::Scanned(scanned), &mut ())
    };
    let partial = Pipeline {
        partial: true,
        ..pipeline.clone()
    };
    let options = pipeline.scan_options(options);
    let grammar = Arc::new(grammar.clone());
    for (i, source) in sources.iter().enumerate() {
        let (shared, grammar, options, source) = (
            Arc::clone(&shared),
            Arc::clone(&grammar),
            options.clone(),
            source.clone(),
        );
        let on_unparsed = Arc::clone(&on_unparsed);
        std::thread::spawn(move || {
            let path = source.display();
            let stats = scan_input(
                i as u32,
                &source,
                &grammar,
                &options,
                |e| {
                    shared.arrived.lock().expect("lock").per_input[i].push(e);
                    shared.news.store(true, Ordering::Release);
                },
                |u| on_unparsed(&path, u),
            );
            shared.arrived.lock().expect("lock").stats[i] = Some(stats);
            shared.ended.fetch_add(1, Ordering::AcqRel);
        });
    }
    // Each look replays everything so far; waiting at least twice as long as the last look took keeps
    // that work under a third of the time on a fast pipe, however long the input. The wait is cut into
    // short naps so a stop is answered at once.
    let mut pause = TICK;
    let mut end = End::Inputs;
    while shared.ended.load(Ordering::Acquire) < sources.len() {
        if nap(pause, stop) {
            end = End::Stopped;
            break;
        }
        if shared.news.swap(false, Ordering::AcqRel) {
            let started = std::time::Instant::now();
            let Checked {
                timeline, reports, ..
            } = look(&partial, false);
            report_new(&timeline, &reports);
            pause = TICK.max(started.elapsed() * 2);
        }
    }
    let Checked {
        timeline, reports, ..
    } = look(pipeline, true);
    report_new(&timeline, &reports);
    (timeline, reports, end)
}

/// Sleeps `pause` unless `stop` is set first; returns whether it was.
fn nap(pause: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now() + pause;
    loop {
        if stop.load(Ordering::Acquire) {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        std::thread::sleep((until - now).min(STOP_POLL));
    }
}

/// How soon a stop is noticed.
const STOP_POLL: Duration = Duration::from_millis(20);

fn printed_as(timeline: &Timeline, v: &Violation) -> Printed {
    let at = crate::render::loc(timeline, v.primary);
    Printed {
        code: v.invariant.code,
        instance: v.instance.clone(),
        path: at.path.to_string(),
        line: at.line,
        message: v.message.clone(),
    }
}
