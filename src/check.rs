//! `check`: the bugs' monitors, chosen from the registry, replayed over the merged timeline
//! ([`crate::model::replay`]).

use crate::bugs::{Bug, BUGS};
use crate::model::Model;
use crate::spec::export::Witnessed;
use crate::timeline::Timeline;

pub use crate::model::replay::{
    observe_ticking, replay, replay_ticking, replay_until, ModelReport,
};

/// Fresh monitors of these bugs; none selects every bug.
pub fn monitors(bugs: &[Bug]) -> Vec<Box<dyn Model>> {
    let chosen: Vec<&Bug> = if bugs.is_empty() {
        BUGS.iter().collect()
    } else {
        BUGS.iter().filter(|b| bugs.contains(b)).collect()
    };
    chosen.into_iter().map(|b| (b.monitor)()).collect()
}

/// Monitors by model name (`None` of an unknown name, the error naming the known ones); none selects all.
pub fn select(names: &[String]) -> Result<Vec<Box<dyn Model>>, String> {
    let bugs = names
        .iter()
        .map(|n| {
            crate::bugs::by_name(n).copied().ok_or_else(|| {
                format!(
                    "unknown model `{n}`; the models are {}",
                    crate::bugs::names()
                )
            })
        })
        .collect::<Result<Vec<Bug>, String>>()?;
    Ok(monitors(&bugs))
}

/// One bug's observer over the whole timeline, both halves at once: `check`'s verdict and `export`'s
/// witnessed spec actions come from the same pass over the same events, lifecycle and nodes.
pub fn observe_one(timeline: &Timeline, bug: &Bug) -> (ModelReport, Witnessed) {
    let (report, witnessed) =
        crate::model::replay::observe(timeline, vec![(bug.monitor)()], true, true)
            .pop()
            .expect("one model, one report");
    (report, witnessed.expect("asked for"))
}
