//! Rendering a check's results: terminal diagnostics (miette) and the JSON contract.
//!
//! Diagnostics never re-read an input: each event carries its record's first line, and a one-line
//! [`SourceCode`] gives miette that line with its real line number. That keeps rendering cheap on multi-GB
//! inputs and works for stdin and gzip alike.

use crate::check::ModelReport;
use crate::monitor::{Verdict, Violation};
use crate::render::safe::sanitize;
use crate::timeline::Timeline;
use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};
use serde_json::{json, Value as Json};
use std::fmt;

/// One record's first line as a miette source, numbered as in its input.
#[derive(Debug)]
pub struct LineSource {
    name: String,
    text: String,
    /// 0-based line number of `text` in the input.
    line: usize,
    /// The message part of the line, which labels underline (the header is the same on every line).
    message: (usize, usize),
}

impl LineSource {
    /// The message part of the line, which labels underline.
    pub fn label_span(&self) -> SourceSpan {
        SourceSpan::new(self.message.0.into(), self.message.1)
    }
}

impl SourceCode for LineSource {
    fn read_span<'a>(
        &'a self,
        _span: &SourceSpan,
        _before: usize,
        _after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            self.text.as_bytes(),
            SourceSpan::new(0.into(), self.text.len()),
            self.line,
            0,
            1,
        )))
    }
}

/// A violation as a miette diagnostic: primary label on the violating line, related diagnostics on the
/// causal chain.
#[derive(Debug)]
struct ViolationDiagnostic {
    code: String,
    message: String,
    source: LineSource,
    label: String,
    help: String,
    related: Vec<RelatedLine>,
}

#[derive(Debug)]
struct RelatedLine {
    message: String,
    source: LineSource,
}

impl fmt::Display for ViolationDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for ViolationDiagnostic {}

impl fmt::Display for RelatedLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for RelatedLine {}

impl Diagnostic for RelatedLine {
    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Advice)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            None,
            self.source.label_span(),
        ))))
    }
}

impl Diagnostic for ViolationDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.label.clone()),
            self.source.label_span(),
        ))))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

