//! Logs → TLA+ behaviour: the spec actions the logs witness, filled in with the steps no log line shows, as a
//! behaviour of the mirror; written as ITF or as a TLA+ module that TLC checks against the spec itself.
//!
//! Each witnessed action must be a step of the spec from where the behaviour is. Where it is not enabled yet,
//! the shortest run of *unlogged* actions (the model's `hidden` list: crashes, expiries, purges, ...) that
//! enables it is inserted and marked inferred; before the first witnessed step any action may be inferred,
//! since the logs may start after the cluster did. A witnessed step no such search can reach is the export's
//! finding: the logs show a step the spec does not allow there.

use super::replay::action_text;
use super::{Action, Constants, Mirror};
use crate::tla::trace::{
    ActionLabel, Trace, TraceFormat, TraceState, TraceViolation, ViolationKind,
};
use crate::tla::value::TlaValue;
use indexmap::IndexSet;
use miette::SourceSpan;
use rustc_hash::FxBuildHasher;
use std::fmt::Write as _;

/// A spec action the logs show: the timeline event that witnesses it, the action and its parameters.
///
/// A witness table emits its mirror's typed actions (`Witness<mirror::Action>`); what crosses the object-safe
/// boundary (`dyn Model`, `dyn SpecMirror`) is the action's name ([`Witness::named`]), which the export
/// resolves to the mirror's action again ([`Action::from_name`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness<A = &'static str> {
    pub event: usize,
    pub action: A,
    pub params: Vec<TlaValue>,
}

impl<A: Action> Witness<A> {
    /// The witness with its action by name ([`Action::name`]).
    pub fn named(self) -> Witness {
        Witness {
            event: self.event,
            action: self.action.name(),
            params: self.params,
        }
    }
}

/// What a model reads off a timeline for export.
#[derive(Debug, Clone, Default)]
pub struct Witnessed {
    pub witnesses: Vec<Witness>,
    /// Every constant but the patch flag, sized to what the logs show (nodes named after the logs' nodes).
    pub constants: Constants,
    /// Actions no log line witnesses, which the export may insert between witnessed steps (their names,
    /// [`Action::name`]).
    pub hidden: Vec<&'static str>,
    /// How log names became model values, and anything else a reader of the export should know.
    pub notes: Vec<String>,
    /// The event where the logs stop telling a behaviour of the spec (check is inconclusive there), when the
    /// witnesses end before the logs do (the reason is among the notes).
    pub ends_at: Option<usize>,
}

/// One step of a built behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehaviourStep {
    pub action: &'static str,
    pub params: Vec<TlaValue>,
    /// The witnessing event, or `None` for a step inferred to enable the next witnessed one.
    pub event: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Behaviour<S> {
    /// `states[0]` is initial; `states[i + 1]` follows `steps[i]`.
    pub states: Vec<S>,
    pub steps: Vec<BehaviourStep>,
    /// The first invariant violated, and the index into `states` where.
    pub violated: Option<(&'static str, usize)>,
}

impl<S> Behaviour<S> {
    /// The behaviour of `init` alone.
    fn starting_at<M: Mirror<State = S>>(mirror: &M, init: S) -> Self {
        Behaviour {
            violated: mirror.first_violated(&init).map(|inv| (inv, 0)),
            states: vec![init],
            steps: Vec::new(),
        }
    }

    /// Keeps the first `len` states (and the steps into them).
    fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
        self.steps.truncate(len - 1);
        if self.violated.is_some_and(|(_, k)| k >= len) {
            self.violated = None;
        }
    }

    /// Appends a step, noting the first state where an invariant fails.
    fn push<M: Mirror<State = S>>(&mut self, mirror: &M, step: BehaviourStep, state: S) {
        if self.violated.is_none() {
            self.violated = mirror
                .first_violated(&state)
                .map(|inv| (inv, self.states.len()));
        }
        self.steps.push(step);
        self.states.push(state);
    }
}

/// Why a behaviour could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stuck {
    /// Index into the witnesses.
    pub witness: usize,
    pub event: usize,
    pub action: String,
    /// States searched for a way to enable it.
    pub searched: usize,
}

/// How many states the search for unlogged steps may visit before it gives up on one witnessed step.
pub const SEARCH_LIMIT: usize = 200_000;

/// The shortest run of steps from `from` that ends with `goal`, every earlier step's action in `hidden`
/// (any action when `hidden` is `None`). On failure, the number of states searched.
fn enable<M: Mirror>(
    mirror: &M,
    from: &M::State,
    goal: &Witness,
    hidden: Option<&[M::Action]>,
) -> Result<Vec<(BehaviourStep, M::State)>, usize> {
    let action = M::Action::from_name(goal.action);
    // Narrow first: a wide action (`OmRestore(n)`, one successor per sequence number below Recon's cursor)
    // would make every search, even for a step enabled where the behaviour is, visit states in proportion
    // to the log's numbers, and the export grow quadratically with the log. The witnesses name each
    // instance the logs show, so only where the search without the others fails is it run over `next`.
    if let Some(action) = action {
        if mirror.next_toward(from, action, &goal.params).is_some() {
            let narrow = |s: &M::State| {
                mirror
                    .next_toward(s, action, &goal.params)
                    .unwrap_or_else(|| mirror.next(s))
            };
            if let Ok(path) = search(mirror, from, goal, Some(action), hidden, narrow) {
                return Ok(path);
            }
        }
    }
    search(mirror, from, goal, action, hidden, |s| mirror.next(s))
}

