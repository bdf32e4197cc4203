//! TLC `-dumpTrace json` files. TLC (2.19/2.20, tla2tools 1.8.0) writes `JsonSerialize(CounterExample)`, a
//! record of two sets, on one line:
//! `{"action": [[[i, {..}], {"name", "location", "context"?, "parameters"?}, [j, {..}]], ..], "state": [[i, {..}], ..]}`
//! (see `traces/*/tlc/bug.dump.json`). It has no list of variables: a state's members come in TLC's own
//! order, not the spec's. `state` and `action` are TLA+ sets, so their order is TLC's; states are put in
//! order of their numbers here. A `{"counterexample": {..}, "vars": [..]}` wrapper (the shape our notes
//! once described, which no TLC we have run writes) is read too.
//!
//! The format writes sets and sequences both as arrays, functions over model values or strings as
//! objects (like records), and model values and strings both as strings, so values are read
//! best-effort: arrays as sequences, objects as records, strings as strings, and every trace read this
//! way carries a note saying so. `trace` compares such traces leniently (see `mirror::replay`).

use super::json::{Json, Spanned};
use super::trace::{
    source, span_in, ActionLabel, StateVar, Trace, TraceError, TraceFormat, TraceState,
    TraceViolation, ViolationKind,
};
use super::value::TlaValue;
use num_bigint::BigInt;
use std::sync::Arc;

const HELP: &str = "-dumpTrace json writes {\"action\": [[[1, {..}], {\"name\": ..}, [2, {..}]], ..], \"state\": [[1, {..}], ..]}";

/// Whether a JSON document is a `-dumpTrace json` file rather than ITF: a `counterexample` wrapper, or
/// a top-level `state` array (ITF has `states`).
pub(crate) fn is_dump(top: &Spanned) -> bool {
    top.get("counterexample").is_some()
        || (top.get("states").is_none() && top.get("state").and_then(|s| s.as_array()).is_some())
}

/// A numbered state's variables as JSON members.
type Members<'j> = &'j [(String, Spanned)];

struct Reader<'a> {
    name: &'a str,
    text: &'a str,
}

impl Reader<'_> {
    fn err(&self, at: &Spanned, message: impl Into<String>, label: &str) -> TraceError {
        TraceError::Itf {
            message: message.into(),
            src: source(self.name, self.text),
            span: span_in(
                self.text,
                at.span.start,
                (at.span.end - at.span.start).min(200),
            ),
            label: label.into(),
            help: HELP.into(),
        }
    }

    fn value(&self, j: &Spanned) -> Result<TlaValue, TraceError> {
        Ok(match &j.value {
            Json::Null => return Err(self.err(j, "null is not a TLA+ value", "null")),
            Json::Bool(b) => TlaValue::Bool(*b),
            Json::Number(n) => match n.parse::<BigInt>() {
                Ok(i) => TlaValue::Int(i),
                Err(_) => {
                    return Err(self.err(j, format!("{n} is not an integer"), "not an integer"))
                }
            },
            Json::String(s) => TlaValue::Str(s.clone()),
            Json::Array(a) => {
                TlaValue::Seq(a.iter().map(|v| self.value(v)).collect::<Result<_, _>>()?)
            }
            Json::Object(m) => {
                let mut fields = Vec::with_capacity(m.len());
                for (k, v) in m {
                    fields.push((k.clone(), self.value(v)?));
                }
                TlaValue::record(fields)
            }
        })
    }

    /// `[i, {vars}]`
    fn indexed_state<'j>(&self, j: &'j Spanned) -> Result<(usize, Members<'j>), TraceError> {
        if let Some([i, s]) = j.as_array() {
            if let (Json::Number(n), Json::Object(m)) = (&i.value, &s.value) {
                if let Ok(n) = n.parse::<usize>() {
                    return Ok((n, m));
                }
            }
        }
        Err(self.err(
            j,
            "expected a state `[number, {variables}]`",
            "not a numbered state",
        ))
    }
}

