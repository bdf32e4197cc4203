//! `--format full`: miette diagnostics with the log line, the causal chain and help, then the verdicts.

use super::{Found, Options, Renderer, Run};
use crate::check::ModelReport;
use crate::monitor::Violation;
use crate::timeline::Timeline;
use std::io::{self, Write};

pub struct Full {
    options: Options,
    /// With `--per-file`, what each run showed, for the closing line.
    tally: super::tally::Tally,
}

impl Full {
    pub fn new(options: Options) -> Self {
        Full {
            options,
            tally: Default::default(),
        }
    }

    /// One violation's diagnostic.
    fn write_violation(
        &self,
        out: &mut dyn Write,
        timeline: &Timeline,
        report: &ModelReport,
        v: &Violation,
    ) -> io::Result<()> {
        let text = crate::render::report::render_violation(
            timeline,
            report,
            v,
            self.options.color,
            self.options.width,
        );
        writeln!(out, "{text}")
    }
}

impl Renderer for Full {
    fn run(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        if let Some(name) = run.name {
            writeln!(out, "==> {} <==", super::safe::sanitize(name))?;
        }
        for r in run.reports {
            for v in Run::shown(r, self.options.all) {
                self.write_violation(out, run.timeline, r, v)?;
            }
        }
        self.verdicts(out, run)?;
        if run.name.is_some() {
            writeln!(out)?;
        }
        Ok(())
    }

    fn all(&self) -> bool {
        self.options.all
    }

    fn streams(&self) -> bool {
        true
    }

    fn violation(&mut self, out: &mut dyn Write, f: &Found) -> io::Result<()> {
        self.write_violation(out, f.timeline, f.report, f.violation)
    }

    fn verdicts(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        self.tally.add(run.reports);
        write!(
            out,
            "{}",
            crate::render::report::render_summary(run.timeline, run.reports, self.options.all)
        )
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.options.per_file {
            self.tally.write(out)?;
        }
        Ok(())
    }
}
