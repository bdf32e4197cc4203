//! Replaying a TLA+ trace through a spec mirror, state by state.
//!
//! The first state must be one `Init` allows; each later state must be a successor the mirror's `Next` gives,
//! by the action the trace names where it names one, else by whichever action produces exactly that state.
//! After each state the mirror checks its invariants, and the verdict is compared with the trace's own.
//!
//! Values compare exactly, except in traces read from TLC's `-dumpTrace json` ([`TraceFormat::TlcDumpJson`]),
//! whose JSON cannot tell a set from a sequence, a model value from a string, or a function over model
//! values from a record. For those, a trace value agrees with the mirror's when it is what TLC would have
//! written for it ([`dump_json_agrees`]): an array agrees with a set of the same elements (in any order)
//! as well as with a sequence, a string with a model value of the same name, and an object with a function
//! whose keys print as its field names. The mirror's value says which reading applies, so the order of a
//! sequence still counts. TLC writes such a file only for a counterexample, without naming what was
//! violated; its trace must end where the mirror first finds an invariant violated, or the mirror must
//! find none.

// A divergence is returned once per replay, not on a hot path: its size does not matter.
#![allow(clippy::result_large_err)]

use super::{Action, Constants, Mirror};
use crate::tla::trace::{Trace, TraceFormat, ViolationKind};
use crate::tla::value::TlaValue;
use miette::SourceSpan;

/// Where and how a trace and the mirror part ways.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// 0-based index into the trace's states.
    pub state: usize,
    /// The state's number as the trace prints it.
    pub number: usize,
    pub what: String,
    /// The variable that differs, with the trace's and the mirror's value, where one does.
    pub variable: Option<VariableDiff>,
    /// Bytes in the trace file to point at.
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub struct VariableDiff {
    pub name: String,
    pub in_trace: TlaValue,
    pub in_mirror: TlaValue,
}

/// The result of a replay that went through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    pub states: usize,
    /// The action each step took in the mirror, with its parameters, e.g. `BecomeLeader(s1)`.
    pub actions: Vec<String>,
    /// The first invariant violated and the 1-based state where both the trace and the mirror see it.
    pub violated: Option<(String, usize)>,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    Conforms(Agreement),
    Diverges(Divergence),
}

/// The trace's variables in the mirror's order, or the divergence that says which are missing or extra.
fn values_in_mirror_order<M: Mirror>(
    trace: &Trace,
    index: usize,
) -> Result<Vec<TlaValue>, Divergence> {
    let state = &trace.states[index];
    let diverge = |what: String| Divergence {
        state: index,
        number: state.number,
        what,
        variable: None,
        span: state.span,
    };
    if let Some((extra, _, _)) = state
        .vars
        .iter()
        .find(|(n, _, _)| !M::VARIABLES.contains(&&**n))
    {
        return Err(diverge(format!(
            "the trace has a variable `{extra}` that module {} does not declare",
            M::MODULE
        )));
    }
    M::VARIABLES
        .iter()
        .map(|name| {
            trace.var(index, name).cloned().ok_or_else(|| {
                diverge(format!(
                    "the trace has no value for `{name}`, a variable of module {}",
                    M::MODULE
                ))
            })
        })
        .collect()
}

/// The first variable (in `vars` order) where the mirror's values differ from the trace's, with the span of
/// the trace's value.
fn first_difference<M: Mirror>(
    trace: &Trace,
    index: usize,
    want: &[TlaValue],
    got: &[TlaValue],
) -> Option<(VariableDiff, SourceSpan)> {
    let lenient = lenient(trace);
    let i = want
        .iter()
        .zip(got)
        .position(|(w, g)| !value_agrees(lenient, w, g))?;
    let name = M::VARIABLES[i];
    let span = trace.states[index]
        .vars
        .iter()
        .find(|(n, _, _)| &**n == name)
        .map(|(_, _, s)| *s)
        .unwrap_or(trace.states[index].span);
    Some((
        VariableDiff {
            name: name.to_string(),
            in_trace: want[i].clone(),
            in_mirror: got[i].clone(),
        },
        span,
    ))
}

