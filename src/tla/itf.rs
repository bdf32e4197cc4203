//! The Informal Trace Format (Apalache ADR-015, Quint): reader and writer.
//!
//! The reader takes conformant ITF (`#meta`, `params`, `vars`, `states`, `loop`; values `#bigint`, `#tup`,
//! `#set`, `#map`, `#unserializable`, records as objects, sequences as arrays), Quint's sum-type values
//! `{"tag": ..., "value": ...}`, plain JSON integers (Quint before Sept 2023), states written as one `#map`
//! of variable names (the Quint Rust simulator), and a JSON array of ITF objects (what
//! [`super::convert::convert_to_itf`] writes for a `-continue` run). Strings of the form `name_OF_TYPE`
//! (Apalache's uninterpreted constants) are read as model values.
//!
//! The writer, [`to_itf`], writes conformant ITF. TLA+ cannot tell a tuple from a sequence, nor can
//! [`TlaValue`], so every `Seq` is written as a JSON array (ITF's sequence) and never as `#tup`. Model
//! values are written as Apalache writes uninterpreted constants: `name_OF_TYPE` stays as it is, any other
//! model value `m` becomes `"m_OF_MODEL"` (read back as `m`). What ITF cannot say about a TLC trace
//! (violation, stuttering, notes, action modules and lines) goes in `#meta`, under `x-ozone-conform` and
//! per state, and in `#meta.description`.

use super::json::{self, Json, Spanned};
use super::trace::{
    source, span_in, ActionLabel, Trace, TraceError, TraceFormat, TraceState, TraceViolation,
    ViolationKind,
};
use super::value::TlaValue;
use num_bigint::BigInt;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The suffix the writer gives TLC model values (an uninterpreted type named `MODEL`).
pub const MODEL_SUFFIX: &str = "_OF_MODEL";
const FORMAT_DESCRIPTION: &str = "https://apalache-mc.org/docs/adr/015adr-trace.html";
/// The `#meta` key holding what ITF has no place for.
pub const META_KEY: &str = "x-ozone-conform";

/// Is `s` an Apalache uninterpreted constant, `name_OF_TYPE`?
fn is_uninterpreted(s: &str) -> bool {
    match s.rfind("_OF_") {
        Some(p) if p > 0 => {
            let ty = &s[p + 4..];
            !ty.is_empty()
                && ty.as_bytes()[0].is_ascii_uppercase()
                && ty
                    .bytes()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        }
        _ => false,
    }
}

fn model_value_of_string(s: &str) -> Option<TlaValue> {
    if let Some(m) = s.strip_suffix(MODEL_SUFFIX) {
        if !m.is_empty() {
            return Some(TlaValue::model(m));
        }
    }
    is_uninterpreted(s).then(|| TlaValue::model(s))
}

struct Reader<'a> {
    name: &'a str,
    text: &'a str,
    plain_ints: bool,
    unserializable: usize,
}

/// What an ITF trace looks like, for errors about its shape.
const TRACE_HELP: &str =
    "an ITF trace is {\"#meta\": {..}, \"vars\": [..], \"states\": [{..}, ..], \"loop\": k}";

