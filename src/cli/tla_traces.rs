//! The commands that link TLA+ traces and logs: `trace` (a TLA+ trace through the Rust mirror), `convert`
//! (any trace to ITF) and `export` (logs to a TLA+ behaviour that TLC can check against the spec).

use crate::bugs::{Bug, BUGS};
use crate::cli::{out_err, EXIT_OK, EXIT_VIOLATION};
use crate::mirror::replay::{Divergence, Outcome};
use crate::mirror::Constants;
use crate::timeline::Timeline;
use crate::tla::read::read_trace_file;
use crate::tla::trace::{Trace, TraceError, TraceFile, TraceFormat};
use miette::{miette, Diagnostic, NamedSource, Report, SourceSpan};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{what}")]
#[diagnostic(code(ozone_conform::trace::diverges))]
struct DivergenceReport {
    what: String,
    #[source_code]
    src: NamedSource<Arc<String>>,
    #[label("{label}")]
    span: SourceSpan,
    label: String,
    #[help]
    help: Option<String>,
}

/// Why `read_trace` failed: the reader's own error (which `trace` may answer), or another.
enum TraceReadError {
    Trace(TraceError),
    Other(Report),
}

impl From<TraceReadError> for Report {
    fn from(e: TraceReadError) -> Report {
        match e {
            TraceReadError::Trace(t) => Report::new(t),
            TraceReadError::Other(r) => r,
        }
    }
}

/// Reads a trace file, or standard input for `-` (`java … tlc2.TLC … | ozone-conform trace -`).
#[allow(clippy::result_large_err)] // read once per command: the size does not matter
fn read_trace(path: &Path) -> Result<TraceFile, TraceReadError> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(|e| {
            TraceReadError::Other(miette!(
                code = "ozone_conform::input",
                "cannot read stdin: {e}"
            ))
        })?;
        return crate::tla::read::read_trace_bytes("-", bytes).map_err(TraceReadError::Trace);
    }
    read_trace_file(path).map_err(TraceReadError::Trace)
}

/// Which bug a trace belongs to: the one named, else the one whose module the trace names, else the one
/// whose spec's variables are exactly the trace's.
fn model_of(trace: &Trace, named: Option<Bug>) -> Result<Bug, String> {
    if let Some(b) = named {
        return Ok(b);
    }
    if let Some(b) = trace.module.as_deref().and_then(crate::bugs::by_module) {
        return Ok(*b);
    }
    let mut vars: Vec<&str> = trace
        .states
        .first()
        .map(|s| s.vars.iter().map(|(n, _, _)| &**n).collect())
        .unwrap_or_default();
    vars.sort_unstable();
    for b in &BUGS {
        let mut want: Vec<&str> = b.mirror.variables().to_vec();
        want.sort_unstable();
        if want == vars {
            return Ok(*b);
        }
    }
    Err(format!(
        "no model's spec has this trace's variables ({}); pass --model",
        vars.join(", ")
    ))
}

/// The configs to replay under: the one given, else the model's shipped bug and fixed configs.
fn configs_for(bug: &Bug, config: Option<&Path>) -> Result<Vec<(String, Constants)>, Report> {
    let parse = |name: &str, text: &str| -> Result<(String, Constants), Report> {
        let cfg = crate::tla::cfg::parse_cfg(name, text)?;
        Ok((name.to_string(), cfg.constants))
    };
    match config {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                miette!(
                    code = "ozone_conform::input",
                    "cannot read {}: {e}",
                    p.display()
                )
            })?;
            Ok(vec![parse(&p.display().to_string(), &text)?])
        }
        None => bug
            .mirror
            .spec()
            .configs
            .iter()
            .map(|(name, text)| parse(name, text))
            .collect(),
    }
}

/// Constants an exported ITF trace carries in its `#meta`, as TLA+ expressions.
fn constants_in_itf_meta(file: &TraceFile) -> Option<Constants> {
    if !file.traces.iter().any(|t| t.format == TraceFormat::Itf) {
        return None;
    }
    let json: serde_json::Value = serde_json::from_str(&file.text).ok()?;
    let meta = json.get("#meta")?.get("constants")?.as_object()?;
    let cfg: String = std::iter::once("CONSTANTS\n".to_string())
        .chain(
            meta.iter()
                .map(|(k, v)| format!("    {k} = {}\n", v.as_str().unwrap_or_default())),
        )
        .collect();
    crate::tla::cfg::parse_cfg("#meta.constants", &cfg)
        .ok()
        .map(|c| c.constants)
}

