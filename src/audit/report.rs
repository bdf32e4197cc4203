//! Printing an audit: a text report of what needs attention, or JSON with every rule.

use super::{RuleAudit, Status, Uncovered};
use serde_json::json;
use std::collections::BTreeMap;

const ORDER: [&str; 7] = [
    "found",
    "moved",
    "level-changed",
    "changed",
    "missing",
    "unresolved",
    "not-audited",
];

/// Rules per status, every status named.
pub fn summary(audits: &[RuleAudit]) -> BTreeMap<&'static str, usize> {
    let mut m: BTreeMap<&'static str, usize> = ORDER.iter().map(|s| (*s, 0)).collect();
    for a in audits {
        *m.entry(a.status.name()).or_default() += 1;
    }
    m
}

fn summary_line(audits: &[RuleAudit]) -> String {
    let m = summary(audits);
    let parts: Vec<String> = ORDER.iter().map(|s| format!("{} {s}", m[s])).collect();
    format!("{} rules: {}", audits.len(), parts.join(", "))
}

/// The text report: every rule that is not found where it says, then the summary.
pub fn text(audits: &[RuleAudit]) -> String {
    let mut out = String::new();
    // What breaks a rule first (missing, changed), what only needs a look last (unresolved templates).
    let mut ordered: Vec<&RuleAudit> = audits.iter().collect();
    ordered.sort_by_key(|a| attention_order(&a.status));
    for a in ordered {
        let cite = a.source.as_deref().unwrap_or("(no source)");
        let head = format!(
            "{:<13} {} ({}, source {cite})",
            a.status.name(),
            a.rule,
            a.origin
        );
        let line = match &a.status {
            Status::Found { .. } | Status::NotAudited { .. } => continue,
            Status::Moved { at } => format!("{head}\n    now at {}:{}", at.file, at.line),
            Status::LevelChanged { at } => format!(
                "{head}\n    rule level {}, source level {} at {}:{}",
                a.levels.join("|"),
                at.level,
                at.file,
                at.line
            ),
            Status::Changed {
                at,
                diff,
                similarity,
            } => format!(
                "{head}\n    closest {}:{} ({}, similarity {similarity:.2}): {}\n    diff {diff}",
                at.file, at.line, at.level, at.template
            ),
            Status::Missing => format!(
                "{head}\n    no statement like it in {}",
                if a.loggers.is_empty() {
                    "the cited file".to_string()
                } else {
                    a.loggers.join(", ")
                }
            ),
            Status::Unresolved { at } => format!(
                "{head}\n    {}:{} builds its message at run time: {}",
                at.file, at.line, at.template
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    let not_audited: Vec<&str> = audits
        .iter()
        .filter_map(|a| match &a.status {
            Status::NotAudited { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for reason in not_audited {
        out.push_str(&format!("not audited: {reason}\n"));
    }
    // Rules missing from one tree often come from one grammar file written against another branch: say which
    // files, and the tree each file's templates were copied from (its `templates-from` line).
    let mut missing_by_file: std::collections::BTreeMap<&str, (usize, Option<&str>)> =
        Default::default();
    for a in audits
        .iter()
        .filter(|a| matches!(a.status, Status::Missing))
    {
        let file = a
            .origin
            .rsplit_once(':')
            .map_or(a.origin.as_str(), |(f, _)| f);
        let entry = missing_by_file
            .entry(file)
            .or_insert((0, a.templates_from.as_deref()));
        entry.0 += 1;
    }
    for (file, (n, from)) in &missing_by_file {
        match from {
            Some(from) => out.push_str(&format!(
                "missing: {n} rule(s) of {file}, whose templates were copied from {from}: if this tree is another branch or version, that is expected\n"
            )),
            None => out.push_str(&format!(
                "missing: {n} rule(s) of {file} (the file has no `templates-from` line naming the tree its templates came from)\n"
            )),
        }
    }
    out.push_str(&summary_line(audits));
    out.push('\n');
    out
}

/// The order of the text report: what fails the audit first, unresolved templates last.
fn attention_order(status: &Status) -> u8 {
    match status {
        Status::Missing => 0,
        Status::Changed { .. } => 1,
        Status::LevelChanged { .. } => 2,
        Status::Moved { .. } => 3,
        Status::Unresolved { .. } => 4,
        Status::Found { .. } | Status::NotAudited { .. } => 5,
    }
}

/// The JSON report (version 1): the summary, the trees read, and every rule with its status.
pub fn json(audits: &[RuleAudit], trees: &[String]) -> serde_json::Value {
    json!({
        "version": 1,
        "trees": trees,
        "summary": summary(audits),
        "rules": audits,
    })
}

pub fn uncovered_text(items: &[Uncovered]) -> String {
    let mut out = String::new();
    for u in items {
        out.push_str(&format!(
            "{}:{}\t{}\t{}\t{}\n",
            u.at.file, u.at.line, u.at.level, u.logger, u.at.template
        ));
    }
    out.push_str(&format!("{} statements no rule matches\n", items.len()));
    out
}

pub fn uncovered_json(items: &[Uncovered], trees: &[String]) -> serde_json::Value {
    json!({ "version": 1, "trees": trees, "uncovered": items })
}
