//! The pipeline every check runs: inputs → events → one merged timeline → the monitors' reports.

use super::{replay, ModelReport, ReplayOptions};
use crate::bugs::Bug;
use crate::clock::GivenOffsets;
use crate::event::Event;
use crate::event_store::InputEvents;
use crate::event_stream::StreamInput;
use crate::grammar::Grammar;
use crate::input::Source;
use crate::mirror::export::Witnessed;
use crate::scan::{InputStats, ScanOptions, UnparsedLine};
use crate::timeline::Timeline;

/// How a check runs: which bugs, how the merge treats clocks, what the replay gathers besides verdicts.
#[derive(Clone, Debug)]
pub struct Pipeline<'a> {
    /// The bugs to check; none: every bug.
    pub bugs: &'a [Bug],
    /// Clock skew tolerated between nodes (ms), in the merge and where a wrapper's clock stands in for the
    /// log's.
    pub max_skew_ms: i64,
    /// `--log-utc-offset`: the offsets given, per node or for all.
    pub utc_offsets: GivenOffsets,
    /// Also gather each monitor's witnessed spec actions (coverage, the HTML report).
    pub witnesses: bool,
    /// The inputs are still growing (a live look): verdicts are of the prefix, and nothing is judged for
    /// not having happened yet.
    pub partial: bool,
}

/// A batch check of every bug with the default skew tolerance.
impl Default for Pipeline<'_> {
    fn default() -> Self {
        Pipeline {
            bugs: &[],
            max_skew_ms: crate::timeline::DEFAULT_MAX_SKEW_MS,
            utc_offsets: GivenOffsets::default(),
            witnesses: false,
            partial: false,
        }
    }
}

/// What a check reads.
pub enum Inputs<'a> {
    /// Logs to scan (files, stdin, followed files, buffers held in memory), each with the scan options;
    /// `on_unparsed` hears each line that belongs to no record, with its input's path.
    Logs {
        sources: &'a [Source],
        grammar: &'a Grammar,
        options: &'a ScanOptions,
        on_unparsed: &'a (dyn Fn(&str, &UnparsedLine) + Sync),
    },
    /// Events already scanned: event streams (`check --events`) or a live check's events so far.
    Scanned(Scanned),
}

/// Scanned inputs: each one's counters and events (in input order), and which are in the test layout.
pub struct Scanned {
    pub stats: Vec<InputStats>,
    pub events: Vec<InputEvents>,
    pub test_output: Vec<bool>,
}

impl Scanned {
    /// The inputs of event streams, numbered from 0 in this run.
    pub fn from_streams(inputs: Vec<StreamInput>) -> Scanned {
        let (stats, mut events): (Vec<_>, Vec<_>) = inputs.into_iter().unzip();
        for (i, e) in events.iter_mut().enumerate() {
            e.set_input(i as u32);
        }
        Scanned::new(stats, events)
    }

    /// Events held whole (a live check's events so far).
    pub fn from_events(stats: Vec<InputStats>, events: Vec<Vec<Event>>) -> Scanned {
        let events = events.into_iter().map(InputEvents::from_events).collect();
        Scanned::new(stats, events)
    }

    /// Events kept compactly (a live check's events so far).
    pub fn new(stats: Vec<InputStats>, events: Vec<InputEvents>) -> Scanned {
        let test_output = crate::timeline::test_layout(&stats);
        Scanned {
            stats,
            events,
            test_output,
        }
    }
}

/// What a run tells as it goes (the progress bar); each method does nothing unless implemented.
pub trait Watch {
    /// The inputs are scanned: `events` events of `inputs` inputs are being merged.
    fn merging(&mut self, _events: usize, _inputs: usize) {}
    /// The timeline is merged: `events` events are being replayed.
    fn replaying(&mut self, _events: usize) {}
    /// `done` events are replayed (every [`super::REPLAY_TICK`] events, and once at the end).
    fn replayed(&self, _done: usize) {}
}

/// A run that tells nothing.
impl Watch for () {}

/// What a check found: the merged timeline the reports point into, one report per bug (registry order) and,
/// with [`Pipeline::witnesses`], each bug's witnessed spec actions (same order).
pub struct Checked {
    pub timeline: Timeline,
    pub reports: Vec<ModelReport>,
    pub witnessed: Vec<Witnessed>,
}