struct TraceVerdict {
    config: String,
    outcome: Outcome,
}

/// Replays under each config; the first under which the trace conforms wins, else the one that got furthest.
fn replay_trace(
    bug: &Bug,
    configs: &[(String, Constants)],
    trace: &Trace,
) -> Result<TraceVerdict, Report> {
    let mut best: Option<TraceVerdict> = None;
    for (name, constants) in configs {
        let outcome = bug
            .mirror
            .replay(constants, trace)
            .map_err(|e| miette!(code = "ozone_conform::trace::config", "{name}: {e}"))?;
        let further = |o: &Outcome, than: &Outcome| match (o, than) {
            (Outcome::Diverges(a), Outcome::Diverges(b)) => a.state > b.state,
            _ => false,
        };
        match (&outcome, &best) {
            (Outcome::Conforms(_), _) => {
                return Ok(TraceVerdict {
                    config: name.clone(),
                    outcome,
                })
            }
            (_, Some(b)) if !further(&outcome, &b.outcome) => {}
            _ => {
                best = Some(TraceVerdict {
                    config: name.clone(),
                    outcome,
                })
            }
        }
    }
    Ok(best.expect("at least one config"))
}

fn divergence_report(file: &TraceFile, model: &str, config: &str, d: &Divergence) -> Report {
    let help = d.variable.as_ref().map(|v| {
        format!(
            "`{}` in the trace: {}\n`{}` in the mirror ({model}, {config}): {}",
            v.name, v.in_trace, v.name, v.in_mirror
        )
    });
    Report::new(DivergenceReport {
        what: format!(
            "the trace diverges from the {model} mirror at state {}: {}",
            d.number, d.what
        ),
        src: NamedSource::new(file.name.clone(), file.text.clone()),
        span: d.span,
        label: match &d.variable {
            Some(v) => format!("`{}` differs here", v.name),
            None => format!("state {}", d.number),
        },
        help,
    })
}

/// `ozone-conform trace FILE [--model M] [--config CFG] [--format text|json]`.
pub fn cmd_trace(
    path: &Path,
    model: Option<Bug>,
    config: Option<&Path>,
    json: bool,
) -> Result<i32, Report> {
    let file = match read_trace(path) {
        Ok(f) => f,
        // Nothing to replay, and nothing wrong: the answer a CI job piping TLC's output in wants.
        Err(TraceReadError::Trace(TraceError::NoErrorFound { name })) => {
            let mut out = crate::cli::out::stdout();
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"trace": name, "counterexample": false, "reason": "TLC found no error"})
                )
                .map_err(out_err)?;
            } else {
                writeln!(out, "no counterexample: TLC found no error").map_err(out_err)?;
            }
            return Ok(EXIT_OK);
        }
        Err(e) => return Err(e.into()),
    };
    let mut exit = EXIT_OK;
    let mut results = Vec::new();
    let mut out = crate::cli::out::stdout();
    let meta_constants = config
        .is_none()
        .then(|| constants_in_itf_meta(&file))
        .flatten();
    for (i, trace) in file.traces.iter().enumerate() {
        let bug =
            model_of(trace, model).map_err(|e| miette!(code = "ozone_conform::usage", "{e}"))?;
        let m = bug.name();
        let configs = match &meta_constants {
            Some(c) => vec![("#meta.constants".to_string(), c.clone())],
            None => configs_for(&bug, config)?,
        };
        let v = replay_trace(&bug, &configs, trace)?;
        let which = if file.traces.len() > 1 {
            format!("trace {}: ", i + 1)
        } else {
            String::new()
        };
        match &v.outcome {
            Outcome::Conforms(a) => {
                let verdict = match &a.violated {
                    Some((inv, k)) => {
                        exit = exit.max(EXIT_VIOLATION);
                        format!("{inv} violated at state {k} in both")
                    }
                    None => "no invariant violated in either".into(),
                };
                if json {
                    results.push(serde_json::json!({
                        "trace": i + 1, "model": m, "config": v.config, "conforms": true,
                        "states": a.states, "actions": a.actions,
                        "violated": a.violated.as_ref().map(|(inv, k)| serde_json::json!({"invariant": inv, "state": k})),
                    }));
                } else {
                    writeln!(
                        out,
                        "{which}conforms: {} states ({m}, {}); {verdict}",
                        a.states, v.config
                    )
                    .map_err(out_err)?;
                }
            }
            Outcome::Diverges(d) => {
                exit = exit.max(EXIT_VIOLATION);
                if json {
                    results.push(serde_json::json!({
                        "trace": i + 1, "model": m, "config": v.config, "conforms": false,
                        "divergence": {
                            "state": d.number, "what": d.what,
                            "offset": d.span.offset(), "length": d.span.len(),
                            "variable": d.variable.as_ref().map(|x| serde_json::json!({
                                "name": x.name, "trace": x.in_trace.to_string(), "mirror": x.in_mirror.to_string()
                            })),
                        }
                    }));
                } else {
                    writeln!(
                        out,
                        "{which}diverges at state {} ({m}, {})",
                        d.number, v.config
                    )
                    .map_err(out_err)?;
                    say!("{:?}", divergence_report(&file, m, &v.config, d));
                }
            }
        }
    }
    if json {
        serde_json::to_writer_pretty(&mut out, &results).map_err(|e| out_err(e.into()))?;
        writeln!(out).map_err(out_err)?;
    }
    Ok(exit)
}

