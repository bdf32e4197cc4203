//! Log4j `ConversionPattern`s compiled into fast header matchers.
//!
//! A layout is written exactly as in `log4j.properties` (`%d{ISO8601} [%t] %p %c: %m%n`), so users can paste
//! their own. Compiling it yields a list of segments; matching a line walks them with a tiny backtracking
//! matcher that only backtracks on free-text fields (thread names may hold spaces and brackets).

use crate::time::{digits, Timestamp};
use std::fmt;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl Level {
    pub const ALL: [Level; 6] = [
        Level::Trace,
        Level::Debug,
        Level::Info,
        Level::Warn,
        Level::Error,
        Level::Fatal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
            Level::Fatal => "FATAL",
        }
    }

    pub fn from_name(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == s)
    }

    /// Parses a level word at the start of `b`, returning it and its length.
    #[inline]
    fn parse_prefix(b: &[u8]) -> Option<(Level, usize)> {
        let (level, word): (Level, &[u8]) = match b.first()? {
            b'I' => (Level::Info, b"INFO"),
            b'D' => (Level::Debug, b"DEBUG"),
            b'W' => (Level::Warn, b"WARN"),
            b'E' => (Level::Error, b"ERROR"),
            b'T' => (Level::Trace, b"TRACE"),
            b'F' => (Level::Fatal, b"FATAL"),
            _ => return None,
        };
        if has_prefix(b, word) {
            return Some((level, word.len()));
        }
        // log4j 1.x prints "WARN"; some appenders print "WARNING".
        None
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DateTok {
    Year4,
    Year2,
    Month2,
    MonthName,
    Day2,
    Hour2,
    Minute2,
    Second2,
    Millis3,
    Lit(u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct DateFormat {
    toks: Vec<DateTok>,
    has_date: bool,
    /// `yyyy-MM-dd HH:mm:ss,SSS`, the layout of nearly every Ozone log: parsed by a fixed-offset fast path.
    iso: bool,
}

/// `yyyy-MM-dd HH:mm:ss,SSS` at fixed offsets.
#[inline]
pub(crate) fn parse_iso8601(b: &[u8]) -> Option<(Timestamp, usize)> {
    let b = b.get(..23)?;
    if b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b','
    {
        return None;
    }
    let (y, mo, d) = (digits(&b[0..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    let (h, mi, s, ms) = (
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
        digits(&b[20..23])?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 24 || mi > 60 || s > 61 {
        return None;
    }
    Some((Timestamp::from_parts(y as i64, mo, d, h, mi, s, ms), 23))
}

impl DateFormat {
    /// Understands log4j's named formats and the `SimpleDateFormat` letters Ozone and Hadoop use.
    fn compile(spec: &str) -> Result<DateFormat, String> {
        let spec = match spec {
            "" | "ISO8601" | "DEFAULT" => "yyyy-MM-dd HH:mm:ss,SSS",
            "ISO8601_PERIOD" | "DEFAULT_PERIOD" => "yyyy-MM-dd HH:mm:ss.SSS",
            "ABSOLUTE" => "HH:mm:ss,SSS",
            "ABSOLUTE_PERIOD" => "HH:mm:ss.SSS",
            "DATE" => "dd MMM yyyy HH:mm:ss,SSS",
            other => other,
        };
        let b = spec.as_bytes();
        let mut toks = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let run = b[i..].iter().take_while(|&&x| x == c).count();
            let tok = match (c, run) {
                (b'y', 4) => DateTok::Year4,
                (b'y', 2) => DateTok::Year2,
                (b'M', 2) => DateTok::Month2,
                (b'M', 3) => DateTok::MonthName,
                (b'd', 2) => DateTok::Day2,
                (b'H', 2) => DateTok::Hour2,
                (b'm', 2) => DateTok::Minute2,
                (b's', 2) => DateTok::Second2,
                (b'S', 3) => DateTok::Millis3,
                (c, _) if c.is_ascii_alphabetic() => {
                    return Err(format!(
                        "unsupported date pattern letter run `{}` in `{spec}`",
                        &spec[i..i + run]
                    ))
                }
                (c, _) => {
                    toks.push(DateTok::Lit(c));
                    i += 1;
                    continue;
                }
            };
            toks.push(tok);
            i += run;
        }
        let has_date = toks
            .iter()
            .any(|t| matches!(t, DateTok::Year4 | DateTok::Year2));
        let iso = spec == "yyyy-MM-dd HH:mm:ss,SSS";
        Ok(DateFormat {
            toks,
            has_date,
            iso,
        })
    }

    /// Parses a timestamp at the start of `b`; returns it and the bytes consumed.
    #[inline]
    fn parse(&self, b: &[u8]) -> Option<(Timestamp, usize)> {
        if self.iso {
            return parse_iso8601(b);
        }
        let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut ms) =
            (1970i64, 1u32, 1u32, 0, 0, 0, 0);
        let mut p = 0;
        for tok in &self.toks {
            let take = |n: usize| b.get(p..p + n).and_then(digits);
            match *tok {
                DateTok::Year4 => {
                    y = take(4)? as i64;
                    p += 4;
                }
                DateTok::Year2 => {
                    y = 2000 + take(2)? as i64;
                    p += 2;
                }
                DateTok::Month2 => {
                    mo = take(2)?;
                    p += 2;
                }
                DateTok::MonthName => {
                    mo = month_from_name(b.get(p..p + 3)?)?;
                    p += 3;
                }
                DateTok::Day2 => {
                    d = take(2)?;
                    p += 2;
                }
                DateTok::Hour2 => {
                    h = take(2)?;
                    p += 2;
                }
                DateTok::Minute2 => {
                    mi = take(2)?;
                    p += 2;
                }
                DateTok::Second2 => {
                    s = take(2)?;
                    p += 2;
                }
                DateTok::Millis3 => {
                    ms = take(3)?;
                    p += 3;
                }
                DateTok::Lit(c) => {
                    if b.get(p) != Some(&c) {
                        return None;
                    }
                    p += 1;
                }
            }
        }
        // Hand-edited fixtures carry impossible times such as `01:60:22`; keep them as read rather than
        // rejecting the line, but reject what cannot be a date at all.
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 24 || mi > 60 || s > 61 {
            return None;
        }
        let mut t = Timestamp::from_parts(y, mo, d, h, mi, s, ms);
        t.has_date = self.has_date;
        Some((t, p))
    }
}

fn month_from_name(b: &[u8]) -> Option<u32> {
    const NAMES: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    NAMES.iter().position(|n| &n[..] == b).map(|i| i as u32 + 1)
}

/// `starts_with` for the short literals of a layout, without a `memcmp` call per line.
#[inline(always)]
fn has_prefix(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay.iter().zip(needle).all(|(a, b)| a == b)
}

/// Bytes a logger name may contain: `[A-Za-z0-9_.$-]`.
static LOGGER_CHARS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'$' || c == b'-';
        i += 1;
    }
    t
};

/// How many bytes at the start of `rest` are logger-name bytes. Eight bytes are tested with one branch
/// (a logger name is 30 to 70 bytes, and a branch per byte was a quarter of the header match), the last
/// few one at a time.
#[inline]
fn logger_len(rest: &[u8]) -> usize {
    let mut n = 0;
    while let Some(eight) = rest.get(n..n + 8) {
        if !eight
            .iter()
            .fold(true, |all, &c| all & LOGGER_CHARS[c as usize])
        {
            break;
        }
        n += 8;
    }
    n + rest[n..]
        .iter()
        .take_while(|&&c| LOGGER_CHARS[c as usize])
        .count()
}

/// Fields of a header that have no fixed syntax; they end where the next literal begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FreeField {
    Thread,
    File,
    Method,
    Class,
    Context,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Literal(Vec<u8>),
    /// A run of spaces in the pattern, or a padded field's padding: one or more spaces.
    Spaces,
    Date(DateFormat),
    Level,
    /// `%c{n}`: at most `n` dot-separated components (`u8::MAX` for the full name).
    Logger(u8),
    Free(FreeField),
    SourceLine,
    Message,
}

/// The parsed header of one log record; offsets are relative to the start of the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub time: Option<Timestamp>,
    pub level: Option<Level>,
    pub thread: (u32, u32),
    pub logger: (u32, u32),
    pub source_line: Option<u32>,
    pub message_start: u32,
}

impl Header {
    pub fn thread<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        &line[self.thread.0 as usize..self.thread.1 as usize]
    }
    pub fn logger<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        &line[self.logger.0 as usize..self.logger.1 as usize]
    }
}

