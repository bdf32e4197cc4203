//! TLC model configuration files (`.cfg`): `SPECIFICATION`, `INIT`/`NEXT`, `CONSTANT(S)` with `Name = value`
//! (bare identifiers are model values, so `NoNode = NoNode` assigns a model value) and `Name <- Op`,
//! `INVARIANT(S)`, `PROPERTY(IES)`, `CONSTRAINT(S)`, `ACTION_CONSTRAINT(S)`, `SYMMETRY`, `VIEW`, `ALIAS`,
//! `POSTCONDITION`, `CHECK_DEADLOCK`, with `\*` and (nested) `(* *)` comments.

use super::tla_expr::{self, is_identifier};
use super::trace::{source, span_in, TraceError};
/// Constant assignments, as a TLC config gives them (`Nodes = {s1, s2}` makes a set of model values).
pub type Constants = std::collections::BTreeMap<String, crate::tla::value::TlaValue>;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TlcConfig {
    /// `Name = value` assignments.
    pub constants: Constants,
    /// `Name <- Op` substitutions (also `Name <- [Mod] Op`, kept as `[Mod] Op`).
    pub substitutions: Vec<(String, String)>,
    pub specification: Option<String>,
    pub init: Option<String>,
    pub next: Option<String>,
    pub invariants: Vec<String>,
    pub properties: Vec<String>,
    pub constraints: Vec<String>,
    pub action_constraints: Vec<String>,
    pub symmetry: Option<String>,
    pub view: Option<String>,
    pub alias: Option<String>,
    pub postcondition: Option<String>,
    pub check_deadlock: Option<bool>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Constants,
    Invariants,
    Properties,
    Constraints,
    ActionConstraints,
}

const HELP: &str = "a TLC config has sections SPECIFICATION, INIT, NEXT, CONSTANTS (Name = value or Name <- Op), INVARIANTS, PROPERTIES, CONSTRAINTS, SYMMETRY, VIEW, CHECK_DEADLOCK";