/// The states a breadth-first search has reached, each kept once: a state's number is its place in the set,
/// and `parent[n]` says how state `n` was reached. A breadth-first search expands states in the order they
/// were reached, so its queue is a number into the set, and a reached state is never cloned: the search's cost
/// is the successors the mirror builds, not copies of them (a search that runs to [`SEARCH_LIMIT`] used to
/// spend most of its time in the allocator).
struct Reached<N, L> {
    nodes: IndexSet<N, FxBuildHasher>,
    /// The number of the node each was reached from, and the label of the step; `None` for the start.
    parent: Vec<Option<(usize, L)>>,
}

impl<N: Eq + std::hash::Hash, L> Reached<N, L> {
    fn from(start: N) -> Self {
        let mut nodes = IndexSet::with_hasher(FxBuildHasher);
        nodes.insert(start);
        Reached {
            nodes,
            parent: vec![None],
        }
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn contains(&self, node: &N) -> bool {
        self.nodes.contains(node)
    }

    fn node(&self, n: usize) -> &N {
        &self.nodes[n]
    }

    /// Adds a node not reached before: it gets the next number.
    fn add(&mut self, node: N, from: usize, label: L) {
        let new = self.nodes.insert(node);
        debug_assert!(new, "a node is added once");
        self.parent.push(Some((from, label)));
    }

    /// The steps from the start to node `n`, first to last: each step's label and the node it reaches.
    fn path_to(&self, mut n: usize) -> Vec<(&L, &N)> {
        let mut rev = Vec::new();
        while let Some((prev, label)) = &self.parent[n] {
            rev.push((label, self.node(n)));
            n = *prev;
        }
        rev.reverse();
        rev
    }
}

/// [`enable`]'s breadth-first search, over the successors `next` gives.
fn search<M: Mirror>(
    mirror: &M,
    from: &M::State,
    goal: &Witness,
    goal_action: Option<M::Action>,
    hidden: Option<&[M::Action]>,
    next: impl Fn(&M::State) -> Vec<super::Step<M::State, M::Action>>,
) -> Result<Vec<(BehaviourStep, M::State)>, usize> {
    let may_infer = |a: M::Action| hidden.is_none_or(|h| h.contains(&a));
    let mut reached: Reached<M::State, (M::Action, Vec<TlaValue>)> = Reached::from(from.clone());
    // Breadth-first: states are expanded in the order they were reached (the queue is the numbers from `n`
    // to the end of the set).
    let mut n = 0;
    while n < reached.len() {
        let state = reached.node(n);
        let steps = next(state);
        let holds = mirror.first_violated(state).is_none();
        for step in steps {
            if Some(step.action) == goal_action && step.params == goal.params {
                let mut path: Vec<(BehaviourStep, M::State)> = reached
                    .path_to(n)
                    .into_iter()
                    .map(|((action, params), state)| {
                        let step = BehaviourStep {
                            action: action.name(),
                            params: params.clone(),
                            event: None,
                        };
                        (step, state.clone())
                    })
                    .collect();
                path.push((
                    BehaviourStep {
                        action: step.action.name(),
                        params: step.params,
                        event: Some(goal.event),
                    },
                    step.next,
                ));
                return Ok(path);
            }
            if may_infer(step.action)
                && !introduces_violation(mirror, holds, &step.next)
                && !reached.contains(&step.next)
            {
                if reached.len() >= SEARCH_LIMIT {
                    return Err(reached.len());
                }
                reached.add(step.next, n, (step.action, step.params));
            }
        }
        n += 1;
    }
    Err(reached.len())
}

/// The names of these actions, as [`Witnessed::hidden`] holds them.
pub fn action_names<A: Action>(actions: &[A]) -> Vec<&'static str> {
    actions.iter().map(|a| a.name()).collect()
}

/// The mirror's actions these names name (names of no action are left out: no step takes them).
fn typed<A: Action>(names: &[&str]) -> Vec<A> {
    names.iter().filter_map(|n| A::from_name(n)).collect()
}

/// Would a step from a state that satisfies every invariant (`before_holds`) to `after` break one? Inferred
/// steps never may: only a step a log line witnesses can show a violation, so the export never guesses one.
/// (The searches ask the first half once per state they expand, not once per successor.)
fn introduces_violation<M: Mirror>(mirror: &M, before_holds: bool, after: &M::State) -> bool {
    before_holds && mirror.first_violated(after).is_some()
}