/// A compiled layout.
#[derive(Clone, Debug)]
pub struct Layout {
    pub name: String,
    pub pattern: String,
    segments: Vec<Segment>,
    /// Literal that every header starts with, for a cheap first check.
    has_logger: bool,
}

/// An error in a user's conversion pattern, at a byte offset into the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
}

impl Layout {
    /// Compiles a log4j 1.x / log4j2 `PatternLayout` conversion pattern.
    pub fn compile(name: &str, pattern: &str) -> Result<Layout, PatternError> {
        let b = pattern.as_bytes();
        let mut segments: Vec<Segment> = Vec::new();
        let mut lit: Vec<u8> = Vec::new();
        let flush = |lit: &mut Vec<u8>, segments: &mut Vec<Segment>| {
            // Split literal text into non-space chunks and space runs (which match one or more spaces).
            let mut chunk = Vec::new();
            let mut i = 0;
            while i < lit.len() {
                if lit[i] == b' ' {
                    if !chunk.is_empty() {
                        segments.push(Segment::Literal(std::mem::take(&mut chunk)));
                    }
                    while i < lit.len() && lit[i] == b' ' {
                        i += 1;
                    }
                    if segments.last() != Some(&Segment::Spaces) {
                        segments.push(Segment::Spaces);
                    }
                } else {
                    chunk.push(lit[i]);
                    i += 1;
                }
            }
            if !chunk.is_empty() {
                segments.push(Segment::Literal(chunk));
            }
            lit.clear();
        };
        let mut i = 0;
        let mut seen_message = false;
        while i < b.len() {
            if b[i] != b'%' {
                lit.push(b[i]);
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            if b.get(i) == Some(&b'%') {
                lit.push(b'%');
                i += 1;
                continue;
            }
            // Format modifiers: `-5`, `.30`, `-5.10`.
            let mut padded = false;
            while i < b.len() && (b[i] == b'-' || b[i] == b'.' || b[i].is_ascii_digit()) {
                padded |= b[i].is_ascii_digit();
                i += 1;
            }
            let word_start = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            let word = &pattern[word_start..i];
            let mut option = None;
            if b.get(i) == Some(&b'{') {
                let close = pattern[i..].find('}').ok_or(PatternError {
                    offset: i,
                    len: 1,
                    message: "unclosed `{` in conversion option".into(),
                })?;
                option = Some(&pattern[i + 1..i + close]);
                i += close + 1;
            }
            if word.is_empty() {
                return Err(PatternError {
                    offset: start,
                    len: i - start,
                    message: "`%` must be followed by a conversion word".into(),
                });
            }
            let seg = match word {
                "d" | "date" => Some(Segment::Date(
                    DateFormat::compile(option.unwrap_or("")).map_err(|message| PatternError {
                        offset: start,
                        len: i - start,
                        message,
                    })?,
                )),
                "p" | "level" | "le" => Some(Segment::Level),
                "c" | "logger" | "lo" => Some(Segment::Logger(
                    // log4j2 also reads `{36}` as a length to abbreviate to; only small counts constrain.
                    option
                        .and_then(|o| o.parse::<u8>().ok())
                        .filter(|&n| n <= 8)
                        .unwrap_or(u8::MAX),
                )),
                "t" | "thread" | "tn" => Some(Segment::Free(FreeField::Thread)),
                "F" | "file" => Some(Segment::Free(FreeField::File)),
                "M" | "method" => Some(Segment::Free(FreeField::Method)),
                "C" | "class" => Some(Segment::Free(FreeField::Class)),
                "x" | "X" | "mdc" | "ndc" | "NDC" | "MDC" => {
                    Some(Segment::Free(FreeField::Context))
                }
                "L" | "line" => Some(Segment::SourceLine),
                "m" | "msg" | "message" => Some(Segment::Message),
                "n" => None,
                "throwable" | "ex" | "exception" | "xEx" | "rEx" | "wEx" | "throwableProxy" => None,
                "r" | "relative" => Some(Segment::SourceLine),
                _ => {
                    return Err(PatternError {
                        offset: start,
                        len: i - start,
                        message: format!("unsupported conversion `%{word}`"),
                    })
                }
            };
            if seen_message {
                // Whatever follows the message (`%n`, ` | %throwable`) is part of the record's text.
                continue;
            }
            if let Some(seg) = seg {
                flush(&mut lit, &mut segments);
                if seg == Segment::Message {
                    seen_message = true;
                }
                segments.push(seg);
                // A padded field (`%-5p`) may be followed by padding before the next literal.
                if padded && !matches!(b.get(i), Some(b' ') | None) {
                    segments.push(Segment::Spaces);
                }
            }
        }
        if !seen_message {
            return Err(PatternError {
                offset: 0,
                len: pattern.len(),
                message: "the pattern has no message conversion (`%m`)".into(),
            });
        }
        let _ = lit; // text after %m is not part of the header
                     // A padded field followed by a literal space: that `Spaces` already accepts runs. Validate that every
                     // free field is followed by a literal to end at.
        for (k, seg) in segments.iter().enumerate() {
            if let Segment::Free(_) = seg {
                match segments.get(k + 1) {
                    Some(Segment::Literal(_)) | Some(Segment::Spaces) => {}
                    _ => {
                        return Err(PatternError {
                            offset: 0,
                            len: pattern.len(),
                            message: "a free-text field (%t, %F, %M, %C, %X) must be followed by literal text"
                                .into(),
                        })
                    }
                }
            }
        }
        let has_logger = segments.iter().any(|s| matches!(s, Segment::Logger(_)));
        Ok(Layout {
            name: name.to_string(),
            pattern: pattern.to_string(),
            segments,
            has_logger,
        })
    }

    pub fn has_logger(&self) -> bool {
        self.has_logger
    }

    /// Does the layout's date print whole seconds or no date (`yyyy-MM-dd HH:mm:ss`, `HH:mm:ss.SSS`): a clock
    /// too coarse to order lines of different nodes by?
    pub fn has_coarse_clock(&self) -> bool {
        self.segments.iter().any(|s| match s {
            Segment::Date(f) => !f.has_date || !f.toks.contains(&DateTok::Millis3),
            _ => false,
        })
    }

    /// Matches a record header at the start of `line` (no line terminator).
    #[inline]
    pub fn match_header(&self, line: &[u8]) -> Option<Header> {
        let mut h = Header::default();
        if self.match_from(0, line, 0, &mut h) {
            Some(h)
        } else {
            None
        }
    }

    /// Matches segments `k..` at `pos`. A loop, not recursion, except to backtrack over a free field's
    /// candidate ends: this runs on every line of every input.
    fn match_from(&self, mut k: usize, line: &[u8], mut pos: usize, h: &mut Header) -> bool {
        loop {
            let Some(seg) = self.segments.get(k) else {
                return false;
            };
            let rest = &line[pos..];
            match seg {
                Segment::Literal(l) => {
                    if !has_prefix(rest, l) {
                        return false;
                    }
                    pos += l.len();
                }
                Segment::Spaces => {
                    let n = rest.iter().take_while(|&&c| c == b' ').count();
                    // Padding may leave no space before the next literal; at the start, spaces are required
                    // or anything would match.
                    if n == 0 && k == 0 {
                        return false;
                    }
                    pos += n;
                }
                Segment::Date(f) => match f.parse(rest) {
                    Some((t, n)) => {
                        h.time = Some(t);
                        pos += n;
                    }
                    None => return false,
                },
                Segment::Level => match Level::parse_prefix(rest) {
                    Some((lv, n)) => {
                        h.level = Some(lv);
                        pos += n;
                    }
                    None => return false,
                },
                Segment::Logger(components) => {
                    let n = logger_len(rest);
                    if n == 0 {
                        return false;
                    }
                    if *components != u8::MAX
                        && memchr::memchr_iter(b'.', &rest[..n]).count() >= *components as usize
                    {
                        return false;
                    }
                    h.logger = (pos as u32, (pos + n) as u32);
                    pos += n;
                }
                Segment::SourceLine => {
                    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                    let n = if n == 0 && rest.first() == Some(&b'?') {
                        1
                    } else {
                        n
                    };
                    if n == 0 {
                        return false;
                    }
                    h.source_line = digits(&rest[..n]);
                    pos += n;
                }
                Segment::Free(field) => {
                    let next: &[u8] = match self.segments.get(k + 1) {
                        Some(Segment::Literal(l)) => l,
                        _ => b" ",
                    };
                    // Try each place where the next literal occurs, leftmost first (memchr on its first byte
                    // is much cheaper than building a substring searcher per line).
                    let mut from = pos;
                    while let Some(off) = memchr::memchr(next[0], &line[from..]) {
                        let end = from + off;
                        from = end + 1;
                        if !has_prefix(&line[end..], next) {
                            continue;
                        }
                        if *field == FreeField::Thread {
                            h.thread = (pos as u32, end as u32);
                        }
                        if self.match_from(k + 1, line, end, h) {
                            return true;
                        }
                    }
                    return false;
                }
                Segment::Message => {
                    h.message_start = pos as u32;
                    return true;
                }
            }
            k += 1;
        }
    }
}

/// The layouts Ozone ships (and the neighbours its logs contain), most specific first.
pub const BUILTIN_LAYOUTS: &[(&str, &str)] = &[
    ("test", "%d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n"),
    ("intellij", "%d{ISO8601} %-5p %c{2} (%F:%M(%L)) - %m%n"),
    ("console", "%d{ISO8601} [%t] %p %c{2}: %m%n"),
    ("daemon", "%d{ISO8601} [%t] %p %c: %m%n"),
    ("om-ha", "%d{yyyy-MM-dd HH:mm:ss} %-5p %c{1}:%L - %m%n"),
    (
        "audit",
        "%d{DEFAULT} | %-5level | %c{1} | %msg | %throwable{3} %n",
    ),
    (
        "dn-container",
        "%d{DEFAULT} | %-5level | %msg | %throwable{3} %n",
    ),
    // The TLA and RFAS appenders, and the docker console layout of Ozone 0.4/0.5 (2019).
    ("threadless", "%d{ISO8601} %p %c: %m%n"),
    ("hadoop-client", "%d{yy/MM/dd HH:mm:ss} %p %c{2}: %m%n"),
    (
        "log4j2-default",
        "%d{HH:mm:ss.SSS} [%t] %-5level %logger{36} - %msg%n",
    ),
    (
        "ozone-insight",
        "[%X{component}] %d{ISO8601} [%p|%c|%t] %m%n",
    ),
];

pub fn builtin_layouts() -> Vec<Layout> {
    BUILTIN_LAYOUTS
        .iter()
        .map(|(name, pat)| Layout::compile(name, pat).expect("builtin layouts compile"))
        .collect()
}

/// Names that a user may give to `--layout` instead of a pattern.
pub fn builtin_by_name(name: &str) -> Option<Layout> {
    BUILTIN_LAYOUTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, p)| Layout::compile(n, p).expect("builtin layouts compile"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logger_name_ends_at_its_first_other_byte_whatever_its_length() {
        let name = b"org.apache.hadoop.hdds.scm.ha.SCMStateMachine$Inner_1-x";
        for len in 0..name.len() {
            for stop in [b' ', b':', b'(', 0xff] {
                let mut line = name[..len].to_vec();
                line.push(stop);
                line.extend_from_slice(b"abc.def");
                assert_eq!(logger_len(&line), len, "{len} bytes, then {stop:#x}");
            }
            assert_eq!(logger_len(&name[..len]), len, "{len} bytes, then the end");
        }
    }

    fn header<'a>(layout: &str, line: &'a str) -> (Header, &'a str) {
        let l = builtin_by_name(layout).unwrap();
        let h = l
            .match_header(line.as_bytes())
            .unwrap_or_else(|| panic!("{layout} rejects {line:?}"));
        (h, &line[h.message_start as usize..])
    }