fn count_differences(lenient: bool, a: &[TlaValue], b: &[TlaValue]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| !value_agrees(lenient, x, y))
        .count()
}

/// Whether values are compared as `-dumpTrace json` writes them (see the module doc).
fn lenient(trace: &Trace) -> bool {
    trace.format == TraceFormat::TlcDumpJson
}

fn value_agrees(lenient: bool, in_trace: &TlaValue, in_mirror: &TlaValue) -> bool {
    if lenient {
        dump_json_agrees(in_trace, in_mirror)
    } else {
        in_trace == in_mirror
    }
}

/// Whether the trace's variables, in the mirror's order, are the mirror's state.
fn state_agrees(lenient: bool, in_trace: &[TlaValue], in_mirror: &[TlaValue]) -> bool {
    in_trace.len() == in_mirror.len()
        && in_trace
            .iter()
            .zip(in_mirror)
            .all(|(t, m)| value_agrees(lenient, t, m))
}

/// Whether `in_trace`, read from `-dumpTrace json` (arrays as sequences, objects as records, strings as
/// strings), is what TLC writes for the mirror's value `in_mirror`.
pub fn dump_json_agrees(in_trace: &TlaValue, in_mirror: &TlaValue) -> bool {
    use TlaValue as V;
    match (in_trace, in_mirror) {
        (V::Str(a), V::ModelValue(b)) => a == b,
        (V::Seq(a), V::Seq(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| dump_json_agrees(x, y))
        }
        // Each element of the array is one of the set's and each of the set's is in the array.
        (V::Seq(a), V::Set(b)) => {
            a.len() == b.len()
                && a.iter().all(|x| b.iter().any(|y| dump_json_agrees(x, y)))
                && b.iter().all(|y| a.iter().any(|x| dump_json_agrees(x, y)))
        }
        (V::Seq(a), V::Function(b)) => a.is_empty() && b.is_empty(),
        (V::Record(a), V::Record(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((k, x), (l, y))| k == l && dump_json_agrees(x, y))
        }
        (V::Record(a), V::Function(b)) => {
            a.len() == b.len()
                && b.iter().all(|(k, y)| {
                    let key = match k {
                        V::Str(s) | V::ModelValue(s) => s.clone(),
                        other => other.to_string(),
                    };
                    a.get(&key).is_some_and(|x| dump_json_agrees(x, y))
                })
        }
        _ => in_trace == in_mirror,
    }
}

/// Does TLC's label `Register(s1,d2)` name the instance `Register(s1, d2)`? (Spacing differs between
/// versions.)
fn same_label(label: &str, instance: &str) -> bool {
    let squeeze = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squeeze(label) == squeeze(instance)
}

/// `Action(p1, p2)` as TLA+ writes an action instance.
pub fn action_text(action: impl std::fmt::Display, params: &[TlaValue]) -> String {
    if params.is_empty() {
        action.to_string()
    } else {
        let p: Vec<String> = params.iter().map(ToString::to_string).collect();
        format!("{action}({})", p.join(", "))
    }
}

/// Replays `trace` through the mirror built from `constants`.
pub fn replay<M: Mirror>(constants: &Constants, trace: &Trace) -> Result<Outcome, String> {
    let mirror = M::new(constants)?;
    Ok(replay_with(&mirror, trace))
}

pub fn replay_with<M: Mirror>(mirror: &M, trace: &Trace) -> Outcome {
    match walk(mirror, trace) {
        Ok(a) => Outcome::Conforms(a),
        Err(d) => Outcome::Diverges(d),
    }
}

