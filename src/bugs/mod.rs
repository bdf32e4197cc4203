//! The bugs ozone-conform checks for, one folder each, and the one registry ([`BUGS`]) everything else reads.
//!
//! A bug's folder holds:
//! - `mod.rs`: its registry entry ([`Bug`]): the description (model name, invariants with codes, summaries,
//!   advice and signature lines, the upstream issue, the spec citation) and the causal facts its lines carry
//!   (`scm_raft.rs` holds the Raft-term rule both SCM bugs list);
//! - `monitor.rs`: the log-side model `check` runs, with three-valued knowledge ([`crate::monitor::Model`]);
//! - `witness.rs`: which log lines witness which spec actions, for `export`;
//! - `mirror.rs`: the exact mirror of `traces/<model>/<Module>.tla` ([`crate::mirror::Mirror`]).
//!
//! The CLI (`--model` values), `check`, `trace`, `export`, the renderers and the LSP read [`BUGS`] and never
//! name a bug. `docs/adding-a-model.md` lists what a fifth bug needs.

/// A bug's observer test (in its `mod.rs`): [`testkit::assert_observer_witnesses_the_violating_scenario`]
/// with its mirror (a path seen from inside the test module: `super::mirror::X`), under the bug's own test path
/// (`bugs::<bug>::`) so its tests run together.
macro_rules! observer_test {
    ($mirror:ty) => {
        #[cfg(test)]
        mod observer {
            #[test]
            fn the_monitor_hands_the_violating_scenario_to_its_witness_and_back() {
                crate::bugs::testkit::assert_observer_witnesses_the_violating_scenario::<$mirror>(
                    &super::BUG,
                );
            }
        }
    };
}

pub mod dn_finalize_block;
pub mod recon_om_sync;
pub mod scm_finalization;
pub mod scm_raft;
pub mod scm_secret_keys;
#[cfg(test)]
pub(crate) mod testkit;
pub mod vocabulary;

use crate::mirror::SpecMirror;
use crate::monitor::{About, Invariant, Model};
use crate::timeline::causal::CausalRule;

/// One bug: what it is, how `check` watches for it, how `export` reads it, and its spec.
#[derive(Clone, Copy)]
pub struct Bug {
    pub about: &'static About,
    /// The causal facts its lines carry that order them across nodes (a key made on one SCM before another
    /// names it): the merge applies every registered bug's ([`causal_rules`]).
    pub causal: &'static [&'static CausalRule],
    /// A fresh observer of the log: the monitor `check` runs, whose witness half gives `export` the witnessed
    /// spec actions from the same pass ([`crate::check::observe_one`]).
    pub monitor: fn() -> Box<dyn Model>,
    /// The exact spec mirror.
    pub mirror: &'static dyn SpecMirror,
    /// The refinement run: random behaviours of the mirror rendered as this bug's log lines (`logs.rs`, the
    /// inverse of the witness table) and checked by the monitor.
    #[cfg(any(test, feature = "testing"))]
    pub refinement: crate::refinement::Refinement,
}

impl std::fmt::Debug for Bug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for Bug {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Bug {}

impl Bug {
    /// The model's name, as `--model` takes it.
    pub fn name(&self) -> &'static str {
        self.about.name
    }

    pub fn invariant(&self, name: &str) -> Option<&'static Invariant> {
        self.about.invariants.iter().find(|i| i.name == name)
    }

    /// The 1-based line of the spec where `name ==` is defined.
    pub fn spec_line(&self, name: &str) -> Option<usize> {
        self.mirror
            .spec()
            .tla
            .lines()
            .position(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.trim_start().starts_with("=="))
            })
            .map(|i| i + 1)
    }
}

