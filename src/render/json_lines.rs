//! `--format json-lines`: one JSON object per line, written as soon as it is known. A violation line is the
//! violation object of the JSON contract with `"type": "violation"`, its `model`, and `run` (the input file
//! with `--per-file`, else `null`); each model's verdict follows as `"type": "verdict"`. A live check that finds a model's first violation
//! earlier than the one it printed writes `"type": "superseded"` with the `printed` one and the new `first`.

use super::{Found, Options, Renderer, Run};
use crate::check::ModelReport;
use crate::monitor::Violation;
use crate::timeline::Timeline;
use serde_json::{json, Value};
use std::io::{self, Write};

pub struct JsonLines {
    options: Options,
}

impl JsonLines {
    pub fn new(options: Options) -> Self {
        JsonLines { options }
    }
}

/// One violation's object.
pub fn violation(
    run: Option<&str>,
    timeline: &Timeline,
    report: &ModelReport,
    v: &Violation,
    first: bool,
) -> Value {
    let mut o = crate::render::report::violation_json(timeline, report, v, first);
    o["type"] = "violation".into();
    o["model"] = report.model().into();
    o["run"] = run.into();
    o
}

/// One model's verdict object.
pub fn verdict(run: Option<&str>, report: &ModelReport) -> Value {
    json!({
        "type": "verdict",
        "run": run,
        "model": report.model(),
        "verdict": report.verdict,
        "reason": report.reason,
        "events": report.events,
        "checks": report.checks,
        "violations": report.violations.len(),
    })
}

fn line(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")
}

impl Renderer for JsonLines {
    fn all(&self) -> bool {
        self.options.all
    }

    fn streams(&self) -> bool {
        true
    }

    fn violation(&mut self, out: &mut dyn Write, f: &Found) -> io::Result<()> {
        line(
            out,
            &violation(f.run, f.timeline, f.report, f.violation, f.first),
        )
    }

    /// One object naming the violation printed as the model's first and the earlier one that is now.
    fn superseded(
        &mut self,
        out: &mut dyn Write,
        printed: &super::Printed,
        f: &Found,
    ) -> io::Result<()> {
        line(
            out,
            &json!({
                "type": "superseded",
                "run": f.run,
                "model": f.report.model(),
                "printed": {
                    "code": printed.code,
                    "instance": printed.instance,
                    "path": printed.path,
                    "line": printed.line,
                    "message": printed.message,
                },
                "first": violation(f.run, f.timeline, f.report, f.violation, true),
            }),
        )
    }

    fn verdicts(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        for r in run.reports {
            line(out, &verdict(run.name, r))?;
        }
        Ok(())
    }
}
