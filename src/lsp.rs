//! `ozone-conform lsp`: a language server over stdio that publishes the check's violations as diagnostics.
//!
//! A cluster's logs are several files, so a check covers a *directory*: every open log document in it (its
//! text as the editor holds it, unsaved edits included) plus the log files beside it on disk (`*.log`,
//! rotated `*.log.N`, `*.gz`, `*.out`, `*-output.txt`; not subdirectories). Directories are checked apart:
//! two clusters' logs open side by side name the same nodes and must not be merged into one timeline.
//!
//! A directory is checked when one of its documents is opened, saved or closed (not on every keystroke:
//! a check replays whole logs). Each violation (one per invariant and instance, as `check --all`) becomes
//! an error at the violating record's line, its message part underlined, with the causal chain as related
//! information. Files whose diagnostics went away get an empty list. Verdicts that are `inconclusive` go to
//! `window/logMessage`, and also become an information diagnostic at line 1 of the first file the model read
//! when the client asks for them (`initializationOptions: {"inconclusive": true}`): nearly every cluster's
//! logs leave some model inconclusive (no upgrade in view, no DEBUG lines), and a mark on every log that
//! says so would be noise.
//!
//! The transport is JSON-RPC with `Content-Length` framing on stdin/stdout, read and answered on one thread.
//! Nothing but protocol goes to stdout; problems (unreadable messages, input errors, even a panic inside a
//! check) are reported with `window/logMessage` and the server goes on.

use crate::check::{Checked, Inputs, ModelReport, Pipeline};
use crate::grammar::Grammar;
use crate::input::{self, Source};
use crate::monitor::{Verdict, Violation};
use crate::scan::ScanOptions;
use crate::timeline::{Timeline, DEFAULT_MAX_SKEW_MS};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    LogMessageParams, MessageType, NumberOrString, Position, PublishDiagnosticsParams, Range, Uri,
};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// Serves the protocol on stdin/stdout until `exit`; returns the process exit code (0 after `shutdown`).
pub fn run() -> i32 {
    let stdin = io::stdin();
    let stdout = io::stdout();
    serve(stdin.lock(), stdout.lock())
}

/// Serves the protocol on `input`/`output`; returns the exit code: 0 when `exit` follows `shutdown`, else 1
/// (an `exit` without `shutdown`, or the input closed first).
pub fn serve(mut input: impl BufRead, output: impl Write) -> i32 {
    let mut server = Server::new(output);
    loop {
        let msg = match Message::read(&mut input) {
            Ok(Some(msg)) => msg,
            Ok(None) => return 1,
            // A message whose body is not JSON-RPC was read whole: report it and go on. A broken header
            // was consumed line by line, so reading on resynchronises at the next header.
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                server.log(MessageType::ERROR, format!("unreadable message: {e}"));
                continue;
            }
            Err(_) => return 1,
        };
        match server.handle(msg) {
            Flow::Continue => {}
            Flow::Exit(code) => return code,
        }
        if server.broken {
            // stdout is gone: nobody is listening any more.
            return 1;
        }
    }
}

enum Flow {
    Continue,
    Exit(i32),
}

/// An open document.
struct Doc {
    /// The URI as the client spelled it (diagnostics for this file are published under it).
    uri: Uri,
    version: i32,
    text: String,
    /// The text differs (or may differ) from the file on disk.
    dirty: bool,
}

struct Server<W: Write> {
    out: W,
    /// The output failed; the loop stops.
    broken: bool,
    initialized: bool,
    shutdown: bool,
    /// Publish inconclusive verdicts as information diagnostics.
    inconclusive: bool,
    max_skew_ms: i64,
    grammar: Option<Grammar>,
    docs: BTreeMap<PathBuf, Doc>,
    /// Per checked directory, the files that have non-empty diagnostics on the client.
    published: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

impl<W: Write> Server<W> {
    fn new(out: W) -> Self {
        Server {
            out,
            broken: false,
            initialized: false,
            shutdown: false,
            inconclusive: false,
            max_skew_ms: DEFAULT_MAX_SKEW_MS,
            grammar: None,
            docs: BTreeMap::new(),
            published: BTreeMap::new(),
        }
    }