    #[test]
    fn daemon_layout() {
        let line = "2026-08-23 10:15:30,123 [scm1-SCMInstallSnapshot-0] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Downloading checkpoint from leader SCM scm2.";
        let (h, msg) = header("daemon", line);
        assert_eq!(h.time.unwrap().to_string(), "2026-08-23T10:15:30.123");
        assert_eq!(h.level, Some(Level::Info));
        assert_eq!(h.thread(line.as_bytes()), b"scm1-SCMInstallSnapshot-0");
        assert_eq!(
            h.logger(line.as_bytes()),
            b"org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl"
        );
        assert_eq!(msg, "Downloading checkpoint from leader SCM scm2.");
    }

    #[test]
    fn thread_names_with_spaces_and_brackets() {
        let line =
            "2026-08-23 10:15:30,123 [IPC Server handler 3 on 9861] [x] WARN ha.SCMContext: m";
        let (h, msg) = header("daemon", line);
        assert_eq!(
            h.thread(line.as_bytes()),
            b"IPC Server handler 3 on 9861] [x"
        );
        assert_eq!(h.level, Some(Level::Warn));
        assert_eq!(msg, "m");
    }

    #[test]
    fn console_layout_takes_two_component_loggers_only() {
        let line = "2026-08-23 10:15:31,007 [2f3c-e9@group-9F3A1C2B4D5E-StateMachineUpdater] INFO ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 3, index: 5120";
        header("daemon", line);
        let daemon =
            "2026-08-23 10:15:31,007 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: x";
        assert!(builtin_by_name("console")
            .unwrap()
            .match_header(daemon.as_bytes())
            .is_none());
        let (h, msg) = header("console", line);
        assert_eq!(h.logger(line.as_bytes()), b"ha.SCMHAManagerImpl");
        assert_eq!(msg, "Replaced DB with checkpoint, term: 3, index: 5120");
    }