/// The registry's one list: every bug's module, in the order reports list them. [`BUGS`] is made from it, and
/// so is anything that needs an item per bug, e.g. a test per bug: `with_bugs!(m)` expands to
/// `m!(scm_secret_keys, scm_finalization, ...)`, the modules under `crate::bugs` (`ozone_conform::bugs` outside
/// the crate).
#[macro_export]
#[doc(hidden)]
macro_rules! with_bugs {
    ($m:ident) => {
        $m! {
            scm_secret_keys,
            scm_finalization,
            dn_finalize_block,
            recon_om_sync
        }
    };
}

macro_rules! registry {
    ($($bug:ident),*) => {
        /// Every bug, in the order reports list them ([`with_bugs!`]).
        pub static BUGS: [Bug; [$(stringify!($bug)),*].len()] = [$($bug::BUG),*];

        /// Where each bug's own event kinds (its `events.rs`) start in the vocabulary: after the common kinds
        /// and those of the bugs before it, in registry order; `END` is the number of kinds.
        #[allow(non_upper_case_globals)]
        pub mod first_kind {
            first_kinds!(crate::vocab::COMMON.len() as u16; $($bug),*);
        }

        /// The vocabulary's sections in the order of their numbers ([`vocabulary`]'s table).
        const VOCABULARY_SECTIONS: &[&[crate::vocab::KindDef]] =
            &[crate::vocab::COMMON, $($bug::events::KINDS),*];
    };
}

/// `first_kinds!(first; a, b, c)`: `pub const a = first`, `b` after `a`'s kinds, and so on, then `END`.
macro_rules! first_kinds {
    ($first:expr; $bug:ident $(, $rest:ident)*) => {
        pub const $bug: u16 = $first;
        first_kinds!($bug + super::$bug::events::KINDS.len() as u16; $($rest),*);
    };
    ($first:expr;) => {
        pub const END: u16 = $first;
    };
}

with_bugs!(registry);

/// Every registered bug's causal rules, each once, in registry order: what the merge orders every run by
/// (whichever models it checks, so that each model reads the same order).
pub fn causal_rules() -> &'static [&'static CausalRule] {
    static RULES: std::sync::OnceLock<Vec<&'static CausalRule>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let mut rules: Vec<&'static CausalRule> = Vec::new();
        for rule in BUGS.iter().flat_map(|b| b.causal) {
            if !rules.iter().any(|r| r.name == rule.name) {
                rules.push(rule);
            }
        }
        rules
    })
}

/// How `check` merges a run's inputs: `max_skew_ms` between nodes' clocks, and every bug's causal rules.
pub fn merge_rules(max_skew_ms: i64) -> crate::timeline::MergeRules<'static> {
    crate::timeline::MergeRules {
        max_skew_ms,
        causal: causal_rules(),
    }
}

/// The bug whose model is called `name`.
pub fn by_name(name: &str) -> Option<&'static Bug> {
    BUGS.iter().find(|b| b.name() == name)
}

/// The bug whose spec is the TLA+ module `module`.
pub fn by_module(module: &str) -> Option<&'static Bug> {
    BUGS.iter().find(|b| b.mirror.module() == module)
}

/// The model names, for messages: `scm-secret-keys, scm-finalization, ...`.
pub fn names() -> String {
    BUGS.iter().map(Bug::name).collect::<Vec<_>>().join(", ")
}

