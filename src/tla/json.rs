//! A small JSON parser that keeps each value's byte span, so the ITF and `-dumpTrace json` readers can point
//! a diagnostic at the exact bytes of a bad value (serde_json's `Value` forgets where things were).
//!
//! Nesting is bounded by [`MAX_DEPTH`]: deeper input is an error, never a stack overflow.

use std::ops::Range;

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number, kept as its text so integers of any size survive.
    Number(String),
    String(String),
    Array(Vec<Spanned>),
    /// Members in file order (duplicates kept; readers take the first).
    Object(Vec<(String, Spanned)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub value: Json,
    pub span: Range<usize>,
}

impl Spanned {
    pub fn get(&self, key: &str) -> Option<&Spanned> {
        match &self.value {
            Json::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Spanned]> {
        match &self.value {
            Json::Array(v) => Some(v),
            _ => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self.value {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
    /// The input ended inside a value.
    pub at_end: bool,
}

pub fn parse(text: &str) -> Result<Spanned, JsonError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(p.err("unexpected text after the JSON value", 1));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str, len: usize) -> JsonError {
        let at_end = self.pos >= self.s.len();
        JsonError {
            offset: self.pos.min(self.s.len()),
            len: if at_end {
                0
            } else {
                len.min(self.s.len() - self.pos)
            },
            message: if at_end {
                format!("the JSON ends too early: {message}")
            } else {
                message.to_string()
            },
            at_end,
        }
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Spanned, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err(&format!("JSON nested deeper than {MAX_DEPTH} levels"), 1));
        }
        let start = self.pos;
        let value = match self.s.get(self.pos) {
            None => return Err(self.err("expected a value", 0)),
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.s.get(self.pos) != Some(&b'"') {
                            return Err(self.err("expected a member name in double quotes", 1));
                        }
                        let key = self.string()?;
                        self.ws();
                        if self.s.get(self.pos) != Some(&b':') {
                            return Err(self.err("expected `:` after the member name", 1));
                        }
                        self.pos += 1;
                        self.ws();
                        let v = self.value(depth + 1)?;
                        members.push((key, v));
                        self.ws();
                        match self.s.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected `,` or `}` in an object", 1)),
                        }
                    }
                }
                Json::Object(members)
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.s.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected `,` or `]` in an array", 1)),
                        }
                    }
                }
                Json::Array(items)
            }
            Some(b'"') => Json::String(self.string()?),
            Some(b't') => self.keyword("true", Json::Bool(true))?,
            Some(b'f') => self.keyword("false", Json::Bool(false))?,
            Some(b'n') => self.keyword("null", Json::Null)?,
            Some(b'-' | b'0'..=b'9') => {
                if self.s[self.pos] == b'-' {
                    self.pos += 1;
                }
                let digits = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                if self.pos == digits {
                    return Err(self.err("expected digits in a number", 1));
                }
                let int_end = self.pos;
                if self.s.get(self.pos) == Some(&b'.') {
                    self.pos += 1;
                    while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                if matches!(self.s.get(self.pos), Some(b'e' | b'E')) {
                    self.pos += 1;
                    if matches!(self.s.get(self.pos), Some(b'+' | b'-')) {
                        self.pos += 1;
                    }
                    while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                let _ = int_end;
                Json::Number(self.text[start..self.pos].to_string())
            }
            Some(_) => return Err(self.err("expected a JSON value", 1)),
        };
        Ok(Spanned {
            value,
            span: start..self.pos,
        })
    }

    fn keyword(&mut self, word: &str, v: Json) -> Result<Json, JsonError> {
        let end = self.pos + word.len();
        if self.s.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            Ok(v)
        } else if word.as_bytes().starts_with(&self.s[self.pos..]) {
            self.pos = self.s.len();
            Err(self.err(&format!("expected `{word}`"), 0))
        } else {
            Err(self.err(&format!("expected `{word}`"), 1))
        }
    }

    /// A string literal starting at `"`.
    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(&b) = self.s.get(self.pos) else {
                return Err(self.err("unclosed string", 0));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    let Some(&e) = self.s.get(self.pos + 1) else {
                        self.pos += 1;
                        return Err(self.err("unclosed string", 0));
                    };
                    self.pos += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi)
                                && self.s.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                self.pos += 2;
                                let lo = self.hex4()?;
                                char::from_u32(
                                    0x10000
                                        + ((hi - 0xD800) << 10)
                                        + (lo.wrapping_sub(0xDC00) & 0x3FF),
                                )
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => {
                            self.pos -= 2;
                            return Err(self.err("unknown escape in a string", 2));
                        }
                    }
                }
                b if b < 0x20 => return Err(self.err("control character in a string", 1)),
                _ => {
                    // Copy one UTF-8 character (the input is a &str, so boundaries are valid).
                    let ch = self.text[self.pos..].chars().next().unwrap_or('\u{FFFD}');
                    out.push(ch);
                    self.pos += ch.len_utf8().max(1);
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(h) = self.s.get(self.pos..self.pos + 4) else {
            self.pos = self.s.len();
            return Err(self.err("unclosed `\\u` escape", 0));
        };
        let h = std::str::from_utf8(h)
            .ok()
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match h {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => Err(self.err("expected four hex digits after `\\u`", 4)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_values_with_their_spans() {
        let v = parse(r#" {"a": [1, -2.5e3, "x\"\u00e9"], "b": null, "c": true} "#).unwrap();
        assert_eq!(v.span, 1..54);
        let a = v.get("a").unwrap();
        assert_eq!(a.span, 7..31);
        let items = a.as_array().unwrap();
        assert_eq!(items[1].value, Json::Number("-2.5e3".into()));
        assert_eq!(items[2].as_str(), Some("x\"é"));
        assert_eq!(v.get("b").unwrap().value, Json::Null);
    }

    #[test]
    fn truncated_and_bad_input_are_errors_with_offsets() {
        let e = parse(r#"{"a": [1, 2"#).unwrap_err();
        assert!(e.at_end);
        assert_eq!(e.offset, 11);
        let e = parse(r#"{"a": tru"#).unwrap_err();
        assert!(e.at_end, "{e:?}");
        let e = parse(r#"{"a": x}"#).unwrap_err();
        assert_eq!((e.offset, e.at_end), (6, false));
        let deep = "[".repeat(100_000);
        let e = parse(&deep).unwrap_err();
        assert!(e.message.contains("deeper"), "{e:?}");
    }
}
