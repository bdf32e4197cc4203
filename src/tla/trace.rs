//! The one trace model every reader produces, and its errors.
//!
//! Readers: [`super::tlc_text`] (TLC plain and `-tool` output), [`super::simulate`] (`-simulate file=`
//! dumps), [`super::dump_json`] (`-dumpTrace json`) and [`super::itf`] (Apalache/Quint ITF, also a JSON
//! array of ITF objects as [`super::convert`] writes for several traces). [`super::read::read_trace_str`] picks one by
//! looking at the text.

use super::value::TlaValue;
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// TLC's plain console output.
    TlcText,
    /// TLC's `-tool` output, framed by `@!@!@STARTMSG` ... `@!@!@ENDMSG`.
    TlcTool,
    /// A `-simulate file=` dump: a module of `STATE_k == ...` definitions.
    TlcSimulate,
    /// `-dumpTrace json`.
    TlcDumpJson,
    /// Apalache/Quint Informal Trace Format.
    Itf,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::TlcText => "TLC text",
            TraceFormat::TlcTool => "TLC -tool",
            TraceFormat::TlcSimulate => "TLC -simulate dump",
            TraceFormat::TlcDumpJson => "TLC -dumpTrace json",
            TraceFormat::Itf => "ITF",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionLabel {
    /// The action's name as the tool printed it; TLC appends arguments as `Name(a,b)`.
    pub name: String,
    pub module: Option<String>,
    /// Where the action's text starts in the spec (1-based line).
    pub line: Option<u32>,
}

/// One variable of one state: its name, its value, the span of its text. Name and value are shared with the
/// previous state where they are the same ([`Trace::push_state`]): TLC prints every variable of every state
/// and most do not change from one state to the next, so a long trace holds each distinct value about once,
/// not once per state (a 100 MB TLC output would otherwise take more than ten times its size).
pub type StateVar = (Arc<str>, Arc<TlaValue>, SourceSpan);

#[derive(Debug, Clone, PartialEq)]
pub struct TraceState {
    /// As the trace numbers it (1-based).
    pub number: usize,
    /// `None` for `<Initial predicate>`, simulate dumps, and ITF states without an action.
    pub action: Option<ActionLabel>,
    /// In trace order; the span covers the variable's text (for TLC, the whole `/\ x = v`).
    pub vars: Vec<StateVar>,
    /// The whole state's text.
    pub span: SourceSpan,
}

impl TraceState {
    pub fn var(&self, name: &str) -> Option<&TlaValue> {
        self.vars
            .iter()
            .find(|(n, _, _)| &**n == name)
            .map(|(_, v, _)| &**v)
    }

