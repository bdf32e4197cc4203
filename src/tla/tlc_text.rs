//! TLC's console output, plain and `-tool`: the error header, `State N: <label>` (or `N: <label>` in `-tool`
//! mode), `/\ var = value` lines (or one `var = value` for single-variable specs), `Back to state`,
//! `Stuttering`, several traces from one `-continue` run, and any text around them (banners, progress,
//! coverage, a shell prompt or `Process exited ...`). LF, CRLF and mixed line endings.
//!
//! In `-tool` mode the `@!@!@STARTMSG code:class @!@!@` framing ends state blocks and marks error
//! messages (class 1), which TLC then prints without the `Error: ` prefix.

use super::tla_expr::{self, is_identifier};
use super::trace::{
    expr_error, source, span_in, syntax_error, ActionLabel, StateVar, Trace, TraceError,
    TraceFormat, TraceState, TraceViolation, ViolationKind,
};
use regex::Regex;
use std::sync::{Arc, OnceLock};

struct Line<'a> {
    start: usize,
    /// Text without the line ending.
    text: &'a str,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let body = piece.trim_end_matches('\n').trim_end_matches('\r');
        out.push(Line { start, text: body });
        start += piece.len();
    }
    out
}

struct Patterns {
    label: Regex,
    back: Regex,
    location: Regex,
    invariant: Regex,
    action_prop: Regex,
    temporal: Regex,
    startmsg: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        label: Regex::new(r"^(?:State |STATE )?(\d{1,9}): (.*)$").expect("regex"),
        back: Regex::new(
            r"^(?:(?:State |STATE )?(\d{1,9}): )?Back to state:? ?(\d{1,9})?:? ?(.*)$",
        )
        .expect("regex"),
        location: Regex::new(
            r"^<(.*?) line (\d+), col (\d+) to line (\d+), col (\d+) of module ([^ >]+)>$",
        )
        .expect("regex"),
        invariant: Regex::new(r"^Invariant (\S+) is violated").expect("regex"),
        action_prop: Regex::new(r"^Action property (\S+) is violated").expect("regex"),
        temporal: Regex::new(r"^Temporal propert(?:y|ies)(?: (\S+))? (?:was|were) violated")
            .expect("regex"),
        startmsg: Regex::new(r"^@!@!@STARTMSG (\d+):(\d+) @!@!@").expect("regex"),
    })
}

/// What a state label line says.
enum Label {
    State(usize, Option<ActionLabel>, bool /* located */),
    Stuttering,
    BackTo(usize, String),
}

fn parse_label(name: &str, text: &str, line: &Line<'_>) -> Result<Option<Label>, TraceError> {
    let p = patterns();
    let l = line.text;
    if l.contains("Back to state") {
        if let Some(c) = p.back.captures(l) {
            let prefix = c.get(1).and_then(|m| m.as_str().parse::<usize>().ok());
            let inner = c.get(2).and_then(|m| m.as_str().parse::<usize>().ok());
            if let Some(n) = inner.or(prefix) {
                return Ok(Some(Label::BackTo(n, c[3].to_string())));
            }
        }
    }
    let Some(c) = p.label.captures(l) else {
        return Ok(None);
    };
    let n: usize = c[1].parse().unwrap_or(0);
    let rest = c.get(2).map(|m| m.as_str().trim_end()).unwrap_or("");
    if rest == "Stuttering" {
        return Ok(Some(Label::Stuttering));
    }
    if !rest.starts_with('<') {
        return Ok(None);
    }
    let rest_at = line.start + c.get(2).map(|m| m.start()).unwrap_or(0);
    if !rest.ends_with('>') {
        return Err(syntax_error(
            name,
            text,
            rest_at,
            rest.len(),
            format!("state {n}'s label is not closed with `>`"),
            "this label",
            "TLC prints labels as `<Action line L, col C to line L2, col C2 of module M>`",
        ));
    }
    if rest == "<Initial predicate>" {
        return Ok(Some(Label::State(n, None, false)));
    }
    if let Some(m) = p.location.captures(rest) {
        return Ok(Some(Label::State(
            n,
            Some(ActionLabel {
                name: m[1].to_string(),
                module: Some(m[6].to_string()),
                line: m[2].parse().ok(),
            }),
            true,
        )));
    }
    Ok(Some(Label::State(
        n,
        Some(ActionLabel {
            name: rest[1..rest.len() - 1].to_string(),
            module: None,
            line: None,
        }),
        false,
    )))
}