/// The first line of event `index`'s record as a miette source, numbered as in its input.
pub fn line_source(timeline: &Timeline, index: usize) -> LineSource {
    let e = &timeline.events.get(index);
    let path = &timeline.inputs[e.span.input as usize].path;
    let excerpt = timeline.excerpt(index);
    let line = &excerpt.text;
    // Sanitizing may lengthen the header; measure the message offset on the sanitized text.
    let header = sanitize(&line[..floor_char_boundary(line, excerpt.message_offset)]);
    let text = sanitize(line);
    let start = header.len().min(text.len());
    LineSource {
        name: sanitize(path),
        message: (start, text.len() - start),
        text,
        line: e.span.line as usize - 1,
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn location(timeline: &Timeline, index: usize) -> String {
    let e = &timeline.events.get(index);
    format!(
        "{}:{}",
        sanitize(&timeline.inputs[e.span.input as usize].path),
        e.span.line
    )
}

/// Renders one violation with miette.
pub fn render_violation(
    timeline: &Timeline,
    report: &ModelReport,
    v: &Violation,
    color: bool,
    width: usize,
) -> String {
    let inv = v.invariant;
    let spec = report.spec();
    let spec_at = report
        .spec_line(inv.name)
        .map(|l| format!("{}:{l}", spec.path))
        .unwrap_or_else(|| spec.path.to_string());
    let mut help = format!(
        "{}. {} Upstream issue: {}. Spec: {} {} ({spec_at}).",
        capitalize(inv.summary),
        inv.advice,
        spec.issue,
        spec.module,
        v.invariant
    );
    if let Some(a) = &v.ambiguous_order {
        help.push_str(&format!(" Note: {a}."));
    }
    let diag = ViolationDiagnostic {
        code: format!("{}[{}]", v.invariant.code, v.invariant),
        message: sanitize(&v.message),
        source: line_source(timeline, v.primary),
        label: v.primary_label.clone(),
        help,
        related: v
            .related
            .iter()
            .map(|(i, label)| RelatedLine {
                message: format!("{} ({})", label, location(timeline, *i)),
                source: line_source(timeline, *i),
            })
            .collect(),
    };
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false);
    let mut out = String::new();
    handler
        .render_report(&mut out, &diag)
        .expect("rendering into a String cannot fail");
    chain_heading(&out)
}

/// miette heads every related diagnostic `Advice:`; the causal chain is one thing with one heading.
fn chain_heading(rendered: &str) -> String {
    const RELATED: &str = "\nAdvice: \n";
    let mut out = String::with_capacity(rendered.len());
    let mut rest = rendered;
    let mut first = true;
    while let Some(at) = rest.find(RELATED) {
        out.push_str(&rest[..at]);
        out.push_str(if first { "\ncausal chain:\n" } else { "\n" });
        first = false;
        rest = &rest[at + RELATED.len()..];
    }
    out.push_str(rest);
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The verdict summary that ends the terminal report.
pub fn render_summary(timeline: &Timeline, reports: &[ModelReport], all: bool) -> String {
    let mut out = String::from("verdicts:\n");
    for r in reports {
        let verdict = match r.verdict {
            Verdict::Violated => "violated",
            Verdict::Conforms => "conforms",
            Verdict::Inconclusive => "inconclusive",
        };
        out.push_str(&format!("  {:<18} {:<13}", r.model(), verdict));
        match r.verdict {
            Verdict::Violated => {
                let shown = if all { r.violations.len() } else { 1 };
                let first = r.first().expect("violated has one");
                out.push_str(&format!(
                    "{} violation(s){} first at {} ({})",
                    r.violations.len(),
                    if all || r.violations.len() == 1 {
                        String::new()
                    } else {
                        format!(", {shown} shown (--all for every one),")
                    },
                    location(timeline, first.primary),
                    first.invariant
                ));
            }
            Verdict::Conforms => {
                out.push_str(&format!("{} check(s) over {} event(s)", r.checks, r.events))
            }
            Verdict::Inconclusive => out.push_str(&sanitize(r.reason.as_deref().unwrap_or(""))),
        }
        out.push('\n');
    }
    out
}

/// One violation as in the `--format json` contract (also a `--format json-lines` line's core).
pub fn violation_json(timeline: &Timeline, r: &ModelReport, v: &Violation, first: bool) -> Json {
    let e = &timeline.events.get(v.primary);
    json!({
        "invariant": v.invariant,
        "code": v.invariant.code,
        "message": v.message,
        "node": v.node.as_deref(),
        "first": first,
        "primary": {
            "path": timeline.inputs[e.span.input as usize].path,
            "line": e.span.line,
            "column": 1,
            "byte_offset": e.span.byte_offset,
            "byte_len": e.span.byte_len,
        },
        "related": v.related.iter().map(|(i, label)| {
            let r = &timeline.events.get(*i);
            json!({"path": timeline.inputs[r.span.input as usize].path, "line": r.span.line, "label": label})
        }).collect::<Vec<_>>(),
        "ambiguous_order": v.ambiguous_order,
        "spec": {
            "module": r.spec().module,
            "invariant": v.invariant,
            "path": r.spec().path,
            "line": r.spec_line(v.invariant.name),
        },
    })
}

/// The `--format json` contract (version 1; see the README).
pub fn to_json(timeline: &Timeline, reports: &[ModelReport], all: bool) -> Json {
    let inputs: Vec<Json> = timeline
        .inputs
        .iter()
        .map(|s| {
            json!({
                "path": s.path,
                "layout": s.layout,
                "node": if s.nodes.len() == 1 { s.nodes.keys().next().cloned() } else { None },
                "nodes": s.nodes.keys().collect::<Vec<_>>(),
                "records": s.records,
                "unparsed": s.unparsed,
            })
        })
        .collect();
    let models: Vec<Json> = reports
        .iter()
        .map(|r| {
            let shown: Vec<&Violation> = if all {
                r.violations.iter().collect()
            } else {
                r.first().into_iter().collect()
            };
            let violations: Vec<Json> = shown
                .iter()
                .enumerate()
                .map(|(k, v)| violation_json(timeline, r, v, k == 0))
                .collect();
            json!({
                "model": r.model(),
                "verdict": r.verdict,
                "reason": r.reason,
                "events": r.events,
                "violations": violations,
            })
        })
        .collect();
    json!({"version": 1, "inputs": inputs, "models": models})
}

#[cfg(test)]
mod tests {
    #[test]
    fn spec_lines_are_found() {
        for (path, inv) in [
            (
                "traces/scm-secret-keys/ScmSecretKeys.tla",
                "KeyFileCoversDb",
            ),
            (
                "traces/scm-secret-keys/ScmSecretKeys.tla",
                "NoUnexpiredKeyDropped",
            ),
            (
                "traces/scm-finalization/ScmFinalization.tla",
                "VersionFileCoversDb",
            ),
            (
                "traces/scm-finalization/ScmFinalization.tla",
                "NoFinalizedDatanodeFenced",
            ),
            (
                "traces/dn-finalize-block/DnFinalizeBlock.tla",
                "NoPutBlockAfterFinalize",
            ),
            (
                "traces/recon-om-sync/ReconOmSync.tla",
                "DerivedTasksMatchOmLineage",
            ),
        ] {
            let bug = crate::bugs::BUGS
                .iter()
                .find(|b| b.about.spec.path == path)
                .unwrap_or_else(|| panic!("{path} is a registered bug's spec"));
            let line = bug
                .spec_line(inv)
                .unwrap_or_else(|| panic!("{inv} not in {path}"));
            let text = std::fs::read_to_string(
                concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + path,
            )
            .unwrap();
            assert!(text.lines().nth(line - 1).unwrap().starts_with(inv));
        }
    }
}
