//! Rust mirrors of the TLA+ specs in `traces/<model>/`.
//!
//! A model reads the merged timeline event by event, keeps one instance per SCM, datanode or Recon, and
//! reports the first event at which an invariant of its spec fails. Knowledge is three-valued: a variable a log
//! has not shown is unknown, and an unknown never yields a violation; it makes the verdict *inconclusive*.

pub mod dn_finalize_block;
pub mod lifecycle;
pub mod recon_om_sync;
pub mod scm_finalization;
pub mod scm_secret_keys;

use crate::event::Event;
use crate::timeline::Timeline;
use crate::vocab::EventKind;
use lifecycle::LifeStep;
use std::sync::Arc;

/// An invariant of a spec, with its stable diagnostic code.
#[derive(Debug, Clone, Copy)]
pub struct Invariant {
    pub name: &'static str,
    pub code: &'static str,
    /// One line, in an operator's words.
    pub summary: &'static str,
    /// What the operator should do now.
    pub advice: &'static str,
}

/// Where a model's spec is: TLA+ module and file.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub module: &'static str,
    pub path: &'static str,
    pub issue: &'static str,
}

#[derive(Debug, Clone)]
pub struct Violation {
    pub invariant: &'static str,
    pub code: &'static str,
    pub message: String,
    pub node: Option<Arc<str>>,
    /// The model instance (node, block, ...) this violation belongs to; `--all` reports one per instance.
    pub instance: String,
    /// Index of the violating event in the timeline.
    pub primary: usize,
    pub primary_label: String,
    /// Earlier events that made it possible, with what each contributed.
    pub related: Vec<(usize, String)>,
    /// Set when the order this verdict depends on rests on clocks within the skew tolerance.
    pub ambiguous_order: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Violated,
    Conforms,
    Inconclusive,
}

/// What the model could and could not decide, besides violations.
#[derive(Debug, Default, Clone)]
pub struct Knowledge {
    /// Events this model read.
    pub events: usize,
    /// Invariant checks made with everything they needed in view.
    pub checks: usize,
    /// Why some check could not be made (first reason kept per kind).
    pub unknowns: Vec<String>,
}

impl Knowledge {
    pub fn unknown(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.unknowns.contains(&reason) {
            self.unknowns.push(reason);
        }
    }
}

/// What a model sees at each step besides the event: the timeline (for names and services).
pub struct Ctx<'a> {
    pub timeline: &'a Timeline,
}

pub trait Model: Send {
    /// The model's name, as used by `--model`.
    fn name(&self) -> &'static str;
    fn spec(&self) -> Spec;
    fn invariants(&self) -> &'static [Invariant];
    /// Does this model read events of this kind? (Lifecycle steps always reach it.)
    fn reads(&self, kind: EventKind) -> bool;
    /// One step: the event at `index`, and the lifecycle step it makes for its node, if any.
    fn step(
        &mut self,
        cx: &Ctx,
        index: usize,
        event: &Event,
        life: Option<LifeStep>,
        out: &mut Vec<Violation>,
    );
    /// Called once after the last event.
    fn finish(&mut self, _cx: &Ctx, _out: &mut Vec<Violation>) {}
    fn knowledge(&self) -> &Knowledge;
    /// The reason given when no check could be made at all.
    fn nothing_checked_reason(&self) -> String;
}

pub fn invariant(model: &dyn Model, name: &str) -> Invariant {
    *model
        .invariants()
        .iter()
        .find(|i| i.name == name)
        .expect("model declares its invariants")
}

/// The four models, by name.
pub fn all_models() -> Vec<Box<dyn Model>> {
    vec![
        Box::new(scm_secret_keys::ScmSecretKeys::default()),
        Box::new(scm_finalization::ScmFinalization::default()),
        Box::new(dn_finalize_block::DnFinalizeBlock::default()),
        Box::new(recon_om_sync::ReconOmSync::default()),
    ]
}

pub const MODEL_NAMES: &[&str] = &[
    "scm-secret-keys",
    "scm-finalization",
    "dn-finalize-block",
    "recon-om-sync",
];