/// Classifies an error message line (without `Error: `).
fn violation_of(line: &str) -> Option<TraceViolation> {
    let p = patterns();
    let line = line.trim();
    let (kind, name) = if let Some(c) = p.invariant.captures(line) {
        (ViolationKind::Invariant, Some(c[1].to_string()))
    } else if let Some(c) = p.action_prop.captures(line) {
        (ViolationKind::ActionProperty, Some(c[1].to_string()))
    } else if let Some(c) = p.temporal.captures(line) {
        (
            ViolationKind::TemporalProperty,
            c.get(1).map(|m| m.as_str().to_string()),
        )
    } else if line.starts_with("Deadlock reached") {
        (ViolationKind::Deadlock, None)
    } else if line.starts_with("The first argument of Assert evaluated to FALSE")
        || line.starts_with("Assertion failed")
    {
        (ViolationKind::Assertion, None)
    } else {
        return None;
    };
    Some(TraceViolation {
        kind,
        name,
        message: line.to_string(),
    })
}

fn is_behaviour_intro(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("The behavior up to this point is")
        || l.starts_with("The following behavior constitutes a counter-example")
        || l.starts_with("The error occurred when TLC was evaluating")
}

struct Builder {
    format: TraceFormat,
    done: Vec<Trace>,
    cur: Option<Trace>,
    located_labels: bool,
}

impl Builder {
    fn finish(&mut self) {
        if let Some(mut t) = self.cur.take() {
            if t.states.is_empty() {
                // A header with no behaviour (e.g. TLC stopped before printing it): keep it as a note.
                if let Some(v) = &t.violation {
                    let msg = format!("TLC reported `{}` but printed no states for it", v.message);
                    if let Some(prev) = self.done.last_mut() {
                        prev.note(msg);
                    }
                }
                return;
            }
            if self.located_labels {
                t.note("action labels' columns and end positions (`col C to line L2, col C2`) are not kept, only the start line");
            }
            t.module = t
                .states
                .iter()
                .find_map(|s| s.action.as_ref().and_then(|a| a.module.clone()));
            t.check_variables_agree();
            self.done.push(t);
        }
        self.located_labels = false;
    }

    fn on_violation(&mut self, v: TraceViolation) {
        match &mut self.cur {
            Some(t) if t.states.is_empty() => match &mut t.violation {
                None => t.violation = Some(v),
                Some(existing) if v.kind == ViolationKind::Other => {
                    existing.message.push('\n');
                    existing.message.push_str(&v.message);
                }
                Some(existing) => {
                    let old = std::mem::replace(existing, v);
                    t.note(format!(
                        "an earlier error header was replaced: {}",
                        old.message
                    ));
                }
            },
            _ => {
                self.finish();
                let mut t = Trace::new(self.format);
                t.violation = Some(v);
                self.cur = Some(t);
            }
        }
    }

    fn cur_for_state(&mut self, number: usize) -> &mut Trace {
        let restart = match &self.cur {
            Some(t) => t.states.last().is_some_and(|s| number <= s.number),
            None => true,
        };
        if restart {
            if self.cur.as_ref().is_some_and(|t| t.states.is_empty()) {
                // keep the pending header
            } else {
                self.finish();
                self.cur = Some(Trace::new(self.format));
            }
        }
        self.cur
            .get_or_insert_with(|| Trace::new(TraceFormat::TlcText))
    }
}