impl Reader<'_> {
    fn err(&self, at: &Spanned, message: impl Into<String>, label: &str, help: &str) -> TraceError {
        let len = (at.span.end - at.span.start).min(200);
        TraceError::Itf {
            message: message.into(),
            src: source(self.name, self.text),
            span: span_in(self.text, at.span.start, len),
            label: label.into(),
            help: help.into(),
        }
    }

    /// Adds variable `name`, given by `at`, to a state's `vars`; a name given twice is an error at the second
    /// (a JSON reader keeps one of the two, and which one is not ours to guess).
    fn assign(
        &self,
        vars: &mut Vec<(String, TlaValue, miette::SourceSpan)>,
        name: String,
        value: TlaValue,
        at: &Spanned,
    ) -> Result<(), TraceError> {
        if vars.iter().any(|(n, _, _)| *n == name) {
            return Err(self.assigned_twice(&name, at));
        }
        let span = span_in(self.text, at.span.start, at.span.end - at.span.start);
        vars.push((name, value, span));
        Ok(())
    }

    fn assigned_twice(&self, name: &str, at: &Spanned) -> TraceError {
        self.err(
            at,
            format!("variable `{name}` is assigned twice in this state"),
            "again here",
            TRACE_HELP,
        )
    }

    fn value(&mut self, j: &Spanned) -> Result<TlaValue, TraceError> {
        const HELP: &str = "ITF values are booleans, strings, arrays (sequences), objects (records), {\"#bigint\": \"-12\"}, {\"#tup\": [..]}, {\"#set\": [..]}, {\"#map\": [[k, v], ..]}, {\"#unserializable\": \"..\"} and Quint's {\"tag\": .., \"value\": ..}";
        Ok(match &j.value {
            Json::Null => return Err(self.err(j, "null is not an ITF value", "null", HELP)),
            Json::Bool(b) => TlaValue::Bool(*b),
            Json::Number(n) => match n.parse::<BigInt>() {
                Ok(i) => {
                    self.plain_ints = true;
                    TlaValue::Int(i)
                }
                Err(_) => {
                    return Err(self.err(
                        j,
                        format!("{n} is not an integer"),
                        "not an integer",
                        HELP,
                    ))
                }
            },
            Json::String(s) => model_value_of_string(s).unwrap_or_else(|| TlaValue::Str(s.clone())),
            Json::Array(items) => TlaValue::Seq(
                items
                    .iter()
                    .map(|v| self.value(v))
                    .collect::<Result<_, _>>()?,
            ),
            Json::Object(members) => {
                if let Some((tag, inner)) = members.iter().find(|(k, _)| k.starts_with('#')) {
                    if members.len() != 1 {
                        return Err(self.err(
                            j,
                            format!("an ITF `{tag}` object must have no other member"),
                            "this object",
                            HELP,
                        ));
                    }
                    return self.tagged(j, tag, inner, HELP);
                }
                if members.len() == 2 {
                    if let (Some(tag), Some(v)) = (j.get("tag"), j.get("value")) {
                        if let Some(t) = tag.as_str() {
                            return Ok(TlaValue::Variant {
                                tag: t.to_string(),
                                value: Box::new(self.value(v)?),
                            });
                        }
                    }
                }
                let mut fields = Vec::with_capacity(members.len());
                for (k, v) in members {
                    if fields.iter().any(|(n, _): &(String, TlaValue)| n == k) {
                        return Err(self.err(
                            v,
                            format!("record field `{k}` appears twice"),
                            "again here",
                            HELP,
                        ));
                    }
                    fields.push((k.clone(), self.value(v)?));
                }
                TlaValue::record(fields)
            }
        })
    }

    fn tagged(
        &mut self,
        j: &Spanned,
        tag: &str,
        inner: &Spanned,
        help: &str,
    ) -> Result<TlaValue, TraceError> {
        let items = |r: &mut Self| -> Result<Vec<TlaValue>, TraceError> {
            match inner.as_array() {
                Some(a) => a.iter().map(|v| r.value(v)).collect(),
                None => Err(r.err(
                    inner,
                    format!("`{tag}` takes an array, not {}", inner.kind()),
                    "expected an array",
                    help,
                )),
            }
        };
        Ok(match tag {
            "#bigint" => {
                let parsed = inner.as_str().and_then(|s| {
                    let digits = s.strip_prefix('-').unwrap_or(s);
                    (!digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()))
                        .then(|| s.parse::<BigInt>().ok())
                        .flatten()
                });
                match parsed {
                    Some(i) => TlaValue::Int(i),
                    None => {
                        return Err(self.err(
                            inner,
                            "`#bigint` takes a string of decimal digits",
                            "not a decimal integer string",
                            help,
                        ))
                    }
                }
            }
            "#tup" => TlaValue::Seq(items(self)?),
            "#set" => TlaValue::set(items(self)?),
            "#map" => {
                let Some(pairs) = inner.as_array() else {
                    return Err(self.err(inner, "`#map` takes an array of [key, value] pairs", "expected an array", help));
                };
                let mut out = Vec::with_capacity(pairs.len());
                for p in pairs {
                    match p.as_array() {
                        Some([k, v]) => out.push((self.value(k)?, self.value(v)?)),
                        _ => return Err(self.err(p, "a `#map` entry must be a [key, value] pair", "not a pair", help)),
                    }
                }
                TlaValue::function(out)
            }
            "#unserializable" => match inner.as_str() {
                Some(s) => {
                    self.unserializable += 1;
                    TlaValue::Unserializable(s.to_string())
                }
                None => return Err(self.err(inner, "`#unserializable` takes a string", "not a string", help)),
            },
            other => {
                return Err(self.err(
                    j,
                    format!("unknown ITF tag `{other}`"),
                    "this value",
                    "ITF knows the tags #bigint, #tup, #set, #map, #unserializable (and #meta on traces and states)",
                ))
            }
        })
    }

    fn trace(&mut self, top: &Spanned) -> Result<Trace, TraceError> {
        const HELP: &str = TRACE_HELP;
        if !matches!(top.value, Json::Object(_)) {
            return Err(self.err(
                top,
                format!("an ITF trace is an object, not {}", top.kind()),
                "not a trace",
                HELP,
            ));
        }
        let mut t = Trace::new(TraceFormat::Itf);
        self.plain_ints = false;
        self.unserializable = 0;
        let mut var_order: Vec<String> = Vec::new();
        if let Some(meta) = top.get("#meta") {
            self.read_meta(meta, &mut t);
        }
        if let Some(vars) = top.get("vars") {
            match vars.as_array() {
                Some(a) => {
                    for v in a {
                        match v.as_str() {
                            Some(s) => var_order.push(s.to_string()),
                            None => {
                                return Err(self.err(
                                    v,
                                    "a variable name must be a string",
                                    "not a string",
                                    HELP,
                                ))
                            }
                        }
                    }
                }
                None => {
                    return Err(self.err(
                        vars,
                        "`vars` must be an array of names",
                        "not an array",
                        HELP,
                    ))
                }
            }
        }
        if let Some(params) = top.get("params").and_then(|p| p.as_array()) {
            let names: Vec<&str> = params.iter().filter_map(|p| p.as_str()).collect();
            if !names.is_empty() {
                t.note(format!(
                    "ITF parameters {} are read as variables of each state",
                    names.join(", ")
                ));
            }
        }
        let Some(states) = top.get("states") else {
            return Err(TraceError::NotATrace {
                name: self.name.to_string(),
                message: "the JSON object has no `states`".into(),
                src: source(self.name, self.text),
                span: span_in(self.text, top.span.start, 1),
                label: "this object".into(),
            });
        };
        let Some(states) = states.as_array() else {
            return Err(self.err(states, "`states` must be an array", "not an array", HELP));
        };
        let mut map_states = false;
        for (k, s) in states.iter().enumerate() {
            let Json::Object(members) = &s.value else {
                return Err(self.err(
                    s,
                    format!("a state is an object, not {}", s.kind()),
                    "not a state",
                    HELP,
                ));
            };
            let mut action = None;
            let mut vars = Vec::new();
            for (key, v) in members {
                match key.as_str() {
                    "#meta" => {
                        if let Some(idx) = v.get("index").and_then(|i| match &i.value {
                            Json::Number(n) => n.parse::<usize>().ok(),
                            _ => None,
                        }) {
                            if idx != k {
                                t.note(format!("state {k} says its #meta.index is {idx}; states are taken in file order"));
                            }
                        }
                        if let Some(name) = v.get("action").and_then(|a| a.as_str()) {
                            action = Some(ActionLabel {
                                name: name.to_string(),
                                module: v
                                    .get("actionModule")
                                    .and_then(|m| m.as_str())
                                    .map(str::to_string),
                                line: v.get("actionLine").and_then(|l| match &l.value {
                                    Json::Number(n) => n.parse().ok(),
                                    _ => None,
                                }),
                            });
                        }
                    }
                    "#map" => {
                        // Quint Rust simulator: the state is a map from variable names to values.
                        map_states = true;
                        let TlaValue::Record(m) = self.tagged(s, "#map", v, HELP)? else {
                            if v.as_array().is_some_and(|a| a.is_empty()) {
                                continue;
                            }
                            return Err(self.err(
                                v,
                                "a state's `#map` must map variable names (strings)",
                                "not a map from names",
                                HELP,
                            ));
                        };
                        for (n, val) in m {
                            // A second `#map` member (or a name also given as a member) assigns it again.
                            self.assign(&mut vars, n, val, v)?;
                        }
                    }
                    _ => {
                        if vars.iter().any(|(n, _, _)| n == key) {
                            // Refused before its value is read: the error is about the name.
                            return Err(self.assigned_twice(key, v));
                        }
                        let val = self.value(v)?;
                        self.assign(&mut vars, key.clone(), val, v)?;
                    }
                }
            }
            if action.is_none() {
                // Quint `--mbt` records the action taken as a variable.
                if let Some(TlaValue::Str(a)) = vars
                    .iter()
                    .find(|(n, _, _)| n == "mbt::actionTaken")
                    .map(|(_, v, _)| v)
                {
                    action = Some(ActionLabel {
                        name: a.clone(),
                        module: None,
                        line: None,
                    });
                }
            }
            if !var_order.is_empty() {
                vars.sort_by_key(|(n, _, _)| {
                    var_order.iter().position(|v| v == n).unwrap_or(usize::MAX)
                });
            }
            t.push_state(TraceState {
                number: k + 1,
                action,
                vars: vars
                    .into_iter()
                    .map(|(n, v, span)| (n.into(), Arc::new(v), span))
                    .collect(),
                span: span_in(self.text, s.span.start, s.span.end - s.span.start),
            });
        }
        if map_states {
            t.note("states are written as one `#map` from variable names to values (Quint Rust simulator), not as ITF objects");
        }
        if let Some(l) = top.get("loop") {
            match &l.value {
                Json::Null => {}
                Json::Number(n) => match n.parse::<usize>() {
                    Ok(i) if i < t.states.len() => t.back_to_state = Some(i),
                    _ => t.note(format!("`loop` {n} is not the index of a state; ignored")),
                },
                _ => {
                    return Err(self.err(l, "`loop` must be a state index", "not an integer", HELP))
                }
            }
        }
        if self.plain_ints {
            t.note("integers are plain JSON numbers, not {\"#bigint\": ...} (non-conformant ITF, accepted)");
        }
        if self.unserializable > 0 {
            t.note(format!(
                "{} values were unserializable for the tool that wrote the trace; they are kept as text",
                self.unserializable
            ));
        }
        if t.states.is_empty() {
            return Err(TraceError::NotATrace {
                name: self.name.to_string(),
                message: "the ITF trace has no states".into(),
                src: source(self.name, self.text),
                span: span_in(self.text, top.span.start, 1),
                label: "this trace".into(),
            });
        }
        t.check_variables_agree();
        Ok(t)
    }

    fn read_meta(&mut self, meta: &Spanned, t: &mut Trace) {
        let Json::Object(members) = &meta.value else {
            t.note(format!("#meta is {}, not an object; ignored", meta.kind()));
            return;
        };
        for (k, v) in members {
            let text = || self.text[v.span.clone()].to_string();
            match (k.as_str(), &v.value) {
                ("format" | "format-description" | "timestamp", _) => {}
                ("source", Json::String(s)) => {
                    let stem = s.strip_suffix(".tla").or_else(|| s.strip_suffix(".qnt"));
                    match stem {
                        Some(m) if !m.is_empty() => {
                            t.module = Some(m.rsplit(['/', '\\']).next().unwrap_or(m).to_string())
                        }
                        _ => t.note(format!("ITF source: {s}")),
                    }
                }
                ("source", Json::Null) => {}
                ("description", Json::String(s)) => t.note(format!("ITF description: {s}")),
                ("varTypes", Json::Object(types)) => {
                    if !types.is_empty() {
                        let list: Vec<String> = types
                            .iter()
                            .map(|(n, ty)| format!("{n}: {}", ty.as_str().unwrap_or("?")))
                            .collect();
                        t.note(format!("ITF variable types: {}", list.join(", ")));
                    }
                }
                (META_KEY, Json::Object(_)) => self.read_own_meta(v, t),
                _ => t.note(format!("ITF #meta {k}: {}", text())),
            }
        }
    }

    /// What [`to_itf`] wrote under `x-ozone-conform`.
    fn read_own_meta(&mut self, v: &Spanned, t: &mut Trace) {
        if let Some(viol) = v.get("violation") {
            let kind = match viol.get("kind").and_then(|k| k.as_str()) {
                Some("Invariant") => ViolationKind::Invariant,
                Some("ActionProperty") => ViolationKind::ActionProperty,
                Some("TemporalProperty") => ViolationKind::TemporalProperty,
                Some("Deadlock") => ViolationKind::Deadlock,
                Some("Assertion") => ViolationKind::Assertion,
                _ => ViolationKind::Other,
            };
            t.violation = Some(TraceViolation {
                kind,
                name: viol
                    .get("name")
                    .and_then(|n| n.as_str())
                    .map(str::to_string),
                message: viol
                    .get("message")
                    .and_then(|n| n.as_str())
                    .unwrap_or("")
                    .to_string(),
            });
        }
        if let Some(Json::Bool(b)) = v.get("stuttering").map(|s| &s.value) {
            t.stuttering = *b;
        }
        if let Some(m) = v.get("module").and_then(|m| m.as_str()) {
            t.module = Some(m.to_string());
        }
        if let Some(notes) = v.get("notes").and_then(|n| n.as_array()) {
            for n in notes.iter().filter_map(|n| n.as_str()) {
                t.note(n);
            }
        }
    }
}

