//! One bug's answer to a check: its verdict, why, and its violations, with the bug itself (its registry
//! entry), so that renderers read its name, spec citation and invariants from it rather than look it up.

use crate::bugs::Bug;
use crate::mirror::export::Witnessed;
use crate::monitor::replay::Replayed;
use crate::monitor::{Spec, Verdict, Violation};

/// One model's answer.
#[derive(Debug, Clone)]
pub struct ModelReport {
    /// The bug whose monitor answered.
    pub bug: &'static Bug,
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
    /// The model's name, as `--model` takes it.
    pub fn model(&self) -> &'static str {
        self.bug.name()
    }

    /// Where the bug's spec is: TLA+ module, file and upstream issue.
    pub fn spec(&self) -> &'static Spec {
        &self.bug.about.spec
    }

    /// The 1-based line of the bug's spec where `name ==` is defined (an invariant's citation).
    pub fn spec_line(&self, name: &str) -> Option<usize> {
        self.bug.spec_line(name)
    }

    /// The violation reported without `--all`.
    pub fn first(&self) -> Option<&Violation> {
        self.violations.first()
    }

    /// A replayed monitor's answer as its bug's report, and its witnessed actions if they were asked for.
    pub(super) fn of(replayed: Replayed) -> (ModelReport, Option<Witnessed>) {
        let Replayed {
            about,
            verdict,
            reason,
            reasons,
            events,
            checks,
            violations,
            witnessed,
        } = replayed;
        // The engine knows monitors by their trait; every monitor is a registered bug's.
        let bug = crate::bugs::by_name(about.name)
            .unwrap_or_else(|| panic!("the monitor `{}` is in the registry", about.name));
        let report = ModelReport {
            bug,
            verdict,
            reason,
            reasons,
            events,
            checks,
            violations,
        };
        (report, witnessed)
    }
}