fn walk<M: Mirror>(mirror: &M, trace: &Trace) -> Result<Agreement, Divergence> {
    let Some(first) = trace.states.first() else {
        return Err(Divergence {
            state: 0,
            number: 0,
            what: "the trace has no states".into(),
            variable: None,
            span: SourceSpan::from(0..0),
        });
    };
    let lenient = lenient(trace);
    let want = values_in_mirror_order::<M>(trace, 0)?;
    let inits = mirror.init();
    let mut current = match inits
        .iter()
        .find(|s| state_agrees(lenient, &want, &mirror.to_tla(s)))
    {
        Some(s) => s.clone(),
        None => {
            let closest = inits
                .iter()
                .map(|s| mirror.to_tla(s))
                .min_by_key(|v| count_differences(lenient, &want, v));
            let diff = closest.and_then(|got| first_difference::<M>(trace, 0, &want, &got));
            return Err(Divergence {
                state: 0,
                number: first.number,
                what: format!(
                    "the first state is not one that `Init` of {} allows",
                    M::MODULE
                ),
                span: diff.as_ref().map_or(first.span, |d| d.1),
                variable: diff.map(|d| d.0),
            });
        }
    };
    let mut actions = Vec::new();
    let mut violated = mirror.first_violated(&current).map(|inv| (inv, 1));
    for index in 1..trace.states.len() {
        if violated.is_some() {
            break;
        }
        let state = &trace.states[index];
        let want = values_in_mirror_order::<M>(trace, index)?;
        // TLC 2.20 labels an action with its arguments (`BecomeLeader(s1)`), older TLC with its name alone.
        let label = state.action.as_ref().map(|a| a.name.as_str());
        let named = label.map(|l| l.split('(').next().unwrap_or(l).trim());
        let with_args = label.filter(|l| l.contains('('));
        if let Some(name) = named {
            if M::Action::from_name(name).is_none() {
                return Err(Divergence {
                    state: index,
                    number: state.number,
                    what: format!(
                        "the trace's action `{name}` is not an action of module {} (its actions: {})",
                        M::MODULE,
                        M::Action::NAMES.join(", ")
                    ),
                    variable: None,
                    span: state.span,
                });
            }
        }
        let steps = mirror.next(&current);
        let candidates: Vec<_> = steps
            .iter()
            .filter(|s| named.is_none_or(|n| s.action.name() == n))
            .filter(|s| with_args.is_none_or(|l| same_label(l, &action_text(s.action, &s.params))))
            .collect();
        // A state equal to the last is a stuttering step, which every TLA+ spec allows.
        if named.is_none() && state_agrees(lenient, &want, &mirror.to_tla(&current)) {
            actions.push("(stuttering)".to_string());
        } else if let Some(step) = candidates
            .iter()
            .find(|s| state_agrees(lenient, &want, &mirror.to_tla(&s.next)))
        {
            actions.push(action_text(step.action, &step.params));
            current = step.next.clone();
        } else {
            return Err(no_step_divergence(
                mirror,
                trace,
                index,
                named,
                &candidates,
                &want,
            ));
        }
        violated = mirror.first_violated(&current).map(|inv| (inv, index + 1));
    }
    if let Some(k) = trace.back_to_state {
        let back = values_in_mirror_order::<M>(trace, k)?;
        if !mirror
            .next(&current)
            .iter()
            .any(|s| state_agrees(lenient, &back, &mirror.to_tla(&s.next)))
        {
            let last = trace.states.len() - 1;
            return Err(Divergence {
                state: last,
                number: trace.states[last].number,
                what: format!(
                    "the trace loops back to state {}, but no step of the mirror leads there from its last state",
                    trace.states[k].number
                ),
                variable: None,
                span: trace.states[last].span,
            });
        }
    }
    compare_verdicts(trace, violated)?;
    Ok(Agreement {
        states: trace.states.len(),
        actions,
        violated: violated.map(|(inv, k)| (inv.to_string(), k)),
    })
}

fn no_step_divergence<M: Mirror>(
    mirror: &M,
    trace: &Trace,
    index: usize,
    named: Option<&str>,
    candidates: &[&super::Step<M::State, M::Action>],
    want: &[TlaValue],
) -> Divergence {
    let state = &trace.states[index];
    let closest = candidates
        .iter()
        .map(|s| (s, mirror.to_tla(&s.next)))
        .min_by_key(|(_, v)| count_differences(lenient(trace), want, v));
    match closest {
        None => Divergence {
            state: index,
            number: state.number,
            what: match named {
                Some(n) => format!(
                    "action `{n}` is not enabled in the mirror at state {}",
                    trace.states[index - 1].number
                ),
                None => format!(
                    "no action of {} is enabled in the mirror at state {}",
                    M::MODULE,
                    trace.states[index - 1].number
                ),
            },
            variable: None,
            span: state.span,
        },
        Some((step, got)) => {
            let diff = first_difference::<M>(trace, index, want, &got);
            Divergence {
                state: index,
                number: state.number,
                what: format!(
                    "no step of the mirror reaches this state; the closest is {}",
                    action_text(step.action, &step.params)
                ),
                span: diff.as_ref().map_or(state.span, |d| d.1),
                variable: diff.map(|d| d.0),
            }
        }
    }
}