/// Reads a JSON trace file: one ITF trace, a JSON array of them, or a `-dumpTrace json` file.
pub(crate) fn read_json_traces(name: &str, text: &str) -> Result<Vec<Trace>, TraceError> {
    let start = text.len() - text.trim_start_matches('\u{feff}').len();
    let top = json::parse(&text[start..]).map_err(|e| {
        let offset = start + e.offset;
        if e.at_end {
            super::trace::truncated_error(
                name,
                text,
                format!("cannot read the JSON trace: {}", e.message),
                "the file seems cut off; an ITF trace ends with `]}`",
            )
        } else {
            super::trace::syntax_error(
                name,
                text,
                offset,
                e.len.max(1),
                format!("cannot read the JSON trace: {}", e.message),
                "here",
                "the file starts like JSON (ITF or -dumpTrace json) but is not valid JSON",
            )
        }
    })?;
    let shift = |mut s: Spanned| {
        shift_spans(&mut s, start);
        s
    };
    let top = shift(top);
    if super::dump_json::is_dump(&top) {
        return Ok(vec![super::dump_json::read_dump(name, text, &top)?]);
    }
    let mut r = Reader {
        name,
        text,
        plain_ints: false,
        unserializable: 0,
    };
    match &top.value {
        Json::Array(items) => {
            if items.is_empty() {
                return Err(TraceError::NotATrace {
                    name: name.to_string(),
                    message: "the JSON array is empty".into(),
                    src: source(name, text),
                    span: span_in(text, top.span.start, 2),
                    label: "no traces".into(),
                });
            }
            items.iter().map(|t| r.trace(t)).collect()
        }
        _ => Ok(vec![r.trace(&top)?]),
    }
}

