//! `--format junit`: JUnit XML (the Jenkins/Ant shape GitLab, Jenkins and JUnit-report actions read). One
//! `testsuite` per run (with `--per-file`, per test output file, named after the test class), one `testcase`
//! per model: a violation is a `failure` (the first violation in its message, every shown one with its causal
//! chain in its text), an inconclusive verdict is `skipped` with the reason, a conforming model passes.
//! All log text goes through [`super::safe::xml`].
//!
//! The shape is the one Jenkins' `junit-10.xsd` allows (`tests/formats.rs` validates against it): the input
//! file is the suite's `file` (the schema has none on `testcase`), skipped counts are per suite (none on
//! `testsuites`), and `time` is the seconds each run took to read and check, the whole check's on
//! `testsuites`.

use super::safe::xml;
use super::{help, verdict_detail, Options, Renderer, Run};
use crate::monitor::Verdict;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// Seconds with three decimals, as surefire writes `time` (its schema's `SUREFIRE_TIME`).
fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

pub struct Junit {
    options: Options,
    /// When the check started, and when the last run ended (each run's `time` is from one to the next).
    started: Instant,
    last: Instant,
    suites: String,
    tests: usize,
    failures: usize,
}

impl Junit {
    pub fn new(options: Options) -> Self {
        let now = Instant::now();
        Junit {
            options,
            started: now,
            last: now,
            suites: String::new(),
            tests: 0,
            failures: 0,
        }
    }
}

/// The suite of a run: the test class of a surefire `<class>-output.txt`, the file name of another input,
/// `ozone-conform` for a check of all inputs together.
pub fn suite_name(run: Option<&str>) -> String {
    let Some(path) = run else {
        return "ozone-conform".to_string();
    };
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    name.strip_suffix("-output.txt")
        .map(str::to_string)
        .unwrap_or(name)
}

impl Renderer for Junit {
    fn all(&self) -> bool {
        self.options.all
    }

    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        self.started = Instant::now();
        self.last = self.started;
        Ok(())
    }

    fn run(&mut self, _out: &mut dyn Write, run: &Run) -> io::Result<()> {
        let now = Instant::now();
        let time = seconds(now - self.last);
        self.last = now;
        let suite = suite_name(run.name);
        let mut cases = String::new();
        let (mut failures, mut skipped) = (0, 0);
        let file = run
            .name
            .map(|f| format!(" file=\"{}\"", xml(f)))
            .unwrap_or_default();
        for r in run.reports {
            let _ = writeln!(
                cases,
                "    <testcase name=\"{}\" classname=\"{}\">",
                r.model(),
                xml(&suite)
            );
            match r.verdict {
                Verdict::Violated => {
                    failures += 1;
                    let shown = Run::shown(r, self.options.all);
                    let first = shown[0];
                    let mut text = String::new();
                    for v in &shown {
                        let at = super::loc(run.timeline, v.primary);
                        let _ = writeln!(
                            text,
                            "{}:{}: error[{}]: {} [{}]",
                            at.path, at.line, v.invariant.code, v.message, v.invariant
                        );
                        let _ = writeln!(text, "  causal chain:");
                        for (i, label) in super::chain(v) {
                            let l = super::loc(run.timeline, i);
                            let _ = writeln!(text, "    {}:{}: {label}", l.path, l.line);
                        }
                        let _ = writeln!(text, "  help: {}", help(r, v));
                    }
                    if r.violations.len() > shown.len() {
                        let _ = writeln!(
                            text,
                            "{} more violation(s) (--all shows every one)",
                            r.violations.len() - shown.len()
                        );
                    }
                    let _ = writeln!(
                        cases,
                        "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                        xml(&format!(
                            "{} {}: {}",
                            first.invariant.code, first.invariant, first.message
                        )),
                        first.invariant.code,
                        xml(&text)
                    );
                }
                Verdict::Inconclusive => {
                    skipped += 1;
                    let _ = writeln!(
                        cases,
                        "      <skipped message=\"{}\"/>",
                        xml(&format!("inconclusive: {}", verdict_detail(r)))
                    );
                }
                Verdict::Conforms => {
                    let _ = writeln!(
                        cases,
                        "      <system-out>{}</system-out>",
                        xml(&format!("conforms: {}", verdict_detail(r)))
                    );
                }
            }
            cases.push_str("    </testcase>\n");
        }
        let _ = write!(
            self.suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{time}\"{file}>\n{cases}  </testsuite>\n",
            xml(&suite),
            run.reports.len()
        );
        self.tests += run.reports.len();
        self.failures += failures;
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        write!(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ozone-conform\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{}\">\n{}</testsuites>\n",
            self.tests,
            self.failures,
            seconds(self.last - self.started),
            self.suites
        )
    }
}