/// Builds the behaviour the witnesses describe, from the mirror's first initial state.
pub fn build<M: Mirror>(mirror: &M, witnessed: &Witnessed) -> Result<Behaviour<M::State>, Stuck> {
    build_looking_back(mirror, witnessed, false)
}

/// [`build`], and with `look_back`, where a witnessed step is not enabled, a joint search ([`joint_path`])
/// over it and the 1, 2, 4, ... witnesses before it, from the state before them: an unlogged step that the
/// stuck one needs may belong before an earlier witnessed step. Unlike [`build_joint`] over the whole
/// trace, its cost does not grow with the length of the log, so a long log's behaviour is still built.
fn build_looking_back<M: Mirror>(
    mirror: &M,
    witnessed: &Witnessed,
    look_back: bool,
) -> Result<Behaviour<M::State>, Stuck> {
    let init = mirror
        .init()
        .into_iter()
        .next()
        .expect("every shipped spec has an initial state");
    let ws = &witnessed.witnesses;
    let all_hidden = typed::<M::Action>(&witnessed.hidden);
    let mut behaviour = Behaviour::starting_at(mirror, init);
    // after[i]: how many states the behaviour has once witness i is its last step.
    let mut after: Vec<usize> = Vec::with_capacity(ws.len());
    for (i, w) in ws.iter().enumerate() {
        let current = behaviour.states.last().expect("at least the initial state");
        let hidden = (i > 0).then_some(&all_hidden[..]);
        let path = match enable(mirror, current, w, hidden) {
            Ok(path) => path,
            Err(searched) => {
                let stuck = || Stuck {
                    witness: i,
                    event: w.event,
                    action: action_text(w.action, &w.params),
                    searched,
                };
                if !look_back {
                    return Err(stuck());
                }
                let mut back = 1;
                loop {
                    let start = i.saturating_sub(back);
                    let keep = if start == 0 { 1 } else { after[start - 1] };
                    let from = &behaviour.states[keep - 1];
                    let window = &ws[start..=i];
                    if let Some(path) = joint_path(mirror, from, window, &all_hidden, start == 0) {
                        // The window's witnesses are placed again, from the state before them.
                        behaviour.truncate(keep);
                        after.truncate(start);
                        break path;
                    }
                    if start == 0 {
                        return Err(stuck());
                    }
                    back *= 2;
                }
            }
        };
        for (step, state) in path {
            let witnessed = step.event.is_some();
            behaviour.push(mirror, step, state);
            if witnessed {
                after.push(behaviour.states.len());
            }
        }
    }
    Ok(behaviour)
}

/// The shortest behaviour through every witness at once: a breadth-first search over (state, witnesses
/// matched so far). [`build`] places each witnessed step after the shortest run that enables it alone; an
/// unlogged step may instead be needed well before the witnessed step that needs it (a PutBlock that passed
/// the leader's check before a FinalizeBlock and is applied after it), which only a search over the whole
/// witness sequence finds. The same rules hold: before the first witness any action may be inferred, after
/// it only `hidden` ones. `None` when no such behaviour is found within [`SEARCH_LIMIT`] search nodes.
pub fn build_joint<M: Mirror>(mirror: &M, witnessed: &Witnessed) -> Option<Behaviour<M::State>> {
    let init = mirror.init().into_iter().next()?;
    let hidden = typed::<M::Action>(&witnessed.hidden);
    let path = joint_path(mirror, &init, &witnessed.witnesses, &hidden, true)?;
    let mut behaviour = Behaviour::starting_at(mirror, init);
    for (step, state) in path {
        behaviour.push(mirror, step, state);
    }
    Some(behaviour)
}

/// The shortest run of steps from `from` through every witness of `ws` in order, ending with the last:
/// after the first witness only `hidden` actions are inferred, and before it any action if `free_start`.
/// `None` when none is found within [`SEARCH_LIMIT`] search nodes.
fn joint_path<M: Mirror>(
    mirror: &M,
    from: &M::State,
    ws: &[Witness],
    hidden: &[M::Action],
    free_start: bool,
) -> Option<Vec<(BehaviourStep, M::State)>> {
    let ws_actions: Vec<Option<M::Action>> =
        ws.iter().map(|w| M::Action::from_name(w.action)).collect();
    // A node: a state and how many witnesses are matched on the way to it.
    let mut reached: Reached<(M::State, usize), BehaviourStep> = Reached::from((from.clone(), 0));
    let mut end = None;
    // Breadth-first, as in `search`: nodes are expanded in the order they were reached.
    let mut n = 0;
    'search: while n < reached.len() {
        let (state, j) = reached.node(n);
        let j = *j;
        if j == ws.len() {
            end = Some(n);
            break;
        }
        let w = &ws[j];
        let steps = mirror.next(state);
        let holds = mirror.first_violated(state).is_none();
        let mut succ = Vec::with_capacity(2);
        for step in steps {
            succ.clear();
            if Some(step.action) == ws_actions[j] && step.params == w.params {
                succ.push(((step.next.clone(), j + 1), Some(w.event)));
            }
            if ((j == 0 && free_start) || hidden.contains(&step.action))
                && !introduces_violation(mirror, holds, &step.next)
            {
                succ.push(((step.next, j), None));
            }
            for (node, event) in succ.drain(..) {
                if reached.contains(&node) {
                    continue;
                }
                if reached.len() >= SEARCH_LIMIT {
                    break 'search;
                }
                let label = BehaviourStep {
                    action: step.action.name(),
                    params: step.params.clone(),
                    event,
                };
                reached.add(node, n, label);
            }
        }
        n += 1;
    }
    let path = reached
        .path_to(end?)
        .into_iter()
        .map(|(step, (state, _))| (step.clone(), state.clone()))
        .collect();
    Some(path)
}

