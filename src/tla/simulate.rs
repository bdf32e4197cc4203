//! TLC `-simulate file=` dumps: a module `---- MODULE /abs/path/trace_0_0 ----` of `STATE_k == /\ x = ...`
//! definitions, ended by `====`. They carry no action names and no violation.

use super::tlc_text::parse_block;
use super::trace::{source, span_in, syntax_error, Trace, TraceError, TraceFormat, TraceState};

/// Reads one simulation dump.
pub fn read_simulate(name: &str, text: &str) -> Result<Trace, TraceError> {
    let mut t = Trace::new(TraceFormat::TlcSimulate);
    // (number, label line start, body start, body end)
    let mut defs: Vec<(usize, usize, usize)> = Vec::new();
    let mut end_of_module = None;
    let mut off = 0;
    let mut header_seen = false;
    for piece in text.split_inclusive('\n') {
        let line = piece.trim_end_matches(['\n', '\r']);
        let start = off;
        off += piece.len();
        let l = line.trim();
        if !header_seen && l.starts_with("----") && l.contains(" MODULE ") {
            header_seen = true;
            let inner = l.trim_matches('-').trim();
            if let Some(path) = inner.strip_prefix("MODULE ") {
                let path = path.trim();
                let last = path.rsplit(['/', '\\']).next().unwrap_or(path);
                if !last.is_empty() {
                    t.module = Some(last.to_string());
                }
            }
            continue;
        }
        if l.starts_with("====") {
            end_of_module = Some(start);
            break;
        }
        if let Some(rest) = line.strip_prefix("STATE_") {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let after = rest[digits.len()..].trim_start();
            match digits.parse::<usize>() {
                Ok(n) if after.starts_with("==") => defs.push((n, start, start + line.len())),
                _ => {
                    return Err(syntax_error(
                        name,
                        text,
                        start,
                        line.len(),
                        "expected `STATE_k ==`",
                        "not a state definition",
                        "a -simulate dump defines its states as `STATE_1 == /\\ x = ...`",
                    ))
                }
            }
        }
    }
    let body_limit = end_of_module.unwrap_or(text.len());
    for (k, &(n, label_start, label_end)) in defs.iter().enumerate() {
        let body_end = defs.get(k + 1).map(|d| d.1).unwrap_or(body_limit);
        // The definition's body may start on the `STATE_k ==` line itself.
        let eq = text[label_start..label_end]
            .find("==")
            .map(|p| label_start + p + 2)
            .unwrap_or(label_end);
        let vars = parse_block(name, text, eq, body_end)?;
        let end = label_start + text[label_start..body_end].trim_end().len();
        t.push_state(TraceState {
            number: n,
            action: None,
            vars,
            span: span_in(text, label_start, end - label_start),
        });
    }
    if t.states.is_empty() {
        return Err(TraceError::NotATrace {
            name: name.to_string(),
            message: "the module defines no `STATE_k ==`".into(),
            src: source(name, text),
            span: span_in(text, 0, text.len().min(1)),
            label: "no states in this module".into(),
        });
    }
    if end_of_module.is_none() {
        t.note("the module has no closing `====` line: the dump may be cut off");
    }
    t.note("a -simulate dump names no actions: states have no action labels");
    t.check_variables_agree();
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::super::value::TlaValue;
    use super::*;

    #[test]
    fn reads_state_definitions_and_module_name() {
        let text = "---- MODULE /x/y/trace_0_3 ----\r\nSTATE_1 == \r\n/\\ a = 0\r\n/\\ b = <<>>\r\n\r\n\r\nSTATE_2 == \n/\\ a = 1\n/\\ b = <<[op |-> \"F\"]>>\n\n=====\n";
        let f = read_trace_str("t", text.into()).unwrap();
        let t = &f.traces[0];
        assert_eq!(t.format, TraceFormat::TlcSimulate);
        assert_eq!(t.module.as_deref(), Some("trace_0_3"));
        assert_eq!(t.states.len(), 2);
        assert_eq!(t.states[1].number, 2);
        assert_eq!(t.var(1, "a"), Some(&TlaValue::int(1)));
        assert!(t.states.iter().all(|s| s.action.is_none()));
    }

    #[test]
    fn cut_dump_is_noted_and_cut_value_is_an_error() {
        let f = read_trace_str("t", "---- MODULE m ----\nSTATE_1 ==\n/\\ a = 0\n".into()).unwrap();
        assert!(f.traces[0].notes.iter().any(|n| n.contains("cut off")));
        let e =
            read_trace_str("t", "---- MODULE m ----\nSTATE_1 ==\n/\\ a = {0,".into()).unwrap_err();
        assert!(matches!(e, TraceError::Truncated { .. }), "{e:?}");
        let e = read_trace_str("t", "---- MODULE m ----\n====\n".into()).unwrap_err();
        assert!(matches!(e, TraceError::NotATrace { .. }));
    }
}