fn shift_spans(s: &mut Spanned, by: usize) {
    if by == 0 {
        return;
    }
    s.span = s.span.start + by..s.span.end + by;
    match &mut s.value {
        Json::Array(a) => a.iter_mut().for_each(|v| shift_spans(v, by)),
        Json::Object(m) => m.iter_mut().for_each(|(_, v)| shift_spans(v, by)),
        _ => {}
    }
}

/// Writes one value as ITF, collecting what may not read back the same.
fn value_to_itf(v: &TlaValue, notes: &mut Vec<String>) -> Value {
    let mut note = |n: String| {
        if !notes.contains(&n) {
            notes.push(n);
        }
    };
    match v {
        TlaValue::Bool(b) => Value::Bool(*b),
        TlaValue::Int(n) => json!({"#bigint": n.to_string()}),
        TlaValue::Str(s) => {
            if model_value_of_string(s).is_some() {
                note(format!("the string {s:?} looks like an Apalache uninterpreted constant and reads back as a model value"));
            }
            Value::String(s.clone())
        }
        TlaValue::ModelValue(m) => {
            if is_uninterpreted(m) && !m.ends_with(MODEL_SUFFIX) {
                Value::String(m.clone())
            } else {
                Value::String(format!("{m}{MODEL_SUFFIX}"))
            }
        }
        TlaValue::Set(items) => {
            json!({"#set": items.iter().map(|x| value_to_itf(x, notes)).collect::<Vec<_>>()})
        }
        TlaValue::Seq(items) => {
            Value::Array(items.iter().map(|x| value_to_itf(x, notes)).collect())
        }
        TlaValue::Record(m) => {
            if m.len() == 2
                && matches!(m.get("tag"), Some(TlaValue::Str(_)))
                && m.contains_key("value")
            {
                note("a record with just the fields `tag` (a string) and `value` reads back as a Quint variant".into());
            }
            if m.keys().any(|k| k.starts_with('#')) {
                // An ITF object with a `#` member is one of ITF's own forms (`#bigint`, `#set`, ...), so
                // such a record would not read back at all: it is written as the function of strings it also
                // is (what `-dumpTrace json` makes of a function over strings, `[d1 |-> ..]`).
                note("a record with a field starting with `#` is written as an ITF `#map` over strings and reads back as a function".into());
                return json!({"#map": m
                    .iter()
                    .map(|(k, x)| Value::Array(vec![Value::String(k.clone()), value_to_itf(x, notes)]))
                    .collect::<Vec<_>>()});
            }
            let mut out = Map::new();
            for (k, x) in m {
                out.insert(k.clone(), value_to_itf(x, notes));
            }
            Value::Object(out)
        }
        TlaValue::Function(pairs) => json!({"#map": pairs
            .iter()
            .map(|(k, x)| Value::Array(vec![value_to_itf(k, notes), value_to_itf(x, notes)]))
            .collect::<Vec<_>>()}),
        TlaValue::Variant { tag, value } => {
            json!({"tag": tag, "value": value_to_itf(value, notes)})
        }
        TlaValue::Unserializable(s) => json!({"#unserializable": s}),
    }
}

