//! The replay engine: steps monitors over the merged timeline and decides their verdicts. It knows monitors
//! only through the [`Model`] trait; which monitors run, and the reports that name their bugs, are
//! [`crate::check`]'s business (the bug registry). The refinement harness, which sits below the registry,
//! calls the engine directly.

use crate::mirror::export::Witnessed;
use crate::monitor::{About, Ctx, Model, Verdict, Violation};
use crate::timeline::Timeline;
use crate::vocab::EventKind;
use std::collections::HashSet;

/// How often [`ReplayOptions::tick`] is called: once per this many events.
pub const REPLAY_TICK: usize = 1 << 14;

/// Timelines of fewer events are replayed on one thread: starting threads would cost more than it saves.
const PARALLEL_FROM: usize = 1 << 16;

/// What a replay does besides stepping the monitors; the default is a batch check's replay.
#[derive(Clone, Copy, Default)]
pub struct ReplayOptions<'a> {
    /// The inputs are still growing (a live check's look at a prefix): the monitors do not judge what has
    /// not happened yet ([`Model::finish`] is not called).
    pub partial: bool,
    /// Every event also reaches each monitor's witness half, and its witnessed spec actions come back.
    pub witnesses: bool,
    /// Called with the number of events replayed every [`REPLAY_TICK`] events (the progress bar).
    pub tick: Option<&'a dyn Fn(usize)>,
    /// How many threads the monitors are shared out over (at most one per monitor). 0: one per CPU for a
    /// timeline of [`PARALLEL_FROM`] events or more, else one.
    pub threads: usize,
}

/// One monitor's answer, before [`crate::check`] names its bug.
#[derive(Debug)]
pub struct Replayed {
    /// The monitor's description.
    pub about: &'static About,
    pub verdict: Verdict,
    /// Why the verdict is inconclusive (or what was left unknown beside a violation).
    pub reason: Option<String>,
    /// The parts of `reason`, one a thing not in view (the refinement test checks each against the logs).
    pub reasons: Vec<String>,
    pub events: usize,
    pub checks: usize,
    /// The first violation of each invariant of each instance, in timeline order.
    pub violations: Vec<Violation>,
    /// The witnessed spec actions, with [`ReplayOptions::witnesses`].
    pub witnessed: Option<Witnessed>,
}

/// Steps the monitors over the timeline, in one pass, and decides each one's verdict.
pub fn replay(
    timeline: &Timeline,
    mut models: Vec<Box<dyn Model>>,
    options: &ReplayOptions,
) -> Vec<Replayed> {
    let cx = Ctx { timeline };
    let mut found: Vec<Vec<Violation>> = models.iter().map(|_| Vec::new()).collect();
    let threads = match options.threads {
        0 if timeline.events.len() < PARALLEL_FROM => 1,
        0 => crate::scan::workers(),
        n => n,
    }
    .clamp(1, models.len().max(1));
    // Model `m` is stepped on thread `m % threads`: each model sees every event it reads, in order,
    // whichever thread steps it, so its answer does not depend on the split.
    let mut groups: Vec<Group> = (0..threads).map(|_| Vec::new()).collect();
    for (m, (model, out)) in models.iter_mut().zip(found.iter_mut()).enumerate() {
        groups[m % threads].push((model, out));
    }
    let mut groups = groups.into_iter();
    let here = groups.next().unwrap_or_default();
    let witnesses = options.witnesses;
    std::thread::scope(|scope| {
        for group in groups {
            let cx = &cx;
            scope.spawn(move || step_group(cx, group, witnesses, None));
        }
        step_group(&cx, here, witnesses, options.tick);
    });
    models
        .iter_mut()
        .zip(found)
        .map(|(m, mut violations)| {
            if !options.partial {
                m.finish(&cx, &mut violations);
            }
            violations.sort_by_key(|v| v.primary);
            let mut seen = HashSet::new();
            violations.retain(|v| seen.insert((v.invariant, v.instance.clone())));
            for v in &mut violations {
                v.ambiguous_order = ambiguity(timeline, v);
            }
            let k = m.knowledge();
            // Every distinct reason, most important (first found) first.
            let reasons = k.reasons(timeline, m.about().role.service.name());
            // With nothing checked, the reason is what was not in view, or that nothing was there at all.
            let parts = match (violations.is_empty() && k.checks == 0, k.events) {
                (true, 0) => vec![format!(
                    "no events for this model in these logs: {}",
                    m.nothing_checked_reason()
                )],
                (true, _) if reasons.is_empty() => vec![m.nothing_checked_reason().to_string()],
                _ => reasons,
            };
            let joined = (!parts.is_empty()).then(|| parts.join("; "));
            let (verdict, reason) = if !violations.is_empty() {
                (Verdict::Violated, joined)
            } else if k.checks == 0 {
                (Verdict::Inconclusive, joined)
            } else if let Some(u) = joined {
                (
                    Verdict::Inconclusive,
                    Some(format!("{u} ({} other check(s) passed)", k.checks)),
                )
            } else {
                (Verdict::Conforms, None)
            };
            let (events, checks) = (k.events, k.checks);
            Replayed {
                about: m.about(),
                verdict,
                reason,
                reasons: parts,
                events,
                checks,
                violations,
                witnessed: options.witnesses.then(|| m.witnessed(&cx)),
            }
        })
        .collect()
}