/// `text` with comments blanked out (same length, newlines kept), or the offset of an unclosed `(*`.
fn strip_comments(text: &str) -> Result<String, usize> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        if in_string {
            if b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == b'"' || b[i] == b'\n' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if b[i] == b'"' {
            in_string = true;
            i += 1;
        } else if b[i..].starts_with(b"\\*") {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i..].starts_with(b"(*") {
            let open = i;
            let mut depth = 0;
            loop {
                if i >= b.len() {
                    return Err(open);
                }
                if b[i..].starts_with(b"(*") {
                    depth += 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                } else if b[i..].starts_with(b"*)") {
                    depth -= 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] != b'\n' && b[i] != b'\r' {
                        out[i] = b' ';
                    }
                    i += 1;
                }
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces... except inside comments, where multi-byte characters
    // became several spaces; the result is still valid UTF-8.
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Parses a TLC config.
pub fn parse_cfg(name: &str, text: &str) -> Result<TlcConfig, TraceError> {
    let err = |offset: usize, len: usize, message: String, label: &str| TraceError::Config {
        message,
        src: source(name, text),
        span: span_in(text, offset, len),
        label: label.into(),
        help: HELP.into(),
    };
    let clean = strip_comments(text)
        .map_err(|o| err(o, 2, "unclosed `(*` comment".into(), "opened here"))?;
    let s = clean.as_bytes();
    let mut cfg = TlcConfig::default();
    let mut section = Section::None;
    let mut pos = 0;
    let skip_ws = |pos: &mut usize| {
        while *pos < s.len() && s[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    };
    let word = |pos: &mut usize| -> (usize, String) {
        let start = *pos;
        while *pos < s.len() && (s[*pos].is_ascii_alphanumeric() || s[*pos] == b'_') {
            *pos += 1;
        }
        (start, clean[start..*pos].to_string())
    };
    loop {
        skip_ws(&mut pos);
        if pos >= s.len() {
            break;
        }
        let (at, w) = word(&mut pos);
        if w.is_empty() {
            let len = clean[at..].chars().next().map_or(1, char::len_utf8);
            return Err(err(
                at,
                len,
                "unexpected character in the config".into(),
                "here",
            ));
        }
        let single = |pos: &mut usize, what: &str| -> Result<String, TraceError> {
            skip_ws(pos);
            let (a, n) = word(pos);
            if is_identifier(&n) {
                Ok(n)
            } else {
                Err(err(a, 1, format!("{what} needs a name"), "expected a name"))
            }
        };
        match w.as_str() {
            "SPECIFICATION" => cfg.specification = Some(single(&mut pos, "SPECIFICATION")?),
            "INIT" => cfg.init = Some(single(&mut pos, "INIT")?),
            "NEXT" => cfg.next = Some(single(&mut pos, "NEXT")?),
            "SYMMETRY" => cfg.symmetry = Some(single(&mut pos, "SYMMETRY")?),
            "VIEW" => cfg.view = Some(single(&mut pos, "VIEW")?),
            "ALIAS" => cfg.alias = Some(single(&mut pos, "ALIAS")?),
            "POSTCONDITION" => cfg.postcondition = Some(single(&mut pos, "POSTCONDITION")?),
            "CHECK_DEADLOCK" => {
                let v = single(&mut pos, "CHECK_DEADLOCK")?;
                cfg.check_deadlock = match v.as_str() {
                    "TRUE" => Some(true),
                    "FALSE" => Some(false),
                    _ => {
                        return Err(err(
                            pos - v.len(),
                            v.len(),
                            "CHECK_DEADLOCK takes TRUE or FALSE".into(),
                            "not TRUE or FALSE",
                        ))
                    }
                };
                section = Section::None;
            }
            "CONSTANT" | "CONSTANTS" => section = Section::Constants,
            "INVARIANT" | "INVARIANTS" => section = Section::Invariants,
            "PROPERTY" | "PROPERTIES" => section = Section::Properties,
            "CONSTRAINT" | "CONSTRAINTS" => section = Section::Constraints,
            "ACTION_CONSTRAINT" | "ACTION_CONSTRAINTS" => section = Section::ActionConstraints,
            _ => match section {
                Section::None => {
                    return Err(err(
                        at,
                        w.len(),
                        format!("`{w}` is not a config keyword"),
                        "unknown keyword",
                    ))
                }
                Section::Invariants => cfg.invariants.push(w),
                Section::Properties => cfg.properties.push(w),
                Section::Constraints => cfg.constraints.push(w),
                Section::ActionConstraints => cfg.action_constraints.push(w),
                Section::Constants => {
                    skip_ws(&mut pos);
                    if clean[pos..].starts_with("<-") {
                        pos += 2;
                        skip_ws(&mut pos);
                        let mut module = String::new();
                        if s.get(pos) == Some(&b'[') {
                            let close =
                                clean[pos..].find(']').map(|c| pos + c + 1).ok_or_else(|| {
                                    err(
                                        pos,
                                        1,
                                        "unclosed `[` in a substitution".into(),
                                        "opened here",
                                    )
                                })?;
                            module = format!("{} ", &clean[pos..close]);
                            pos = close;
                            skip_ws(&mut pos);
                        }
                        let (a, op) = word(&mut pos);
                        if !is_identifier(&op) {
                            return Err(err(
                                a,
                                1,
                                format!("`{w} <-` needs an operator name"),
                                "expected a name",
                            ));
                        }
                        cfg.substitutions.push((w, format!("{module}{op}")));
                    } else if s.get(pos) == Some(&b'=') {
                        pos += 1;
                        let (v, end) = tla_expr::parse_value_prefix(&clean, pos, clean.len())
                            .map_err(|e| {
                                err(
                                    e.offset,
                                    e.len.max(1),
                                    format!(
                                        "cannot read the value of constant `{w}`: {}",
                                        e.message
                                    ),
                                    "here",
                                )
                            })?;
                        if cfg.constants.insert(w.clone(), v).is_some() {
                            return Err(err(
                                at,
                                w.len(),
                                format!("constant `{w}` is assigned twice"),
                                "again here",
                            ));
                        }
                        pos = end;
                    } else {
                        return Err(err(
                            pos.min(s.len()),
                            1,
                            format!("expected `=` or `<-` after constant `{w}`"),
                            "here",
                        ));
                    }
                }
            },
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::super::value::TlaValue;
    use super::*;

    #[test]
    fn reads_sections_constants_model_values_and_comments() {
        let text = "\\* comment INIT Wrong\n(* block (* nested *) INVARIANT Nope *)\nSPECIFICATION Spec\nCONSTANTS\n    Nodes = {s1, s2}\r\n    NoNode = NoNode\n    Max = -2 Flag = FALSE\n    Op <- MCOp\n    Other <- [M] Def\nINVARIANT TypeOK Inv2\nINVARIANTS Inv3\nPROPERTIES Live\nCHECK_DEADLOCK FALSE\nCONSTANT Str = \"a \\\" (* b\"\n";
        let c = parse_cfg("x.cfg", text).unwrap();
        assert_eq!(c.specification.as_deref(), Some("Spec"));
        assert_eq!(c.init, None);
        assert_eq!(
            c.constants["Nodes"],
            TlaValue::set([TlaValue::model("s1"), TlaValue::model("s2")])
        );
        assert_eq!(c.constants["NoNode"], TlaValue::model("NoNode"));
        assert_eq!(c.constants["Max"], TlaValue::int(-2));
        assert_eq!(c.constants["Flag"], TlaValue::Bool(false));
        assert_eq!(c.constants["Str"], TlaValue::str("a \" (* b"));
        assert_eq!(
            c.substitutions,
            [
                ("Op".to_string(), "MCOp".to_string()),
                ("Other".into(), "[M] Def".into())
            ]
        );
        assert_eq!(c.invariants, ["TypeOK", "Inv2", "Inv3"]);
        assert_eq!(c.properties, ["Live"]);
        assert_eq!(c.check_deadlock, Some(false));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = parse_cfg("x.cfg", "CONSTANTS\n  N = {1, 2\nINVARIANT I\n").unwrap_err();
        assert!(matches!(e, TraceError::Config { .. }));
        let e = parse_cfg("x.cfg", "FOO Bar\n").unwrap_err();
        match e {
            TraceError::Config { span, .. } => assert_eq!(span.offset(), 0),
            e => panic!("{e:?}"),
        }
        assert!(parse_cfg("x.cfg", "(* open").is_err());
        assert!(parse_cfg("x.cfg", "CONSTANTS N 3").is_err());
    }
}