    fn send(&mut self, msg: Message) {
        if self.broken {
            return;
        }
        if msg.write(&mut self.out).is_err() {
            self.broken = true;
        }
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) {
        self.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    fn log(&mut self, typ: MessageType, message: String) {
        self.notify("window/logMessage", LogMessageParams { typ, message });
    }

    fn respond_err(&mut self, id: RequestId, code: ErrorCode, message: String) {
        self.send(Message::Response(Response::new_err(
            id,
            code as i32,
            message,
        )));
    }

    fn handle(&mut self, msg: Message) -> Flow {
        match msg {
            Message::Request(req) => self.handle_request(req),
            Message::Notification(n) => return self.handle_notification(n),
            // We send no requests, so no response is awaited.
            Message::Response(_) => {}
        }
        Flow::Continue
    }

    fn handle_request(&mut self, req: Request) {
        if self.shutdown {
            return self.respond_err(
                req.id,
                ErrorCode::InvalidRequest,
                format!("`{}` after shutdown", req.method),
            );
        }
        match req.method.as_str() {
            "initialize" if self.initialized => self.respond_err(
                req.id,
                ErrorCode::InvalidRequest,
                "the server is already initialized".into(),
            ),
            "initialize" => self.initialize(req),
            _ if !self.initialized => self.respond_err(
                req.id,
                ErrorCode::ServerNotInitialized,
                format!("`{}` before initialize", req.method),
            ),
            "shutdown" => {
                self.shutdown = true;
                self.send(Message::Response(Response::new_ok(req.id, Json::Null)));
            }
            _ => self.respond_err(
                req.id,
                ErrorCode::MethodNotFound,
                format!("ozone-conform does not serve `{}`", req.method),
            ),
        }
    }

    fn initialize(&mut self, req: Request) {
        let options = req.params.get("initializationOptions");
        if let Some(o) = options {
            self.inconclusive = o.get("inconclusive").and_then(Json::as_bool) == Some(true);
            if let Some(ms) = o.get("maxSkewMs").and_then(Json::as_i64) {
                self.max_skew_ms = ms.max(0);
            }
        }
        match Grammar::with_overrides(&[] as &[PathBuf]) {
            Ok(g) => self.grammar = Some(g),
            Err(e) => self.log(
                MessageType::ERROR,
                format!("the embedded grammar does not load: {e:?}"),
            ),
        }
        self.initialized = true;
        let result = json!({
            "capabilities": {
                "textDocumentSync": {
                    "openClose": true,
                    "change": 1, // full
                    "save": {"includeText": false},
                },
            },
            "serverInfo": {"name": "ozone-conform", "version": env!("CARGO_PKG_VERSION")},
        });
        self.send(Message::Response(Response::new_ok(req.id, result)));
    }

    fn handle_notification(&mut self, n: Notification) -> Flow {
        if n.method == "exit" {
            return Flow::Exit(if self.shutdown { 0 } else { 1 });
        }
        if !self.initialized || self.shutdown {
            return Flow::Continue;
        }
        let result = match n.method.as_str() {
            "textDocument/didOpen" => self.did_open(&n.params),
            "textDocument/didChange" => self.did_change(&n.params),
            "textDocument/didSave" => self.did_save(&n.params),
            "textDocument/didClose" => self.did_close(&n.params),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.log(MessageType::ERROR, format!("{}: {e}", n.method));
        }
        Flow::Continue
    }

    fn did_open(&mut self, params: &Json) -> Result<(), String> {
        let p: lsp_types::DidOpenTextDocumentParams = parse(params)?;
        let Some(path) = log_path(&p.text_document.uri) else {
            return Ok(());
        };
        // Unchanged from disk (the usual case) means the file itself can be read; else the text is.
        let dirty = std::fs::read(&path).map_or(true, |b| b != p.text_document.text.as_bytes());
        self.docs.insert(
            path.clone(),
            Doc {
                uri: p.text_document.uri,
                version: p.text_document.version,
                text: p.text_document.text,
                dirty,
            },
        );
        self.check_dir_of(&path);
        Ok(())
    }

    fn did_change(&mut self, params: &Json) -> Result<(), String> {
        let p: lsp_types::DidChangeTextDocumentParams = parse(params)?;
        let Some(doc) = uri_path(&p.text_document.uri).and_then(|path| self.docs.get_mut(&path))
        else {
            return Ok(());
        };
        for change in p.content_changes {
            match change.range {
                None => doc.text = change.text,
                Some(range) => apply_edit(&mut doc.text, range, &change.text),
            }
        }
        doc.version = p.text_document.version;
        doc.dirty = true;
        Ok(())
    }

    fn did_save(&mut self, params: &Json) -> Result<(), String> {
        let p: lsp_types::DidSaveTextDocumentParams = parse(params)?;
        let Some(path) = uri_path(&p.text_document.uri) else {
            return Ok(());
        };
        if let Some(doc) = self.docs.get_mut(&path) {
            if let Some(text) = p.text {
                doc.text = text;
            }
            doc.dirty = false;
            self.check_dir_of(&path);
        }
        Ok(())
    }

    fn did_close(&mut self, params: &Json) -> Result<(), String> {
        let p: lsp_types::DidCloseTextDocumentParams = parse(params)?;
        let Some(path) = uri_path(&p.text_document.uri) else {
            return Ok(());
        };
        if self.docs.remove(&path).is_some() {
            self.check_dir_of(&path);
        }
        Ok(())
    }

    /// Checks the directory of `path` and publishes what changed; a panic inside the check is logged.
    fn check_dir_of(&mut self, path: &Path) {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.check_dir(&dir)));
        let (diagnostics, messages) = match outcome {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                self.log(MessageType::ERROR, format!("{}: {e}", dir.display()));
                return;
            }
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                self.log(
                    MessageType::ERROR,
                    format!("internal error while checking {}: {what}", dir.display()),
                );
                return;
            }
        };
        for (typ, m) in messages {
            self.log(typ, m);
        }
        self.publish(&dir, diagnostics);
    }

    /// Publishes the directory's diagnostics: every file with some, every open document, and an empty list
    /// for every file that had some before and has none now.
    fn publish(&mut self, dir: &Path, mut diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>>) {
        let before = self.published.remove(dir).unwrap_or_default();
        for path in before {
            diagnostics.entry(path).or_default();
        }
        for path in self.docs.keys() {
            if path.parent() == Some(dir) {
                diagnostics.entry(path.clone()).or_default();
            }
        }
        let mut now = BTreeSet::new();
        for (path, list) in diagnostics {
            if !list.is_empty() {
                now.insert(path.clone());
            }
            let (uri, version) = match self.docs.get(&path) {
                Some(d) => (d.uri.clone(), Some(d.version)),
                None => match path_uri(&path) {
                    Some(u) => (u, None),
                    None => continue,
                },
            };
            self.notify(
                "textDocument/publishDiagnostics",
                PublishDiagnosticsParams {
                    uri,
                    diagnostics: list,
                    version,
                },
            );
        }
        if !now.is_empty() {
            self.published.insert(dir.to_path_buf(), now);
        }
    }

    /// Checks one directory: its open log documents (as the editor holds them) and its log files on disk.
    #[allow(clippy::type_complexity)]
    fn check_dir(
        &self,
        dir: &Path,
    ) -> Result<
        (
            BTreeMap<PathBuf, Vec<Diagnostic>>,
            Vec<(MessageType, String)>,
        ),
        String,
    > {
        let open: Vec<&PathBuf> = self
            .docs
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .collect();
        if open.is_empty() {
            // Nothing of this directory is open any more: its diagnostics are withdrawn.
            return Ok((BTreeMap::new(), Vec::new()));
        }
        let Some(grammar) = &self.grammar else {
            return Err("no grammar loaded".into());
        };
        let mut files: Vec<PathBuf> = open.iter().map(|p| (*p).clone()).collect();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_file() && is_log_name(&path) && !files.contains(&path) {
                    files.push(path);
                }
            }
        }
        input::sort_rotated(&mut files);

        // Open documents with unsaved text are read as the editor holds them, from memory, under their own
        // path (the name tells the node).
        let sources: Vec<Source> = files
            .iter()
            .map(|path| {
                match self
                    .docs
                    .get(path)
                    .filter(|d| d.dirty && !is_gzip_name(path))
                {
                    None => Source::File(path.clone()),
                    Some(d) => Source::Buffer {
                        path: path.clone(),
                        bytes: Arc::from(d.text.as_bytes()),
                    },
                }
            })
            .collect();
        let pipeline = Pipeline {
            max_skew_ms: self.max_skew_ms,
            ..Pipeline::default()
        };
        let inputs = Inputs::Logs {
            sources: &sources,
            grammar,
            options: &ScanOptions::default(),
            on_unparsed: &|_, _| {},
        };
        let Checked {
            timeline, reports, ..
        } = pipeline.run(inputs, &mut ());

        let mut messages: Vec<(MessageType, String)> = timeline
            .inputs
            .iter()
            .flat_map(|s| s.errors.iter().map(|e| (MessageType::WARNING, e.clone())))
            .collect();
        let mut summary = format!("checked {} file(s) in {}:", files.len(), dir.display());
        for r in &reports {
            summary.push_str(&format!("\n  {}: ", r.model()));
            match r.verdict {
                Verdict::Violated => {
                    summary.push_str(&format!("violated ({} violation(s))", r.violations.len()))
                }
                Verdict::Conforms => summary.push_str(&format!(
                    "conforms ({} check(s) over {} event(s))",
                    r.checks, r.events
                )),
                Verdict::Inconclusive => summary.push_str(&format!(
                    "inconclusive: {}",
                    r.reason.as_deref().unwrap_or("")
                )),
            }
        }
        messages.push((MessageType::INFO, summary));

        let uris: Vec<Option<Uri>> = files
            .iter()
            .map(|p| match self.docs.get(p) {
                Some(d) => Some(d.uri.clone()),
                None => path_uri(p),
            })
            .collect();
        let mut diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        for r in &reports {
            for v in &r.violations {
                let input = timeline.events.head(v.primary).span.input as usize;
                if let Some(d) = violation_diagnostic(&timeline, &uris, r, v) {
                    diagnostics.entry(files[input].clone()).or_default().push(d);
                }
            }
            if self.inconclusive && r.verdict == Verdict::Inconclusive && r.events > 0 {
                if let Some((input, d)) = inconclusive_diagnostic(&timeline, r) {
                    diagnostics.entry(files[input].clone()).or_default().push(d);
                }
            }
        }
        Ok((diagnostics, messages))
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: &Json) -> Result<T, String> {
    serde_json::from_value(params.clone()).map_err(|e| format!("invalid params: {e}"))
}