impl Pipeline<'_> {
    /// The scan options of this check's inputs: the wrapper's receive time may stand in for a coarse log
    /// clock only within the merge's skew tolerance.
    pub fn scan_options(&self, options: &ScanOptions) -> ScanOptions {
        ScanOptions {
            max_skew_ms: Some(self.max_skew_ms),
            ..options.clone()
        }
    }

    /// Runs the check on `inputs`.
    pub fn run(&self, inputs: Inputs, watch: &mut dyn Watch) -> Checked {
        let mut clock = std::time::Instant::now();
        let scanned = match inputs {
            Inputs::Logs {
                sources,
                grammar,
                options,
                on_unparsed,
            } => {
                let options = self.scan_options(options);
                let (stats, events, test_output) =
                    crate::timeline::scan_all(sources, grammar, &options, on_unparsed);
                Scanned {
                    stats,
                    events,
                    test_output,
                }
            }
            Inputs::Scanned(scanned) => scanned,
        };
        crate::timings::phase("scan", &mut clock);
        watch.merging(
            scanned.events.iter().map(InputEvents::len).sum(),
            scanned.events.len(),
        );
        let mut timeline = crate::timeline::from_inputs(
            scanned.stats,
            scanned.events,
            scanned.test_output,
            crate::bugs::merge_rules(self.max_skew_ms),
        );
        timeline.set_utc_offsets(self.utc_offsets.clone());
        let mut clock = std::time::Instant::now();
        watch.replaying(timeline.events.len());
        let tick = |done| watch.replayed(done);
        let options = ReplayOptions {
            partial: self.partial,
            witnesses: self.witnesses,
            tick: Some(&tick),
            ..ReplayOptions::default()
        };
        let replay = replay(&timeline, super::monitors(self.bugs), &options);
        watch.replayed(timeline.events.len());
        crate::timings::phase("replay", &mut clock);
        Checked {
            timeline,
            reports: replay.reports,
            witnessed: replay.witnessed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    fn check(sources: &[Source], grammar: &Grammar) -> serde_json::Value {
        let inputs = Inputs::Logs {
            sources,
            grammar,
            options: &ScanOptions::default(),
            on_unparsed: &|_, _| {},
        };
        let checked = Pipeline::default().run(inputs, &mut ());
        crate::render::report::to_json(&checked.timeline, &checked.reports, true)
    }

    /// An editor's buffer is read as the file it holds would be: the same report, line for line and byte
    /// for byte, under the same path.
    #[test]
    fn a_buffer_is_checked_as_the_file_it_holds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/scenarios/scm-secret-keys/violating");
        let files: Vec<PathBuf> = (1..=3)
            .map(|n| dir.join(format!("ozone-hadoop-scm-scm{n}.log")))
            .collect();
        let grammar = Grammar::embedded().unwrap();
        let on_disk: Vec<Source> = files.iter().cloned().map(Source::File).collect();
        let in_memory: Vec<Source> = files
            .iter()
            .map(|p| Source::Buffer {
                path: p.clone(),
                bytes: Arc::from(std::fs::read(p).unwrap()),
            })
            .collect();
        let report = check(&on_disk, &grammar);
        assert_eq!(report["models"][0]["verdict"], "violated", "{report}");
        assert_eq!(check(&in_memory, &grammar), report);
    }

    /// Events already scanned (an event stream, a live check's events so far) give the report their scan
    /// gives.
    #[test]
    fn scanned_events_are_checked_as_their_logs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/scenarios/scm-secret-keys/violating");
        let grammar = Grammar::embedded().unwrap();
        let sources: Vec<Source> = (1..=3)
            .map(|n| Source::File(dir.join(format!("ozone-hadoop-scm-scm{n}.log"))))
            .collect();
        let (mut stats, mut events) = (Vec::new(), Vec::new());
        for (i, s) in sources.iter().enumerate() {
            let mut found = Vec::new();
            let options = ScanOptions::default();
            stats.push(crate::scan::scan_input(
                i as u32,
                s,
                &grammar,
                &options,
                |e| found.push(e),
                |_| {},
            ));
            events.push(found);
        }
        let checked = Pipeline::default().run(
            Inputs::Scanned(Scanned::from_events(stats, events)),
            &mut (),
        );
        let scanned = crate::render::report::to_json(&checked.timeline, &checked.reports, true);
        assert_eq!(scanned, check(&sources, &grammar));
    }
}
