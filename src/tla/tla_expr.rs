//! A parser of TLA+ values as TLC prints them: integers of any size, strings with escapes, `TRUE`/`FALSE`,
//! model values (bare identifiers), `{...}`, `<<...>>` (also `<< >>`), records `[a |-> 1]`, functions
//! `(k :> v @@ k2 :> v2)` and bare `k :> v`, integer intervals `a..b`, spread over any number of lines with
//! LF, CRLF or mixed line endings.
//!
//! Hand-written recursive descent over bytes; offsets in errors are absolute byte offsets into the text
//! given, so callers can label the bad bytes. Nesting is bounded by [`MAX_DEPTH`].

use super::value::TlaValue;
use num_bigint::BigInt;

/// Deepest nesting accepted; deeper input is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 200;
/// Largest interval `a..b` expanded into a set.
const MAX_INTERVAL: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// Absolute byte offset of the bad bytes.
    pub offset: usize,
    pub len: usize,
    pub message: String,
    /// The text ended inside the value (a truncated trace).
    pub at_end: bool,
    /// When the value ended too early: the offset of the innermost bracket left open.
    pub open: Option<usize>,
}

/// Parses the whole of `text` (surrounding whitespace allowed) as one value.
pub fn parse_value(text: &str) -> Result<TlaValue, ExprError> {
    let (v, end) = parse_value_prefix(text, 0, text.len())?;
    let mut p = Parser::new(text, end, text.len());
    p.ws();
    if p.pos < p.end {
        return Err(p.err("unexpected text after the value", p.token_len()));
    }
    Ok(v)
}

/// Parses one value in `text[start..end]`, returning it and the offset just after it (whitespace before the
/// value is skipped, after it is not).
pub fn parse_value_prefix(
    text: &str,
    start: usize,
    end: usize,
) -> Result<(TlaValue, usize), ExprError> {
    let mut p = Parser::new(text, start, end.min(text.len()));
    p.ws();
    let v = p.expr(0)?;
    Ok((v, p.pos))
}

/// Is `s` a TLA+ identifier as TLC prints names of variables, fields and model values?
pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        && b.iter().any(|c| c.is_ascii_alphabetic())
}