/// Names of the files a check reads: those `check DIR` reads, plus daemons' `*.out`.
fn is_log_name(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    input::is_log_file_name(&name) || name.ends_with(".out")
}

fn is_gzip_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The path of a `file:` URI that names a log file.
fn log_path(uri: &Uri) -> Option<PathBuf> {
    uri_path(uri).filter(|p| is_log_name(p))
}

/// The local path of a `file:` URI (`file:///p`, `file://localhost/p`); `None` for other URIs.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s
        .strip_prefix("file://")
        .or_else(|| s.strip_prefix("FILE://"))?;
    let slash = rest.find('/')?;
    let (authority, path) = rest.split_at(slash);
    if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = percent_decode(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        let s = String::from_utf8(bytes).ok()?;
        // `/C:/x` is `C:/x`.
        let s = match s.as_bytes() {
            [b'/', d, b':', ..] if d.is_ascii_alphabetic() => s[1..].to_string(),
            _ => s,
        };
        Some(PathBuf::from(s))
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of an absolute path, percent-encoded.
pub fn path_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let mut s = String::from("file://");
    if !text.starts_with('/') {
        s.push('/');
    }
    let drive = text.as_bytes().get(1) == Some(&b':');
    for (i, b) in text.bytes().enumerate() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) || (b == b':' && i == 1 && drive) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