fn kind_name(k: ViolationKind) -> &'static str {
    match k {
        ViolationKind::Invariant => "Invariant",
        ViolationKind::ActionProperty => "ActionProperty",
        ViolationKind::TemporalProperty => "TemporalProperty",
        ViolationKind::Deadlock => "Deadlock",
        ViolationKind::Assertion => "Assertion",
        ViolationKind::Other => "Other",
    }
}

/// The trace as conformant ITF. Sequences are written as JSON arrays (never `#tup`: TLA+ values cannot
/// tell tuples from sequences); see the module doc for model values and for what goes in `#meta`.
pub fn to_itf(trace: &Trace) -> Value {
    to_itf_with_notes(trace).0
}

/// [`to_itf`], and notes on what may not read back as it was.
pub fn to_itf_with_notes(trace: &Trace) -> (Value, Vec<String>) {
    let (doc, notes) = itf_document(trace);
    let value = serde_json::to_value(&doc).expect("an ITF document is plain JSON");
    (value, notes)
}

/// The trace as an ITF document that builds each state's JSON only while it is written
/// (`serde_json::to_writer(w, &doc)`): the JSON tree of a long trace is many times the trace itself. It
/// serializes exactly as [`to_itf`]'s value does (members in `serde_json::Map`'s sorted order).
pub struct ItfDocument<'a> {
    trace: &'a Trace,
    /// Every top-level member but `states`.
    head: Map<String, Value>,
}