/// `ozone-conform convert FILE --to itf [-o OUT]`.
pub fn cmd_convert(path: &Path, out_path: Option<&Path>) -> Result<i32, Report> {
    let file = read_trace(path).map_err(Report::from)?;
    // Each state's JSON is built while it is written: the whole JSON tree took many times the trace.
    let (docs, notes) = crate::tla::convert::itf_documents(&file);
    write_json_output(out_path, &docs)?;
    for n in notes {
        say!("note: {n}");
    }
    Ok(EXIT_OK)
}

fn write_json_output(path: Option<&Path>, json: &impl serde::Serialize) -> Result<(), Report> {
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, json)?;
        writeln!(w)?;
        w.flush()
    };
    match path {
        Some(p) => {
            let file = std::fs::File::create(p).map_err(|e| {
                miette!(
                    code = "ozone_conform::output",
                    "cannot write {}: {e}",
                    p.display()
                )
            })?;
            write(&mut std::io::BufWriter::new(file)).map_err(|e| {
                miette!(
                    code = "ozone_conform::output",
                    "cannot write {}: {e}",
                    p.display()
                )
            })
        }
        None => write(&mut std::io::BufWriter::new(crate::cli::out::stdout())).map_err(out_err),
    }
}

fn write_output(path: Option<&Path>, text: &str) -> Result<(), Report> {
    match path {
        Some(p) => std::fs::write(p, format!("{text}\n")).map_err(|e| {
            miette!(
                code = "ozone_conform::output",
                "cannot write {}: {e}",
                p.display()
            )
        }),
        None => {
            let mut out = crate::cli::out::stdout();
            writeln!(out, "{text}").map_err(out_err)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// ITF JSON (Apalache/Quint's trace format).
    Itf,
    /// A TLA+ module holding the trace, with a TLC config, that TLC checks against the spec.
    Tla,
}

#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("the logs show {action}, which the {model} spec does not allow after the steps before it")]
#[diagnostic(
    code(ozone_conform::export::not_a_behaviour),
    help("this is witnessed step {ordinal} of {total}; {searched} states were searched for steps no log line shows (the model's hidden actions: {hidden}) that would enable it without breaking an invariant, and none was found; if these are not all of the cluster's logs, add the others")
)]
struct NotABehaviour {
    action: String,
    model: String,
    ordinal: usize,
    total: usize,
    hidden: String,
    searched: usize,
    #[source_code]
    src: crate::render::report::LineSource,
    #[label("witnesses {action}")]
    span: SourceSpan,
}

fn describe_event(timeline: &Timeline, index: usize) -> String {
    let e = &timeline.events.get(index);
    let path = timeline
        .inputs
        .get(e.span.input as usize)
        .map_or("?", |s| s.path.as_str());
    format!("{path}:{} ({})", e.span.line, e.kind.name())
}

