//! The replay engine: steps models over the merged timeline and decides their verdicts. It knows models only
//! through the [`Model`] trait; which models run is [`crate::check`]'s business (the bug registry).

use crate::model::{Ctx, Model, Spec, Verdict, Violation};
use crate::spec::export::Witnessed;
use crate::timeline::Timeline;
use crate::vocab::EventKind;
use std::collections::HashSet;

/// One model's answer.
#[derive(Debug, Clone)]
pub struct ModelReport {
    pub model: &'static str,
    pub spec: Spec,
    pub verdict: Verdict,
    /// Why the verdict is inconclusive (or what was left unknown beside a violation).
    pub reason: Option<String>,
    /// The parts of `reason`, one a thing not in view (the refinement test checks each against the logs).
    pub reasons: Vec<String>,
    pub events: usize,
    pub checks: usize,
    /// The first violation of each invariant of each instance, in timeline order. `first` is the model's
    /// first violation.
    pub violations: Vec<Violation>,
}

impl ModelReport {
    /// The violation reported without `--all`.
    pub fn first(&self) -> Option<&Violation> {
        self.violations.first()
    }
}

/// Replays the timeline through the models.
pub fn replay(timeline: &Timeline, models: Vec<Box<dyn Model>>) -> Vec<ModelReport> {
    replay_until(timeline, models, true)
}

/// How often [`replay_ticking`] calls its tick: once per this many events.
pub const REPLAY_TICK: usize = 1 << 14;

/// [`replay`], calling `tick` with the number of events replayed every [`REPLAY_TICK`] events (the
/// progress bar).
pub fn replay_ticking(
    timeline: &Timeline,
    models: Vec<Box<dyn Model>>,
    tick: &dyn Fn(usize),
) -> Vec<ModelReport> {
    observe_ticking(timeline, models, true, false, Some(tick))
        .into_iter()
        .map(|(report, _)| report)
        .collect()
}

/// Replays the timeline through the models; `at_end` says the inputs are complete, so that the models may
/// judge what never happened (a live check replays prefixes of inputs that are still growing).
pub fn replay_until(
    timeline: &Timeline,
    models: Vec<Box<dyn Model>>,
    at_end: bool,
) -> Vec<ModelReport> {
    observe(timeline, models, at_end, false)
        .into_iter()
        .map(|(report, _)| report)
        .collect()
}

/// Steps the models over the timeline; with `witnesses`, every event also reaches each model's witness
/// half and its witnessed actions come back beside the report.
pub fn observe(
    timeline: &Timeline,
    models: Vec<Box<dyn Model>>,
    at_end: bool,
    witnesses: bool,
) -> Vec<(ModelReport, Option<Witnessed>)> {
    observe_ticking(timeline, models, at_end, witnesses, None)
}

/// [`observe`], calling `tick` (if any) with the number of events replayed every [`REPLAY_TICK`] events.
pub fn observe_ticking(
    timeline: &Timeline,
    mut models: Vec<Box<dyn Model>>,
    at_end: bool,
    witnesses: bool,
    tick: Option<&dyn Fn(usize)>,
) -> Vec<(ModelReport, Option<Witnessed>)> {
    let cx = Ctx { timeline };
    let mut found: Vec<Vec<Violation>> = models.iter().map(|_| Vec::new()).collect();
    // Which models read which event kinds, asked once rather than per event.
    let reads: Vec<Vec<bool>> = models
        .iter()
        .map(|m| {
            let mut t = vec![false; EventKind::ALL.len()];
            for k in EventKind::ALL {
                t[*k as usize] = m.reads(*k);
            }
            t
        })
        .collect();
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        if let Some(tick) = tick.filter(|_| i % REPLAY_TICK == 0) {
            tick(i);
        }
        let life = timeline.life[i];
        for ((m, out), reads) in models.iter_mut().zip(found.iter_mut()).zip(&reads) {
            if life.is_some() || reads[e.kind as usize] {
                m.step(&cx, i, e, life, out);
            }
            if witnesses {
                m.witness(&cx, i, e, life);
            }
        }
    }
    models
        .iter_mut()
        .zip(found)
        .map(|(m, mut violations)| {
            if at_end {
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
            let report = ModelReport {
                model: m.name(),
                spec: m.spec(),
                verdict,
                reason,
                reasons: parts,
                events: k.events,
                checks: k.checks,
                violations,
            };
            let witnessed = witnesses.then(|| m.witnessed(&cx));
            (report, witnessed)
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
