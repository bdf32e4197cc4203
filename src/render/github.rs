//! `--format github`: GitHub Actions workflow commands. Each violation is an `::error` annotation on its log
//! line with its causal chain in the message; each inconclusive model that read events an `::notice`; conforming models are plain
//! log lines. GitHub shows at most 10 error (and 10 warning, 10 notice) annotations per step: past
//! [`MAX_ERRORS`] / [`MAX_NOTICES`] the rest are written as plain log lines and one `::warning` says how many.
//!
//! Escaping: message data `%`→`%25`, CR→`%0D`, LF→`%0A`; property values also `:`→`%3A`, `,`→`%2C` (as
//! `@actions/core`); control characters and bidi controls are neutralised first, since the Actions log viewer
//! interprets ANSI sequences. Plain lines start with `ozone-conform: `, so no log text can start a command.

use super::safe::{github_data as data, github_property as prop, sanitize_cow};
use super::{verdict_detail, verdict_name, Found, Options, Renderer, Run};
use crate::check::ModelReport;
use crate::monitor::{Verdict, Violation};
use crate::timeline::Timeline;
use std::io::{self, Write};

/// Error annotations GitHub shows per step.
pub const MAX_ERRORS: usize = 10;
/// Notice annotations written per step.
pub const MAX_NOTICES: usize = 10;

pub struct Github {
    options: Options,
    errors: usize,
    notices: usize,
    unannotated_errors: usize,
    unannotated_notices: usize,
}

impl Github {
    pub fn new(options: Options) -> Self {
        Github {
            options,
            errors: 0,
            notices: 0,
            unannotated_errors: 0,
            unannotated_notices: 0,
        }
    }

    /// One violation: an annotation while fewer than [`MAX_ERRORS`] were written, else a plain line.
    fn annotate(
        &mut self,
        out: &mut dyn Write,
        timeline: &Timeline,
        v: &Violation,
    ) -> io::Result<()> {
        if self.errors < MAX_ERRORS {
            self.errors += 1;
            writeln!(out, "{}", annotation(timeline, v))
        } else {
            self.unannotated_errors += 1;
            writeln!(
                out,
                "ozone-conform: {}",
                super::concise::violation_line(timeline, v)
            )
        }
    }

    fn verdict(
        &mut self,
        out: &mut dyn Write,
        scope: Option<&str>,
        r: &ModelReport,
    ) -> io::Result<()> {
        // A model with no events at all in this run says nothing worth an annotation (a test of one
        // protocol is, of course, silent about the others): a plain line.
        let worth_a_notice = r.verdict == Verdict::Inconclusive && r.events > 0;
        if worth_a_notice && self.notices < MAX_NOTICES {
            self.notices += 1;
            let file = scope
                .map(|f| format!("file={},", prop(f)))
                .unwrap_or_default();
            return writeln!(
                out,
                "::notice {file}title={}::{}",
                prop(&format!("{} inconclusive", r.model())),
                data(&verdict_detail(r))
            );
        }
        if worth_a_notice {
            self.unannotated_notices += 1;
        }
        writeln!(
            out,
            "ozone-conform: {}{}: {}: {}",
            scope
                .map(|f| format!("{}: ", sanitize_cow(f)))
                .unwrap_or_default(),
            r.model(),
            verdict_name(r.verdict),
            sanitize_cow(&verdict_detail(r))
        )
    }
}

/// Which violations (model, k-th) get the `room` annotations left: every model's first, then every model's
/// second, and so on.
fn round_robin(counts: &[usize], room: usize) -> Vec<(usize, usize)> {
    let mut picked = Vec::new();
    let deepest = counts.iter().copied().max().unwrap_or(0);
    for k in 0..deepest {
        for (m, &n) in counts.iter().enumerate() {
            if k < n && picked.len() < room {
                picked.push((m, k));
            }
        }
    }
    picked
}

/// A violation's `::error` command: file, line, column, title `CODE Invariant`, and the message followed by
/// its causal chain.
pub fn annotation(timeline: &Timeline, v: &Violation) -> String {
    let at = super::loc(timeline, v.primary);
    let mut message = v.message.clone();
    message.push_str("\n\ncausal chain:");
    for (i, label) in super::chain(v) {
        let l = super::loc(timeline, i);
        message.push_str(&format!("\n  {}:{}: {label}", l.path, l.line));
    }
    if let Some(a) = &v.ambiguous_order {
        message.push_str(&format!("\nnote: {a}"));
    }
    format!(
        "::error file={},line={},col=1,title={}::{}",
        prop(at.path),
        at.line,
        prop(&format!("{} {}", v.invariant.code, v.invariant)),
        data(&message)
    )
}

impl Renderer for Github {
    fn all(&self) -> bool {
        self.options.all
    }

    fn streams(&self) -> bool {
        true
    }

    fn violation(&mut self, out: &mut dyn Write, f: &Found) -> io::Result<()> {
        self.annotate(out, f.timeline, f.violation)
    }

    /// A whole run: the annotations left go round the models (each model's first violation before any
    /// model's second), so a model later in the registry is not left without one by an earlier model's
    /// many; the violations are written in the usual order.
    fn run(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        let shown: Vec<Vec<&Violation>> = run
            .reports
            .iter()
            .map(|r| Run::shown(r, self.options.all))
            .collect();
        let annotated = round_robin(
            &shown.iter().map(Vec::len).collect::<Vec<_>>(),
            MAX_ERRORS.saturating_sub(self.errors),
        );
        for (m, violations) in shown.iter().enumerate() {
            for (k, v) in violations.iter().enumerate() {
                if annotated.contains(&(m, k)) {
                    self.errors += 1;
                    writeln!(out, "{}", annotation(run.timeline, v))?;
                } else {
                    self.unannotated_errors += 1;
                    writeln!(
                        out,
                        "ozone-conform: {}",
                        super::concise::violation_line(run.timeline, v)
                    )?;
                }
            }
        }
        self.verdicts(out, run)
    }

    fn verdicts(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        for r in run.reports {
            self.verdict(out, run.name, r)?;
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.unannotated_errors + self.unannotated_notices > 0 {
            writeln!(
                out,
                "::warning title=ozone-conform::{}",
                data(&format!(
                    "{} more violation(s) and {} more inconclusive verdict(s) are not annotated (GitHub shows at most {MAX_ERRORS} error annotations per step); each is a line starting with `ozone-conform: ` in this step's log. Use --format sarif for all of them.",
                    self.unannotated_errors, self.unannotated_notices
                ))
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::round_robin;

    #[test]
    fn annotations_go_round_the_models() {
        // 12 violations of the first model, one of the last: the last gets one of the ten.
        let picked = round_robin(&[12, 0, 0, 1], 10);
        assert_eq!(picked.len(), 10);
        assert!(picked.contains(&(3, 0)));
        assert_eq!(picked.iter().filter(|(m, _)| *m == 0).count(), 9);
        assert_eq!(round_robin(&[2, 2], 3), [(0, 0), (1, 0), (0, 1)]);
        assert!(round_robin(&[3], 0).is_empty());
    }
}