impl serde::Serialize for ItfDocument<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(Some(self.head.len() + 1))?;
        let mut states_written = false;
        for (k, v) in &self.head {
            if !states_written && k.as_str() > "states" {
                map.serialize_entry("states", &ItfStates(self.trace))?;
                states_written = true;
            }
            map.serialize_entry(k, v)?;
        }
        if !states_written {
            map.serialize_entry("states", &ItfStates(self.trace))?;
        }
        map.end()
    }
}

struct ItfStates<'a>(&'a Trace);

impl serde::Serialize for ItfStates<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = ser.serialize_seq(Some(self.0.states.len()))?;
        // The notes were collected when the document was made.
        let mut notes = Vec::new();
        for (k, s) in self.0.states.iter().enumerate() {
            seq.serialize_element(&state_to_itf(k, s, &mut notes))?;
            notes.clear();
        }
        seq.end()
    }
}

/// One state as an ITF object: `#meta` (index, action) and its variables.
fn state_to_itf(k: usize, s: &TraceState, notes: &mut Vec<String>) -> Value {
    let mut meta = Map::new();
    meta.insert("index".into(), json!(k));
    if let Some(a) = &s.action {
        meta.insert("action".into(), json!(a.name));
        if let Some(m) = &a.module {
            meta.insert("actionModule".into(), json!(m));
        }
        if let Some(l) = a.line {
            meta.insert("actionLine".into(), json!(l));
        }
    }
    if s.number != k + 1 {
        notes.push(format!(
            "state {} is written as ITF state index {k}",
            s.number
        ));
    }
    let mut obj = Map::new();
    obj.insert("#meta".into(), Value::Object(meta));
    for (n, v, _) in &s.vars {
        obj.insert(n.to_string(), value_to_itf(v, notes));
    }
    Value::Object(obj)
}

/// [`ItfDocument`] for `trace`, and the notes on what may not read back as it was. The notes go in the
/// document's `#meta`, written before the states, so this first pass converts each state and drops it.
pub fn itf_document(trace: &Trace) -> (ItfDocument<'_>, Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    for (k, s) in trace.states.iter().enumerate() {
        drop(state_to_itf(k, s, &mut notes));
    }
    if trace
        .states
        .iter()
        .flat_map(|s| &s.vars)
        .any(|(_, v, _)| has_model_value(v))
    {
        notes.push(format!(
            "model values are written as Apalache uninterpreted constants: `m` becomes \"m{MODEL_SUFFIX}\""
        ));
    }
    let mut own = Map::new();
    own.insert("from".into(), json!(trace.format.name()));
    if let Some(m) = &trace.module {
        own.insert("module".into(), json!(m));
    }
    if let Some(v) = &trace.violation {
        own.insert(
            "violation".into(),
            json!({"kind": kind_name(v.kind), "name": v.name, "message": v.message}),
        );
    }
    if trace.stuttering {
        own.insert("stuttering".into(), json!(true));
    }
    if !trace.notes.is_empty() {
        own.insert("notes".into(), json!(trace.notes));
    }
    let mut description = format!("Converted by ozone-conform from {}", trace.format.name());
    if let Some(v) = &trace.violation {
        description.push_str(&format!("; violation: {}", v.message));
    }
    if trace.stuttering {
        description.push_str("; the behaviour ends in stuttering");
    }
    for n in trace.notes.iter().chain(&notes) {
        description.push_str("; ");
        description.push_str(n);
    }
    let mut meta = Map::new();
    meta.insert("format".into(), json!("ITF"));
    meta.insert("format-description".into(), json!(FORMAT_DESCRIPTION));
    if let Some(m) = &trace.module {
        meta.insert("source".into(), json!(format!("{m}.tla")));
    }
    meta.insert("description".into(), json!(description));
    meta.insert(META_KEY.into(), Value::Object(own));
    let mut top = Map::new();
    top.insert("#meta".into(), Value::Object(meta));
    top.insert("vars".into(), json!(trace.variables()));
    if let Some(l) = trace.back_to_state {
        top.insert("loop".into(), json!(l));
    }
    (ItfDocument { trace, head: top }, notes)
}

