//! Renderers of a check's results, one module per `--format`.
//!
//! A check is one or more *runs* (`--per-file` makes every input file its own run; otherwise all inputs are
//! one). A [`Renderer`] is told `begin`, each run, then `end`. The line-oriented formats (`full`, `concise`,
//! `json-lines`, `github`) write as soon as they are given something, and each also has a function that
//! renders a single violation, for a caller that streams violations one at a time; the document formats
//! (`json`, `sarif`, `junit`) gather the runs and write at `end`.
//!
//! Log text is untrusted: the text formats pass it through [`safe::sanitize`], the machine formats through
//! their own escaping (serde_json, [`safe::xml`], [`safe::github_data`]).

pub mod concise;
pub mod coverage;
pub mod full;
pub mod github;
pub mod html;
pub mod json;
pub mod json_lines;
pub mod junit;
pub mod report;
pub mod safe;
pub mod sarif;
pub mod tally;

use crate::check::ModelReport;
use crate::monitor::{Invariant, Verdict, Violation};
use crate::timeline::Timeline;
use std::io::{self, Write};

/// `--format`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// `full` when stderr is a terminal, `concise` otherwise.
    Auto,
    /// Diagnostics with the log line, the causal chain and help (miette).
    Full,
    /// One `path:line:col: error[CODE]: message` line per violation, then one line per verdict.
    Concise,
    /// The stable JSON document (version 1, see the README).
    Json,
    /// One JSON object per line: each violation as it is rendered, then each verdict.
    JsonLines,
    /// SARIF 2.1.0, for GitHub code scanning and SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JUnit XML: one testcase per model and run.
    Junit,
}

impl Format {
    /// Resolves `auto`: `full` for a person watching a terminal, `concise` for editors, pipes and CI.
    pub fn resolve(self, stderr_is_terminal: bool) -> Format {
        match self {
            Format::Auto if stderr_is_terminal => Format::Full,
            Format::Auto => Format::Concise,
            f => f,
        }
    }

    /// Formats a person reads (where a progress bar may be drawn beside them).
    pub fn is_human(self) -> bool {
        matches!(self, Format::Full | Format::Concise)
    }
}

/// What every renderer is told besides the runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `--all`: every violation, not only each model's first.
    pub all: bool,
    /// Colour (the `full` format only).
    pub color: bool,
    /// Width of the `full` diagnostics.
    pub width: usize,
    /// `--per-file`: the runs are independent files (documents then have one entry per run).
    pub per_file: bool,
}

/// One independent check: its timeline and the models' answers.
pub struct Run<'a> {
    /// The input this run is (with `--per-file`), as given on the command line.
    pub name: Option<&'a str>,
    pub timeline: &'a Timeline,
    pub reports: &'a [ModelReport],
    /// The spec coverage, with `--coverage` (the `json` document then carries it).
    pub coverage: Option<&'a crate::coverage::RunCoverage>,
}

impl Run<'_> {
    /// The violations of `report` that are shown: all with `--all`, else the first.
    pub fn shown(report: &ModelReport, all: bool) -> Vec<&Violation> {
        if all {
            report.violations.iter().collect()
        } else {
            report.first().into_iter().collect()
        }
    }
}

/// A violation as a line format writes it: where it was found and whether it is its model's first.
pub struct Found<'a> {
    /// The run's name (with `--per-file`).
    pub run: Option<&'a str>,
    pub timeline: &'a Timeline,
    pub report: &'a ModelReport,
    pub violation: &'a Violation,
    pub first: bool,
}

/// A format. The line formats implement [`Renderer::violation`] and [`Renderer::verdicts`], which write as
/// they are called (a live check streams through them) and make up the provided [`Renderer::run`]; the
/// document formats gather in `run` and write at `end`.
pub trait Renderer {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
    /// One run: its violations (each model's first, or all with `--all`), then its verdicts.
    fn run(&mut self, out: &mut dyn Write, run: &Run) -> io::Result<()> {
        for r in run.reports {
            for (k, v) in Run::shown(r, self.all()).into_iter().enumerate() {
                let found = Found {
                    run: run.name,
                    timeline: run.timeline,
                    report: r,
                    violation: v,
                    first: k == 0,
                };
                self.violation(out, &found)?;
            }
        }
        self.verdicts(out, run)
    }
    fn end(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
    /// `--all`.
    fn all(&self) -> bool;
    /// Can this format write violations one at a time, as a live check finds them? (The line formats can;
    /// the document formats write whole documents.)
    fn streams(&self) -> bool {
        false
    }
    /// One violation, written at once.
    fn violation(&mut self, _out: &mut dyn Write, _found: &Found) -> io::Result<()> {
        Ok(())
    }
    /// A run's verdicts, after its violations.
    fn verdicts(&mut self, _out: &mut dyn Write, _run: &Run) -> io::Result<()> {
        Ok(())
    }
    /// A live check found `found`, earlier in the timeline than its model's first already `printed` (an
    /// input arrived late): a note naming both, then the violation that is the model's first now.
    fn superseded(
        &mut self,
        out: &mut dyn Write,
        printed: &Printed,
        found: &Found,
    ) -> io::Result<()> {
        let at = loc(found.timeline, found.violation.primary);
        writeln!(
            out,
            "ozone-conform: {}: superseded: {}:{}: error[{}] is no longer the first violation; {}:{}: error[{}] is earlier",
            found.report.model(),
            safe::sanitize(&printed.path),
            printed.line,
            printed.code,
            safe::sanitize(at.path),
            at.line,
            found.violation.invariant.code
        )?;
        self.violation(out, found)
    }
}

/// The renderer of a (resolved) format.
pub fn renderer(format: Format, options: Options) -> Box<dyn Renderer> {
    match format {
        Format::Auto | Format::Full => Box::new(full::Full::new(options)),
        Format::Concise => Box::new(concise::Concise::new(options)),
        Format::Json => Box::new(json::Json::new(options)),
        Format::JsonLines => Box::new(json_lines::JsonLines::new(options)),
        Format::Sarif => Box::new(sarif::Sarif::new(options)),
        Format::Github => Box::new(github::Github::new(options)),
        Format::Junit => Box::new(junit::Junit::new(options)),
    }
}

/// Where an event is: its input's path as given, its record's first line, its byte range.
#[derive(Clone, Copy, Debug)]
pub struct Loc<'a> {
    pub path: &'a str,
    pub line: u64,
    pub byte_offset: u64,
    pub byte_len: u64,
}