/// Number of UTF-16 code units in `s` (LSP's default position encoding).
fn utf16_len(s: &str) -> u32 {
    s.encode_utf16().count() as u32
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The range of an event's message on its record's first line (0-based line, UTF-16 columns).
fn message_range(timeline: &Timeline, index: usize) -> Range {
    let e = &timeline.events.get(index);
    let line = e.span.line.saturating_sub(1).min(u32::MAX as u64) as u32;
    // The LSP scans the editor's buffer, whose lines every event keeps.
    let text = e
        .excerpt
        .as_deref()
        .unwrap_or_default()
        .trim_end_matches(['\r', '\n']);
    let start = utf16_len(&text[..floor_char_boundary(text, e.message_offset as usize)]);
    let end = utf16_len(text);
    Range::new(Position::new(line, start), Position::new(line, end))
}

fn violation_diagnostic(
    timeline: &Timeline,
    uris: &[Option<Uri>],
    report: &ModelReport,
    v: &Violation,
) -> Option<Diagnostic> {
    let invariant = v.invariant;
    let spec = report.spec();
    let spec_at = report
        .spec_line(invariant.name)
        .map(|l| format!("{}:{l}", spec.path))
        .unwrap_or_else(|| spec.path.to_string());
    let mut message = format!("{} ({})", v.message, v.primary_label);
    message.push_str(&format!(
        "\n{}: {}. {}",
        invariant, invariant.summary, invariant.advice
    ));
    message.push_str(&format!(
        "\nSpec: {} {} ({spec_at}). Upstream issue: {}.",
        spec.module, v.invariant, spec.issue
    ));
    if let Some(a) = &v.ambiguous_order {
        message.push_str(&format!("\nNote: {a}."));
    }
    let related = v
        .related
        .iter()
        .filter_map(|(i, label)| {
            let uri = uris
                .get(timeline.events.head(*i).span.input as usize)?
                .clone()?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, message_range(timeline, *i)),
                message: label.clone(),
            })
        })
        .collect();
    Some(Diagnostic {
        range: message_range(timeline, v.primary),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(v.invariant.code.to_string())),
        code_description: issue_link(spec.issue),
        source: Some("ozone-conform".into()),
        message,
        related_information: Some(related),
        tags: None,
        data: Some(json!({
            "model": report.model(),
            "invariant": v.invariant,
            "node": v.node.as_deref(),
            "spec": {"module": spec.module, "path": spec.path,
                     "line": report.spec_line(invariant.name)},
        })),
    })
}

