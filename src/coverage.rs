//! Spec coverage (`check --coverage`): per model, which actions of its TLA+ spec the logs *witnessed* (a log
//! line shows the step) and how often, which were *inferred* (steps the behaviour built from the logs needs
//! but no line shows: crashes, key expiry, log purges, ...), and which *never* appeared.
//!
//! The counts come from the same pass `check` makes: each model's witness half gives the witnessed actions
//! ([`Witnessed`]), and the behaviour `export` would build from them ([`crate::mirror::SpecMirror`]) gives the
//! inferred steps. The action list is the mirror's `ACTIONS`, the disjuncts of the spec's `Next` (the test
//! below reads them off each `.tla` file).

use crate::bugs::Bug;
use crate::mirror::export::Witnessed;
use crate::timeline::Timeline;
use serde_json::{json, Value};

/// How an action showed up in a run (or in all runs together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// A log line shows it.
    Witnessed,
    /// No line shows it, but the behaviour built from the logs takes it.
    Inferred,
    /// Neither.
    Never,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Witnessed => "witnessed",
            Status::Inferred => "inferred",
            Status::Never => "never",
        }
    }
}

/// One action of a spec and how often a run took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionCount {
    pub action: &'static str,
    /// Log lines that witness it.
    pub witnessed: usize,
    /// Steps of the built behaviour that take it with no line of their own.
    pub inferred: usize,
    /// The model may insert it where no log line shows it (the witness table's hidden actions: crashes,
    /// expiries, purges, ...); before the first witnessed step any action may be inferred.
    pub inferable: bool,
}

impl ActionCount {
    pub fn status(&self) -> Status {
        if self.witnessed > 0 {
            Status::Witnessed
        } else if self.inferred > 0 {
            Status::Inferred
        } else {
            Status::Never
        }
    }
}

/// One model's coverage in one run.
#[derive(Debug, Clone)]
pub struct ModelCoverage {
    pub model: &'static str,
    pub module: &'static str,
    /// The spec file, `traces/<model>/<Module>.tla`.
    pub spec: &'static str,
    /// Every action of the spec's `Next`, in its order.
    pub actions: Vec<ActionCount>,
    /// Why the inferred steps are not counted: the logs show a step the spec does not allow where it is.
    pub note: Option<String>,
}

impl ModelCoverage {
    /// The actions of this status, in spec order.
    pub fn with_status(&self, status: Status) -> Vec<&'static str> {
        self.actions
            .iter()
            .filter(|a| a.status() == status)
            .map(|a| a.action)
            .collect()
    }

    /// The `coverage.models[]` object of `--format json`.
    pub fn to_json(&self) -> Value {
        let actions: Vec<Value> = self
            .actions
            .iter()
            .map(|a| {
                json!({
                    "action": a.action,
                    "witnessed": a.witnessed,
                    "inferred": a.inferred,
                    "status": a.status().name(),
                    "inferable": a.inferable,
                })
            })
            .collect();
        json!({
            "model": self.model,
            "module": self.module,
            "spec": self.spec,
            "actions": actions,
            "witnessed": self.with_status(Status::Witnessed),
            "inferred": self.with_status(Status::Inferred),
            "never": self.with_status(Status::Never),
            "note": self.note,
        })
    }
}

/// The coverage of one run of `check` (all inputs, or one file with `--per-file`).
#[derive(Debug, Clone)]
pub struct RunCoverage {
    /// The run's file with `--per-file`.
    pub run: Option<String>,
    pub models: Vec<ModelCoverage>,
}

impl RunCoverage {
    /// The `coverage` object of `--format json`.
    pub fn to_json(&self) -> Value {
        let models: Vec<Value> = self.models.iter().map(ModelCoverage::to_json).collect();
        json!({ "models": models })
    }
}

/// The coverage of one model over one timeline, from its witnessed actions.
pub fn of_model(timeline: &Timeline, bug: &Bug, witnessed: &Witnessed) -> ModelCoverage {
    of_model_inferring(timeline, bug, witnessed, true)
}