pub(crate) struct Parser<'a> {
    text: &'a str,
    s: &'a [u8],
    pub(crate) pos: usize,
    end: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str, start: usize, end: usize) -> Self {
        Parser {
            text,
            s: text.as_bytes(),
            pos: start,
            end,
        }
    }

    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.s[self.pos])
    }

    fn starts(&self, tok: &str) -> bool {
        self.pos + tok.len() <= self.end
            && &self.s[self.pos..self.pos + tok.len()] == tok.as_bytes()
    }

    pub(crate) fn ws(&mut self) {
        while self.pos < self.end && matches!(self.s[self.pos], b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }

    /// Length of the token at `pos`, for error labels.
    fn token_len(&self) -> usize {
        let mut i = self.pos;
        while i < self.end
            && !matches!(self.s[i], b' ' | b'\t' | b'\r' | b'\n')
            && i - self.pos < 40
        {
            i += 1;
        }
        // Keep to character boundaries.
        while i < self.end && !self.text.is_char_boundary(i) {
            i += 1;
        }
        (i - self.pos).max(1)
    }

    fn err(&self, message: &str, len: usize) -> ExprError {
        if self.pos >= self.end {
            ExprError {
                offset: self.end,
                len: 0,
                message: format!("the value ends too early: {message}"),
                at_end: true,
                open: None,
            }
        } else {
            ExprError {
                offset: self.pos,
                len,
                message: message.to_string(),
                at_end: false,
                open: None,
            }
        }
    }

    fn expect(&mut self, tok: &str, what: &str) -> Result<(), ExprError> {
        self.ws();
        if self.starts(tok) {
            self.pos += tok.len();
            Ok(())
        } else {
            Err(self.err(&format!("expected `{tok}` {what}"), self.token_len()))
        }
    }

    /// expr := term ('@@' term)*
    fn expr(&mut self, depth: usize) -> Result<TlaValue, ExprError> {
        let first_at = self.pos;
        let first = self.term(depth)?;
        let mut operands = vec![(first, first_at)];
        loop {
            let save = self.pos;
            self.ws();
            if self.starts("@@") {
                self.pos += 2;
                self.ws();
                let at = self.pos;
                let t = self.term(depth)?;
                operands.push((t, at));
            } else {
                self.pos = save;
                break;
            }
        }
        if operands.len() == 1 {
            return Ok(operands
                .pop()
                .map(|(v, _)| v)
                .unwrap_or(TlaValue::Bool(false)));
        }
        // `f @@ g`: f's pairs win, so feed the rightmost operand first (the last pair wins in `function`).
        let mut pairs = Vec::new();
        for (v, at) in operands.into_iter().rev() {
            match function_pairs(v) {
                Some(p) => pairs.extend(p),
                None => {
                    return Err(ExprError {
                        offset: at,
                        len: 1,
                        message: "an operand of `@@` is not a function".into(),
                        at_end: false,
                        open: None,
                    })
                }
            }
        }
        Ok(TlaValue::function(pairs))
    }

    /// term := atom (':>' term)?
    fn term(&mut self, depth: usize) -> Result<TlaValue, ExprError> {
        if depth > MAX_DEPTH {
            return Err(self.err(
                &format!("the value is nested deeper than {MAX_DEPTH} levels"),
                1,
            ));
        }
        let key = self.atom(depth)?;
        let save = self.pos;
        self.ws();
        if self.starts(":>") {
            self.pos += 2;
            self.ws();
            let v = self.term(depth + 1)?;
            Ok(TlaValue::function([(key, v)]))
        } else {
            self.pos = save;
            Ok(key)
        }
    }

    fn list(&mut self, close: &str, depth: usize) -> Result<Vec<TlaValue>, ExprError> {
        let opener = self.pos - if close == ">>" { 2 } else { 1 };
        self.list_inner(close, depth)
            .map_err(|e| opened_at(e, opener))
    }

    fn list_inner(&mut self, close: &str, depth: usize) -> Result<Vec<TlaValue>, ExprError> {
        let mut items = Vec::new();
        self.ws();
        if self.starts(close) {
            self.pos += close.len();
            return Ok(items);
        }
        loop {
            self.ws();
            items.push(self.expr(depth + 1)?);
            self.ws();
            if self.starts(",") {
                self.pos += 1;
            } else if self.starts(close) {
                self.pos += close.len();
                return Ok(items);
            } else {
                return Err(self.err(&format!("expected `,` or `{close}`"), self.token_len()));
            }
        }
    }

    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while self.pos < self.end
            && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
        {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn integer(&mut self) -> Result<BigInt, ExprError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.pos < self.end && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(self.err("expected digits after `-`", 1));
        }
        // Digits only, so this parse cannot fail; map the impossible error anyway rather than panic.
        self.text[start..self.pos]
            .parse::<BigInt>()
            .map_err(|_| ExprError {
                offset: start,
                len: self.pos - start,
                message: "not an integer".into(),
                at_end: false,
                open: None,
            })
    }

    fn atom(&mut self, depth: usize) -> Result<TlaValue, ExprError> {
        self.ws();
        let Some(c) = self.peek() else {
            return Err(self.err("expected a value", 0));
        };
        match c {
            b'{' => {
                self.pos += 1;
                Ok(TlaValue::set(self.list("}", depth)?))
            }
            b'<' if self.starts("<<") => {
                self.pos += 2;
                Ok(TlaValue::seq(self.list(">>", depth)?))
            }
            b'[' => {
                self.pos += 1;
                self.record(depth)
            }
            b'(' => {
                let opener = self.pos;
                self.pos += 1;
                self.ws();
                let v = self
                    .expr(depth + 1)
                    .and_then(|v| self.expect(")", "to close `(`").map(|()| v));
                v.map_err(|e| opened_at(e, opener))
            }
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => {
                let start = self.pos;
                let lo = self.integer()?;
                if self.starts("..") {
                    self.pos += 2;
                    let hi = self.integer()?;
                    let count = &hi - &lo;
                    let n: u64 = if count < BigInt::from(0) {
                        0
                    } else {
                        match u64::try_from(&count) {
                            Ok(n) if n < MAX_INTERVAL => n + 1,
                            _ => {
                                return Err(ExprError {
                                    offset: start,
                                    len: self.pos - start,
                                    message: format!(
                                        "the interval has more than {MAX_INTERVAL} elements"
                                    ),
                                    at_end: false,
                                    open: None,
                                })
                            }
                        }
                    };
                    return Ok(TlaValue::set(
                        (0..n).map(|i| TlaValue::Int(&lo + BigInt::from(i))),
                    ));
                }
                Ok(TlaValue::Int(lo))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                let id = self.ident();
                match id {
                    "TRUE" => Ok(TlaValue::Bool(true)),
                    "FALSE" => Ok(TlaValue::Bool(false)),
                    _ if is_identifier(id) => Ok(TlaValue::model(id)),
                    _ => {
                        self.pos = start;
                        Err(self.err("expected a value", self.token_len()))
                    }
                }
            }
            _ => Err(self.err("expected a value", self.token_len())),
        }
    }

    fn record(&mut self, depth: usize) -> Result<TlaValue, ExprError> {
        let opener = self.pos - 1;
        self.record_inner(depth).map_err(|e| opened_at(e, opener))
    }

    fn record_inner(&mut self, depth: usize) -> Result<TlaValue, ExprError> {
        let mut fields: Vec<(String, TlaValue)> = Vec::new();
        self.ws();
        if self.starts("]") {
            self.pos += 1;
            return Ok(TlaValue::record(fields));
        }
        loop {
            self.ws();
            let at = self.pos;
            let name = self.ident();
            if !is_identifier(name) {
                self.pos = at;
                return Err(self.err("expected a record field name", self.token_len()));
            }
            if fields.iter().any(|(n, _)| n == name) {
                return Err(ExprError {
                    offset: at,
                    len: name.len(),
                    message: format!("the record has field `{name}` twice"),
                    at_end: false,
                    open: None,
                });
            }
            let name = name.to_string();
            self.expect("|->", "after a record field name")?;
            self.ws();
            let v = self.expr(depth + 1)?;
            fields.push((name, v));
            self.ws();
            if self.starts(",") {
                self.pos += 1;
            } else if self.starts("]") {
                self.pos += 1;
                return Ok(TlaValue::record(fields));
            } else {
                return Err(self.err("expected `,` or `]` in a record", self.token_len()));
            }
        }
    }

    fn string(&mut self) -> Result<TlaValue, ExprError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                let mut e = self.err("unclosed string", 0);
                if !e.at_end {
                    e.offset = open;
                }
                return Err(e);
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(TlaValue::Str(out));
                }
                b'\\' => {
                    let esc = self
                        .s
                        .get(self.pos + 1)
                        .copied()
                        .filter(|_| self.pos + 1 < self.end);
                    let ch = match esc {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'n') => '\n',
                        Some(b't') => '\t',
                        Some(b'r') => '\r',
                        Some(b'f') => '\u{c}',
                        None => {
                            self.pos = self.end;
                            return Err(self.err("unclosed string", 0));
                        }
                        Some(_) => return Err(self.err("unknown escape in a string", 2)),
                    };
                    out.push(ch);
                    self.pos += 2;
                }
                b'\n' => return Err(self.err("a string runs past the end of its line", 1)),
                _ => {
                    let ch = self.text[self.pos..].chars().next().unwrap_or('\u{FFFD}');
                    out.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
    }
}