/// An inconclusive verdict as information on the first record the model read (its message, as a violation's
/// range is): the verdict rests on what the model saw, and that is where it starts. Only called for a model
/// that read events, so there is always one.
fn inconclusive_diagnostic(
    timeline: &Timeline,
    report: &ModelReport,
) -> Option<(usize, Diagnostic)> {
    let bug = report.bug;
    let model = (bug.monitor)();
    let index = timeline.events.heads().position(|e| model.reads(e.kind))?;
    let input = timeline.events.head(index).span.input as usize;
    Some((
        input,
        Diagnostic {
            range: message_range(timeline, index),
            severity: Some(DiagnosticSeverity::INFORMATION),
            code: Some(NumberOrString::String(inconclusive_code(bug))),
            code_description: issue_link(report.spec().issue),
            source: Some("ozone-conform".into()),
            message: format!(
                "{} is inconclusive: {}",
                report.model(),
                report.reason.as_deref().unwrap_or("")
            ),
            related_information: None,
            tags: None,
            data: Some(json!({"model": report.model(), "verdict": "inconclusive"})),
        },
    ))
}

/// The code of a model's inconclusive verdict: its invariants' code family, `OZ-SCM-KEYS-INCONCLUSIVE`.
fn inconclusive_code(bug: &crate::bugs::Bug) -> String {
    let family = bug
        .about
        .invariants
        .first()
        .and_then(|i| i.code.rsplit_once('-'))
        .map_or(bug.name(), |(family, _)| family);
    format!("{family}-INCONCLUSIVE")
}

