//! Grammar files: rules that turn log records into abstract events.
//!
//! A rule is one of Ozone's SLF4J templates with typed placeholders (see `grammars/README.md`). Loading checks
//! every rule against the closed vocabulary in [`crate::vocab`], compiles its template to an anchored byte
//! regex, and proves each `sample` matches. Matching a record first looks its logger up in a hash of every
//! rendering a layout may print (`%c`, `%c{2}`, `%c{1}`), so records no rule wants cost one hash lookup.

use crate::layout::Level;
use crate::template_match::{self, Found, Template};
use crate::value::Value;
use crate::vocab::{Component, EventKind, FieldType};
use miette::{Diagnostic, NamedSource, SourceSpan};
use regex::bytes::Regex;
use rustc_hash::FxHashMap as HashMap;
use std::collections::HashMap as StdHashMap;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/embedded_grammars.rs"));

/// A mistake in a grammar file, with a span into that file.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(ozone_conform::grammar))]
pub struct GrammarError {
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: SourceSpan,
    pub label: String,
    #[help]
    pub help: Option<String>,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `Event` or `Event#variant`; a rule from `--grammar` with the same id replaces this one.
    pub id: String,
    pub event: EventKind,
    /// Logger class names (FQCN); empty means any logger.
    pub loggers: Vec<String>,
    pub levels: Vec<Level>,
    pub component: Component,
    /// `File.java:line` in Ozone's source.
    pub source: Option<String>,
    pub template: String,
    pub samples: Vec<String>,
    /// Where the rule is defined: grammar file and 1-based line.
    pub origin: (String, usize),
    /// The source tree its file's templates were copied from (the file's `templates-from` line), e.g.
    /// `apache/ozone HDDS-14496-zdu 79728a163a30`: the audit names it when rules are missing from a tree.
    pub templates_from: Option<String>,
    /// The grammar file's text and each sample's span in it, for diagnostics found after loading.
    file_text: std::sync::Arc<String>,
    sample_spans: Vec<(usize, usize)>,
    regex: LazyRegex,
    /// The template walked without the regex ([`crate::template_match`]), when it can be.
    fast: Option<Template>,
    /// One entry per capture group: the field it fills, or `None` for `{}`.
    captures: Vec<(&'static str, FieldType)>,
    literal_prefix: Vec<u8>,
    /// The longest space-free literal piece of the template's first line past its prefix: a first line
    /// without it cannot match, so one memmem search rejects a record before anything is copied. Rules whose
    /// template starts with a field (`{member}: ...`) have no prefix to check, and their loggers are busy.
    required: Option<memchr::memmem::Finder<'static>>,
}

impl Rule {
    /// The field this rule fills under `name`: its place among the rule's fields, its static name and its
    /// type; how an event read back from JSON ([`crate::event_stream`]) gets the fields a match gave it.
    pub fn field(&self, name: &str) -> Option<(usize, &'static str, FieldType)> {
        self.captures
            .iter()
            .enumerate()
            .find(|(_, (n, _))| *n == name)
            .map(|(i, &(n, ty))| (i, n, ty))
    }

    /// Matches a record's message text (first line, then continuation lines joined by `\n`).
    pub fn match_message(&self, text: &[u8]) -> Option<Vec<(&'static str, Value)>> {
        self.try_match(text).ok().flatten()
    }

    /// Like [`Rule::match_message`], but tells a record that has the template's shape and a field that fails
    /// validation (`Err(reason)`) from a record of another statement (`Ok(None)`).
    pub fn try_match(&self, text: &[u8]) -> Result<Option<Vec<(&'static str, Value)>>, String> {
        if let Some(template) = &self.fast {
            let mut slots = [(0, 0); template_match::MAX_CAPTURES];
            match template.find(text, &mut slots) {
                Found::Match => return self.fields(|i| Some(&text[slots[i].0..slots[i].1])),
                Found::NoMatch => return Ok(None),
                Found::GaveUp => {}
            }
        }
        self.try_match_regex(text)
    }

    /// [`Rule::try_match`] by the template's regex: what the fast walk must agree with.
    fn try_match_regex(&self, text: &[u8]) -> Result<Option<Vec<(&'static str, Value)>>, String> {
        let Some(caps) = self.regex.get()?.captures(text) else {
            return Ok(None);
        };
        self.fields(|i| caps.get(i + 1).map(|m| m.as_bytes()))
    }

    /// The typed fields of a match, from capture `i`'s bytes (`None`: the capture took no part).
    fn fields<'t>(
        &self,
        capture: impl Fn(usize) -> Option<&'t [u8]>,
    ) -> Result<Option<Vec<(&'static str, Value)>>, String> {
        let mut fields = Vec::with_capacity(self.captures.len());
        for (i, (name, ty)) in self.captures.iter().enumerate() {
            let Some(m) = capture(i) else {
                return Ok(None);
            };
            let s = crate::excerpt::text_of(m);
            let v = Value::parse(*ty, &s).map_err(|why| format!("field {name}: {why}"))?;
            fields.push((*name, v));
        }
        Ok(Some(fields))
    }

    /// The cheap test before a match: the literal prefix, then the required piece, on the first line.
    #[inline]
    fn may_match(&self, first_line: &[u8]) -> bool {
        has_literal_prefix(first_line, &self.literal_prefix)
            && self
                .required
                .as_ref()
                .is_none_or(|f| f.find(first_line).is_some())
    }

    fn accepts_level(&self, level: Option<Level>) -> bool {
        match level {
            Some(l) => self.levels.is_empty() || self.levels.contains(&l),
            None => true,
        }
    }
}

/// The loaded rule set with its logger index.
#[derive(Debug, Clone)]
pub struct Grammar {
    pub rules: Vec<Rule>,
    by_logger: HashMap<Box<[u8]>, Vec<u32>>,
    any_logger: Vec<u32>,
    any_logger_first_bytes: [bool; 256],
}

