//! `check`: the one pipeline from prepared inputs to reports ([`Pipeline`]): scan the inputs (or take events
//! already scanned), merge them into one timeline, replay the chosen bugs' monitors over it and report each
//! bug's verdict ([`ModelReport`]). The command line, live checking (`src/live.rs`) and the language server
//! (`src/lsp.rs`) all run it; they differ only in where the inputs come from and where the reports go.

mod pipeline;
mod report;

pub use crate::monitor::replay::{ReplayOptions, REPLAY_TICK};
pub use pipeline::{Checked, Inputs, Pipeline, Scanned, Watch};
pub use report::ModelReport;

use crate::bugs::{Bug, BUGS};
use crate::mirror::export::Witnessed;
use crate::monitor::Model;
use crate::timeline::Timeline;

/// What a replay gives: each monitor's report and, when asked for, its witnessed spec actions (in the
/// same order).
pub struct Replay {
    pub reports: Vec<ModelReport>,
    /// Empty unless [`ReplayOptions::witnesses`].
    pub witnessed: Vec<Witnessed>,
}

/// Replays the timeline through these monitors ([`crate::monitor::replay`]), and names each report's bug.
pub fn replay(
    timeline: &Timeline,
    monitors: Vec<Box<dyn Model>>,
    options: &ReplayOptions,
) -> Replay {
    let (reports, witnessed): (Vec<_>, Vec<_>) =
        crate::monitor::replay::replay(timeline, monitors, options)
            .into_iter()
            .map(ModelReport::of)
            .unzip();
    Replay {
        reports,
        witnessed: witnessed.into_iter().flatten().collect(),
    }
}

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
    let options = ReplayOptions {
        witnesses: true,
        ..ReplayOptions::default()
    };
    let mut replay = replay(timeline, vec![(bug.monitor)()], &options);
    let report = replay.reports.pop().expect("one model, one report");
    (report, replay.witnessed.pop().expect("asked for"))
}
