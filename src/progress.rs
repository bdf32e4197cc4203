//! The progress bar of `check`, on stderr, over the whole run: reading (bytes read of the inputs' total,
//! throughput, time left), then merging the events into one timeline, then replaying them through the models
//! (events replayed of the total); with `--per-file`, the file being checked and how many are left.
//!
//! Drawn only for a person: stderr is a terminal, the format is a human one (`full`, `concise`), `CI` is not
//! set, and `--verbose` is not printing lines of its own. It is advanced by the input reader once per 256 KiB
//! read (see [`crate::input::open_with_progress`]) and by the replay once per [`crate::monitor::replay::REPLAY_TICK`] events, never
//! per line, and cleared before the report is written.
//!
//! `OZONE_CONFORM_PROGRESS_LOG=FILE` draws nothing and appends each phase the bar enters to FILE, one line
//! each: how the tests see the phases without a terminal.

use crate::input::Source;
use crate::render::Format;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Whether a bar is wanted for this run.
pub fn wanted(format: Format, verbose: bool) -> bool {
    phase_log().is_some()
        || (format.is_human()
            && !verbose
            && std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none())
}

fn phase_log() -> Option<PathBuf> {
    std::env::var_os("OZONE_CONFORM_PROGRESS_LOG").map(PathBuf::from)
}

/// The bar of one `check`, moved through its phases.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    /// Bytes of all inputs (None when stdin or a followed file makes it unknown).
    total_bytes: Option<u64>,
    /// Bytes read when the bar left the reading phase, so that the next run's reading goes on from there.
    read_so_far: u64,
    log: Option<PathBuf>,
}

/// A bar over the inputs' total size (a spinner when stdin makes it unknown). Sizes are of the files as
/// stored, so a gzip input counts its compressed bytes.
pub fn start(sources: &[Source]) -> Progress {
    let total_bytes: Option<u64> = sources
        .iter()
        .map(|s| match s {
            Source::Stdin | Source::Follow(_) => None,
            Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Source::Buffer { bytes, .. } => Some(bytes.len() as u64),
        })
        .sum();
    let log = phase_log();
    let target = if log.is_some() {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(total_bytes, target);
    if log.is_none() {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    let mut p = Progress {
        bar,
        total_bytes,
        read_so_far: 0,
        log,
    };
    p.reading(None);
    p
}

impl Progress {
    /// What the input reader advances.
    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }

    /// Reading the inputs (of the run named, with `--per-file`: `run k/n: FILE`).
    pub fn reading(&mut self, run: Option<&str>) {
        let what = run.map_or_else(String::new, |r| format!(" {r}"));
        self.bar.set_message(what.clone());
        // Length and position before the style, which draws at once (as in `replaying`).
        match self.total_bytes {
            Some(t) => self.bar.set_length(t),
            None => self.bar.unset_length(),
        }
        self.bar.set_position(self.read_so_far);
        self.bar.reset_eta();
        self.bar.set_style(style(match self.total_bytes {
            Some(_) => "{spinner} reading{msg} {wide_bar} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
            None => "{spinner} reading{msg} {binary_bytes} {binary_bytes_per_sec}",
        }));
        self.note(&format!("reading{what}"));
    }

    /// Merging `events` events of `inputs` inputs into one timeline (clocks, causal edges, lifecycle).
    pub fn merging(&mut self, events: usize, inputs: usize) {
        self.read_so_far = self.bar.position();
        // The message first: setting the style draws at once, with whatever message is set.
        let msg = format!("merging {events} events of {inputs} input(s)");
        self.bar.set_message(msg.clone());
        self.bar.set_style(style("{spinner} {msg}"));
        self.note(&msg);
    }

    /// Replaying `events` events through the models.
    pub fn replaying(&mut self, events: usize) {
        // Length and position before the style: setting the style draws at once, and the bytes read are
        // not events (`157,286,373/8,317 events`).
        self.bar.set_length(events as u64);
        self.bar.set_position(0);
        self.bar.reset_eta();
        self.bar.set_style(style(
            "{spinner} replaying {wide_bar} {human_pos}/{human_len} events eta {eta}",
        ));
        self.note(&format!("replaying {events} events"));
    }

    /// `done` events replayed so far (the replay ticks every few thousand events, and once at its end).
    pub fn replayed(&self, done: usize) {
        self.bar.set_position(done as u64);
    }

    /// Runs `f` with the bar hidden (to write the report or a warning).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
        self.note("done");
    }

    fn note(&self, phase: &str) {
        if let Some(path) = &self.log {
            // A test hook: a failure to write it is the test's to see, not the user's.
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(f, "{phase}");
            }
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("valid template")
}