/// The trace says which invariant fails (TLC's `Error: Invariant X is violated.`, on its last state); the
/// mirror must see that same invariant fail first, at that same state, and see nothing fail otherwise.
fn compare_verdicts(
    trace: &Trace,
    mirror_says: Option<(&'static str, usize)>,
) -> Result<(), Divergence> {
    let last = trace.states.len() - 1;
    let trace_says = trace
        .violation
        .as_ref()
        .filter(|v| v.kind == ViolationKind::Invariant)
        .and_then(|v| v.name.clone());
    let diverge = |state: usize, what: String| {
        Err(Divergence {
            state,
            number: trace.states[state].number,
            what,
            variable: None,
            span: trace.states[state].span,
        })
    };
    match (trace_says, mirror_says) {
        (None, None) => Ok(()),
        (Some(t), Some((m, k))) if t == m && k == last + 1 => Ok(()),
        (Some(t), Some((m, k))) => diverge(
            k - 1,
            format!(
                "the mirror finds `{m}` violated here; the trace reports `{t}` at state {}",
                trace.states[last].number
            ),
        ),
        (Some(t), None) => diverge(
            last,
            format!("the trace reports `{t}` violated, but it holds in the mirror in every state"),
        ),
        // A `-dumpTrace json` file is written only for a counterexample and does not say what was violated
        // (see the reader): an invariant the mirror finds must fail at its last state, not before.
        (None, Some((m, k))) if trace.format == TraceFormat::TlcDumpJson && k != last + 1 => {
            diverge(
                k - 1,
                format!(
                    "the mirror finds `{m}` violated here; TLC's counterexample goes on to state {}",
                    trace.states[last].number
                ),
            )
        }
        (None, Some((m, k))) if trace.violation.is_none() => diverge(
            k - 1,
            format!(
                "the mirror finds `{m}` violated here; the trace reports no invariant violation"
            ),
        ),
        // The trace ends in a deadlock or a property violation: invariants are not its claim.
        (None, Some(_)) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::dump_json_agrees;
    use crate::tla::value::TlaValue as V;

    fn m(s: &str) -> V {
        V::model(s)
    }

    #[test]
    fn dump_json_values_agree_with_what_tlc_wrote_them_for() {
        // A set written as an array, in any order; a model value written as a string.
        let set = V::set([m("s1"), m("s2")]);
        assert!(dump_json_agrees(
            &V::seq([V::str("s2"), V::str("s1")]),
            &set
        ));
        assert!(!dump_json_agrees(&V::seq([V::str("s1")]), &set));
        assert!(dump_json_agrees(&V::seq([]), &V::set([])));
        assert!(dump_json_agrees(&V::str("s1"), &m("s1")));
        // A function over model values written as an object.
        let f = V::function([(m("d1"), V::set([V::int(1)])), (m("d2"), V::set([]))]);
        let rec = V::record([("d1", V::seq([V::int(1)])), ("d2", V::seq([]))]);
        assert!(dump_json_agrees(&rec, &f));
        assert!(!dump_json_agrees(
            &V::record([("d1", V::seq([V::int(1)]))]),
            &f
        ));
        // A sequence keeps its order; a string is not an integer.
        let s = V::seq([V::int(1), V::int(2)]);
        assert!(dump_json_agrees(&V::seq([V::int(1), V::int(2)]), &s));
        assert!(!dump_json_agrees(&V::seq([V::int(2), V::int(1)]), &s));
        assert!(!dump_json_agrees(&V::str("1"), &V::int(1)));
        assert!(!dump_json_agrees(&V::str("s1"), &V::str("s2")));
    }
}