/// Builds under the bug constants first, then under the patched ones: the logs may come from either
/// version. Returns the patch flag's value that worked, or the stuck point of the bug constants.
pub fn build_either<M: Mirror>(
    witnessed: &Witnessed,
) -> Result<(bool, Constants, Behaviour<M::State>), Stuck> {
    let mut first_stuck = None;
    for patched in [false, true] {
        let mut constants = witnessed.constants.clone();
        constants.insert(M::PATCH_CONSTANT.to_string(), TlaValue::Bool(patched));
        // Callers check the constants first (`linking` reports a bad one as an input error).
        let Ok(mirror) = M::new(&constants) else {
            continue;
        };
        match build(&mirror, witnessed) {
            Ok(b) => return Ok((patched, constants, b)),
            Err(s) => {
                // The step-by-step search does not look ahead; the joint one does, and where the log is
                // too long for it, the step-by-step one looking back over a window of witnesses.
                if let Some(b) = build_joint(&mirror, witnessed) {
                    return Ok((patched, constants, b));
                }
                if let Ok(b) = build_looking_back(&mirror, witnessed, true) {
                    return Ok((patched, constants, b));
                }
                first_stuck.get_or_insert(s);
            }
        }
    }
    Err(first_stuck.unwrap_or_else(|| Stuck {
        witness: 0,
        event: witnessed.witnesses.first().map_or(0, |w| w.event),
        action: "(no mirror for these constants)".into(),
        searched: 0,
    }))
}

/// The behaviour as a trace: one state per step, each labelled with its action and, in the notes, whether
/// a log line witnessed it.
pub fn to_trace<M: Mirror>(
    mirror: &M,
    behaviour: &Behaviour<M::State>,
    describe_event: impl Fn(usize) -> String,
) -> Trace {
    let empty = SourceSpan::from(0..0);
    // Like TLC's, the trace ends at the first state that violates an invariant, and says which.
    let end = behaviour
        .violated
        .map_or(behaviour.states.len(), |(_, k)| k + 1);
    let states = behaviour.states[..end]
        .iter()
        .enumerate()
        .map(|(i, s)| TraceState {
            number: i + 1,
            action: (i > 0).then(|| ActionLabel {
                name: behaviour.steps[i - 1].action.to_string(),
                module: Some(M::MODULE.to_string()),
                line: None,
            }),
            vars: M::VARIABLES
                .iter()
                .zip(mirror.to_tla(s))
                .map(|(n, v)| ((*n).into(), std::sync::Arc::new(v), empty))
                .collect(),
            span: empty,
        })
        .collect();
    let mut notes: Vec<String> = behaviour.steps[..end - 1]
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let what = action_text(step.action, &step.params);
            match step.event {
                Some(e) => format!(
                    "state {}: {what}, witnessed by {}",
                    i + 2,
                    describe_event(e)
                ),
                None => format!("state {}: {what}, inferred (no log line shows it)", i + 2),
            }
        })
        .collect();
    let violation = behaviour.violated.map(|(inv, k)| {
        if end < behaviour.states.len() {
            notes.push(format!(
                "the logs witness {} more step(s) after state {}, left out: the trace stops where {inv} is violated",
                behaviour.steps[end - 1..]
                    .iter()
                    .filter(|s| s.event.is_some())
                    .count(),
                k + 1
            ));
        }
        TraceViolation {
            kind: ViolationKind::Invariant,
            name: Some(inv.to_string()),
            message: format!("Invariant {inv} is violated."),
        }
    });
    Trace {
        format: TraceFormat::Itf,
        module: Some(M::MODULE.to_string()),
        violation,
        states,
        back_to_state: None,
        stuttering: false,
        notes,
    }
}

/// The name of the trace-validation module written for spec `module`.
pub fn trace_module_name(module: &str) -> String {
    format!("{module}Trace")
}