/// The upstream issue the model's spec was written for.
fn issue_link(issue: &str) -> Option<CodeDescription> {
    Uri::from_str(&crate::render::issue_uri(issue))
        .ok()
        .map(|href| CodeDescription { href })
}

/// Applies an incremental edit (UTF-16 positions) to `text`; positions past the end clamp to it.
fn apply_edit(text: &mut String, range: Range, new: &str) {
    let start = offset_of(text, range.start);
    let end = offset_of(text, range.end).max(start);
    text.replace_range(start..end, new);
}

/// The byte offset of an LSP position in `text`.
fn offset_of(text: &str, pos: Position) -> usize {
    let mut offset = 0;
    for _ in 0..pos.line {
        match text[offset..].find('\n') {
            Some(i) => offset += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let mut units = 0;
    for (i, c) in text[offset..line_end].char_indices() {
        if units >= pos.character {
            return offset + i;
        }
        units += c.len_utf16() as u32;
    }
    line_end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_round_trip() {
        let p = Path::new("/tmp/a b/ozone-hadoop-scm-scm1.log");
        let u = path_uri(p).unwrap();
        assert_eq!(u.as_str(), "file:///tmp/a%20b/ozone-hadoop-scm-scm1.log");
        assert_eq!(uri_path(&u).unwrap(), p);
        let u = Uri::from_str("file://localhost/x/%C3%A9.log").unwrap();
        assert_eq!(uri_path(&u).unwrap(), Path::new("/x/é.log"));
        assert!(uri_path(&Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
        assert!(uri_path(&Uri::from_str("file://host/share/x.log").unwrap()).is_none());
        assert!(percent_decode("/x/%zz.log").is_none());
        assert!(percent_decode("/x/%4").is_none());
    }

    #[test]
    fn edits_use_utf16_positions() {
        let mut t = String::from("ab\nx😀y\nz");
        apply_edit(
            &mut t,
            Range::new(Position::new(1, 3), Position::new(1, 4)),
            "Y",
        );
        assert_eq!(t, "ab\nx😀Y\nz");
        apply_edit(
            &mut t,
            Range::new(Position::new(9, 0), Position::new(9, 9)),
            "!",
        );
        assert_eq!(t, "ab\nx😀Y\nz!");
    }

    #[test]
    fn garbage_never_stops_the_server() {
        let mut input = Vec::new();
        let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        input.extend(b"nonsense\n");
        input.extend(frame("{not json").as_bytes());
        input.extend(
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#)
                .as_bytes(),
        );
        input.extend(
            frame(
                r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":5}}"#,
            )
            .as_bytes(),
        );
        input.extend(frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#).as_bytes());
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#).as_bytes());
        let mut out = Vec::new();
        assert_eq!(serve(&input[..], &mut out), 0);
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("unreadable message"), "{out}");
        assert!(out.contains(r#""id":2,"result":null"#), "{out}");
        assert!(out.contains("invalid params"), "{out}");
    }

    /// The frames of a session: `initialize`, then `notifications`, then `shutdown` and `exit`.
    fn session(notifications: &[Json]) -> Vec<u8> {
        let mut input = Vec::new();
        let mut frame = |msg: Json| {
            let body = msg.to_string();
            input.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).bytes());
        };
        frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"capabilities": {}}}));
        for n in notifications {
            frame(n.clone());
        }
        frame(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
        frame(json!({"jsonrpc": "2.0", "method": "exit"}));
        input
    }

    /// The last diagnostics published for `uri` in the server's output.
    fn published(output: &[u8], uri: &Uri) -> Vec<Json> {
        let mut rest = output;
        let mut last = None;
        while let Ok(Some(msg)) = Message::read(&mut rest) {
            if let Message::Notification(n) = msg {
                if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri.as_str()
                {
                    last = n.params["diagnostics"].as_array().cloned();
                }
            }
        }
        last.unwrap_or_else(|| panic!("no diagnostics for {}", uri.as_str()))
    }

    fn scenario(case: &str, file: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/scenarios/scm-secret-keys")
            .join(case)
            .join(file);
        std::fs::read_to_string(path).expect("the scenario fixtures")
    }

    fn did_open(path: &Path, text: &str) -> Json {
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
               "params": {"textDocument": {"uri": path_uri(path).unwrap().as_str(),
                          "languageId": "log", "version": 1, "text": text}}})
    }

    /// The violation an unsaved buffer holds is reported at the buffer's line, though the file on disk is
    /// healthy; the check reads the buffer from memory and writes nothing (the directory is as it was), and
    /// a cluster held only in buffers, under a directory that does not exist, is checked the same way.
    #[test]
    fn an_unsaved_buffer_is_checked_from_memory_and_the_diagnostics_follow_it() {
        let scm3 = "ozone-hadoop-scm-scm3.log";
        let violating = scenario("violating", scm3);
        let tmp = tempfile::tempdir().unwrap();
        for n in 1..=3 {
            let name = format!("ozone-hadoop-scm-scm{n}.log");
            std::fs::write(tmp.path().join(&name), scenario("healthy", &name)).unwrap();
        }
        let listing = |dir: &Path| {
            let mut names: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        let before = listing(tmp.path());
        let on_disk = tmp.path().join(scm3);
        let mut out = Vec::new();
        assert_eq!(
            serve(&session(&[did_open(&on_disk, &violating)])[..], &mut out),
            0
        );
        let list = published(&out, &path_uri(&on_disk).unwrap());
        let d = list
            .iter()
            .find(|d| d["code"] == "OZ-SCM-KEYS-001")
            .unwrap_or_else(|| panic!("the buffer's violation: {list:?}"));
        // The range is on the buffer's line, to its end: the line as the editor holds it.
        let line = d["range"]["start"]["line"].as_u64().unwrap() as usize;
        let buffer_line = violating.lines().nth(line).unwrap();
        assert_eq!(
            d["range"]["end"]["character"],
            buffer_line.encode_utf16().count() as u64
        );
        assert_ne!(
            std::fs::read_to_string(&on_disk).unwrap().lines().nth(line),
            Some(buffer_line),
            "the file on disk differs from the buffer there"
        );
        assert_eq!(
            listing(tmp.path()),
            before,
            "nothing was written beside the logs"
        );
        assert_eq!(
            std::fs::read_to_string(&on_disk).unwrap(),
            scenario("healthy", scm3)
        );
        // The same file as saved (the healthy one, opened as it is on disk): nothing to report.
        let mut out = Vec::new();
        let healthy = scenario("healthy", scm3);
        assert_eq!(
            serve(&session(&[did_open(&on_disk, &healthy)])[..], &mut out),
            0
        );
        assert_eq!(
            published(&out, &path_uri(&on_disk).unwrap()),
            Vec::<Json>::new()
        );

        // No file at all: the whole cluster in buffers of a directory that is not there.
        let nowhere = tmp.path().join("not there");
        let opened: Vec<Json> = (1..=3)
            .map(|n| {
                let name = format!("ozone-hadoop-scm-scm{n}.log");
                did_open(&nowhere.join(&name), &scenario("violating", &name))
            })
            .collect();
        let mut out = Vec::new();
        assert_eq!(serve(&session(&opened)[..], &mut out), 0);
        let list = published(&out, &path_uri(&nowhere.join(scm3)).unwrap());
        assert!(
            list.iter()
                .any(|d| d["code"] == "OZ-SCM-KEYS-001"
                    && d["range"]["start"]["line"] == line as u64),
            "{list:?}"
        );
        assert!(!nowhere.exists());
        assert_eq!(listing(tmp.path()), before);
    }

    #[test]
    fn exit_without_shutdown_is_exit_code_one() {
        let body = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let input = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        assert_eq!(serve(input.as_bytes(), Vec::new()), 1);
        assert_eq!(serve(&b""[..], Vec::new()), 1);
    }
}