/// Models stepped on one thread, each with the violations it found.
type Group<'m> = Vec<(&'m mut Box<dyn Model>, &'m mut Vec<Violation>)>;

/// Steps `group`'s models over every event that one of them reads (or every event, with `witnesses`).
/// Each group reads the heads and the events it needs through readers of its own.
fn step_group(cx: &Ctx, mut group: Group, witnesses: bool, tick: Option<&dyn Fn(usize)>) {
    let timeline = cx.timeline;
    // Which models read which event kinds, asked once rather than per event.
    let reads: Vec<Vec<bool>> = group
        .iter()
        .map(|(m, _)| EventKind::ALL.iter().map(|k| m.reads(*k)).collect())
        .collect();
    let read_by_any: Vec<bool> = (0..EventKind::ALL.len())
        .map(|k| reads.iter().any(|r| r[k]))
        .collect();
    let mut windows = timeline.events.windows();
    for (i, h) in timeline.events.heads().enumerate() {
        if let Some(tick) = tick.filter(|_| i % REPLAY_TICK == 0) {
            tick(i);
        }
        let life = timeline.life[i];
        // An event no model here reads is not read back.
        if life.is_none() && !witnesses && !read_by_any[h.kind.index()] {
            continue;
        }
        let e = timeline.events.event_in(&h, &mut windows);
        for ((m, out), reads) in group.iter_mut().zip(&reads) {
            if life.is_some() || reads[e.kind.index()] {
                m.step(cx, i, &e, life, out);
            }
            if witnesses {
                m.witness(cx, i, &e, life);
            }
        }
    }
}

/// A violation whose causal chain crosses nodes only by clocks within the skew tolerance may rest on an order
/// the logs do not fix: say so.
fn ambiguity(timeline: &Timeline, v: &Violation) -> Option<String> {
    let p = &timeline.events.get(v.primary);
    for (r, label) in &v.related {
        if !timeline.order_is_certain(*r, v.primary) {
            let e = &timeline.events.get(*r);
            let gap = match (e.time, p.time) {
                (Some(a), Some(b)) => format!("{} ms", (b.millis - a.millis).abs()),
                _ => "an unknown time".into(),
            };
            return Some(format!(
                "the order of this line and \"{label}\" (node {}) rests on clocks {gap} apart, within the {} ms skew tolerance",
                e.node.as_deref().unwrap_or("unknown"),
                timeline.max_skew_ms
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The files of one case of every model's scenarios (`healthy`, `violating`, ...), as one timeline: all
    /// four monitors read events in it.
    fn every_model(case: &str) -> Timeline {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios");
        let mut files = Vec::new();
        for model in std::fs::read_dir(&root).unwrap() {
            let dir = model.unwrap().path().join(case);
            for f in std::fs::read_dir(dir).into_iter().flatten() {
                let p = f.unwrap().path();
                if p.is_file() {
                    files.push(p.to_string_lossy().into_owned());
                }
            }
        }
        files.sort();
        crate::bugs::testkit::timeline_of(&files)
    }

    fn replayed(tl: &Timeline, threads: usize, witnesses: bool) -> Vec<String> {
        let options = ReplayOptions {
            witnesses,
            threads,
            ..ReplayOptions::default()
        };
        replay(tl, crate::check::monitors(&[]), &options)
            .iter()
            .map(|r| format!("{r:?}"))
            .collect()
    }

    /// However the monitors are shared out over threads, each gives the answer it gives on one thread:
    /// verdicts, reasons, violations with their places, counts and witnessed actions.
    #[test]
    fn monitors_on_several_threads_answer_as_on_one() {
        for case in ["healthy", "violating", "midflight"] {
            let tl = every_model(case);
            for witnesses in [false, true] {
                let alone = replayed(&tl, 1, witnesses);
                assert_eq!(alone.len(), 4, "{case}");
                if case == "violating" {
                    let violated = alone.iter().filter(|r| r.contains("Violated")).count();
                    assert_eq!(
                        violated, 4,
                        "every model's violating case is found: {alone:#?}"
                    );
                }
                for threads in [2, 3, 4, 9] {
                    assert_eq!(
                        replayed(&tl, threads, witnesses),
                        alone,
                        "{case}, {threads} threads, witnesses {witnesses}"
                    );
                }
            }
        }
    }
}