/// A TLA+ module that extends the spec and admits exactly the behaviours whose states are the trace's, one
/// `Next` step at a time: TLC accepts the trace when it runs to the end with no error, and reports the state
/// where it leaves the spec as a deadlock (no `Next` step reaches the trace's next state) or where an
/// invariant fails.
pub fn to_tla_module<M: Mirror>(trace: &Trace) -> String {
    let name = trace_module_name(M::MODULE);
    let mut m = String::new();
    let _ = writeln!(m, "---- MODULE {name} ----");
    let _ = writeln!(
        m,
        "\\* Generated by ozone-conform: a behaviour read from logs, checked against {} by TLC.",
        M::MODULE
    );
    let _ = writeln!(
        m,
        "\\* Run: java -cp tla2tools.jar tlc2.TLC -config {name}.cfg {name}.tla"
    );
    // TLC: the `:>` and `@@` that functions print with.
    let _ = writeln!(m, "EXTENDS {}, Naturals, Sequences, TLC\n", M::MODULE);
    // The model values the states hold are identifiers TLC must know: declared here, assigned themselves in
    // the config (`d1 = d1`), which makes them the same model values the config's constants name.
    let mut model_values = std::collections::BTreeSet::new();
    for st in &trace.states {
        for (_, v, _) in &st.vars {
            collect_model_values(v, &mut model_values);
        }
    }
    let declared = spec_constants::<M>();
    model_values.retain(|mv| !declared.contains(mv));
    if !model_values.is_empty() {
        let names: Vec<&str> = model_values.iter().map(String::as_str).collect();
        let _ = writeln!(m, "CONSTANTS {}\n", names.join(", "));
    }
    let _ = writeln!(m, "\\* How each state was reached:");
    for note in &trace.notes {
        let _ = writeln!(m, "\\*   {}", note.replace(['\n', '\r'], " "));
    }
    let _ = writeln!(
        m,
        "\nVARIABLE l  \\* the trace position TLC has matched so far\n"
    );
    let _ = writeln!(m, "Trace == <<");
    for (i, st) in trace.states.iter().enumerate() {
        let fields: Vec<String> = st
            .vars
            .iter()
            .map(|(n, v, _)| format!("{n} |-> {v}"))
            .collect();
        let sep = if i + 1 < trace.states.len() { "," } else { "" };
        let _ = writeln!(m, "  [{}]{sep}", fields.join(", "));
    }
    let _ = writeln!(m, ">>\n");
    let now: Vec<String> = M::VARIABLES
        .iter()
        .map(|v| format!("{v} = Trace[i].{v}"))
        .collect();
    let then: Vec<String> = M::VARIABLES
        .iter()
        .map(|v| format!("{v}' = Trace[i].{v}"))
        .collect();
    let _ = writeln!(m, "IsState(i) == {}", now.join(" /\\ "));
    let _ = writeln!(m, "IsNextState(i) == {}\n", then.join(" /\\ "));
    let _ = writeln!(m, "TraceInit == Init /\\ l = 1 /\\ IsState(1)\n");
    let _ = writeln!(m, "TraceNext ==");
    let _ = writeln!(m, "    \\/ /\\ l < Len(Trace)");
    let _ = writeln!(m, "       /\\ Next");
    let _ = writeln!(m, "       /\\ IsNextState(l + 1)");
    let _ = writeln!(m, "       /\\ l' = l + 1");
    let _ = writeln!(
        m,
        "    \\* At the end of the trace, stutter: a deadlock before it means a mismatch."
    );
    let _ = writeln!(m, "    \\/ /\\ l = Len(Trace)");
    let _ = writeln!(m, "       /\\ UNCHANGED <<vars, l>>\n");
    let _ = writeln!(m, "TraceSpec == TraceInit /\\ [][TraceNext]_<<vars, l>>");
    let _ = writeln!(m, "====");
    m
}

/// Writes the three files of `export --to tla` into `dir` (created if missing): the trace module, its TLC
/// config, and the spec it extends, so that `java -cp tla2tools.jar tlc2.TLC -config <name>.cfg <name>.tla`
/// runs there. Returns the trace module's name.
pub fn write_tla_files<M: Mirror>(
    dir: &std::path::Path,
    trace: &Trace,
    constants: &Constants,
) -> miette::Result<String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| miette::miette!("cannot create {}: {e}", dir.display()))?;
    let spec = M::SPEC;
    let name = trace_module_name(M::MODULE);
    let files = [
        (format!("{name}.tla"), to_tla_module::<M>(trace)),
        (format!("{name}.cfg"), to_tla_cfg::<M>(constants)),
        (format!("{}.tla", M::MODULE), spec.tla.to_string()),
    ];
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::write(&path, text)
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
    }
    Ok(name)
}

/// The TLC config for [`to_tla_module`]: the constants the behaviour was built with, the spec's invariants,
/// deadlock checking on.
pub fn to_tla_cfg<M: Mirror>(constants: &Constants) -> String {
    let mut c = String::new();
    let _ = writeln!(
        c,
        "\\* Generated by ozone-conform for {}.",
        trace_module_name(M::MODULE)
    );
    let _ = writeln!(c, "INIT TraceInit\nNEXT TraceNext\nCONSTANTS");
    for (name, value) in constants {
        let _ = writeln!(c, "    {name} = {}", cfg_value(value));
    }
    let mut model_values = std::collections::BTreeSet::new();
    for value in constants.values() {
        collect_model_values(value, &mut model_values);
    }
    let declared = spec_constants::<M>();
    model_values.retain(|mv| !declared.contains(mv));
    for mv in &model_values {
        let _ = writeln!(c, "    {mv} = {mv}");
    }
    let _ = writeln!(c, "INVARIANTS");
    for inv in M::INVARIANTS {
        let _ = writeln!(c, "    {inv}");
    }
    let _ = writeln!(c, "CHECK_DEADLOCK TRUE");
    c
}