/// [`of_model`]; without `infer`, the inferred steps are not counted (building the behaviour that takes
/// them is most of the cost on a long log), and the note says so.
pub fn of_model_inferring(
    timeline: &Timeline,
    bug: &Bug,
    witnessed: &Witnessed,
    infer: bool,
) -> ModelCoverage {
    let mirror = bug.mirror;
    let mut actions: Vec<ActionCount> = mirror
        .actions()
        .iter()
        .map(|&action| ActionCount {
            action,
            witnessed: 0,
            inferred: 0,
            inferable: witnessed.hidden.contains(&action),
        })
        .collect();
    let mut count = |action: &str, f: fn(&mut ActionCount)| {
        // Witness tables and mirrors name the same actions (the bugs' consistency test).
        if let Some(a) = actions.iter_mut().find(|a| a.action == action) {
            f(a);
        }
    };
    for w in &witnessed.witnesses {
        count(w.action, |a| a.witnessed += 1);
    }
    let mut note = None;
    if !infer {
        note = Some(NOT_INFERRED.to_string());
    } else if !witnessed.witnesses.is_empty() {
        match mirror.behaviour_steps(witnessed) {
            Ok(steps) => {
                for s in steps.iter().filter(|s| s.event.is_none()) {
                    count(s.action, |a| a.inferred += 1);
                }
            }
            Err(stuck) => {
                note = Some(format!(
                    "the logs show {} at {}, which {} does not allow there (`ozone-conform export --model {}` says more); inferred steps are not counted",
                    stuck.action,
                    location(timeline, stuck.event),
                    mirror.module(),
                    bug.name()
                ));
            }
        }
    }
    ModelCoverage {
        model: bug.name(),
        module: mirror.module(),
        spec: bug.about.spec.path,
        actions,
        note,
    }
}

/// What a coverage without inferred steps says of them.
pub const NOT_INFERRED: &str =
    "inferred steps not counted here (`check --coverage` counts them; on a long log that takes a while)";