    /// Makes this state's names and unchanged values the `previous` state's own (same `Arc`).
    fn share_with(&mut self, previous: &TraceState) {
        for (k, (name, value, _)) in self.vars.iter_mut().enumerate() {
            // Readers keep one variable order, so the same index is nearly always the same variable.
            let before = match previous.vars.get(k) {
                Some(p) if p.0 == *name => Some(p),
                _ => previous.vars.iter().find(|p| p.0 == *name),
            };
            if let Some((p_name, p_value, _)) = before {
                *name = Arc::clone(p_name);
                if Arc::ptr_eq(p_value, value) || **p_value == **value {
                    *value = Arc::clone(p_value);
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    Invariant,
    ActionProperty,
    TemporalProperty,
    Deadlock,
    Assertion,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceViolation {
    pub kind: ViolationKind,
    /// The invariant's or property's name, when the tool names it.
    pub name: Option<String>,
    /// The tool's words.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub format: TraceFormat,
    /// From `of module X` labels, ITF `#meta`, or `None`.
    pub module: Option<String>,
    pub violation: Option<TraceViolation>,
    pub states: Vec<TraceState>,
    /// Lasso: 0-based index into `states` the behaviour loops back to.
    pub back_to_state: Option<usize>,
    /// The behaviour ends in `Stuttering`.
    pub stuttering: bool,
    /// What was read but cannot be represented above (nothing is dropped silently).
    pub notes: Vec<String>,
}

impl Trace {
    pub fn new(format: TraceFormat) -> Trace {
        Trace {
            format,
            module: None,
            violation: None,
            states: Vec::new(),
            back_to_state: None,
            stuttering: false,
            notes: Vec::new(),
        }
    }

    /// The value of variable `name` in state `state` (0-based index into `states`).
    pub fn var(&self, state: usize, name: &str) -> Option<&TlaValue> {
        self.states.get(state)?.var(name)
    }

    /// Appends `state`, sharing its names and unchanged values with the state before it.
    pub fn push_state(&mut self, mut state: TraceState) {
        if let Some(previous) = self.states.last() {
            state.share_with(previous);
        }
        self.states.push(state);
    }

    /// Every variable name, in order of first appearance.
    pub fn variables(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for s in &self.states {
            for (n, _, _) in &s.vars {
                if !out.contains(&&**n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// Adds a note unless the same words are already there.
    pub fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Notes states whose variables differ from the first state's (a `-difftrace` run or a cut file).
    pub(crate) fn check_variables_agree(&mut self) {
        let Some(first) = self.states.first() else {
            return;
        };
        let names: Vec<&str> = first.vars.iter().map(|(n, _, _)| &**n).collect();
        let mut odd = Vec::new();
        for s in &self.states[1..] {
            let mut these: Vec<&str> = s.vars.iter().map(|(n, _, _)| &**n).collect();
            let mut want = names.clone();
            these.sort_unstable();
            want.sort_unstable();
            if these != want {
                odd.push(s.number.to_string());
            }
        }
        if !odd.is_empty() {
            let msg = format!(
                "states {} do not assign the same variables as state {} (a -difftrace run or a cut trace?)",
                odd.join(", "),
                first.number
            );
            self.note(msg);
        }
    }
}

#[derive(Debug, Clone)]
pub struct TraceFile {
    pub name: String,
    pub text: Arc<String>,
    pub traces: Vec<Trace>,
}

/// Why a trace file could not be read. Every variant but `Io` carries the text and a label on the bad bytes.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum TraceError {
    /// TLC's output of a run that found nothing: there is no counterexample to read, and that is an answer.
    #[error("{name}: no counterexample: TLC found no error")]
    #[diagnostic(code(ozone_conform::trace::no_error))]
    NoErrorFound { name: String },

    #[error("cannot read trace file {path}: {message}")]
    #[diagnostic(
        code(ozone_conform::trace::io),
        help("check the path and that the file is readable")
    )]
    Io { path: String, message: String },

    #[error("{name} is not UTF-8 text: invalid byte at offset {offset}")]
    #[diagnostic(
        code(ozone_conform::trace::utf8),
        help("trace files are text (TLC output, ITF or JSON); is this a binary `-dumpTrace tlc` file or a compressed one?")
    )]
    InvalidUtf8 {
        name: String,
        offset: usize,
        #[source_code]
        src: NamedSource<String>,
        #[label("not UTF-8")]
        span: SourceSpan,
    },

    #[error("{message}")]
    #[diagnostic(code(ozone_conform::trace::syntax))]
    Syntax {
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[help]
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(ozone_conform::trace::truncated))]
    Truncated {
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("the file ends here")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(ozone_conform::trace::itf))]
    Itf {
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[help]
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(ozone_conform::trace::config))]
    Config {
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[help]
        help: String,
    },

    #[error("{name} holds no trace: {message}")]
    #[diagnostic(
        code(ozone_conform::trace::no_trace),
        help("give TLC output with a counterexample (`State 1: ...`), a `-simulate file=` dump, a `-dumpTrace json` file or an ITF trace")
    )]
    NotATrace {
        name: String,
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
    },
}

/// A source for diagnostics.
pub(crate) fn source(name: &str, text: &str) -> NamedSource<String> {
    NamedSource::new(name, text.to_string())
}

/// Clamps a span into `text` and onto character boundaries.
pub(crate) fn span_in(text: &str, offset: usize, len: usize) -> SourceSpan {
    let mut start = offset.min(text.len());
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + len).min(text.len());
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end - start).into()
}