/// A record that a rule turned into an event.
#[derive(Debug, Clone)]
pub struct RuleMatch {
    pub rule: u32,
    pub fields: Vec<(&'static str, Value)>,
}

/// A record of a rule's statement whose fields fail validation: counted as unparsed, never an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub rule: u32,
    /// `field key: secret key id not a UUID: ...`.
    pub reason: String,
}

impl Grammar {
    /// The grammar embedded in the binary.
    pub fn embedded() -> Result<Grammar, Box<GrammarError>> {
        match Grammar::embedded_once() {
            Some(grammar) => Ok(grammar.clone()),
            // Not kept: an error is built again for each caller that asks.
            None => Grammar::load_embedded(),
        }
    }

    /// The embedded grammar, loaded once per process: `--version`'s text, the check and the tests all ask for
    /// it, and loading it is most of what a start of the binary costs. `None` if it does not load
    /// ([`Grammar::embedded`] says why).
    pub fn embedded_once() -> Option<&'static Grammar> {
        static EMBEDDED: std::sync::OnceLock<Option<Grammar>> = std::sync::OnceLock::new();
        EMBEDDED
            .get_or_init(|| Grammar::load_embedded().ok())
            .as_ref()
    }

    fn load_embedded() -> Result<Grammar, Box<GrammarError>> {
        let mut rules = Vec::new();
        for (name, text) in EMBEDDED_GRAMMARS {
            rules.extend(parse_rules(name, text)?);
        }
        Grammar::build(rules)
    }

    /// The embedded grammar plus every `*.rules` file in `dirs`; a rule with an existing id replaces it.
    pub fn with_overrides(dirs: &[impl AsRef<Path>]) -> Result<Grammar, miette::Report> {
        let embedded = Grammar::embedded().map_err(|e| miette::Report::new(*e))?;
        if dirs.is_empty() {
            return Ok(embedded);
        }
        let mut rules = embedded.rules;
        for dir in dirs {
            let dir = dir.as_ref();
            let mut files: Vec<_> = std::fs::read_dir(dir)
                .map_err(|e| {
                    miette::miette!("cannot read grammar directory {}: {e}", dir.display())
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "rules"))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(miette::miette!(
                    help = "grammar files end in .rules; see grammars/README.md",
                    "no *.rules files in grammar directory {}",
                    dir.display()
                ));
            }
            for file in files {
                let text = std::fs::read_to_string(&file).map_err(|e| {
                    miette::miette!("cannot read grammar file {}: {e}", file.display())
                })?;
                for rule in parse_rules(&file.display().to_string(), &text)
                    .map_err(|e| miette::Report::new(*e))?
                {
                    match rules.iter().position(|r: &Rule| r.id == rule.id) {
                        Some(i) => rules[i] = rule,
                        None => rules.push(rule),
                    }
                }
            }
        }
        Grammar::build(rules).map_err(|e| miette::Report::new(*e))
    }

    pub(crate) fn build(rules: Vec<Rule>) -> Result<Grammar, Box<GrammarError>> {
        let mut by_logger: HashMap<Box<[u8]>, Vec<u32>> = HashMap::default();
        let mut any_logger = Vec::new();
        let mut first = [false; 256];
        for (i, rule) in rules.iter().enumerate() {
            if rule.loggers.is_empty() {
                any_logger.push(i as u32);
                first[rule.literal_prefix[0] as usize] = true;
                continue;
            }
            for logger in &rule.loggers {
                for rendering in logger_renderings(logger) {
                    let entry = by_logger.entry(rendering.as_bytes().into()).or_default();
                    if !entry.contains(&(i as u32)) {
                        entry.push(i as u32);
                    }
                }
            }
        }
        let grammar = Grammar {
            rules,
            by_logger,
            any_logger,
            any_logger_first_bytes: first,
        };
        grammar.check_shadowing()?;
        Ok(grammar)
    }

    /// Every sample must be claimed by its own rule, not by an earlier rule for the same logger.
    fn check_shadowing(&self) -> Result<(), Box<GrammarError>> {
        for (i, rule) in self.rules.iter().enumerate() {
            let logger = rule.loggers.first().map(String::as_str).unwrap_or("");
            for (sample, span) in rule.samples.iter().zip(&rule.sample_spans) {
                let level = rule.levels.first().copied();
                if let Some(m) = self.match_record(logger.as_bytes(), level, sample.as_bytes()) {
                    if m.rule as usize != i {
                        let other = &self.rules[m.rule as usize];
                        return Err(Box::new(GrammarError {
                            message: format!(
                                "a sample of rule {} is claimed by rule {} ({}:{})",
                                rule.id, other.id, other.origin.0, other.origin.1
                            ),
                            src: NamedSource::new(&rule.origin.0, rule.file_text.to_string()),
                            span: (*span).into(),
                            label: format!("matched by {} first", other.id),
                            help: Some("make the earlier template more specific, or give the rules different loggers or levels".into()),
                        }));
                    }
                }
            }
        }
        Ok(())
    }

    /// Does any rule want records of this logger?
    #[inline]
    pub fn wants_logger(&self, logger: &[u8]) -> bool {
        self.by_logger.contains_key(logger)
    }

    /// Could some rule match a record of this logger whose first line carries this message? The hot-path
    /// filter: one hash lookup, then the rules' literal prefixes, before anything is copied or matched.
    #[inline]
    pub fn wants(&self, logger: &[u8], message: &[u8]) -> bool {
        let by_logger = self.by_logger.get(logger).is_some_and(|rules| {
            rules
                .iter()
                .any(|&i| self.rules[i as usize].may_match(message))
        });
        by_logger || self.wants_message(message)
    }

    /// Could a logger-independent rule (banners, signals, exit lines) match this message?
    #[inline]
    pub fn wants_message(&self, message: &[u8]) -> bool {
        match message.first() {
            Some(&b) if self.any_logger_first_bytes[b as usize] => self
                .any_logger
                .iter()
                .any(|&i| self.rules[i as usize].may_match(message)),
            _ => false,
        }
    }

    /// Matches a whole record: its logger rendering, level and message text.
    pub fn match_record(
        &self,
        logger: &[u8],
        level: Option<Level>,
        text: &[u8],
    ) -> Option<RuleMatch> {
        self.match_or_reject(logger, level, text).ok()
    }

    /// The rule that turns this record into an event; else, if some rule's template fits the record but a
    /// field fails validation, that rule and the reason (`Err(Some(_))`); else `Err(None)`.
    pub fn match_or_reject(
        &self,
        logger: &[u8],
        level: Option<Level>,
        text: &[u8],
    ) -> Result<RuleMatch, Option<Rejected>> {
        let by_logger = self.by_logger.get(logger).map(Vec::as_slice).unwrap_or(&[]);
        let any = if self.wants_message(text) {
            &self.any_logger[..]
        } else {
            &[]
        };
        let mut rejected = None;
        let first_line = memchr::memchr(b'\n', text).map_or(text, |nl| &text[..nl]);
        for &i in by_logger.iter().chain(any) {
            let rule = &self.rules[i as usize];
            // Captures are extracted only for a rule whose prefilter passes.
            if !rule.accepts_level(level) || !rule.may_match(first_line) {
                continue;
            }
            match rule.try_match(text) {
                Ok(Some(fields)) => return Ok(RuleMatch { rule: i, fields }),
                Ok(None) => {}
                Err(reason) => {
                    rejected.get_or_insert(Rejected { rule: i, reason });
                }
            }
        }
        Err(rejected)
    }
}