    #[test]
    fn test_layout_with_padding_and_location() {
        let line = "2026-08-23 10:15:31,007 [main] INFO  ha.SCMHAManagerImpl (SCMHAManagerImpl.java:installCheckpoint(317)) - Replaced DB";
        let (h, msg) = header("test", line);
        assert_eq!(h.source_line, Some(317));
        assert_eq!(h.level, Some(Level::Info));
        assert_eq!(msg, "Replaced DB");
        let ctor = "2019-11-15 03:43:37,214 [Thread-0] DEBUG minikdc.MiniKdc (MiniKdc.java:<init>(225)) - Configuration:";
        let (h, msg) = header("test", ctor);
        assert_eq!(h.level, Some(Level::Debug));
        assert_eq!(msg, "Configuration:");
        // The daemon layout must not claim test-layout lines (its logger would swallow the location).
        assert!(builtin_by_name("daemon")
            .unwrap()
            .match_header(line.as_bytes())
            .is_none());
    }

    #[test]
    fn om_ha_compose_layout() {
        let (h, msg) = header(
            "om-ha",
            "2019-11-15 03:33:19 INFO  OzoneManagerStarter:51 - STARTUP_MSG: ",
        );
        assert_eq!(h.source_line, Some(51));
        assert_eq!(h.time.unwrap().to_string(), "2019-11-15T03:33:19.000");
        assert_eq!(msg, "STARTUP_MSG: ");
    }

