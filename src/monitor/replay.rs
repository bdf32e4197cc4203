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
    // Which models read which event kinds, asked once rather than per event.
    let reads: Vec<Vec<bool>> = models
        .iter()
        .map(|m| {
            let mut t = vec![false; EventKind::ALL.len()];
            for k in EventKind::ALL {
                t[k.index()] = m.reads(*k);
            }
            t
        })
        .collect();
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        if let Some(tick) = options.tick.filter(|_| i % REPLAY_TICK == 0) {
            tick(i);
        }
        let life = timeline.life[i];
        for ((m, out), reads) in models.iter_mut().zip(found.iter_mut()).zip(&reads) {
            if life.is_some() || reads[e.kind.index()] {
                m.step(&cx, i, e, life, out);
            }
            if options.witnesses {
                m.witness(&cx, i, e, life);
            }
        }
    }
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