/// Records the innermost bracket left open when the value ends too early.
fn opened_at(mut e: ExprError, opener: usize) -> ExprError {
    if e.at_end && e.open.is_none() {
        e.open = Some(opener);
    }
    e
}

/// The pairs of a function-like value, for `@@`.
fn function_pairs(v: TlaValue) -> Option<Vec<(TlaValue, TlaValue)>> {
    match v {
        TlaValue::Function(p) => Some(p),
        TlaValue::Record(m) => Some(m.into_iter().map(|(k, v)| (TlaValue::Str(k), v)).collect()),
        TlaValue::Seq(s) => Some(
            s.into_iter()
                .enumerate()
                .map(|(i, v)| (TlaValue::Int(BigInt::from(i + 1)), v))
                .collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(n: i64) -> TlaValue {
        TlaValue::int(n)
    }
    fn m(s: &str) -> TlaValue {
        TlaValue::model(s)
    }

    #[test]
    fn scalars_including_big_and_negative_integers_and_escaped_strings() {
        assert_eq!(parse_value("  -17 ").unwrap(), i(-17));
        let big = parse_value("123456789012345678901234567890").unwrap();
        assert_eq!(big.to_string(), "123456789012345678901234567890");
        assert_eq!(
            parse_value(r#""a\"b\\c\nd""#).unwrap(),
            TlaValue::str("a\"b\\c\nd")
        );
        assert_eq!(parse_value("TRUE").unwrap(), TlaValue::Bool(true));
        assert_eq!(parse_value("NULL").unwrap(), m("NULL"));
        assert_eq!(parse_value("c1_OF_P").unwrap(), m("c1_OF_P"));
    }

    #[test]
    fn collections_including_spaced_empty_tuple_and_nested_tuples() {
        assert_eq!(parse_value("<< >>").unwrap(), TlaValue::seq([]));
        assert_eq!(parse_value("<<>>").unwrap(), TlaValue::seq([]));
        assert_eq!(
            parse_value("<<<<a, 1>>>>").unwrap(),
            TlaValue::seq([TlaValue::seq([m("a"), i(1)])])
        );
        assert_eq!(
            parse_value("{3, 1, 3}").unwrap(),
            TlaValue::set([i(1), i(3)])
        );
        assert_eq!(parse_value("{}").unwrap(), TlaValue::set([]));
        assert_eq!(
            parse_value("[a |-> 1, b |-> <<\"x\">>]").unwrap(),
            TlaValue::record([("a", i(1)), ("b", TlaValue::seq([TlaValue::str("x")]))])
        );
        assert_eq!(
            parse_value("1..3").unwrap(),
            TlaValue::set([i(1), i(2), i(3)])
        );
    }

    #[test]
    fn functions_bare_and_parenthesised_over_crlf_lines_left_operand_wins() {
        let f = parse_value("( r1 :>\r\n      ( a1 :> [bal |-> -1] @@\n        a2 :> [bal |-> 0] ) @@\r\n  r2 :> 5 )").unwrap();
        assert_eq!(
            f.apply(&m("r1")).and_then(|g| g.apply(&m("a1"))),
            Some(&TlaValue::record([("bal", i(-1))]))
        );
        assert_eq!(f.apply(&m("r2")), Some(&i(5)));
        assert_eq!(
            parse_value("a :> 1").unwrap(),
            TlaValue::function([(m("a"), i(1))])
        );
        // `@@`: the left operand wins for equal keys.
        assert_eq!(
            parse_value("(a :> 1 @@ a :> 2 @@ b :> 3)").unwrap(),
            TlaValue::function([(m("a"), i(1)), (m("b"), i(3))])
        );
        // Domain 1..n is a sequence.
        assert_eq!(
            parse_value("(1 :> \"x\" @@ 2 :> \"y\")").unwrap(),
            TlaValue::seq([TlaValue::str("x"), TlaValue::str("y")])
        );
    }

    #[test]
    fn errors_point_at_the_bad_bytes_or_at_the_end() {
        let e = parse_value("{1, 2").unwrap_err();
        assert!(e.at_end);
        assert_eq!(e.offset, 5);
        let e = parse_value("<<[a |-> {1, <<2>>}, b |-> (x :> {3").unwrap_err();
        assert_eq!(e.open, Some(33));
        let e = parse_value("[a |-> 1, a |-> 2]").unwrap_err();
        assert_eq!((e.offset, e.at_end), (10, false));
        assert!(e.message.contains("twice"));
        let e = parse_value("<<1 2>>").unwrap_err();
        assert_eq!(e.offset, 4);
        let e = parse_value("\"abc").unwrap_err();
        assert!(e.at_end);
        let e = parse_value("{1} junk").unwrap_err();
        assert_eq!(e.offset, 4);
        let e = parse_value("(1 @@ 2)").unwrap_err();
        assert!(e.message.contains("not a function"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}1{}", "{".repeat(50_000), "}".repeat(50_000));
        let e = parse_value(&deep).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{e:?}");
        let deep = "a :> ".repeat(50_000) + "1";
        assert!(parse_value(&deep).is_err());
        let deep = "(".repeat(50_000);
        assert!(parse_value(&deep).is_err());
    }
}