/// `ozone-conform export LOGS... --model M --to itf|tla [-o PATH]`.
pub fn cmd_export(
    timeline: &Timeline,
    bug: &Bug,
    to: ExportFormat,
    out_path: Option<&Path>,
) -> Result<i32, Report> {
    let (model, module, patch) = (bug.name(), bug.mirror.module(), bug.mirror.patch_constant());
    if to == ExportFormat::Tla && out_path.is_none() {
        return Err(miette!(
            code = "ozone_conform::usage",
            "--to tla writes three files (the trace module, its TLC config and the spec): give a directory with -o"
        ));
    }
    // The same observer `check` runs, read for its witnessed spec actions.
    let (_, witnessed) = crate::check::observe_one(timeline, bug);
    if witnessed.witnesses.is_empty() {
        return Err(miette!(
            code = "ozone_conform::export::nothing",
            "the logs witness no action of {module}; nothing to export"
        ));
    }
    let mut probe = witnessed.constants.clone();
    probe.insert(patch.to_string(), crate::tla::value::TlaValue::Bool(false));
    if let Err(e) = bug.mirror.check_constants(&probe) {
        return Err(miette!(
            code = "ozone_conform::export::constants",
            "the {model} mirror cannot be built for what these logs show: {e}"
        ));
    }
    let exported = match bug
        .mirror
        .export(&witnessed, &|i| describe_event(timeline, i))
    {
        Ok(x) => x,
        Err(stuck) => {
            let src = crate::render::report::line_source(timeline, stuck.event);
            return Err(Report::new(NotABehaviour {
                action: stuck.action,
                model: model.into(),
                ordinal: stuck.witness + 1,
                total: witnessed.witnesses.len(),
                hidden: witnessed.hidden.join(", "),
                searched: stuck.searched,
                span: src.label_span(),
                src,
            }));
        }
    };
    let (trace, constants) = (&exported.trace, &exported.constants);
    say!(
        "exported {} states of {module} ({} steps witnessed by log lines, {} inferred), {patch} = {}",
        trace.states.len(),
        exported.steps - exported.inferred,
        exported.inferred,
        if exported.patched { "TRUE" } else { "FALSE" }
    );
    if let Some((inv, k, after)) = exported.violated {
        say!(
            "the mirror finds {inv} violated at state {}; the trace stops there ({after} witnessed step(s) after it left out)",
            k + 1
        );
    }
    match to {
        ExportFormat::Itf => {
            let mut json = crate::tla::itf::to_itf(trace);
            if let Some(meta) = json.get_mut("#meta").and_then(|m| m.as_object_mut()) {
                let consts: serde_json::Map<String, serde_json::Value> = constants
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::String(v.to_string())))
                    .collect();
                meta.insert("constants".into(), serde_json::Value::Object(consts));
            }
            let text = serde_json::to_string_pretty(&json).map_err(|e| out_err(e.into()))?;
            write_output(out_path, &text)?;
        }
        ExportFormat::Tla => {
            let dir: PathBuf = out_path
                .map(Path::to_path_buf)
                .expect("checked before building the behaviour");
            let name = bug.mirror.write_tla_files(&dir, trace, constants)?;
            let shown = clean_dir(&dir);
            let at = |file: String| shown.join(file).display().to_string();
            say!(
                "wrote {}, {} and {}; check with: cd {} && java -cp tla2tools.jar tlc2.TLC -config {name}.cfg {name}.tla",
                at(format!("{name}.tla")),
                at(format!("{name}.cfg")),
                at(format!("{module}.tla")),
                shown.display(),
            );
        }
    }
    Ok(if exported.violated.is_some() {
        EXIT_VIOLATION
    } else {
        EXIT_OK
    })
}

/// `dir` as a person wrote it, less the noise: `out/` and `./out` are `out`, `.` stays `.`.
fn clean_dir(dir: &Path) -> PathBuf {
    let clean: PathBuf = dir
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if clean.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        clean
    }
}

#[cfg(test)]
mod clean_dir_tests {
    use super::*;

    #[test]
    fn trailing_slashes_and_dot_prefixes_go() {
        assert_eq!(clean_dir(Path::new("out/")), PathBuf::from("out"));
        assert_eq!(clean_dir(Path::new("./out//")), PathBuf::from("out"));
        assert_eq!(clean_dir(Path::new(".")), PathBuf::from("."));
        assert_eq!(clean_dir(Path::new("/tmp/x/")), PathBuf::from("/tmp/x"));
        assert_eq!(
            clean_dir(Path::new("out/")).join("A.tla"),
            PathBuf::from("out/A.tla")
        );
    }
}