/// Reads every trace in a TLC output.
pub fn read_tlc_output(name: &str, text: &str) -> Result<Vec<Trace>, TraceError> {
    let tool = text.contains("@!@!@STARTMSG");
    let format = if tool {
        TraceFormat::TlcTool
    } else {
        TraceFormat::TlcText
    };
    let ls = lines(text);
    let mut b = Builder {
        format,
        done: Vec::new(),
        cur: None,
        located_labels: false,
    };
    let mut msg: Option<(u32, u32)> = None;
    let mut msg_first = false;
    let mut completed_no_error: Option<String> = None;
    let mut i = 0;
    while i < ls.len() {
        let line = &ls[i];
        let l = line.text;
        i += 1;
        if let Some(c) = patterns().startmsg.captures(l) {
            msg = Some((c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0)));
            msg_first = true;
            continue;
        }
        if l.starts_with("@!@!@ENDMSG") {
            msg = None;
            continue;
        }
        let first_of_msg = std::mem::replace(&mut msg_first, false);
        let trimmed = l.trim();
        if trimmed.is_empty() {
            continue;
        }
        // Error headers.
        let error_text = l
            .strip_prefix("Error: ")
            .or_else(|| (first_of_msg && msg.is_some_and(|(_, class)| class == 1)).then_some(l));
        if let Some(et) = error_text {
            if is_behaviour_intro(et) {
                continue;
            }
            let mut v = violation_of(et).unwrap_or(TraceViolation {
                kind: ViolationKind::Other,
                name: None,
                message: et.trim().to_string(),
            });
            if v.kind == ViolationKind::Assertion {
                if let Some(next) = ls.get(i) {
                    let n = next.text.trim();
                    if !n.is_empty() && !n.starts_with("@!@!@") && !n.starts_with("Error: ") {
                        v.message.push('\n');
                        v.message.push_str(n);
                        i += 1;
                    }
                }
            }
            b.on_violation(v);
            continue;
        }
        if let Some(v) = violation_of(l) {
            // Headers printed without `Error: ` outside a class-1 message (old TLCs, pasted fragments).
            b.on_violation(v);
            continue;
        }
        if trimmed.starts_with("Model checking completed. No error has been found")
            && (!b.done.is_empty() || b.cur.is_some())
        {
            completed_no_error = Some(trimmed.to_string());
            continue;
        }
        let Some(label) = parse_label(name, text, line)? else {
            continue;
        };
        match label {
            Label::Stuttering => match &mut b.cur {
                Some(t) if !t.states.is_empty() => t.stuttering = true,
                _ => {
                    return Err(syntax_error(
                        name,
                        text,
                        line.start,
                        l.len(),
                        "`Stuttering` before any state",
                        "here",
                        "a behaviour can end in stuttering only after its states",
                    ))
                }
            },
            Label::BackTo(n, action) => {
                let Some(t) = b.cur.as_mut().filter(|t| !t.states.is_empty()) else {
                    return Err(syntax_error(
                        name,
                        text,
                        line.start,
                        l.len(),
                        "`Back to state` before any state",
                        "here",
                        "a lasso can loop back only after its states",
                    ));
                };
                match t.states.iter().position(|s| s.number == n) {
                    Some(idx) => t.back_to_state = Some(idx),
                    None => t.note(format!(
                        "TLC loops back to state {n}, which is not among the {} states printed",
                        t.states.len()
                    )),
                }
                let action = action.trim();
                if !action.is_empty() {
                    t.note(format!(
                        "the loop back to state {n} is taken by action {action}, which has no state of its own here"
                    ));
                }
            }
            Label::State(n, action, located) => {
                // The state's block: following lines up to a blank line, framing, or the next label.
                let block_start = ls.get(i).map(|l| l.start).unwrap_or(text.len());
                let mut j = i;
                while j < ls.len() {
                    let t = ls[j].text;
                    if t.trim().is_empty()
                        || t.starts_with("@!@!@")
                        || t.starts_with("Error: ")
                        || patterns().label.is_match(t) && t.contains(": <")
                    {
                        break;
                    }
                    j += 1;
                }
                let block_end = if j < ls.len() {
                    ls[j].start
                } else {
                    text.len()
                };
                i = j;
                let vars = parse_block(name, text, block_start, block_end)?;
                let state_end = text[..block_end].trim_end().len().max(line.start + l.len());
                if located {
                    b.located_labels = true;
                }
                let t = b.cur_for_state(n);
                t.push_state(TraceState {
                    number: n,
                    action,
                    vars,
                    span: span_in(text, line.start, state_end - line.start),
                });
            }
        }
    }
    if let Some(m) = completed_no_error {
        if let Some(t) = b.cur.as_mut().or(b.done.last_mut()) {
            t.note(format!(
                "after the traces TLC printed `{m}` (TLC does so after a -continue run)"
            ));
        }
    }
    b.finish();
    if tool && msg.is_some() {
        if let Some(t) = b.done.last_mut() {
            t.note("the output ends inside a -tool message: the file may be cut off");
        }
    }
    if b.done.is_empty() {
        if text.contains("Model checking completed. No error has been found.") {
            return Err(TraceError::NoErrorFound {
                name: name.to_string(),
            });
        }
        let (offset, len, label) = match text.find("No error has been found") {
            Some(o) => (o, "No error has been found".len(), "TLC found no error"),
            None => (
                0,
                text.len().min(1),
                "no `State 1:` (or `1:` in -tool output) anywhere",
            ),
        };
        return Err(TraceError::NotATrace {
            name: name.to_string(),
            message: "no TLC states were found".into(),
            src: source(name, text),
            span: span_in(text, offset, len),
            label: label.into(),
        });
    }
    Ok(b.done)
}