/// The constants the spec declares (`CONSTANTS` up to `VARIABLES`): a model value named like one (`NoNode =
/// NoNode`) is that constant in the trace module, already declared by the spec and assigned by the config.
fn spec_constants<M: Mirror>() -> std::collections::BTreeSet<String> {
    let tla = M::SPEC.tla;
    let mut out = std::collections::BTreeSet::new();
    let mut inside = false;
    for line in tla.lines() {
        let code = line.split("\\*").next().unwrap_or("").trim();
        if let Some(rest) = code
            .strip_prefix("CONSTANTS")
            .or_else(|| code.strip_prefix("CONSTANT"))
        {
            inside = true;
            out.extend(idents(rest));
        } else if inside {
            if code.starts_with("VARIABLE") || code.starts_with("ASSUME") || code.contains("==") {
                inside = false;
            } else {
                out.extend(idents(code));
            }
        }
    }
    out
}

fn idents(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(str::to_string)
}

/// Every model value inside `v`.
fn collect_model_values(v: &TlaValue, out: &mut std::collections::BTreeSet<String>) {
    match v {
        TlaValue::ModelValue(m) => {
            out.insert(m.clone());
        }
        TlaValue::Set(xs) | TlaValue::Seq(xs) => {
            xs.iter().for_each(|x| collect_model_values(x, out))
        }
        TlaValue::Record(fields) => fields.values().for_each(|x| collect_model_values(x, out)),
        TlaValue::Function(pairs) => pairs.iter().for_each(|(k, x)| {
            collect_model_values(k, out);
            collect_model_values(x, out);
        }),
        TlaValue::Variant { value, .. } => collect_model_values(value, out),
        _ => {}
    }
}

/// Model values are written bare in a config (`Nodes = {s1, s2}`); a lone model value is assigned itself.
fn cfg_value(v: &TlaValue) -> String {
    v.to_string()
}