pub fn loc(timeline: &Timeline, index: usize) -> Loc<'_> {
    let e = &timeline.events.get(index);
    Loc {
        path: &timeline.inputs[e.span.input as usize].path,
        line: e.span.line,
        byte_offset: e.span.byte_offset,
        byte_len: e.span.byte_len,
    }
}

/// The invariant `name` of the model that made `report`.
pub fn invariant(report: &ModelReport, name: &str) -> Option<Invariant> {
    report.bug.invariant(name).copied()
}

/// Every invariant of the models that answered, in registry order (the rules of a SARIF run).
pub fn invariants_of(reports: &[ModelReport]) -> Vec<(&'static str, Invariant)> {
    crate::bugs::BUGS
        .iter()
        .filter(|b| reports.iter().any(|r| r.bug == *b))
        .flat_map(|b| b.about.invariants.iter().map(move |i| (b.name(), *i)))
        .collect()
}

/// `ScmSecretKeys KeyFileCoversDb (traces/scm-secret-keys/ScmSecretKeys.tla:329)`.
pub fn spec_citation(report: &ModelReport, invariant: &str) -> String {
    let spec = report.spec();
    let at = report
        .spec_line(invariant)
        .map(|l| format!("{}:{l}", spec.path))
        .unwrap_or_else(|| spec.path.to_string());
    format!("{} {invariant} ({at})", spec.module)
}

/// The upstream issue a model's spec was written for, in Apache's JIRA (a rule's documentation).
pub fn issue_uri(issue: &str) -> String {
    format!("https://issues.apache.org/jira/browse/{issue}")
}

pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Violated => "violated",
        Verdict::Conforms => "conforms",
        Verdict::Inconclusive => "inconclusive",
    }
}

/// What stands beside a verdict: the violation count, the checks made, or why it is inconclusive (raw text:
/// each format escapes it).
pub fn verdict_detail(report: &ModelReport) -> String {
    match report.verdict {
        Verdict::Violated => format!("{} violation(s)", report.violations.len()),
        Verdict::Conforms => format!("{} check(s) over {} event(s)", report.checks, report.events),
        Verdict::Inconclusive => report.reason.clone().unwrap_or_default(),
    }
}

/// A violation's help: summary, advice, upstream issue, spec citation, and the order caveat.
pub fn help(report: &ModelReport, v: &Violation) -> String {
    let inv = v.invariant;
    let mut help = format!(
        "{}. {} Upstream issue: {}. Spec: {}.",
        capitalize(inv.summary),
        inv.advice,
        report.spec().issue,
        spec_citation(report, inv.name)
    );
    if let Some(a) = &v.ambiguous_order {
        help.push_str(&format!(" Note: {a}."));
    }
    help
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A violation's causal chain in timeline order, the violating event last: (event index, what it did).
pub fn chain(v: &Violation) -> Vec<(usize, &str)> {
    let mut steps: Vec<(usize, &str)> = v
        .related
        .iter()
        .map(|(i, label)| (*i, label.as_str()))
        .collect();
    steps.sort_by_key(|(i, _)| *i);
    steps.push((v.primary, v.primary_label.as_str()));
    steps
}

/// A stable 64-bit FNV-1a hash, written in hex (fingerprints must not change between builds or runs).
pub fn fnv1a_hex(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in p.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A violation's identity across runs: its code, its instance and its message with every number replaced,
/// so that times, term indexes and line numbers that move between runs do not change it.
pub fn fingerprint(v: &Violation) -> String {
    let mut normalized = String::with_capacity(v.message.len());
    let mut in_digits = false;
    for c in v.message.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                normalized.push('0');
            }
            in_digits = true;
        } else {
            in_digits = false;
            normalized.extend(c.to_lowercase());
        }
    }
    fnv1a_hex(&[v.invariant.code, &v.instance, &normalized])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_resolves_by_stderr() {
        assert_eq!(Format::Auto.resolve(true), Format::Full);
        assert_eq!(Format::Auto.resolve(false), Format::Concise);
        assert_eq!(Format::Sarif.resolve(true), Format::Sarif);
    }

    #[test]
    fn fnv_is_the_reference_function() {
        // FNV-1a 64 test vectors.
        assert_eq!(fnv1a_hex(&[""]), "cbf29ce484222325");
        assert_eq!(fnv1a_hex(&["a"]), "af63dc4c8601ec8c");
        assert_ne!(fnv1a_hex(&["ab", "c"]), fnv1a_hex(&["a", "bc"]));
    }
}

/// A violation already printed, as it was: the timeline it was found in is gone by the next look.
#[derive(Clone, Debug)]
pub struct Printed {
    pub code: &'static str,
    pub instance: String,
    pub path: String,
    pub line: u64,
    pub message: String,
}