/// Parses `/\ x = v` lines (or one `x = v`) in `text[start..end]`.
pub(crate) fn parse_block(
    name: &str,
    text: &str,
    start: usize,
    end: usize,
) -> Result<Vec<StateVar>, TraceError> {
    let block = &text[start..end];
    if block.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Chunk starts: lines beginning with `/\`.
    let mut starts = Vec::new();
    let mut off = start;
    for piece in block.split_inclusive('\n') {
        if piece.trim_start().starts_with("/\\") && piece.len() - piece.trim_start().len() == 0 {
            starts.push(off);
        }
        off += piece.len();
    }
    if starts.is_empty() {
        // Single-variable spec: `x = v` without `/\ `.
        starts.push(start + (block.len() - block.trim_start().len()));
    } else if text[start..starts[0]].trim() != "" {
        let lead = start + (block.len() - block.trim_start().len());
        return Err(syntax_error(
            name,
            text,
            lead,
            text[lead..starts[0]].trim_end().len(),
            "expected `/\\ variable = value` in a state",
            "not a variable assignment",
            "each variable of a state is printed as `/\\ name = value`",
        ));
    }
    let mut vars: Vec<StateVar> = Vec::new();
    for (k, &cs) in starts.iter().enumerate() {
        let ce = starts.get(k + 1).copied().unwrap_or(end);
        let mut pos = cs;
        if text[pos..ce].starts_with("/\\") {
            pos += 2;
        }
        let s = text.as_bytes();
        while pos < ce && matches!(s[pos], b' ' | b'\t') {
            pos += 1;
        }
        let name_start = pos;
        while pos < ce && (s[pos].is_ascii_alphanumeric() || s[pos] == b'_') {
            pos += 1;
        }
        let var = &text[name_start..pos];
        while pos < ce && matches!(s[pos], b' ' | b'\t') {
            pos += 1;
        }
        if !is_identifier(var) || pos >= ce || s[pos] != b'=' {
            let mut e = name_start;
            while e < ce && s[e] != b'\n' && s[e] != b'\r' {
                e += 1;
            }
            return Err(syntax_error(
                name,
                text,
                name_start,
                e - name_start,
                "expected `variable = value`",
                "not a variable assignment",
                "each variable of a state is printed as `/\\ name = value`",
            ));
        }
        pos += 1;
        let (value, vend) =
            tla_expr::parse_value_prefix(text, pos, ce).map_err(|e| expr_error(name, text, e))?;
        let rest = &text[vend..ce];
        if !rest.trim().is_empty() {
            let lead = vend + (rest.len() - rest.trim_start().len());
            return Err(syntax_error(
                name,
                text,
                lead,
                rest.trim().len().min(40),
                format!("unexpected text after the value of `{var}`"),
                "not part of the value",
                "a value ends where the next `/\\ ` line, a blank line or the state's end begins",
            ));
        }
        if vars.iter().any(|(n, _, _)| &**n == var) {
            return Err(syntax_error(
                name,
                text,
                name_start,
                var.len(),
                format!("variable `{var}` appears twice in one state"),
                "again here",
                "a state assigns each variable once",
            ));
        }
        vars.push((var.into(), Arc::new(value), span_in(text, cs, vend - cs)));
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::super::value::TlaValue;
    use super::*;

    fn read(text: &str) -> Vec<Trace> {
        read_trace_str("t", text.to_string()).unwrap().traces
    }

    const PLAIN: &str = "TLC2 Version 2.18\nError: Invariant Inv is violated.\nError: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n/\\ s = {}\n\nState 2: <Add(n1) line 6, col 11 to line 6, col 53 of module Demo>\n/\\ x = 1\n/\\ s = {n1}\n\n10 states generated\n";

    #[test]
    fn plain_output_with_invariant_and_action_labels() {
        let t = read(PLAIN);
        assert_eq!(t.len(), 1);
        let t = &t[0];
        assert_eq!(t.format, TraceFormat::TlcText);
        assert_eq!(t.violation.as_ref().unwrap().kind, ViolationKind::Invariant);
        assert_eq!(t.violation.as_ref().unwrap().name.as_deref(), Some("Inv"));
        assert_eq!(t.states.len(), 2);
        assert_eq!(t.states[0].action, None);
        let a = t.states[1].action.as_ref().unwrap();
        assert_eq!(
            (a.name.as_str(), a.module.as_deref(), a.line),
            ("Add(n1)", Some("Demo"), Some(6))
        );
        assert_eq!(t.module.as_deref(), Some("Demo"));
        assert_eq!(t.var(1, "s"), Some(&TlaValue::set([TlaValue::model("n1")])));
        assert_eq!(t.variables(), ["x", "s"]);
        // The var span covers `/\ x = 1`.
        let (_, _, sp) = &t.states[1].vars[0];
        assert_eq!(&PLAIN[sp.offset()..sp.offset() + sp.len()], "/\\ x = 1");
    }

    #[test]
    fn crlf_and_mixed_endings_read_the_same() {
        let crlf = PLAIN.replace('\n', "\r\n");
        assert_eq!(read(&crlf)[0].states.len(), 2);
        let mixed: String = PLAIN
            .split_inclusive('\n')
            .enumerate()
            .map(|(k, l)| {
                if k % 2 == 0 {
                    l.replace('\n', "\r\n")
                } else {
                    l.to_string()
                }
            })
            .collect();
        let (a, b) = (read(&mixed), read(PLAIN));
        assert_eq!(a[0].var(1, "s"), b[0].var(1, "s"));
        assert_eq!(a[0].violation, b[0].violation);
    }

    #[test]
    fn tool_mode_framing_headers_without_error_prefix_and_lasso() {
        let text = "@!@!@STARTMSG 2116:1 @!@!@\nTemporal properties were violated.\n\n@!@!@ENDMSG 2116 @!@!@\n@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = 0\n\n@!@!@ENDMSG 2217 @!@!@\n@!@!@STARTMSG 2217:4 @!@!@\n2: <Next line 3, col 1 to line 3, col 9 of module M>\n/\\ x = 1\n@!@!@ENDMSG 2217 @!@!@\n@!@!@STARTMSG 2122:4 @!@!@\n1: Back to state: <Next line 3, col 1 to line 3, col 9 of module M>\n\n@!@!@ENDMSG 2122 @!@!@\n@!@!@STARTMSG 2773:0 @!@!@\n<Init line 42, col 1 to line 42, col 4 of module wire>: 50:50\n@!@!@ENDMSG 2773 @!@!@\n";
        let t = &read(text)[0];
        assert_eq!(t.format, TraceFormat::TlcTool);
        assert_eq!(
            t.violation.as_ref().unwrap().kind,
            ViolationKind::TemporalProperty
        );
        assert_eq!(t.states.len(), 2);
        assert_eq!(t.back_to_state, Some(0));
        assert!(
            t.notes.iter().any(|n| n.contains("loop back to state 1")),
            "{:?}",
            t.notes
        );
    }

    #[test]
    fn plain_back_to_state_and_stuttering() {
        let text = "Error: Temporal properties were violated.\n\nState 1: <Initial predicate>\n/\\ b = <<>>\n\nState 2: <Next line 5, col 1 to line 5, col 2 of module Q>\n/\\ b = <<p2>>\n\nState 3: <Next line 5, col 1 to line 5, col 2 of module Q>\n/\\ b = <<p2, p3>>\n\nBack to state 2: <Next line 5, col 1 to line 5, col 2 of module Q>\n\n";
        let t = &read(text)[0];
        assert_eq!(t.back_to_state, Some(1));
        assert!(!t.stuttering);
        let text = "Error: Temporal properties were violated.\nState 1: <Initial predicate>\n/\\ b = 1\n\nState 2: Stuttering\n";
        let t = &read(text)[0];
        assert!(t.stuttering);
        assert_eq!(t.states.len(), 1);
    }

    #[test]
    fn single_variable_states_without_conjunction() {
        let text = "Invariant inv is violated.\n1: <Initial predicate>\ninjug = (big :> 0 @@ small :> 0)\n\n2: <Action line 40, col 12 to line 41, col 58 of module DieHarder>\ninjug = (big :> 5 @@\n  small :> 0)\n\n";
        let t = &read(text)[0];
        assert_eq!(t.states.len(), 2);
        assert_eq!(
            t.var(1, "injug")
                .and_then(|f| f.apply(&TlaValue::model("big"))),
            Some(&TlaValue::int(5))
        );
        assert_eq!(t.states[1].action.as_ref().unwrap().name, "Action");
    }

    #[test]
    fn continue_runs_give_one_trace_per_header_and_deadlock_and_assertion() {
        let one = "Error: Invariant Inv is violated.\nError: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n\nState 2: <N line 1, col 1 to line 1, col 2 of module M>\n/\\ x = 1\n\n";
        let text = format!("{one}{one}Model checking completed. No error has been found.\n");
        let t = read(&text);
        assert_eq!(t.len(), 2);
        assert!(t[1]
            .notes
            .iter()
            .any(|n| n.contains("No error has been found")));
        let t = read("Error: Deadlock reached.\nState 1: <Initial predicate>\n/\\ x = 0\n");
        assert_eq!(
            t[0].violation.as_ref().unwrap().kind,
            ViolationKind::Deadlock
        );
        let t = read("Error: The first argument of Assert evaluated to FALSE; the second argument was:\n\"boom\"\nError: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n");
        let v = t[0].violation.as_ref().unwrap();
        assert_eq!(v.kind, ViolationKind::Assertion);
        assert!(v.message.ends_with("\"boom\""), "{v:?}");
    }

    #[test]
    fn simulation_init_label_and_text_around() {
        let text = "% curl -N -X POST https://x\nRunning Random Simulation with seed 1\nError: Invariant Inv is violated.\nState 1: <Init line 214, col 5 to line 229, col 22 of module staking>\n/\\ x = -3\n\nState 2: <Next line 483, col 5 to line 495, col 57 of module staking>\n/\\ x = 4\n\nProcess exited with code 12\n";
        let t = &read(text)[0];
        assert_eq!(t.states[0].action.as_ref().unwrap().name, "Init");
        assert_eq!(t.var(0, "x"), Some(&TlaValue::int(-3)));
    }

    #[test]
    fn truncated_value_is_an_error_at_the_end_and_bad_value_points_at_it() {
        let e =
            read_trace_str("t", "State 1: <Initial predicate>\n/\\ x = {1, 2".into()).unwrap_err();
        assert!(matches!(e, TraceError::Truncated { .. }), "{e:?}");
        let e = read_trace_str(
            "t",
            "State 1: <Initial predicate>\n/\\ x = {1, ?}\n\n".into(),
        )
        .unwrap_err();
        match e {
            TraceError::Syntax { span, .. } => assert_eq!(span.offset(), 40),
            e => panic!("{e:?}"),
        }
        // Cut between states: accepted, with a note that a variable is missing.
        let t = read("State 1: <Initial predicate>\n/\\ x = 1\n/\\ y = 2\n\nState 2: <A line 1, col 1 to line 1, col 1 of module M>\n/\\ x = 1\n");
        assert!(
            t[0].notes.iter().any(|n| n.contains("same variables")),
            "{:?}",
            t[0].notes
        );
    }

    #[test]
    fn no_trace_is_an_error_and_no_error_found_is_its_own() {
        let e = read_trace_str(
            "t",
            "Model checking completed. No error has been found.\n".into(),
        )
        .unwrap_err();
        assert!(matches!(e, TraceError::NoErrorFound { .. }), "{e:?}");
        let e = read_trace_str("t", "Starting... (2026-12-02 11:37:00)\n".into()).unwrap_err();
        assert!(matches!(e, TraceError::NotATrace { .. }), "{e:?}");
    }
}