pub(crate) fn read_dump(name: &str, text: &str, top: &Spanned) -> Result<Trace, TraceError> {
    let r = Reader { name, text };
    let mut t = Trace::new(TraceFormat::TlcDumpJson);
    let ce = top.get("counterexample").unwrap_or(top);
    let Some(states) = ce.get("state").and_then(|s| s.as_array()) else {
        return Err(r.err(
            ce,
            "the counterexample has no `state` array",
            "this counterexample",
        ));
    };
    let order: Vec<&str> = top
        .get("vars")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    for s in states {
        let (n, members) = r.indexed_state(s)?;
        let mut vars: Vec<StateVar> = Vec::with_capacity(members.len());
        for (k, v) in members {
            if !super::tla_expr::is_identifier(k) {
                // TLC names its variables; `#meta` would also be taken for ITF's own member on conversion.
                return Err(r.err(
                    v,
                    format!(
                        "`{k}` in state {n} is not a TLA+ variable name (letters, digits and `_`)"
                    ),
                    "this variable",
                ));
            }
            if vars.iter().any(|(n, _, _)| &**n == k.as_str()) {
                return Err(r.err(
                    v,
                    format!("variable `{k}` is assigned twice in state {n}"),
                    "again here",
                ));
            }
            vars.push((
                k.as_str().into(),
                Arc::new(r.value(v)?),
                span_in(text, v.span.start, v.span.end - v.span.start),
            ));
        }
        if !order.is_empty() {
            vars.sort_by_key(|(k, _, _)| {
                order.iter().position(|o| *o == &**k).unwrap_or(usize::MAX)
            });
        }
        if t.states.iter().any(|s| s.number == n) {
            return Err(r.err(s, format!("state {n} appears twice"), "again here"));
        }
        t.push_state(TraceState {
            number: n,
            action: None,
            vars,
            span: span_in(text, s.span.start, s.span.end - s.span.start),
        });
    }
    t.states.sort_by_key(|s| s.number);
    if t.states.is_empty() {
        return Err(TraceError::NotATrace {
            name: name.to_string(),
            message: "the counterexample has no states".into(),
            src: source(name, text),
            span: span_in(text, ce.span.start, 1),
            label: "this counterexample".into(),
        });
    }
    for a in ce.get("action").and_then(|a| a.as_array()).unwrap_or(&[]) {
        let Some([from, info, to]) = a.as_array() else {
            return Err(r.err(
                a,
                "expected an action `[[i, {..}], {name, location}, [j, {..}]]`",
                "not an action",
            ));
        };
        let (i, _) = r.indexed_state(from)?;
        let (j, _) = r.indexed_state(to)?;
        let name = info
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        let loc = info.get("location");
        let label = ActionLabel {
            name: name.clone(),
            module: loc
                .and_then(|l| l.get("module"))
                .and_then(|m| m.as_str())
                .map(str::to_string),
            line: loc
                .and_then(|l| l.get("beginLine"))
                .and_then(|b| match &b.value {
                    Json::Number(n) => n.parse().ok(),
                    _ => None,
                }),
        };
        if let Some(Json::Object(ctx)) = info.get("context").map(|c| &c.value) {
            if !ctx.is_empty() {
                let params: Vec<String> = ctx
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", &text[v.span.clone()]))
                    .collect();
                t.note(format!(
                    "action {name} into state {j} was taken with {}",
                    params.join(", ")
                ));
            }
        }
        if j <= i {
            // The closing edge of a lasso.
            match t.states.iter().position(|s| s.number == j) {
                Some(idx) => t.back_to_state = Some(idx),
                None => t.note(format!(
                    "action {name} loops back to state {j}, which is not in the trace"
                )),
            }
            t.note(format!("the loop back to state {j} is taken by action {name}, which has no state of its own here"));
        } else if let Some(s) = t.states.iter_mut().find(|s| s.number == j) {
            s.action = Some(label);
        }
    }
    t.module = t
        .states
        .iter()
        .find_map(|s| s.action.as_ref().and_then(|a| a.module.clone()));
    // TLC dumps the trace only when it has a counterexample, but the file does not say of what.
    t.violation = Some(TraceViolation {
        kind: ViolationKind::Other,
        name: None,
        message: "TLC wrote this -dumpTrace json file for a counterexample; the file does not say what was violated".into(),
    });
    t.note("-dumpTrace json cannot tell sets from sequences nor model values from strings: arrays are read as sequences, strings as strings, objects as records");
    t.check_variables_agree();
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::*;

    /// The shape TLC 2.20 writes (`JsonSerialize(CounterExample)`): no wrapper, no `vars`, members in TLC's
    /// order, `state` and `action` as sets (here out of order on purpose).
    #[test]
    fn reads_states_actions_and_lasso() {
        let text = r#"{"action":[[[2,{"s":["n1"],"x":1}],{"name":"Reset","location":{"beginLine":9,"module":"Demo"}},[1,{"s":[],"x":0}]],[[1,{"s":[],"x":0}],{"name":"Add","location":{"beginLine":6,"beginColumn":11,"endLine":6,"endColumn":53,"module":"Demo"},"context":{"n":"n1"},"parameters":["n"]},[2,{"s":["n1"],"x":1}]]],"state":[[2,{"s":["n1"],"x":1}],[1,{"s":[],"x":0}]]}"#;
        let t = &read_trace_str("d.json", text.into()).unwrap().traces[0];
        assert_eq!(t.format, TraceFormat::TlcDumpJson);
        assert_eq!(t.states.len(), 2);
        assert_eq!(
            t.states.iter().map(|s| s.number).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!(t.variables(), ["s", "x"]);
        assert_eq!(t.var(1, "s"), Some(&TlaValue::seq([TlaValue::str("n1")])));
        let a = t.states[1].action.as_ref().unwrap();
        assert_eq!(
            (a.name.as_str(), a.line, a.module.as_deref()),
            ("Add", Some(6), Some("Demo"))
        );
        assert_eq!(t.back_to_state, Some(0));
        let v = t.violation.as_ref().unwrap();
        assert_eq!((v.kind, v.name.as_deref()), (ViolationKind::Other, None));
        assert!(t.notes.iter().any(|n| n.contains("cannot tell sets")));
        assert!(
            t.notes.iter().any(|n| n.contains("n = \"n1\"")),
            "{:?}",
            t.notes
        );
    }

    #[test]
    fn reads_the_counterexample_wrapper_with_vars_too() {
        let text =
            r#"{"counterexample":{"action":[],"state":[[1,{"s":[],"x":0}]]},"vars":["x","s"]}"#;
        let t = &read_trace_str("d.json", text.into()).unwrap().traces[0];
        assert_eq!(t.format, TraceFormat::TlcDumpJson);
        assert_eq!(t.variables(), ["x", "s"]);
    }

    #[test]
    fn itf_is_not_taken_for_a_dump() {
        let text = r#"{"vars":["x"],"states":[{"x":1}],"state":[]}"#;
        let t = &read_trace_str("d.json", text.into()).unwrap().traces[0];
        assert_eq!(t.format, TraceFormat::Itf);
    }

    #[test]
    fn a_variable_twice_in_a_state_is_an_error_at_the_second() {
        let text = r#"{"action":[],"state":[[1,{"x":0,"x":1}]]}"#;
        match read_trace_str("d.json", text.into()).unwrap_err() {
            TraceError::Itf { span, message, .. } => {
                assert!(
                    message.contains("`x` is assigned twice in state 1"),
                    "{message}"
                );
                assert_eq!(span.offset(), text.find(":1}").unwrap() + 1);
            }
            e => panic!("{e:?}"),
        }
    }

    /// The `dump_json` fuzz target's second finding: a state member `#meta` was read as a variable, and ITF,
    /// where `#meta` is the state's metadata, lost it on conversion.
    #[test]
    fn a_state_member_that_is_no_tla_variable_name_is_an_error_at_it() {
        for name in ["#meta", "", "a b", "_"] {
            let text = format!(r#"{{"action":[],"state":[[1,{{"x":0,"{name}":1}}]]}}"#);
            match read_trace_str("d.json", text.clone()).unwrap_err() {
                TraceError::Itf { span, message, .. } => {
                    assert!(message.contains("is not a TLA+ variable name"), "{message}");
                    assert_eq!(span.offset(), text.find(":1}").unwrap() + 1, "{name:?}");
                }
                e => panic!("{name:?}: {e:?}"),
            }
        }
    }

    #[test]
    fn a_state_twice_is_an_error() {
        let text = r#"{"action":[],"state":[[1,{"x":0}],[1,{"x":1}]]}"#;
        let e = read_trace_str("d.json", text.into()).unwrap_err();
        assert!(e.to_string().contains("state 1 appears twice"), "{e}");
    }
}