/// The coverage of a run: one entry per model, from the models' witnessed actions in report order.
pub fn of_run(
    run: Option<&str>,
    timeline: &Timeline,
    witnessed: &[(&'static str, Witnessed)],
) -> RunCoverage {
    of_run_inferring(run, timeline, witnessed, true)
}

/// [`of_run`], counting inferred steps only with `infer` ([`of_model_inferring`]).
pub fn of_run_inferring(
    run: Option<&str>,
    timeline: &Timeline,
    witnessed: &[(&'static str, Witnessed)],
    infer: bool,
) -> RunCoverage {
    let models = witnessed
        .iter()
        .filter_map(|(model, w)| {
            let bug = crate::bugs::by_name(model)?;
            Some(of_model_inferring(timeline, bug, w, infer))
        })
        .collect();
    RunCoverage {
        run: run.map(str::to_string),
        models,
    }
}

/// `path:line` of a timeline event.
fn location(timeline: &Timeline, index: usize) -> String {
    let Some(e) = timeline.events.try_get(index) else {
        return "an unknown line".into();
    };
    let path = timeline
        .inputs
        .get(e.span.input as usize)
        .map_or("?", |s| s.path.as_str());
    format!("{path}:{}", e.span.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bugs::BUGS;
    use crate::monitor::testkit::timeline;

    /// The actions `Next` is the disjunction of, read off the spec's text: each `\/` disjunct's action name,
    /// past any `\E x \in S :`, comments left out.
    fn next_disjuncts(tla: &str) -> Vec<String> {
        let start = tla.find("\nNext ==").expect("a Next definition") + "\nNext ==".len();
        let end = start + tla[start..].find("\nSpec ==").expect("Spec after Next");
        let body: String = tla[start..end]
            .lines()
            .map(|l| l.split("\\*").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let exists = regex::Regex::new(r"^\\E\s+\w+\s+\\in\s+\w+\s*:\s*").unwrap();
        body.split("\\/")
            .filter_map(|d| {
                let mut d = d.trim();
                while let Some(m) = exists.find(d) {
                    d = d[m.end()..].trim_start();
                }
                let name: String = d
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                (!name.is_empty()).then_some(name)
            })
            .collect()
    }

    #[test]
    fn every_mirror_lists_the_actions_of_its_specs_next_in_order() {
        for bug in &BUGS {
            let spec = bug.mirror.spec();
            let on_disk = std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(bug.about.spec.path),
            )
            .unwrap();
            assert_eq!(
                on_disk,
                spec.tla,
                "{}: the embedded spec is the file",
                bug.name()
            );
            assert_eq!(
                next_disjuncts(spec.tla),
                bug.mirror.actions(),
                "{}: ACTIONS vs {}'s Next",
                bug.name(),
                spec.module
            );
        }
    }

    #[test]
    fn the_disjunct_reader_sees_nested_quantifiers_and_two_actions_on_a_line() {
        let tla = "X == 1\nNext ==\n    \\/ A \\* not B\n    \\/ \\E s \\in S :\n         \\/ C(s)\n         \\/ \\E d \\in D : E(s, d) \\/ F(s, d)\n\nSpec == x\n";
        assert_eq!(next_disjuncts(tla), ["A", "C", "E", "F"]);
    }

    #[test]
    fn a_run_with_no_events_covers_nothing_and_lists_every_action_as_never() {
        let tl = timeline(vec![]);
        let bug = crate::bugs::by_name("scm-finalization").unwrap();
        let w = crate::check::observe_one(&tl, bug).1;
        let c = of_model(&tl, bug, &w);
        assert_eq!(c.with_status(Status::Never), bug.mirror.actions());
        assert!(c.note.is_none());
        let inferable: Vec<&str> = c
            .actions
            .iter()
            .filter(|a| a.inferable)
            .map(|a| a.action)
            .collect();
        assert_eq!(
            inferable,
            ["Propose", "PurgeLog", "ApplyEntry", "Crash"],
            "the witness table's hidden actions, in spec order"
        );
    }

    #[test]
    fn witnessed_actions_are_counted_and_the_steps_no_line_shows_are_inferred() {
        // The violating scm-finalization daemon logs: the witness table's own test lists these witnesses, and
        // the one purge before the install is the only inferred step of the behaviour.
        let tl = crate::bugs::testkit::scenario("scm-finalization", "violating", false);
        let bug = crate::bugs::by_name("scm-finalization").unwrap();
        let w = crate::check::observe_one(&tl, bug).1;
        let c = of_model(&tl, bug, &w);
        let counts: Vec<(&str, usize, usize)> = c
            .actions
            .iter()
            .map(|a| (a.action, a.witnessed, a.inferred))
            .collect();
        assert_eq!(
            counts,
            [
                ("Propose", 0, 0),
                ("Finalize", 1, 0),
                ("PurgeLog", 0, 1),
                ("FinalizeDatanode", 3, 0),
                ("BecomeLeader", 1, 0),
                ("ApplyEntry", 2, 0),
                ("NotifyInstall", 1, 0),
                ("ReplaceDb", 1, 0),
                ("FinalizeFromSnapshot", 0, 0),
                ("Crash", 1, 0),
                ("Stop", 0, 0),
                ("Restart", 1, 0),
                ("Register", 6, 0),
                ("FenceDatanode", 3, 0),
            ]
        );
        assert_eq!(c.with_status(Status::Inferred), ["PurgeLog"]);
        assert_eq!(
            c.with_status(Status::Never),
            ["Propose", "FinalizeFromSnapshot", "Stop"]
        );
        assert_eq!(c.note, None);
        let j = c.to_json();
        assert_eq!(
            j["never"],
            json!(["Propose", "FinalizeFromSnapshot", "Stop"])
        );
        assert_eq!(
            j["actions"][2],
            json!({"action": "PurgeLog", "witnessed": 0, "inferred": 1, "status": "inferred", "inferable": true})
        );
    }

    #[test]
    fn a_step_the_spec_does_not_allow_leaves_the_inferred_steps_uncounted_and_says_where() {
        // scm-finalization's healthy test output seen by scm-secret-keys: an install notice no run of
        // unlogged steps enables (`export` refuses it too).
        let path = "tests/fixtures/surefire/org.apache.hadoop.hdds.upgrade.TestScmHAFinalization-output.txt";
        let tl = crate::bugs::testkit::timeline_of(&[path.to_string()]);
        let bug = crate::bugs::by_name("scm-secret-keys").unwrap();
        let w = crate::check::observe_one(&tl, bug).1;
        let c = of_model(&tl, bug, &w);
        let note = c.note.clone().expect("the behaviour cannot be built");
        assert!(
            note.starts_with(&format!(
                "the logs show NotifyInstall(scmNode_3) at {path}:"
            )),
            "{note}"
        );
        assert!(c.actions.iter().all(|a| a.inferred == 0));
        // What the logs witness is still counted.
        let notify = c
            .actions
            .iter()
            .find(|a| a.action == "NotifyInstall")
            .unwrap();
        assert!(notify.witnessed > 0, "{c:?}");
    }
}