    #[test]
    fn audit_layouts() {
        let line = "2018-09-06 01:57:22,996 | INFO  | OMAudit | user=hadoop | ip=172.18.0.4 | op=ALLOCATE_KEY {volume=v} | ret=SUCCESS |";
        let (h, msg) = header("audit", line);
        assert_eq!(h.logger(line.as_bytes()), b"OMAudit");
        assert!(msg.starts_with("user=hadoop | ip="));
        // Hand-edited lines with an unpadded level still parse.
        header(
            "audit",
            "2018-09-06 01:58:09,035 | INFO | OMAudit | user=hadoop | op=X | ret=SUCCESS |",
        );
        let (_, msg) = header(
            "dn-container",
            "2026-02-01 16:08:59,261 | INFO  | ID=2 | Index=0 | BCSID=0 | State=OPEN |",
        );
        assert!(msg.starts_with("ID=2"));
    }

    #[test]
    fn neighbour_layouts() {
        let (h, _) = header(
            "hadoop-client",
            "24/02/07 18:47:36 INFO retry.RetryInvocationHandler: x",
        );
        assert_eq!(h.time.unwrap().to_string(), "2024-02-07T18:47:36.000");
        let (h, msg) = header(
            "log4j2-default",
            "03:44:02.843 [IPC Server handler 2 on 9862] ERROR OMAudit - user=om",
        );
        assert!(!h.time.unwrap().has_date);
        assert_eq!(msg, "user=om");
        let line = "[OM] 2020-07-28 12:33:28,463 [TRACE|org.apache.hadoop.ozone.Foo|OzoneProtocolMessageDispatcher] [service=OzoneProtocol] request";
        let (h, msg) = header("ozone-insight", line);
        assert_eq!(h.level, Some(Level::Trace));
        assert_eq!(h.thread(line.as_bytes()), b"OzoneProtocolMessageDispatcher");
        assert_eq!(msg, "[service=OzoneProtocol] request");
    }