/// `--model NAME`: the registry's names are the values clap accepts and lists in `--help`.
impl clap::ValueEnum for Bug {
    fn value_variants<'a>() -> &'a [Self] {
        &BUGS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.about.spec.issue))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::EventKind;

    #[test]
    fn each_causal_rule_is_applied_once_in_registry_order() {
        let names: Vec<&str> = causal_rules().iter().map(|r| r.name).collect();
        // scm-secret-keys and scm-finalization both list the Raft-term rule.
        assert_eq!(names, ["secret-key-origin", "leader-term"]);
        assert!(BUGS.iter().filter(|b| !b.causal.is_empty()).count() >= 2);
    }

    /// The fuzzer writes each bug's story from the grammar files its entry names: they are shipped, and the
    /// bug's own file comes first.
    #[test]
    fn every_bug_names_shipped_grammar_files_its_own_first() {
        let shipped: Vec<&str> = crate::grammar::EMBEDDED_GRAMMARS
            .iter()
            .map(|(name, _)| name.trim_start_matches("grammars/"))
            .collect();
        for bug in &BUGS {
            let files = bug.about.grammars;
            assert_eq!(
                files.first(),
                Some(&format!("{}.rules", bug.name()).as_str())
            );
            for f in files {
                assert!(
                    shipped.contains(f),
                    "{}: {f} is not in grammars/",
                    bug.name()
                );
            }
        }
    }

    #[test]
    fn every_bug_is_consistent_across_its_monitor_witness_and_mirror() {
        for bug in &BUGS {
            let monitor = (bug.monitor)();
            assert_eq!(monitor.name(), bug.name());
            assert_eq!(bug.mirror.spec().model, bug.name());
            assert_eq!(bug.about.spec.module, bug.mirror.module());
            assert_eq!(
                bug.about.spec.path,
                format!("{}/{}.tla", bug.mirror.spec().dir, bug.mirror.module())
            );
            // Every invariant the monitor reports is one the spec defines and the mirror checks.
            for inv in bug.about.invariants {
                assert!(
                    bug.mirror.invariants().contains(&inv.name),
                    "{}: {}",
                    bug.name(),
                    inv.name
                );
                assert!(
                    bug.spec_line(inv.name).is_some(),
                    "{}: {} has no definition",
                    bug.name(),
                    inv.name
                );
            }
            let w = crate::check::observe_one(
                &crate::timeline::from_events(vec![], vec![], vec![], crate::bugs::merge_rules(0)),
                bug,
            )
            .1;
            assert!(w.witnesses.is_empty());
            for h in &w.hidden {
                assert!(
                    bug.mirror.actions().contains(h),
                    "{}: hidden {h}",
                    bug.name()
                );
            }
        }
        let codes: std::collections::HashSet<&str> = BUGS
            .iter()
            .flat_map(|b| b.about.invariants.iter().map(|i| i.code))
            .collect();
        assert_eq!(
            codes.len(),
            BUGS.iter().map(|b| b.about.invariants.len()).sum::<usize>()
        );
    }

    /// The monitor and the witness table of `scm-secret-keys` watch the same nodes: an SCM the logs tell
    /// (its key lines are SCM lines), not a node of unknown service that only starts and stops (the monitor
    /// once took every such node for an SCM, the witness table did not).
    #[test]
    fn monitor_and_witness_agree_on_a_node_of_unknown_service() {
        use crate::monitor::testkit::{ev, timeline, Input};
        use crate::monitor::{Ctx, Instance};
        let stdin = Input {
            path: "-".into(),
            test_output: false,
            events: vec![
                ev(EventKind::SecretKeysFetched, "with-keys", 0, vec![]),
                ev(EventKind::CheckpointInstalled, "with-keys", 10, vec![]),
                ev(EventKind::ProcessStarted, "unknown", 20, vec![]),
                ev(EventKind::ProcessStarted, "unknown", 30, vec![]),
            ],
        };
        let tl = timeline(vec![stdin]);
        let bug = by_name("scm-secret-keys").unwrap();
        let cx = Ctx { timeline: &tl };
        let watched: Vec<String> = tl
            .events
            .iter()
            .filter(|e| matches!(cx.instance(e, &bug.about.role), Instance::Of(..)))
            .map(|e| e.node.as_deref().unwrap().to_string())
            .collect();
        assert_eq!(watched, ["with-keys", "with-keys"]);
        let w = crate::check::observe_one(&tl, bug).1;
        let witnessed: Vec<&str> = w
            .witnesses
            .iter()
            .map(|w| &**tl.events.node_name(w.event).unwrap())
            .collect();
        assert_eq!(witnessed, ["with-keys", "with-keys"]);
    }
}
