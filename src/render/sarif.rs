//! `--format sarif`: SARIF 2.1.0 (GitHub code scanning, the VS Code SARIF Viewer). One SARIF run for the whole
//! check (with `--per-file` too: the artifact URIs tell the files apart):
//!
//! * `tool.driver.rules`: every invariant of the models that answered, `id` = its code, with the summary,
//!   the advice, the upstream issue and the TLA+ citation (`help`, `properties.spec`);
//! * `results`: one per shown violation, level `error`, located on the record's first line
//!   (`artifactLocation.uri` relative to the current directory with `uriBaseId` `%SRCROOT%` where the file is
//!   under it, else an absolute `file://` URI; 1-based columns); `partialFingerprints.primaryLocationLineHash`
//!   hashes the code, the instance and the message with its numbers normalised, never a line number, so it is
//!   stable across runs; the causal chain as `relatedLocations` and as a `codeFlows` thread flow ending at the
//!   violating line;
//! * every model's verdict (and so `inconclusive` with its reason, and conformance) as a tool execution
//!   notification of level `note`, and in `properties.verdicts`; input errors as notifications of level
//!   `error` with `executionSuccessful: false`.

use super::{
    capitalize, help, invariants_of, spec_citation, verdict_detail, verdict_name, Options,
    Renderer, Run,
};
use crate::timeline::Timeline;
use serde_json::{json, Value};
use std::io::{self, Write};
use std::path::{Component, Path};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub struct Sarif {
    options: Options,
    /// (model, spec) of every model that answered, for the rules.
    reports: Vec<crate::check::ModelReport>,
    results: Vec<Value>,
    notifications: Vec<Value>,
    verdicts: Vec<Value>,
    successful: bool,
}

impl Sarif {
    pub fn new(options: Options) -> Self {
        Sarif {
            options,
            reports: Vec::new(),
            results: Vec::new(),
            notifications: Vec::new(),
            verdicts: Vec::new(),
            successful: true,
        }
    }
}

/// Percent-encodes what a URI path may not carry as is (RFC 3986 `pchar` and `/` are kept).
fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An input's `artifactLocation`: relative to the current directory (`%SRCROOT%`) when it is under it.
pub fn artifact_location(path: &str) -> Value {
    if path == "-" {
        return json!({"uri": "stdin"});
    }
    let p = Path::new(path);
    let plain_relative = p.is_relative()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if plain_relative {
        let rel: Vec<String> = p
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        return json!({"uri": encode_uri_path(&rel.join("/")), "uriBaseId": "%SRCROOT%"});
    }
    let absolute = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if let Some(rel) = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .ok()
        .and_then(|cwd| absolute.strip_prefix(cwd).ok().map(Path::to_path_buf))
    {
        return artifact_location(&rel.to_string_lossy());
    }
    json!({"uri": format!("file://{}", encode_uri_path(&absolute.to_string_lossy()))})
}

fn location(timeline: &Timeline, index: usize, message: Option<&str>) -> Value {
    let at = super::loc(timeline, index);
    let excerpt = timeline.excerpt(index);
    let mut l = json!({
        "physicalLocation": {
            "artifactLocation": artifact_location(at.path),
            "region": {
                "startLine": at.line,
                "startColumn": 1,
                "snippet": {"text": &*excerpt.text},
            },
        },
    });
    if let Some(m) = message {
        l["message"] = json!({ "text": m });
    }
    l
}

impl Renderer for Sarif {
    fn all(&self) -> bool {
        self.options.all
    }