/// Does `text` start with a template's literal prefix? A space in the template matches a run of spaces, as in
/// the compiled regex (padding differs between Ozone versions).
#[inline]
fn has_literal_prefix(text: &[u8], prefix: &[u8]) -> bool {
    let (mut t, mut p) = (0, 0);
    while p < prefix.len() {
        if prefix[p] == b' ' {
            if text.get(t) != Some(&b' ') {
                return false;
            }
            while text.get(t) == Some(&b' ') {
                t += 1;
            }
            while prefix.get(p) == Some(&b' ') {
                p += 1;
            }
        } else {
            if text.get(t) != Some(&prefix[p]) {
                return false;
            }
            t += 1;
            p += 1;
        }
    }
    true
}

/// `%c`, `%c{2}` and `%c{1}` renderings of a logger name.
fn logger_renderings(fqcn: &str) -> Vec<&str> {
    let mut out = vec![fqcn];
    let dots: Vec<usize> = fqcn.match_indices('.').map(|(i, _)| i).collect();
    if let Some(&last) = dots.last() {
        out.push(&fqcn[last + 1..]);
        if dots.len() >= 2 {
            out.push(&fqcn[dots[dots.len() - 2] + 1..]);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------------
// Parsing grammar files.

struct Ctx<'a> {
    name: &'a str,
    text: &'a str,
    /// The file's text once for all its rules ([`Rule::file_text`]).
    shared_text: std::sync::Arc<String>,
}

impl Ctx<'_> {
    fn err(
        &self,
        offset: usize,
        len: usize,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Box<GrammarError> {
        Box::new(GrammarError {
            message: message.into(),
            src: NamedSource::new(self.name, self.text.to_string()),
            span: (offset, len).into(),
            label: label.into(),
            help: Some("see grammars/README.md for the rule syntax".into()),
        })
    }
}

#[derive(Default)]
struct RawRule {
    id: String,
    event: Option<EventKind>,
    header: (usize, usize, usize), // offset, len, line
    loggers: Vec<String>,
    levels: Vec<Level>,
    component: Option<Component>,
    source: Option<String>,
    message: Option<(String, Vec<usize>, usize, usize)>, // text, byte offsets into file, span
    samples: Vec<(String, usize, usize)>,
}

/// Parses one grammar file into compiled rules.
pub fn parse_rules(name: &str, text: &str) -> Result<Vec<Rule>, Box<GrammarError>> {
    let cx = Ctx {
        name,
        text,
        shared_text: std::sync::Arc::new(text.to_string()),
    };
    let mut rules = Vec::new();
    let mut default_component = Component::Any;
    let mut templates_from: Option<String> = None;
    let mut current: Option<RawRule> = None;
    let mut offset = 0;
    for (lineno, raw_line) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += raw_line.len();
        let line = raw_line.trim_end_matches(['\n', '\r']);
        let content = strip_comment(line);
        if content.trim().is_empty() {
            continue;
        }
        let indent = content.len() - content.trim_start().len();
        let body = content.trim();
        let (key, value) = match body.find(char::is_whitespace) {
            Some(i) => (&body[..i], body[i..].trim()),
            None => (body, ""),
        };
        let key_off = line_start + indent;
        let value_off = line_start + indent + body.find(value).unwrap_or(key.len());
        if indent == 0 {
            match key {
                "component" => {
                    default_component = Component::from_name(value).ok_or_else(|| {
                        cx.err(
                            value_off,
                            value.len(),
                            format!("unknown component `{value}`"),
                            "expected scm, datanode, recon, om or any",
                        )
                    })?;
                }
                "templates-from" if current.is_none() && rules.is_empty() => {
                    templates_from = Some(value.to_string()).filter(|v| !v.is_empty());
                }
                "event" => {
                    if let Some(raw) = current.take() {
                        rules.push(compile(&cx, raw, default_component, &templates_from)?);
                    }
                    let (event_name, _) = value.split_once('#').unwrap_or((value, ""));
                    let event = EventKind::from_name(event_name).ok_or_else(|| {
                        let mut e = cx.err(
                            value_off,
                            event_name.len(),
                            format!("unknown event `{event_name}`"),
                            "not in the vocabulary",
                        );
                        e.help = Some(format!(
                            "known events: {}",
                            EventKind::ALL
                                .iter()
                                .map(|k| k.name())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                        e
                    })?;
                    current = Some(RawRule {
                        id: value.to_string(),
                        event: Some(event),
                        header: (key_off, body.len(), lineno + 1),
                        ..RawRule::default()
                    });
                }
                "templates-from" => {
                    return Err(cx.err(
                        key_off,
                        key.len(),
                        "`templates-from` after the first rule",
                        "it describes the whole file: put it before the first `event`",
                    ))
                }
                _ => {
                    return Err(cx.err(
                        key_off,
                        key.len(),
                        format!("unknown directive `{key}`"),
                        "expected `event`, `component` or `templates-from` at the start of a line",
                    ))
                }
            }
            continue;
        }
        let Some(rule) = current.as_mut() else {
            return Err(cx.err(
                key_off,
                body.len(),
                "indented line outside a rule",
                "no `event` line above",
            ));
        };
        match key {
            "logger" => {
                if value != "*"
                    && (value.is_empty()
                        || !value
                            .chars()
                            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '$' | '-')))
                {
                    return Err(cx.err(
                        value_off,
                        value.len().max(1),
                        "a logger is a Java class name or `*`",
                        "not a class name",
                    ));
                }
                rule.loggers.push(value.to_string());
            }
            "level" => {
                for part in value.split('|') {
                    let lv = Level::from_name(part.trim()).ok_or_else(|| {
                        cx.err(
                            value_off,
                            value.len().max(1),
                            format!("unknown level `{}`", part.trim()),
                            "expected TRACE, DEBUG, INFO, WARN, ERROR or FATAL",
                        )
                    })?;
                    rule.levels.push(lv);
                }
            }
            "component" => {
                rule.component = Some(Component::from_name(value).ok_or_else(|| {
                    cx.err(
                        value_off,
                        value.len(),
                        format!("unknown component `{value}`"),
                        "expected scm, datanode, recon, om or any",
                    )
                })?);
            }
            "source" => rule.source = Some(value.to_string()),
            "message" => {
                let (s, offs) = unquote(&cx, value, value_off)?;
                rule.message = Some((s, offs, value_off, value.len()));
            }
            "sample" => {
                let (s, _) = unquote(&cx, value, value_off)?;
                rule.samples.push((s, value_off, value.len()));
            }
            _ => {
                return Err(cx.err(
                    key_off,
                    key.len(),
                    format!("unknown key `{key}`"),
                    "expected logger, level, component, source, message or sample",
                ))
            }
        }
    }
    if let Some(raw) = current.take() {
        rules.push(compile(&cx, raw, default_component, &templates_from)?);
    }
    let mut ids = StdHashMap::new();
    for r in &rules {
        if let Some(prev) = ids.insert(r.id.clone(), r.origin.1) {
            let line_off = line_offset(text, r.origin.1);
            return Err(cx.err(
                line_off,
                5,
                format!("rule id `{}` is defined twice (first on line {prev})", r.id),
                "duplicate id; add a #variant",
            ));
        }
    }
    Ok(rules)
}

fn line_offset(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum()
}

/// Drops a `#` comment that starts a line or follows whitespace, outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut in_quotes = false;
    let mut prev_ws = true;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if in_quotes {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_quotes = false;
            }
        } else if c == '"' {
            in_quotes = true;
        } else if c == '#' && prev_ws {
            return &line[..i];
        }
        prev_ws = c.is_whitespace();
    }
    line
}