fn has_model_value(v: &TlaValue) -> bool {
    match v {
        TlaValue::ModelValue(_) => true,
        TlaValue::Set(x) | TlaValue::Seq(x) => x.iter().any(has_model_value),
        TlaValue::Record(m) => m.values().any(has_model_value),
        TlaValue::Function(p) => p
            .iter()
            .any(|(k, v)| has_model_value(k) || has_model_value(v)),
        TlaValue::Variant { value, .. } => has_model_value(value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::*;

    fn read(text: &str) -> Trace {
        let mut f = read_trace_str("t.itf.json", text.to_string()).unwrap();
        assert_eq!(f.traces.len(), 1);
        f.traces.remove(0)
    }

    #[test]
    fn reads_every_tag_meta_loop_and_uninterpreted_constants() {
        let t = read(
            r##"{"#meta":{"format":"ITF","source":"M.tla","description":"d","varTypes":{"x":"Int"}},
            "params":["p"], "vars":["x","y"], "loop": 1,
            "states":[{"#meta":{"index":0},"y":{"#set":["a_OF_A",{"#bigint":"-3"}]},"x":{"#tup":[true,"s"]}},
                      {"#meta":{"index":1,"action":"Step"},"x":{"#map":[[{"#bigint":"1"},2]]},"y":{"#unserializable":"Nat"}}]}"##,
        );
        assert_eq!(t.format, TraceFormat::Itf);
        assert_eq!(t.module.as_deref(), Some("M"));
        assert_eq!(t.back_to_state, Some(1));
        assert_eq!(t.variables(), ["x", "y"]);
        assert_eq!(
            t.var(0, "y"),
            Some(&TlaValue::set([
                TlaValue::model("a_OF_A"),
                TlaValue::int(-3)
            ]))
        );
        assert_eq!(
            t.var(0, "x"),
            Some(&TlaValue::seq([TlaValue::Bool(true), TlaValue::str("s")]))
        );
        assert_eq!(t.var(1, "x"), Some(&TlaValue::seq([TlaValue::int(2)])));
        assert_eq!(t.var(1, "y"), Some(&TlaValue::Unserializable("Nat".into())));
        assert_eq!(t.states[1].action.as_ref().unwrap().name, "Step");
        for word in [
            "description: d",
            "x: Int",
            "parameters p",
            "plain JSON",
            "unserializable",
        ] {
            assert!(
                t.notes.iter().any(|n| n.contains(word)),
                "{word}: {:?}",
                t.notes
            );
        }
    }

    #[test]
    fn quint_variants_unit_and_map_states() {
        let t = read(
            r##"{"vars":["v"],"states":[{"v":{"tag":"None","value":{}}},{"v":{"tag":"Some","value":{"#bigint":"40"}}}]}"##,
        );
        assert_eq!(
            t.var(1, "v"),
            Some(&TlaValue::Variant {
                tag: "Some".into(),
                value: Box::new(TlaValue::int(40))
            })
        );
        let t = read(
            r##"{"#meta":{"format":null},"vars":[],"loop":null,"states":[{"#meta":{"index":0},"#map":[["n",1]]}]}"##,
        );
        assert_eq!(t.var(0, "n"), Some(&TlaValue::int(1)));
        assert!(t.notes.iter().any(|n| n.contains("Rust simulator")));
    }

    #[test]
    fn unknown_tag_and_bad_bigint_are_errors_at_the_value() {
        let text = r##"{"vars":["x"],"states":[{"x":{"#bag":[1]}}]}"##;
        match read_trace_str("t", text.into()).unwrap_err() {
            TraceError::Itf { span, message, .. } => {
                assert_eq!(span.offset(), text.find(r##"{"#bag"##).unwrap());
                assert!(message.contains("#bag"));
            }
            e => panic!("{e:?}"),
        }
        let e =
            read_trace_str("t", r##"{"states":[{"x":{"#bigint":"1e3"}}]}"##.into()).unwrap_err();
        assert!(matches!(e, TraceError::Itf { .. }));
        let e = read_trace_str("t", r##"{"states":[{"x":{"#bigint":"1"}}"##.into()).unwrap_err();
        assert!(matches!(e, TraceError::Truncated { .. }), "{e:?}");
    }

    /// The same in the Quint Rust simulator's `#map` states, given twice in one state (the `itf` fuzz
    /// target's second finding: both maps' variables were kept).
    #[test]
    fn a_variable_twice_in_a_map_state_is_an_error_at_the_second() {
        let text = r##"{"vars":[],"states":[{"#map":[["n",3]],"#map":[["n",5]]}]}"##;
        match read_trace_str("t", text.into()).unwrap_err() {
            TraceError::Itf { span, message, .. } => {
                assert!(message.contains("`n` is assigned twice"), "{message}");
                assert_eq!(span.offset(), text.rfind("[[").unwrap());
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn a_variable_twice_in_a_state_is_an_error_at_the_second() {
        // Found by the `itf` fuzz target: the reader kept both, the writer one, so a trace did not read back.
        let text = r##"{"vars":["x"],"states":[{"x":0,"x":1}]}"##;
        match read_trace_str("t", text.into()).unwrap_err() {
            TraceError::Itf { span, message, .. } => {
                assert!(message.contains("`x` is assigned twice"), "{message}");
                assert_eq!(span.offset(), text.find(":1}").unwrap() + 1);
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn writer_writes_conformant_tags_and_model_values_round_trip() {
        let mut t = Trace::new(TraceFormat::TlcText);
        t.states.push(TraceState {
            number: 1,
            action: Some(ActionLabel {
                name: "Next".into(),
                module: Some("M".into()),
                line: Some(3),
            }),
            vars: vec![(
                "f".into(),
                TlaValue::function([(TlaValue::model("s1"), TlaValue::set([TlaValue::int(7)]))])
                    .into(),
                (0, 0).into(),
            )],
            span: (0, 0).into(),
        });
        t.back_to_state = Some(0);
        let v = to_itf(&t);
        assert_eq!(v["#meta"]["format"], "ITF");
        assert_eq!(v["loop"], 0);
        assert_eq!(v["states"][0]["#meta"]["action"], "Next");
        assert_eq!(
            v["states"][0]["f"],
            json!({"#map": [["s1_OF_MODEL", {"#set": [{"#bigint": "7"}]}]]})
        );
        let back = read(&v.to_string());
        assert_eq!(back.states[0].vars[0].1, t.states[0].vars[0].1);
        assert_eq!(back.states[0].action, t.states[0].action);
    }

    /// A record with a `#` field (what `-dumpTrace json` reads from `{"#1": ..}`) cannot be an ITF object,
    /// whose `#` members are ITF's own forms: it is written as a `#map` over strings, which reads back, as a
    /// function, and the conversion says so (the `dump_json` fuzz target's finding: the ITF did not read).
    #[test]
    fn a_record_with_a_hash_field_is_written_as_a_map_that_reads_back() {
        let mut t = Trace::new(TraceFormat::TlcText);
        let record = TlaValue::Record(
            [
                ("#1".to_string(), TlaValue::int(2)),
                ("d2".to_string(), TlaValue::int(0)),
            ]
            .into_iter()
            .collect(),
        );
        t.states.push(TraceState {
            number: 1,
            action: None,
            vars: vec![("applied".into(), record.into(), (0, 0).into())],
            span: (0, 0).into(),
        });
        let (v, notes) = to_itf_with_notes(&t);
        assert_eq!(
            v["states"][0]["applied"],
            json!({"#map": [["#1", {"#bigint": "2"}], ["d2", {"#bigint": "0"}]]})
        );
        assert!(
            notes.iter().any(|n| n.contains("reads back as a function")),
            "{notes:?}"
        );
        let back = read(&v.to_string());
        assert_eq!(
            back.states[0].vars[0].1,
            TlaValue::function([
                (TlaValue::str("#1"), TlaValue::int(2)),
                (TlaValue::str("d2"), TlaValue::int(0)),
            ])
            .into()
        );
    }
}