/// A TLA+ identifier for a node name from the logs (`scm-1.example.com` → `scm_1_example_com`), so that it
/// can be a model value.
pub fn model_value_for(node: &str) -> TlaValue {
    let mut id: String = node
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.insert_str(0, "n_");
    }
    TlaValue::model(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_become_tla_identifiers() {
        assert_eq!(model_value_for("scm1"), TlaValue::model("scm1"));
        assert_eq!(
            model_value_for("scm-1.example.com"),
            TlaValue::model("scm_1_example_com")
        );
        assert_eq!(
            model_value_for("172.18.0.4"),
            TlaValue::model("n_172_18_0_4")
        );
    }

    /// dn-finalize-block's violating scenario (a PutBlock that passed the leader's check before the
    /// FinalizeBlock is applied after it: its StartPutBlock must be inferred before witnesses it does not
    /// enable alone) after `restarts` witnessed Stop/Restart pairs of a third datanode.
    fn late_put_after_finalize(restarts: usize) -> Witnessed {
        let w = |event, action, dn: &str| Witness {
            event,
            action,
            params: vec![TlaValue::model(dn)],
        };
        let mut ws = Vec::new();
        for _ in 0..restarts {
            ws.push(w(ws.len(), "Stop", "d3"));
            ws.push(w(ws.len(), "Restart", "d3"));
        }
        for (action, dn) in [
            ("ApplyPutBlock", "d2"),
            ("ApplyPutBlock", "d1"),
            ("ApplyPutBlock", "d3"),
            ("ApplyFinalizeBlock", "d2"),
            ("ApplyPutBlock", "d2"),
        ] {
            ws.push(w(ws.len(), action, dn));
        }
        let mut constants = Constants::new();
        constants.insert(
            "Datanodes".into(),
            TlaValue::set(["d1", "d2", "d3"].map(TlaValue::model)),
        );
        constants.insert("Leader".into(), TlaValue::model("d1"));
        constants.insert("MaxLen".into(), TlaValue::int(2));
        constants.insert("DataStreamEnabled".into(), TlaValue::Bool(false));
        Witnessed {
            witnesses: ws,
            constants,
            hidden: action_names(crate::bugs::dn_finalize_block::witness::HIDDEN),
            notes: Vec::new(),
            ends_at: None,
        }
    }

    #[test]
    fn a_long_log_that_needs_look_ahead_is_built_by_looking_back() {
        use crate::bugs::dn_finalize_block::mirror::DnFinalizeBlock;
        let w = late_put_after_finalize(2_000);
        let mut constants = w.constants.clone();
        constants.insert("CheckFinalizedAtApply".into(), TlaValue::Bool(false));
        let mirror = DnFinalizeBlock::new(&constants).unwrap();
        // The premise: step by step is stuck at the late PutBlock (the last witness), and the joint
        // search over all 4,005 witnesses runs out of search nodes.
        let stuck = build(&mirror, &w).unwrap_err();
        assert_eq!(stuck.witness, 4_004);
        assert!(build_joint(&mirror, &w).is_none());
        let (patched, _, b) = build_either::<DnFinalizeBlock>(&w).unwrap();
        assert!(!patched);
        // Every witness is a step, in order; everything else is a hidden action; the violation is the last
        // witnessed step, as on the scenario alone.
        let witnessed: Vec<usize> = b.steps.iter().filter_map(|s| s.event).collect();
        assert_eq!(witnessed, (0..w.witnesses.len()).collect::<Vec<_>>());
        for s in b.steps.iter().filter(|s| s.event.is_none()) {
            assert!(w.hidden.contains(&s.action), "{s:?}");
        }
        let (inv, k) = b.violated.unwrap();
        assert_eq!(inv, "NoPutBlockAfterFinalize");
        assert_eq!(b.steps[k - 1].event, Some(w.witnesses.len() - 1));
        // And it is a behaviour of the mirror: each state follows from the one before by its step.
        let replayed = crate::bugs::testkit::assert_export_replays::<DnFinalizeBlock>(
            &w,
            |i| i.to_string(),
            "late put",
        );
        assert_eq!(replayed, Some((inv.to_string(), k + 1)));
        // A short prefix needs no look-back: the joint search over the whole trace builds it as before.
        let short = late_put_after_finalize(2);
        assert!(build_joint(&mirror, &short).is_some());
    }

    /// `M`, counting the successors the export's searches generate. With `narrow` false it has no
    /// `next_toward`, so every search is over `next`, as before wide actions were narrowed.
    struct Counting<M> {
        inner: M,
        narrow: bool,
        generated: std::sync::atomic::AtomicUsize,
    }

    impl<M: Mirror> Counting<M> {
        fn generated(&self) -> usize {
            self.generated.load(std::sync::atomic::Ordering::Relaxed)
        }

        fn count(
            &self,
            steps: Vec<super::super::Step<M::State, M::Action>>,
        ) -> Vec<super::super::Step<M::State, M::Action>> {
            self.generated
                .fetch_add(steps.len(), std::sync::atomic::Ordering::Relaxed);
            steps
        }
    }

    impl<M: Mirror> Mirror for Counting<M> {
        type State = M::State;
        type Action = M::Action;
        const MODEL: &'static str = M::MODEL;
        const MODULE: &'static str = M::MODULE;
        const VARIABLES: &'static [&'static str] = M::VARIABLES;
        const INVARIANTS: &'static [&'static str] = M::INVARIANTS;
        const PATCH_CONSTANT: &'static str = M::PATCH_CONSTANT;
        const SPEC: super::super::ShippedSpec = M::SPEC;

        fn new(constants: &Constants) -> Result<Self, String> {
            Ok(Counting {
                inner: M::new(constants)?,
                narrow: true,
                generated: 0.into(),
            })
        }
        fn init(&self) -> Vec<Self::State> {
            self.inner.init()
        }
        fn next(&self, state: &Self::State) -> Vec<super::super::Step<Self::State, Self::Action>> {
            self.count(self.inner.next(state))
        }
        fn next_toward(
            &self,
            state: &Self::State,
            action: Self::Action,
            params: &[TlaValue],
        ) -> Option<Vec<super::super::Step<Self::State, Self::Action>>> {
            let steps = self
                .inner
                .next_toward(state, action, params)
                .filter(|_| self.narrow)?;
            Some(self.count(steps))
        }
        fn holds(&self, invariant: &str, state: &Self::State) -> bool {
            self.inner.holds(invariant, state)
        }
        fn to_tla(&self, state: &Self::State) -> Vec<TlaValue> {
            self.inner.to_tla(state)
        }
        fn from_tla(&self, values: &[TlaValue]) -> Result<Self::State, String> {
            self.inner.from_tla(values)
        }
    }

    /// A Recon behaviour whose OM reaches sequence number `seq` before Recon's cursors follow it, then
    /// twice: a stop and restart, a restart after an unlogged crash, a restore of the OM to `seq / 2` with
    /// its full snapshot and reprocess, and a delta sync.
    fn recon_at(seq: u32) -> Witnessed {
        use crate::bugs::recon_om_sync::witness::HIDDEN;
        let mut ws = Vec::new();
        let mut push = |action, params: Vec<TlaValue>| {
            ws.push(Witness {
                event: ws.len(),
                action,
                params,
            })
        };
        for _ in 0..seq {
            push("OmWrite", vec![]);
        }
        push("SyncDelta", vec![]);
        for restore in [seq / 2, seq / 4] {
            for action in ["Stop", "Restart", "Reconcile", "Restart", "Reconcile"] {
                push(action, vec![]);
            }
            push("OmRestore", vec![TlaValue::int(i64::from(restore))]);
            push("OmWrite", vec![]);
            push("FullSnapshot", vec![]);
            for t in ["t1", "t2"] {
                push("ReprocessTask", vec![TlaValue::model(t)]);
            }
            push("ReinitDone", vec![]);
            push("OmWrite", vec![]);
            push("SyncDelta", vec![]);
        }
        let mut constants = Constants::new();
        constants.insert(
            "Tasks".into(),
            TlaValue::set(["t1", "t2"].map(TlaValue::model)),
        );
        constants.insert("MaxSeq".into(), TlaValue::int(i64::from(seq) + 10));
        constants.insert("MaxLineage".into(), TlaValue::int(3));
        constants.insert("ReprocessOnCursorMismatch".into(), TlaValue::Bool(false));
        Witnessed {
            witnesses: ws,
            constants,
            hidden: HIDDEN.iter().map(|a| a.name()).collect(),
            notes: Vec::new(),
            ends_at: None,
        }
    }

    /// The most successors one witnessed step's search generates, over the witnesses after the OM's writes
    /// (those before them see cursors at 0).
    fn most_successors_per_witness(seq: u32) -> usize {
        use crate::bugs::recon_om_sync::mirror::ReconOmSync;
        let w = recon_at(seq);
        let m = Counting::<ReconOmSync>::new(&w.constants).unwrap();
        let mut state = m.init().remove(0);
        let mut most = 0;
        for (i, goal) in w.witnesses.iter().enumerate() {
            let before = m.generated();
            let hidden = typed::<<ReconOmSync as Mirror>::Action>(&w.hidden);
            let path = match enable(&m, &state, goal, (i > 0).then_some(&hidden[..])) {
                Ok(path) => path,
                Err(searched) => panic!(
                    "witness {i} ({}) not enabled after {searched} states searched",
                    goal.action
                ),
            };
            if i >= seq as usize {
                most = most.max(m.generated() - before);
            }
            state = path.last().unwrap().1.clone();
        }
        most
    }

    #[test]
    fn recon_search_per_witnessed_step_does_not_grow_with_the_sequence_numbers() {
        // `OmRestore(n)` has one instance per n below the cursor: a search over all of them generated
        // 2,000 successors per witnessed step here, and for the restart after an unlogged crash (two steps
        // deep, each restored state expanded) four million.
        let small = most_successors_per_witness(40);
        let large = most_successors_per_witness(2_000);
        assert_eq!(small, large);
        assert!(large <= 16, "{large} successors for one witnessed step");
    }

    #[test]
    fn narrowing_the_recon_search_builds_the_same_behaviour() {
        use crate::bugs::recon_om_sync::mirror::ReconOmSync;
        let w = recon_at(40);
        let narrow = Counting::<ReconOmSync>::new(&w.constants).unwrap();
        let wide = Counting {
            narrow: false,
            ..Counting::<ReconOmSync>::new(&w.constants).unwrap()
        };
        let a = build(&narrow, &w).unwrap();
        let b = build(&wide, &w).unwrap();
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.states, b.states);
        assert_eq!(a.violated, None);
        // The unlogged crashes are the only inferred steps.
        let inferred: Vec<&str> = a
            .steps
            .iter()
            .filter(|s| s.event.is_none())
            .map(|s| s.action)
            .collect();
        assert_eq!(inferred, ["Crash", "Crash"]);
        // And with less work, even at these small numbers (608 successors against 2,836).
        assert!(narrow.generated() * 4 < wide.generated());
    }

    #[test]
    fn a_step_only_an_unnamed_wide_instance_enables_is_still_found() {
        use crate::bugs::recon_om_sync::mirror::ReconOmSync;
        // The OM at its ceiling, Recon's cursors on it: only a restore (to any n below the cursor, the
        // first is 0) gives a full snapshot something to fetch, and no witness names it.
        let mut w = recon_at(8);
        w.witnesses.truncate(9);
        w.witnesses.push(Witness {
            event: 9,
            action: "FullSnapshot",
            params: vec![],
        });
        w.constants.insert("MaxSeq".into(), TlaValue::int(8));
        let m = ReconOmSync::new(&w.constants).unwrap();
        let b = build(&m, &w).unwrap();
        let tail: Vec<_> = b.steps[9..]
            .iter()
            .map(|s| (s.action, s.params.clone(), s.event))
            .collect();
        assert_eq!(
            tail,
            [
                ("OmRestore", vec![TlaValue::int(0)], None),
                ("FullSnapshot", vec![], Some(9)),
            ]
        );
    }

    #[test]
    fn spec_constants_are_read_off_the_constants_block() {
        let c = spec_constants::<crate::bugs::scm_secret_keys::mirror::ScmSecretKeys>();
        let want = [
            "MaxKeys",
            "MaxLog",
            "NoNode",
            "Nodes",
            "SaveKeysBeforeDbSwap",
        ];
        assert_eq!(c.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }
}
