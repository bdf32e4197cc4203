//! The object-safe face of a [`Mirror`]: what the commands need of a spec without knowing its Rust type, so the
//! bug registry can hold each mirror as data (`&'static dyn SpecMirror`) and no command matches on model names.

use super::export::{self, Behaviour, BehaviourStep, Stuck, Witnessed};
use super::replay::{self, Outcome};
use super::{Constants, Mirror, ShippedSpec};
use crate::tla::trace::Trace;
use std::marker::PhantomData;

/// A behaviour built from a log's witnesses, ready to write.
pub struct Exported {
    /// The patch flag's value the behaviour was built under.
    pub patched: bool,
    pub constants: Constants,
    /// The behaviour as a trace, ending where the mirror first sees a violation.
    pub trace: Trace,
    /// Steps in the trace, and how many of them no log line witnessed.
    pub steps: usize,
    pub inferred: usize,
    /// The invariant the mirror finds violated and at which state (0-based), with the witnessed steps left
    /// out after it.
    pub violated: Option<(&'static str, usize, usize)>,
}

/// A random walk of a mirror, as a trace, with the walk's steps.
pub struct Walk {
    pub trace: Trace,
    pub steps: Vec<BehaviourStep>,
    /// The first invariant violated and the 0-based state where.
    pub violated: Option<(&'static str, usize)>,
}

/// A spec mirror, any of them.
pub trait SpecMirror: Sync {
    fn spec(&self) -> &'static ShippedSpec;
    fn module(&self) -> &'static str;
    fn variables(&self) -> &'static [&'static str];
    fn actions(&self) -> &'static [&'static str];
    fn invariants(&self) -> &'static [&'static str];
    fn patch_constant(&self) -> &'static str;
    /// Can the mirror be built under these constants? The error names the constant.
    fn check_constants(&self, constants: &Constants) -> Result<(), String>;
    /// Replays a trace under these constants ([`replay::replay`]).
    fn replay(&self, constants: &Constants, trace: &Trace) -> Result<Outcome, String>;
    /// Builds the behaviour the witnesses describe, under the bug constants, else the patched ones
    /// ([`export::build_either`]).
    fn export(
        &self,
        witnessed: &Witnessed,
        describe_event: &dyn Fn(usize) -> String,
    ) -> Result<Exported, Stuck>;
    /// The steps of the behaviour the witnesses describe, all of them (not cut at a violation, as the
    /// exported trace is), each with its witnessing event or none if inferred ([`export::build_either`]).
    fn behaviour_steps(&self, witnessed: &Witnessed) -> Result<Vec<BehaviourStep>, Stuck>;
    /// Writes the files of `export --to tla` ([`export::write_tla_files`]); returns the trace module's name.
    fn write_tla_files(
        &self,
        dir: &std::path::Path,
        trace: &Trace,
        constants: &Constants,
    ) -> miette::Result<String>;
    /// A walk from the first initial state, taking successor `choices[k] % n` at step k, stopping at the first
    /// violation or deadlock.
    fn walk(&self, constants: &Constants, choices: &[usize]) -> Result<Walk, String>;
}

/// [`SpecMirror`] for the mirror type `M`.
pub struct Mirrored<M>(PhantomData<fn() -> M>);

impl<M> Mirrored<M> {
    pub const fn new() -> Self {
        Mirrored(PhantomData)
    }
}

impl<M> Default for Mirrored<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Mirror> SpecMirror for Mirrored<M> {
    fn spec(&self) -> &'static ShippedSpec {
        &M::SPEC
    }
    fn module(&self) -> &'static str {
        M::MODULE
    }
    fn variables(&self) -> &'static [&'static str] {
        M::VARIABLES
    }
    fn actions(&self) -> &'static [&'static str] {
        <M::Action as super::Action>::NAMES
    }
    fn invariants(&self) -> &'static [&'static str] {
        M::INVARIANTS
    }
    fn patch_constant(&self) -> &'static str {
        M::PATCH_CONSTANT
    }
    fn check_constants(&self, constants: &Constants) -> Result<(), String> {
        M::new(constants).map(|_| ())
    }
    fn replay(&self, constants: &Constants, trace: &Trace) -> Result<Outcome, String> {
        replay::replay::<M>(constants, trace)
    }
    fn export(
        &self,
        witnessed: &Witnessed,
        describe_event: &dyn Fn(usize) -> String,
    ) -> Result<Exported, Stuck> {
        let (patched, constants, behaviour) = export::build_either::<M>(witnessed)?;
        let mirror = M::new(&constants).expect("build_either built it under these constants");
        let mut trace = export::to_trace(&mirror, &behaviour, describe_event);
        trace.notes.splice(0..0, witnessed.notes.iter().cloned());
        let exported = &behaviour.steps[..trace.states.len() - 1];
        let inferred = exported.iter().filter(|s| s.event.is_none()).count();
        let violated = behaviour.violated.map(|(inv, k)| {
            let after = behaviour.steps[k..]
                .iter()
                .filter(|s| s.event.is_some())
                .count();
            (inv, k, after)
        });
        Ok(Exported {
            patched,
            constants,
            trace,
            steps: exported.len(),
            inferred,
            violated,
        })
    }
    fn behaviour_steps(&self, witnessed: &Witnessed) -> Result<Vec<BehaviourStep>, Stuck> {
        export::build_either::<M>(witnessed).map(|(_, _, behaviour)| behaviour.steps)
    }
    fn write_tla_files(
        &self,
        dir: &std::path::Path,
        trace: &Trace,
        constants: &Constants,
    ) -> miette::Result<String> {
        export::write_tla_files::<M>(dir, trace, constants)
    }
    fn walk(&self, constants: &Constants, choices: &[usize]) -> Result<Walk, String> {
        let mirror = M::new(constants)?;
        let b = random_walk(&mirror, choices);
        let trace = export::to_trace(&mirror, &b, |_| String::new());
        Ok(Walk {
            trace,
            steps: b.steps,
            violated: b.violated,
        })
    }
}

/// A walk from the mirror's first initial state: at step k the successor `choices[k] % n` of the `n` that
/// `Next` allows; it ends at the first violated invariant, a deadlock, or the end of `choices`.
pub fn random_walk<M: Mirror>(mirror: &M, choices: &[usize]) -> Behaviour<M::State> {
    let mut states = vec![mirror.init().remove(0)];
    let mut steps = Vec::new();
    let mut violated = mirror.first_violated(&states[0]).map(|inv| (inv, 0));
    for c in choices {
        if violated.is_some() {
            break;
        }
        let next = mirror.next(states.last().expect("a first state"));
        if next.is_empty() {
            break;
        }
        let step = next[c % next.len()].clone();
        steps.push(BehaviourStep {
            action: super::Action::name(step.action),
            params: step.params,
            event: None,
        });
        states.push(step.next);
        violated = mirror
            .first_violated(states.last().expect("just pushed"))
            .map(|inv| (inv, states.len() - 1));
    }
    Behaviour {
        states,
        steps,
        violated,
    }
}