    #[test]
    fn continuation_lines_are_not_headers() {
        for layout in builtin_layouts() {
            for line in [
                "\tat org.apache.hadoop.hdds.utils.HAUtils.replaceDBWithCheckpoint(HAUtils.java:214)",
                "Caused by: java.nio.file.NoSuchFileException: /data",
                "STARTUP_MSG:   host = scm1/172.18.0.4",
                "/************************************************************",
                "",
                "containerID: 1",
            ] {
                assert!(layout.match_header(line.as_bytes()).is_none(), "{} took {line:?}", layout.name);
            }
        }
    }

    #[test]
    fn user_patterns_and_errors() {
        let l = Layout::compile("user", "%d{yyyy-MM-dd'T'HH:mm:ss} %p %c - %m%n");
        assert!(
            l.is_err(),
            "quoted literals are not supported and must say so"
        );
        let l = Layout::compile("user", "%d{ABSOLUTE} %-5p [%c] %m%n").unwrap();
        let h = l
            .match_header(b"10:15:30,123 INFO  [org.x.Y] hello")
            .unwrap();
        assert_eq!(h.message_start, 29);
        let err = Layout::compile("user", "%d [%t] %q %m").unwrap_err();
        assert_eq!(err.offset, 8);
        assert!(err.message.contains("%q"));
        assert!(Layout::compile("user", "%d %p")
            .unwrap_err()
            .message
            .contains("%m"));
        assert!(Layout::compile("user", "%d %t%m").is_err());
    }
}
