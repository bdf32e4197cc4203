//! `--format concise`: one line per violation in the GNU/rustc shape editors' problem matchers read,
//! `path:line:col: error[CODE]: message [Invariant]`, then one line per model's verdict,
//! `scope: model: verdict: detail` (the scope is the run's file with `--per-file`, else `ozone-conform`).

use super::safe::sanitize_cow as s;
use super::{verdict_detail, verdict_name, Found, Options, Renderer, Run};
use crate::check::ModelReport;
use crate::monitor::Violation;
use crate::timeline::Timeline;
use std::io::{self, Write};

pub struct Concise {
    options: Options,
    /// With `--per-file`, what each run showed, for the closing line.
    tally: super::tally::Tally,
}

impl Concise {
    pub fn new(options: Options) -> Self {
        Concise {
            options,
            tally: Default::default(),
        }
    }
}

/// One violation's line (no newline).
pub fn violation_line(timeline: &Timeline, v: &Violation) -> String {
    let at = super::loc(timeline, v.primary);
    format!(
        "{}:{}:1: error[{}]: {} [{}]",
        s(at.path),
        at.line,
        v.invariant.code,
        s(&v.message),
        v.invariant
    )
}

/// One model's verdict line (no newline). Without `--all` (`all`), a model with more violations than the
/// one shown says so, and how to see them.
pub fn verdict_line(scope: Option<&str>, report: &ModelReport, all: bool) -> String {
    let mut detail = verdict_detail(report);
    if !all && report.violations.len() > 1 {
        detail.push_str(", 1 shown (--all for every one)");
    }
    format!(
        "{}: {}: {}: {}",
        s(scope.unwrap_or("ozone-conform")),
        report.model(),
        verdict_name(report.verdict),
        s(&detail)
    )
}

impl Renderer for Concise {
    fn all(&self) -> bool {
        self.options.all
    }

    fn streams(&self) -> bool {
        true
    }

    fn violation(&mut self, out: &mut dyn Write, f: &Found) -> io::Result<()> {
        writeln!(out, "{}", violation_line(f.timeline, f.violation))
    }

    fn verdicts(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        self.tally.add(run.reports);
        for r in run.reports {
            writeln!(out, "{}", verdict_line(run.name, r, self.options.all))?;
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.options.per_file {
            self.tally.write(out)?;
        }
        Ok(())
    }
}