/// Unquotes a `"..."` value; returns the text and, for each byte of it, its offset in the file.
fn unquote(cx: &Ctx, value: &str, at: usize) -> Result<(String, Vec<usize>), Box<GrammarError>> {
    let inner = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .filter(|_| value.len() >= 2)
        .ok_or_else(|| {
            cx.err(
                at,
                value.len().max(1),
                "expected a double-quoted string",
                "missing quotes",
            )
        })?;
    let mut out = String::with_capacity(inner.len());
    let mut offs = Vec::with_capacity(inner.len());
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        let pos = at + 1 + i;
        let ch = if c == '\\' {
            match chars.next() {
                Some((_, 'n')) => '\n',
                Some((_, 't')) => '\t',
                Some((_, '"')) => '"',
                Some((_, '\\')) => '\\',
                Some((j, other)) => {
                    return Err(cx.err(
                        at + 1 + j - 1,
                        2,
                        format!("unknown escape `\\{other}`"),
                        "use \\n, \\t, \\\" or \\\\",
                    ))
                }
                None => return Err(cx.err(pos, 1, "dangling backslash", "escape what?")),
            }
        } else if c == '"' {
            return Err(cx.err(pos, 1, "unescaped quote inside a string", "write \\\""));
        } else {
            c
        };
        let before = out.len();
        out.push(ch);
        offs.extend(std::iter::repeat_n(pos, out.len() - before));
    }
    Ok((out, offs))
}

fn compile(
    cx: &Ctx,
    raw: RawRule,
    default_component: Component,
    templates_from: &Option<String>,
) -> Result<Rule, Box<GrammarError>> {
    let (hoff, hlen, hline) = raw.header;
    let event = raw.event.expect("set by the event line");
    let (template, offs, moff, mlen) = raw.message.ok_or_else(|| {
        cx.err(
            hoff,
            hlen,
            format!("rule {} has no `message`", raw.id),
            "needs a message template",
        )
    })?;
    if raw.samples.is_empty() {
        return Err(cx.err(
            hoff,
            hlen,
            format!("rule {} has no `sample`", raw.id),
            "every rule needs a sample line that must match",
        ));
    }
    if raw.loggers.is_empty() {
        return Err(cx.err(
            hoff,
            hlen,
            format!("rule {} has no `logger`", raw.id),
            "name the logger's class, or `*`",
        ));
    }
    let any_logger = raw.loggers.iter().any(|l| l == "*");
    if any_logger && raw.loggers.len() > 1 {
        return Err(cx.err(
            hoff,
            hlen,
            "`logger *` cannot be combined with named loggers",
            "pick one",
        ));
    }
    let compiled = compile_template(cx, event, &template, &offs, moff, mlen)?;
    if any_logger && compiled.literal_prefix.len() < 3 {
        return Err(cx.err(
            moff,
            mlen,
            "a `logger *` rule's message must start with at least 3 literal characters",
            "so it can be checked cheaply on every record",
        ));
    }
    let rule = Rule {
        id: raw.id,
        event,
        loggers: if any_logger { vec![] } else { raw.loggers },
        levels: raw.levels,
        component: raw.component.unwrap_or(default_component),
        source: raw.source,
        template,
        samples: raw.samples.iter().map(|s| s.0.clone()).collect(),
        origin: (cx.name.to_string(), hline),
        templates_from: templates_from.clone(),
        file_text: std::sync::Arc::clone(&cx.shared_text),
        sample_spans: raw.samples.iter().map(|s| (s.1, s.2)).collect(),
        regex: compiled.regex,
        fast: compiled.fast,
        captures: compiled.captures,
        literal_prefix: compiled.literal_prefix,
        required: compiled
            .required
            .map(|piece| memchr::memmem::Finder::new(piece.as_bytes()).into_owned()),
    };
    for (sample, soff, slen) in &raw.samples {
        let first_line = sample.split('\n').next().unwrap_or(sample);
        let why = match rule.try_match(sample.as_bytes()) {
            // The prefilter must never reject what the template accepts; a sample proves it per rule.
            Ok(Some(_)) if !rule.may_match(first_line.as_bytes()) => Some((
                format!(
                    "sample of rule {} matches its template but not the template's literal parts",
                    rule.id
                ),
                "this is a bug in ozone-conform's prefilter: please report it with the rule"
                    .to_string(),
            )),
            Ok(Some(_)) => None,
            Ok(None) => Some((
                format!(
                    "sample of rule {} does not match its message template",
                    rule.id
                ),
                format!("template regex: {}", rule.regex.pattern),
            )),
            Err(reason) => Some((
                format!("sample of rule {} fails validation: {reason}", rule.id),
                "a sample must be a valid rendering of every typed field".to_string(),
            )),
        };
        if let Some((message, help)) = why {
            let mut e = cx.err(*soff, *slen, message, "this sample");
            e.help = Some(help);
            return Err(e);
        }
    }
    Ok(rule)
}