    fn run(&mut self, _out: &mut dyn Write, run: &Run) -> io::Result<()> {
        for s in &run.timeline.inputs {
            for e in &s.errors {
                self.successful = false;
                self.notifications.push(json!({
                    "level": "error",
                    "message": {"text": e},
                    "locations": [{"physicalLocation": {"artifactLocation": artifact_location(&s.path)}}],
                }));
            }
        }
        for r in run.reports {
            if !self.reports.iter().any(|k| k.bug == r.bug) {
                self.reports.push(r.clone());
            }
            for (k, v) in Run::shown(r, self.options.all).into_iter().enumerate() {
                let mut text = v.message.clone();
                if let Some(a) = &v.ambiguous_order {
                    text.push_str(&format!(" (Note: {a}.)"));
                }
                let chain = super::chain(v);
                let related: Vec<Value> = v
                    .related
                    .iter()
                    .enumerate()
                    .map(|(id, (i, label))| {
                        let mut l = location(run.timeline, *i, Some(label));
                        l["id"] = id.into();
                        l
                    })
                    .collect();
                self.results.push(json!({
                    "ruleId": v.invariant.code,
                    "level": "error",
                    "message": {"text": text},
                    "locations": [location(run.timeline, v.primary, None)],
                    "relatedLocations": related,
                    "partialFingerprints": {"primaryLocationLineHash": super::fingerprint(v)},
                    "codeFlows": [{
                        "message": {"text": format!("How {} came to be violated", v.invariant)},
                        "threadFlows": [{
                            "locations": chain.iter().enumerate().map(|(n, (i, label))| json!({
                                "location": location(run.timeline, *i, Some(label)),
                                "executionOrder": n + 1,
                                "importance": if *i == v.primary { "essential" } else { "important" },
                            })).collect::<Vec<_>>(),
                        }],
                    }],
                    "properties": {
                        "model": r.model(),
                        "invariant": v.invariant,
                        "node": v.node.as_deref(),
                        "instance": v.instance,
                        "first": k == 0,
                        "run": run.name,
                        "help": help(r, v),
                    },
                }));
            }
            let mut note = json!({
                "level": "note",
                "message": {"text": format!(
                    "{}{}: {}: {}",
                    run.name.map(|n| format!("{n}: ")).unwrap_or_default(),
                    r.model(),
                    verdict_name(r.verdict),
                    verdict_detail(r)
                )},
                "properties": {"model": r.model(), "verdict": r.verdict, "run": run.name},
            });
            if let Some(name) = run.name {
                note["locations"] =
                    json!([{"physicalLocation": {"artifactLocation": artifact_location(name)}}]);
            }
            self.notifications.push(note);
            self.verdicts.push(json!({
                "run": run.name,
                "model": r.model(),
                "verdict": r.verdict,
                "reason": r.reason,
                "events": r.events,
                "checks": r.checks,
                "violations": r.violations.len(),
            }));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut rules = Vec::new();
        let mut ids = Vec::new();
        for (model, inv) in invariants_of(&self.reports) {
            let r = self
                .reports
                .iter()
                .find(|r| r.model() == model)
                .expect("model answered");
            let spec = spec_citation(r, inv.name);
            ids.push(inv.code);
            rules.push(json!({
                "id": inv.code,
                "name": inv.name,
                "shortDescription": {"text": capitalize(inv.summary)},
                "fullDescription": {"text": format!("{}. {}", capitalize(inv.summary), inv.advice)},
                "help": {
                    "text": format!("{} Upstream issue: {}. Spec: {spec}.", inv.advice, r.spec().issue),
                    "markdown": format!("{}\n\nUpstream issue: `{}`. Spec: `{spec}`.", inv.advice, r.spec().issue),
                },
                "helpUri": crate::render::issue_uri(r.spec().issue),
                "defaultConfiguration": {"level": "error"},
                "properties": {
                    "tags": [model, r.spec().issue],
                    "model": model,
                    "spec": {
                        "module": r.spec().module,
                        "invariant": inv.name,
                        "path": r.spec().path,
                        "line": r.spec_line(inv.name),
                    },
                },
            }));
        }
        for res in &mut self.results {
            if let Some(i) = ids.iter().position(|id| res["ruleId"] == *id) {
                res["ruleIndex"] = i.into();
            }
        }
        let mut driver = json!({
            "name": "ozone-conform",
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        });
        // The tool's page is Cargo.toml's `repository`, where one is set (a link made up here would rot).
        if let Some(home) = option_env!("CARGO_PKG_REPOSITORY").filter(|h| !h.is_empty()) {
            driver["informationUri"] = home.into();
        }
        let runs = json!([{
            "tool": {"driver": driver},
            "invocations": [{
                "executionSuccessful": self.successful,
                "toolExecutionNotifications": std::mem::take(&mut self.notifications),
            }],
            "results": std::mem::take(&mut self.results),
            "properties": {"verdicts": std::mem::take(&mut self.verdicts)},
        }]);
        // `$schema` and `version` first, so that viewers can sniff the file.
        #[derive(serde::Serialize)]
        struct Log {
            #[serde(rename = "$schema")]
            schema: &'static str,
            version: &'static str,
            runs: Value,
        }
        let doc = Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs,
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(
            artifact_location("./logs/a b%.log"),
            json!({"uri": "logs/a%20b%25.log", "uriBaseId": "%SRCROOT%"})
        );
        let cwd = std::env::current_dir().unwrap();
        let inside = cwd.join("Cargo.toml");
        assert_eq!(
            artifact_location(&inside.to_string_lossy()),
            json!({"uri": "Cargo.toml", "uriBaseId": "%SRCROOT%"})
        );
        let outside = artifact_location("/no/such/dir/x.log");
        assert_eq!(outside, json!({"uri": "file:///no/such/dir/x.log"}));
        assert_eq!(artifact_location("-"), json!({"uri": "stdin"}));
    }
}