pub(crate) fn syntax_error(
    name: &str,
    text: &str,
    offset: usize,
    len: usize,
    message: impl Into<String>,
    label: impl Into<String>,
    help: impl Into<String>,
) -> TraceError {
    TraceError::Syntax {
        message: message.into(),
        src: source(name, text),
        span: span_in(text, offset, len),
        label: label.into(),
        help: help.into(),
    }
}

pub(crate) fn truncated_error(
    name: &str,
    text: &str,
    message: impl Into<String>,
    help: impl Into<String>,
) -> TraceError {
    // Label the last character: miette draws no label on an empty span at the very end.
    let body = text.trim_end();
    let last = body.chars().next_back().map_or(0, char::len_utf8);
    TraceError::Truncated {
        message: message.into(),
        src: source(name, text),
        span: span_in(text, body.len() - last, last),
        help: help.into(),
    }
}

/// A TLA+ value error from [`super::tla_expr`] as a diagnostic.
pub(crate) fn expr_error(name: &str, text: &str, e: super::tla_expr::ExprError) -> TraceError {
    if e.at_end && e.offset >= text.trim_end().len() {
        truncated_error(
            name,
            text,
            format!("the trace is cut off inside a value: {}", e.message),
            "the file seems truncated; rerun TLC or copy the whole output",
        )
    } else if let Some(open) = e.open {
        let bracket = text[open..]
            .chars()
            .take(if text[open..].starts_with("<<") { 2 } else { 1 })
            .collect::<String>();
        let line_end = text[e.offset..]
            .find('\n')
            .map_or(text.len(), |p| e.offset + p);
        let next = text[e.offset..line_end].trim_end();
        syntax_error(
            name,
            text,
            open,
            bracket.len(),
            format!(
                "cannot read a TLA+ value: `{bracket}` is not closed before the value ends{}",
                if next.is_empty() { String::new() } else { format!(" (at `{next}`)") }
            ),
            format!("this `{bracket}` is never closed"),
            "values are read as TLC prints them: {..}, <<..>>, [f |-> v], (k :> v @@ ..), \"strings\", integers, TRUE/FALSE, model values",
        )
    } else {
        let label = if e.at_end {
            "the value ends here, unfinished"
        } else {
            "here"
        };
        syntax_error(
            name,
            text,
            e.offset,
            e.len,
            format!("cannot read a TLA+ value: {}", e.message),
            label,
            "values are read as TLC prints them: {..}, <<..>>, [f |-> v], (k :> v @@ ..), \"strings\", integers, TRUE/FALSE, model values",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::*;

    const THREE_STATES: &str = "TLC2 Version 2.18\nError: Invariant Inv is violated.\nError: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n/\\ s = {n1, n2}\n\nState 2: <Inc line 6, col 11 to line 6, col 53 of module Demo>\n/\\ x = 1\n/\\ s = {n1, n2}\n\nState 3: <Drop line 7, col 11 to line 7, col 53 of module Demo>\n/\\ s = {n1}\n/\\ x = 1\n\n";

    #[test]
    fn a_state_shares_names_and_unchanged_values_with_the_state_before_it() {
        let trace = read_trace_str("t", THREE_STATES.to_string())
            .unwrap()
            .traces
            .remove(0);
        let [one, two, three] = &trace.states[..] else {
            panic!("three states expected, got {}", trace.states.len());
        };
        let (x1, s1, x2, s2) = (&one.vars[0], &one.vars[1], &two.vars[0], &two.vars[1]);
        assert!(
            Arc::ptr_eq(&x1.0, &x2.0) && Arc::ptr_eq(&s1.0, &s2.0),
            "names shared"
        );
        assert!(Arc::ptr_eq(&s1.1, &s2.1), "the unchanged `s` is one value");
        assert!(
            !Arc::ptr_eq(&x1.1, &x2.1),
            "the changed `x` is its own value"
        );
        // State 3 prints the variables in another order: found by name, not by position.
        let (s3, x3) = (&three.vars[0], &three.vars[1]);
        assert!(Arc::ptr_eq(&x3.1, &x2.1), "`x` unchanged from state 2");
        assert!(!Arc::ptr_eq(&s3.1, &s2.1));
        assert_eq!(three.var("s").unwrap().to_string(), "{n1}");
        assert_eq!(trace.var(1, "x").unwrap().as_i64(), Some(1));
    }
}