/// A template's regex, compiled the first time a match needs it: most records are matched by the template's
/// walk ([`crate::template_match`]) alone, and compiling all ~200 regexes made every start of the binary
/// (a test's, an editor's, a CI job's per-file check) 20-30 ms slower. (Parsing one is most of compiling
/// it, so it is not checked ahead either: the pattern is built from escaped literals and the fields' fixed
/// patterns, and a sample whose match needs the regex compiles it when the grammar loads.)
#[derive(Debug, Clone)]
struct LazyRegex {
    pattern: String,
    compiled: std::sync::OnceLock<Result<Regex, String>>,
}

impl LazyRegex {
    fn new(pattern: String) -> LazyRegex {
        LazyRegex {
            pattern,
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// The compiled regex; a pattern too big to compile is a reason the record is not matched.
    fn get(&self) -> Result<&Regex, String> {
        self.compiled
            .get_or_init(|| {
                Regex::new(&self.pattern).map_err(|e| format!("template does not compile: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

struct CompiledTemplate {
    regex: LazyRegex,
    fast: Option<Template>,
    captures: Vec<(&'static str, FieldType)>,
    literal_prefix: Vec<u8>,
    /// See [`Rule::required`].
    required: Option<String>,
}

/// Shortest piece worth a memmem search (`->` of `{task} -> {seq}`); one byte would pass nearly every line.
const MIN_REQUIRED_PIECE: usize = 2;

/// The longest space-free literal piece of a template's first line that lies past its literal prefix (the
/// prefix is checked on its own). A space in a template matches a run of spaces, so pieces end at spaces; a
/// field ends a piece too. `pieces` holds the first line's literal runs between fields, in order.
fn required_piece(pieces: &[String], prefix_len: usize) -> Option<String> {
    pieces
        .iter()
        .skip(usize::from(prefix_len > 0))
        .flat_map(|run| run.split(' '))
        .filter(|p| p.len() >= MIN_REQUIRED_PIECE)
        .max_by_key(|p| p.len())
        .map(str::to_string)
}

/// Appends a template's literal text to its regex: escaped, a space run matching any run of spaces.
pub(crate) fn literal_regex(lit: &str, re: &mut String) {
    let mut chars = lit.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            while chars.peek() == Some(&' ') {
                chars.next();
            }
            // Padding differs between versions; a trailing space before a line end may be trimmed.
            re.push_str(if matches!(chars.peek(), None | Some('\n')) {
                " *"
            } else {
                " +"
            });
        } else {
            re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
        }
    }
}

pub(crate) fn type_pattern(ty: FieldType) -> &'static str {
    match ty {
        // Numbers take any run of letters and digits, so that a damaged digit is a rejected record (counted,
        // with its reason) rather than a silently unmatched one; validation then demands digits.
        FieldType::U64 => r"[0-9A-Za-z]+",
        FieldType::I64 => r"-?[0-9A-Za-z]+",
        FieldType::Word => r"\S+",
        FieldType::Text => r".*?",
        // Any run of UUID characters: a damaged one is rejected by validation, not silently unmatched.
        FieldType::Uuid => r"[0-9A-Za-z-]+",
        FieldType::TermIndex => r"\(t:~?-?\d+, i:~?-?\d+\)|<[A-Z_]+>",
        FieldType::TxInfo => r"-?\d+#-?\d+",
        FieldType::Version => r"[A-Za-z_][A-Za-z0-9_]* \(-?\d+\)",
        FieldType::BlockId => {
            r"conID: [0-9A-Za-z]+ locID: [0-9A-Za-z]+ bcsId: [0-9A-Za-z]+(?: replicaIndex: \S+)?"
        }
        FieldType::SecretKey => r"SecretKey\([^)\n]*\)",
        FieldType::SecretKeys => r"\[[^\]\n]*\]",
        FieldType::Datanode => r"[0-9A-Za-z-]+(?:\([^)\n]*\)|\{[^\n]*?\})?",
        FieldType::Member => r"\S+@group-[0-9A-Fa-f]+",
        FieldType::HostIp => r"\S+",
    }
}

/// Is `{inner}` a placeholder (`{}`, `{_}`, `{name:type}`)? Any other `{` is literal text.
fn is_placeholder(inner: &str) -> bool {
    inner.is_empty()
        || inner == "_"
        || inner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && inner.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
}

/// A template's literal runs and placeholders in order (`None` for a placeholder): what `grammar audit`
/// compares with the templates in Java source.
pub fn template_parts(template: &str) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < template.len() {
        let rest = &template[i..];
        if rest.starts_with('{') {
            if let Some(close) = rest.find('}') {
                if is_placeholder(&rest[1..close]) {
                    if !lit.is_empty() {
                        out.push(Some(std::mem::take(&mut lit)));
                    }
                    if out.last() != Some(&None) {
                        out.push(None);
                    }
                    i += close + 1;
                    continue;
                }
            }
        }
        let c = rest.chars().next().expect("in bounds");
        lit.push(c);
        i += c.len_utf8();
    }
    if !lit.is_empty() {
        out.push(Some(lit));
    }
    out
}

fn compile_template(
    cx: &Ctx,
    event: EventKind,
    t: &str,
    offs: &[usize],
    moff: usize,
    mlen: usize,
) -> Result<CompiledTemplate, Box<GrammarError>> {
    let off = |i: usize| offs.get(i).copied().unwrap_or(moff);
    let mut re = String::from("(?-u)^");
    let mut captures = Vec::new();
    let mut literal_prefix = Vec::new();
    let mut in_prefix = true;
    let mut in_first_line = true;
    // The first line's literal runs between fields (for `required_piece`).
    let mut first_line_runs = vec![String::new()];
    let mut seen = Vec::new();
    let b = t.as_bytes();
    let mut i = 0;
    let mut lit = String::new();
    let mut fast = Template::default();
    let flush_lit = |lit: &mut String, re: &mut String, fast: &mut Template| {
        literal_regex(lit, re);
        fast.push_literal(lit);
        lit.clear();
    };
    while i < b.len() {
        if b[i] == b'{' {
            if let Some(close) = t[i..].find('}') {
                let inner = &t[i + 1..i + close];
                if is_placeholder(inner) {
                    flush_lit(&mut lit, &mut re, &mut fast);
                    in_prefix = false;
                    if in_first_line {
                        first_line_runs.push(String::new());
                    }
                    let span = (off(i), close + 1);
                    if inner.is_empty() || inner == "_" {
                        re.push_str("(?:.*?)");
                        fast.push_skip();
                    } else {
                        let (fname, tname) = inner.split_once(':').unwrap_or((inner, ""));
                        let spec = event.field(fname).ok_or_else(|| {
                            let mut e = cx.err(
                                span.0,
                                span.1,
                                format!("event {event} has no field `{fname}`"),
                                "unknown field",
                            );
                            e.help = Some(format!(
                                "{event} fields: {}",
                                event
                                    .fields()
                                    .iter()
                                    .map(|f| format!("{}:{}", f.name, f.ty))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ));
                            e
                        })?;
                        let ty = if tname.is_empty() {
                            spec.ty
                        } else {
                            let ty = FieldType::from_name(tname).ok_or_else(|| {
                                let mut e = cx.err(
                                    span.0,
                                    span.1,
                                    format!("unknown type `{tname}`"),
                                    "unknown type",
                                );
                                e.help = Some(format!(
                                    "types: {}",
                                    FieldType::ALL
                                        .iter()
                                        .map(|t| t.name())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ));
                                e
                            })?;
                            if ty != spec.ty {
                                return Err(cx.err(
                                    span.0,
                                    span.1,
                                    format!(
                                        "field `{fname}` of {event} has type {}, not {ty}",
                                        spec.ty
                                    ),
                                    "wrong type",
                                ));
                            }
                            ty
                        };
                        if seen.contains(&spec.name) {
                            return Err(cx.err(
                                span.0,
                                span.1,
                                format!("field `{fname}` is captured twice"),
                                "duplicate",
                            ));
                        }
                        seen.push(spec.name);
                        re.push('(');
                        re.push_str(type_pattern(ty));
                        re.push(')');
                        fast.push_field(ty);
                        captures.push((spec.name, ty));
                    }
                    i += close + 1;
                    continue;
                }
            }
        }
        let c = t[i..].chars().next().expect("in bounds");
        // The prefix is checked against a record's first line before its continuation lines are read.
        if c == '\n' {
            in_prefix = false;
            in_first_line = false;
        }
        if in_first_line {
            first_line_runs.last_mut().expect("never empty").push(c);
        }
        if in_prefix {
            literal_prefix.extend_from_slice(c.to_string().as_bytes());
        }
        lit.push(c);
        i += c.len_utf8();
    }
    flush_lit(&mut lit, &mut re, &mut fast);
    re.push_str(r"[ \t]*(?:\n|\z)");
    for spec in event.fields() {
        if !spec.optional && !seen.contains(&spec.name) {
            return Err(cx.err(
                moff,
                mlen,
                format!(
                    "the template does not capture `{}`, which {event} requires",
                    spec.name
                ),
                "missing field",
            ));
        }
    }
    // Trailing spaces are optional in the regex, so they cannot be part of the prefix check either.
    while literal_prefix.last() == Some(&b' ') {
        literal_prefix.pop();
    }
    let regex = LazyRegex::new(re);
    let required = required_piece(&first_line_runs, literal_prefix.len());
    Ok(CompiledTemplate {
        regex,
        fast: fast.usable().then_some(fast),
        captures,
        literal_prefix,
        required,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_from_names_the_tree_of_every_rule_of_its_file_and_only_before_the_first_rule() {
        let rule = "event CheckpointInstalled\n  logger  a.B\n  level   INFO\n  message \"Replaced DB with checkpoint, term: {term:u64}, index: {index:u64}\"\n  sample  \"Replaced DB with checkpoint, term: 2, index: 5\"\n";
        let with = format!(
            "templates-from apache/ozone HDDS-14496-zdu 79728a163a30\ncomponent scm\n{rule}"
        );
        let rules = parse_rules("x.rules", &with).unwrap();
        assert_eq!(
            rules[0].templates_from.as_deref(),
            Some("apache/ozone HDDS-14496-zdu 79728a163a30")
        );
        assert_eq!(
            parse_rules("x.rules", rule).unwrap()[0].templates_from,
            None
        );
        let late = format!("{rule}templates-from apache/ozone master\n");
        let e = parse_rules("x.rules", &late).unwrap_err();
        assert!(
            e.to_string()
                .contains("`templates-from` after the first rule"),
            "{e}"
        );
    }

    fn one(text: &str) -> Result<Vec<Rule>, Box<GrammarError>> {
        parse_rules("test.rules", text)
    }

    const GOOD: &str = "component scm\n\nevent CheckpointInstalled  # a comment\n  logger org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl\n  level INFO\n  message \"Replaced DB with checkpoint, term: {term:u64}, index: {index:u64}\"\n  sample \"Replaced DB with checkpoint, term: 2, index: 202\"\n";

    #[test]
    fn embedded_grammar_loads_and_every_sample_matches() {
        let g = Grammar::embedded().unwrap_or_else(|e| panic!("{:?}", miette::Report::new(*e)));
        assert!(g.rules.len() > 40, "only {} rules", g.rules.len());
        for rule in &g.rules {
            for s in &rule.samples {
                assert!(
                    rule.match_message(s.as_bytes()).is_some(),
                    "{}: {s}",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn every_embedded_template_is_walked_without_its_regex() {
        let g = Grammar::embedded().unwrap_or_else(|e| panic!("{:?}", miette::Report::new(*e)));
        let slow: Vec<_> = g
            .rules
            .iter()
            .filter(|r| r.fast.is_none())
            .map(|r| &r.id)
            .collect();
        assert!(slow.is_empty(), "{slow:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Every embedded rule's walk agrees with its regex on its samples with a few bytes changed, and so
        /// does `try_match` (the fields and rejections the events are made of).
        #[test]
        fn the_walk_agrees_with_the_regex_on_every_rule(
            rule in proptest::prelude::any::<proptest::sample::Index>(),
            sample in proptest::prelude::any::<proptest::sample::Index>(),
            edits in proptest::collection::vec(
                (
                    proptest::prelude::any::<proptest::sample::Index>(),
                    0..3u8,
                    proptest::sample::select(b" \t\n-@#:(),<>{}[]~_.aZ09\xff".to_vec()),
                ),
                0..4,
            ),
            tail in proptest::sample::select(vec!["", " ", "\n\tat x", "x"]),
        ) {
            let g = embedded();
            let rule = rule.get(&g.rules);
            let mut text = sample.get(&rule.samples).as_bytes().to_vec();
            text.extend_from_slice(tail.as_bytes());
            template_match::tests::edit(&mut text, &edits);
            let fast = rule.fast.as_ref().expect("walked");
            let mut walked = 0;
            template_match::tests::agree(fast, rule.regex.get().unwrap(), &text, &mut walked)?;
            proptest::prop_assert_eq!(rule.try_match(&text), rule.try_match_regex(&text));
        }
    }

    #[test]
    fn a_load_compiles_only_the_regexes_its_samples_needed() {
        // What a start of the binary costs: a fresh load, as `check` does one.
        let grammar = Grammar::load_embedded().unwrap();
        let walked = grammar.rules.iter().filter(|r| r.fast.is_some()).count();
        let compiled = grammar
            .rules
            .iter()
            .filter(|r| r.regex.compiled.get().is_some())
            .count();
        assert!(walked > grammar.rules.len() / 2, "{walked} rules walk");
        assert!(
            compiled <= grammar.rules.len() - walked,
            "{compiled} regexes compiled at load, {walked} of {} rules walk",
            grammar.rules.len()
        );
        // A match that needs the regex compiles it then, once.
        let rule = &grammar.rules[0];
        let sample = rule.samples[0].as_bytes();
        assert_eq!(
            rule.try_match_regex(sample).unwrap().is_some(),
            rule.try_match(sample).unwrap().is_some()
        );
        assert!(rule.regex.compiled.get().is_some());
        // Overrides of no directory are the embedded grammar itself.
        let plain = Grammar::with_overrides(&[] as &[&str]).unwrap();
        let ids = |g: &Grammar| g.rules.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&plain), ids(&grammar));
    }

    fn embedded() -> &'static Grammar {
        Grammar::embedded_once().expect("loads")
    }

    #[test]
    fn parses_and_matches_a_rule() {
        let rules = one(GOOD).unwrap();
        assert_eq!(rules.len(), 1);
        let r = &rules[0];
        assert_eq!(r.component, Component::Scm);
        let f = r
            .match_message(b"Replaced DB with checkpoint, term: 3, index: 5120")
            .unwrap();
        assert_eq!(
            f,
            vec![("term", Value::U64(3)), ("index", Value::U64(5120))]
        );
        // Continuation lines may follow; text after the template on the same line may not.
        assert!(r
            .match_message(b"Replaced DB with checkpoint, term: 3, index: 5120\n\tat x")
            .is_some());
        assert!(r
            .match_message(b"Replaced DB with checkpoint, term: 3, index: 5120 extra")
            .is_none());
        let g = Grammar::build(rules).unwrap();
        for logger in [
            "org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl",
            "ha.SCMHAManagerImpl",
            "SCMHAManagerImpl",
        ] {
            assert!(g.wants_logger(logger.as_bytes()), "{logger}");
        }
        assert!(g.wants(
            b"ha.SCMHAManagerImpl",
            b"Replaced DB with checkpoint, term: 3, index: 5120"
        ));
        // The first line lacks the template's `index:`: it cannot match, and is not copied to try.
        assert!(!g.wants(
            b"ha.SCMHAManagerImpl",
            b"Replaced DB with checkpoint, term: 3"
        ));
        assert!(!g.wants(b"ha.SCMHAManagerImpl", b"Downloading checkpoint"));
        assert!(!g.wants(b"ha.Other", b"Replaced DB with checkpoint, term: 3"));
        assert!(g
            .match_record(
                b"SCMHAManagerImpl",
                Some(Level::Debug),
                b"Replaced DB with checkpoint, term: 3, index: 1"
            )
            .is_none());
    }

    fn err_of(text: &str) -> Box<GrammarError> {
        match one(text) {
            Err(e) => e,
            Ok(_) => panic!("expected an error for {text:?}"),
        }
    }

    #[test]
    fn errors_point_into_the_file() {
        let e = err_of(&GOOD.replace("CheckpointInstalled", "CheckpointInstaled"));
        assert!(e.message.contains("unknown event `CheckpointInstaled`"));
        assert_eq!(e.span.offset(), GOOD.find("CheckpointInstalled").unwrap());
        let e = err_of(&GOOD.replace("{index:u64}", "{index:word}"));
        assert!(
            e.message.contains("has type u64, not word"),
            "{}",
            e.message
        );
        let e = err_of(&GOOD.replace("{index:u64}", "{idx:u64}"));
        assert!(e.message.contains("no field `idx`"));
        let e = err_of(&GOOD.replace(", index: {index:u64}", ""));
        assert!(e.message.contains("requires"), "{}", e.message);
        let e = err_of(&GOOD.replace("index: 202", "index: x"));
        assert!(e.message.contains("sample"));
        assert_eq!(
            e.span.offset(),
            GOOD.find("\"Replaced DB with checkpoint, term: 2").unwrap()
        );
        let e = err_of(&GOOD.replace("level INFO", "level LOUD"));
        assert!(e.message.contains("LOUD"));
        let e = err_of(&GOOD.replace("  sample", "  smaple"));
        assert!(e.message.contains("smaple"));
        let e = err_of(&GOOD.replace("\"Replaced DB with checkpoint, term: {", "Replaced DB {"));
        assert!(e.message.contains("double-quoted"));
        let e = err_of(&format!("{GOOD}{}", &GOOD[14..]));
        assert!(e.message.contains("defined twice"));
        let e = err_of(
            &GOOD
                .replace("org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl", "*")
                .replace("\"Replaced DB with", "\"{}Replaced DB with"),
        );
        assert!(e.message.contains("literal"), "{}", e.message);
    }

    #[test]
    fn literal_prefixes_tolerate_space_runs_like_the_regex() {
        assert!(has_literal_prefix(b"Replaced  DB with x", b"Replaced DB"));
        assert!(has_literal_prefix(b"Replaced DB", b"Replaced DB"));
        assert!(!has_literal_prefix(b"ReplacedDB", b"Replaced DB"));
        assert!(!has_literal_prefix(b"Replaced", b"Replaced DB"));
        assert!(has_literal_prefix(b"anything", b""));
        let r = &parse_rules("t.rules", GOOD).unwrap()[0];
        let g = Grammar::build(vec![r.clone()]).unwrap();
        let padded = b"Replaced DB  with checkpoint, term: 3, index: 5120";
        assert!(g.wants(b"SCMHAManagerImpl", padded));
        assert!(g
            .match_record(b"SCMHAManagerImpl", Some(Level::Info), padded)
            .is_some());
    }

    #[test]
    fn the_required_piece_is_the_longest_literal_of_the_first_line_past_the_prefix() {
        let runs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // `{member}{}: {index_name}: setUnconditionally {from} -> {to}`
        let r = runs(&["", "", ": ", ": setUnconditionally ", " -> ", ""]);
        assert_eq!(required_piece(&r, 0).as_deref(), Some("setUnconditionally"));
        // The prefix is checked by itself: the piece comes from later runs.
        let r = runs(&[
            "Leader ",
            "",
            " is ready since appliedIndex == startIndex == ",
            "",
        ]);
        assert_eq!(required_piece(&r, 6).as_deref(), Some("appliedIndex"));
        // Nothing of 2 bytes or more: no search.
        assert_eq!(required_piece(&runs(&["", ": ", ""]), 0), None);
    }

    #[test]
    fn every_embedded_rule_with_a_field_first_has_a_required_piece() {
        let g = Grammar::embedded().unwrap();
        for rule in &g.rules {
            if rule.literal_prefix.is_empty() {
                assert!(
                    rule.required.is_some(),
                    "rule {} has no cheap check",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn a_busy_logger_line_no_rule_wants_is_rejected_before_matching() {
        let g = Grammar::embedded().unwrap();
        let logger = b"org.apache.ratis.server.impl.StateMachineUpdater";
        let reset = b"2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-StateMachineUpdater: snapshotIndex: setUnconditionally 4300 -> 5120";
        let taken = b"2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-StateMachineUpdater: snapshotIndex: updateIncreasingly 4300 -> 5120";
        assert!(g.wants(logger, reset));
        assert!(g.match_record(logger, Some(Level::Info), reset).is_some());
        assert!(!g.wants(logger, taken));
        assert!(g.match_record(logger, Some(Level::Info), taken).is_none());
    }

    #[test]
    fn literal_braces_and_space_runs() {
        let text = "event SignalReceived\n  logger *\n  message \"RECEIVED SIGNAL {number:u64}: {signal:word} {volume=v}\"\n  sample \"RECEIVED SIGNAL 15:   SIGTERM {volume=v}\"\n";
        let r = &one(text).unwrap()[0];
        assert!(r.loggers.is_empty());
        assert!(r
            .match_message(b"RECEIVED SIGNAL 15: SIGTERM {volume=v}")
            .is_some());
    }

    #[test]
    fn template_parts_split_at_placeholders_only() {
        let lit = |s: &str| Some(s.to_string());
        assert_eq!(
            template_parts("RECEIVED SIGNAL {number:u64}: {signal:word}{} {volume=v}"),
            vec![
                lit("RECEIVED SIGNAL "),
                None,
                lit(": "),
                None,
                lit(" {volume=v}")
            ]
        );
        assert_eq!(template_parts("{_}"), vec![None]);
    }

    #[test]
    fn override_replaces_by_id() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mine.rules"),
            GOOD.replace("component scm", "component om"),
        )
        .unwrap();
        let g = Grammar::with_overrides(&[dir.path()]).unwrap();
        let r: Vec<_> = g
            .rules
            .iter()
            .filter(|r| r.id == "CheckpointInstalled")
            .collect();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].component, Component::Om);
        let empty = tempfile::tempdir().unwrap();
        assert!(Grammar::with_overrides(&[empty.path()]).is_err());
    }
}
