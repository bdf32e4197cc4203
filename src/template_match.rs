//! A rule's template matched without its regex.
//!
//! A template is literal text, space runs and typed fields; its compiled regex (`grammar::compile_template`)
//! is the definition of what matches and what each field captures. Running it costs a lazy DFA pass to find
//! the match and a bounded backtracker (templates with a `.*?` field are not one-pass) to place the captures:
//! a third of `check` on logs whose every line is an event. This module walks the same pieces directly: it
//! tries each piece's possible lengths in the order the regex prefers them (greedy runs longest first, lazy
//! fields shortest first, an alternation's branches in order) and backtracks like the regex does, so the
//! first match found is the regex's match with the same captures. A walk that takes too many steps gives up
//! and the caller asks the regex; the regex stays the oracle in the tests below.

use crate::vocab::FieldType;

/// One piece of a template, in the order the regex has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Exact bytes (no space: spaces are [`Piece::Spaces`]).
    Lit(Vec<u8>),
    /// ` +` (a space run in the template), or ` *` (a trailing space before a line end or the end).
    Spaces { at_least_one: bool },
    /// `(?:.*?)`, a `{}` placeholder: no capture.
    Skip,
    /// A typed field (`(<type_pattern>)`), filling capture `cap`.
    Field { ty: FieldType, cap: usize },
}

/// Fields per template that the matcher handles; a template with more keeps the regex.
pub(crate) const MAX_CAPTURES: usize = 16;

/// Byte ranges of a match's captures, in capture order.
pub(crate) type Slots = [(usize, usize); MAX_CAPTURES];

/// What a walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    Match,
    NoMatch,
    /// The walk took more than its step budget: ask the regex.
    GaveUp,
}

/// A template as pieces, built beside its regex.
#[derive(Debug, Clone, Default)]
pub(crate) struct Template {
    pieces: Vec<Piece>,
    captures: usize,
}

impl Template {
    /// Appends literal template text as `grammar::literal_regex` does: a space run is one [`Piece::Spaces`],
    /// optional (` *`) before a line end or at the end of the run.
    pub(crate) fn push_literal(&mut self, lit: &str) {
        let b = lit.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b' ' {
                while b.get(i) == Some(&b' ') {
                    i += 1;
                }
                let at_least_one = !matches!(b.get(i), None | Some(b'\n'));
                self.pieces.push(Piece::Spaces { at_least_one });
            } else {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b' ')
                    .map_or(b.len(), |n| i + n);
                self.pieces.push(Piece::Lit(b[i..end].to_vec()));
                i = end;
            }
        }
    }

    pub(crate) fn push_skip(&mut self) {
        self.pieces.push(Piece::Skip);
    }

    pub(crate) fn push_field(&mut self, ty: FieldType) {
        self.pieces.push(Piece::Field {
            ty,
            cap: self.captures,
        });
        self.captures += 1;
    }

    /// Can this template be walked? Literal bytes must be ASCII (the regex's `(?-u)` reading of other text is
    /// not repeated here) and the captures must fit [`Slots`].
    pub(crate) fn usable(&self) -> bool {
        self.captures <= MAX_CAPTURES
            && self.pieces.iter().all(|p| match p {
                Piece::Lit(l) => l.is_ascii(),
                _ => true,
            })
    }

    /// Matches `text` from its start; on [`Found::Match`], `slots[i]` is capture `i`'s byte range.
    pub(crate) fn find(&self, text: &[u8], slots: &mut Slots) -> Found {
        // Matching records take about one step per piece; a record that needs more than this is left to the
        // regex, whose cost does not grow with backtracking.
        let budget = 256 + 16 * text.len().min(1 << 20);
        let mut w = Walk {
            pieces: &self.pieces,
            text,
            slots,
            budget,
            memo_from: budget.saturating_sub(2 * self.pieces.len() + 16),
            failed: Vec::new(),
        };
        w.at(0, 0)
    }
}

/// Bits of [`Walk::failed`] at most: a walk over more pieces and bytes goes on without it.
const MAX_MEMO_BITS: usize = 1 << 20;

struct Walk<'a> {
    pieces: &'a [Piece],
    text: &'a [u8],
    slots: &'a mut Slots,
    /// Steps left.
    budget: usize,
    /// Once the budget falls to this, the walk backtracks more than a matching record needs: it starts
    /// remembering where it failed.
    memo_from: usize,
    /// One bit per (piece, position) that was entered and did not match. What follows a piece does not
    /// depend on how the walk got there, so a second try there fails too (as in the regex's backtracker).
    failed: Vec<u64>,
}

impl Walk<'_> {
    /// Matches pieces `i..` and the template's end at `pos`.
    fn at(&mut self, i: usize, pos: usize) -> Found {
        if self.budget == 0 {
            return Found::GaveUp;
        }
        self.budget -= 1;
        if self.budget <= self.memo_from {
            let bits = (self.pieces.len() + 1) * (self.text.len() + 1);
            if self.failed.is_empty() && bits <= MAX_MEMO_BITS {
                self.failed = vec![0; bits.div_ceil(64)];
            }
            if self.entered_before(i, pos) {
                return Found::NoMatch;
            }
        }
        let text = self.text;
        let Some(piece) = self.pieces.get(i) else {
            // `[ \t]*(?:\n|\z)`: the greedy run leaves no choice.
            let end = pos + run(text, pos, |c| c == b' ' || c == b'\t');
            return if end == text.len() || text[end] == b'\n' {
                Found::Match
            } else {
                Found::NoMatch
            };
        };
        match piece {
            Piece::Lit(l) => {
                if text[pos..].starts_with(l) {
                    self.at(i + 1, pos + l.len())
                } else {
                    Found::NoMatch
                }
            }
            Piece::Spaces { at_least_one } => {
                let n = run(text, pos, |c| c == b' ');
                let least = usize::from(*at_least_one);
                for k in (least..=n).rev() {
                    match self.at(i + 1, pos + k) {
                        Found::NoMatch => {}
                        found => return found,
                    }
                }
                Found::NoMatch
            }
            Piece::Skip => self.lazy(i, pos, None),
            Piece::Field {
                ty: FieldType::Text,
                cap,
            } => self.lazy(i, pos, Some(*cap)),
            Piece::Field { ty, cap } => {
                let (ty, cap) = (*ty, *cap);
                each_end(ty, text, pos, &mut |end| {
                    self.slots[cap] = (pos, end);
                    self.at(i + 1, end)
                })
            }
        }
    }

    /// Marks piece `i` at `pos` as entered, once the walk remembers failures; was it entered before? Then that
    /// try found no match (a match ends the walk), and neither will this one.
    fn entered_before(&mut self, i: usize, pos: usize) -> bool {
        if self.failed.is_empty() {
            return false;
        }
        let bit = i * (self.text.len() + 1) + pos;
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        let seen = self.failed[word] & mask != 0;
        self.failed[word] |= mask;
        seen
    }

    /// `.*?`: every end from `pos` to the line's end, shortest first. Ends at which the next piece cannot
    /// start (its first byte is elsewhere) are skipped: they would fail at once. Entering the field at a later
    /// end would try the same ends from there on, so the walk marks each end as such an entry, and stops at
    /// one entered before (as the regex's backtracker does, which steps through `.*?` a byte at a time).
    fn lazy(&mut self, i: usize, pos: usize, cap: Option<usize>) -> Found {
        let text = self.text;
        let line_end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |n| pos + n);
        let next_byte = match self.pieces.get(i + 1) {
            Some(Piece::Lit(l)) => Some(l[0]),
            Some(Piece::Spaces { at_least_one: true }) => Some(b' '),
            _ => None,
        };
        // `b` may be the line's `\n` itself (a template going on to its next line).
        let stop = (line_end + 1).min(text.len());
        let next_end = |from: usize| match next_byte {
            Some(b) => memchr::memchr(b, &text[from.min(stop)..stop]).map(|n| from + n),
            None => (from <= line_end).then_some(from),
        };
        let mut from = pos;
        while let Some(end) = next_end(from) {
            if end > pos && self.entered_before(i, end) {
                return Found::NoMatch;
            }
            if let Some(c) = cap {
                self.slots[c] = (pos, end);
            }
            match self.at(i + 1, end) {
                Found::NoMatch => from = end + 1,
                found => return found,
            }
        }
        Found::NoMatch
    }
}

/// Length of the run of bytes from `pos` that satisfy `class`.
#[inline]
fn run(text: &[u8], pos: usize, class: impl Fn(u8) -> bool) -> usize {
    text[pos.min(text.len())..]
        .iter()
        .position(|&c| !class(c))
        .unwrap_or(text.len().saturating_sub(pos))
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn digit(c: u8) -> bool {
    c.is_ascii_digit()
}

/// `\S` with Unicode off: any byte but ASCII white space (`\t \n \v \f \r` and space).
fn not_space(c: u8) -> bool {
    !matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

fn uuid_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// Tries `f` on the ends of a greedy run `[start+1 ..= start+len]`, longest first.
fn greedy(start: usize, len: usize, f: &mut dyn FnMut(usize) -> Found) -> Found {
    for end in (start + 1..=start + len).rev() {
        match f(end) {
            Found::NoMatch => {}
            found => return found,
        }
    }
    Found::NoMatch
}

/// Reads an exact byte string at `pos`; the position after it.
fn lit(text: &[u8], pos: usize, s: &[u8]) -> Option<usize> {
    text.get(pos..)?.starts_with(s).then_some(pos + s.len())
}

/// `-?\d+` followed by something that is not a digit: the greedy run leaves one choice. The end.
fn signed_digits(text: &[u8], mut pos: usize) -> Option<usize> {
    if text.get(pos) == Some(&b'-') {
        pos += 1;
    }
    let n = run(text, pos, digit);
    (n > 0).then_some(pos + n)
}

/// The first of `)`/`\n` (or `]`/`\n`) from `pos` must be `close`: the end after it.
fn closed_by(text: &[u8], pos: usize, close: u8) -> Option<usize> {
    let n = memchr::memchr2(close, b'\n', text.get(pos..)?)?;
    (text[pos + n] == close).then_some(pos + n + 1)
}

/// Calls `f` with every end of a `ty` field starting at `pos`, in the order the field's pattern
/// (`grammar::type_pattern`) prefers them, until `f` does not answer [`Found::NoMatch`].
fn each_end(ty: FieldType, text: &[u8], pos: usize, f: &mut dyn FnMut(usize) -> Found) -> Found {
    let one = |end: Option<usize>, f: &mut dyn FnMut(usize) -> Found| match end {
        Some(end) => f(end),
        None => Found::NoMatch,
    };
    match ty {
        // `[0-9A-Za-z]+`
        FieldType::U64 => greedy(pos, run(text, pos, alnum), f),
        // `-?[0-9A-Za-z]+`: without the `-` the run would start at it, which no run can.
        FieldType::I64 => {
            let start = if text.get(pos) == Some(&b'-') {
                pos + 1
            } else {
                pos
            };
            greedy(start, run(text, start, alnum), f)
        }
        // `\S+`
        FieldType::Word | FieldType::HostIp => greedy(pos, run(text, pos, not_space), f),
        // `.*?` is walked by `Walk::lazy`; kept here so that every type has its ends.
        FieldType::Text => {
            let line_end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |n| pos + n);
            for end in pos..=line_end {
                match f(end) {
                    Found::NoMatch => {}
                    found => return found,
                }
            }
            Found::NoMatch
        }
        // `[0-9A-Za-z-]+`
        FieldType::Uuid => greedy(pos, run(text, pos, uuid_char), f),
        // `\(t:~?-?\d+, i:~?-?\d+\)|<[A-Z_]+>`: each optional sign and digit run is followed by what it
        // cannot take, so each branch has at most one end, and the first byte picks the branch.
        FieldType::TermIndex => {
            let paren = || {
                let p = lit(text, pos, b"(t:")?;
                let p = p + usize::from(text.get(p) == Some(&b'~'));
                let p = signed_digits(text, p)?;
                let p = lit(text, p, b", i:")?;
                let p = p + usize::from(text.get(p) == Some(&b'~'));
                let p = signed_digits(text, p)?;
                lit(text, p, b")")
            };
            let angle = || {
                let p = lit(text, pos, b"<")?;
                let n = run(text, p, |c| c.is_ascii_uppercase() || c == b'_');
                (n > 0).then_some(())?;
                lit(text, p + n, b">")
            };
            one(paren().or_else(angle), f)
        }
        // `-?\d+#-?\d+`: the last run is greedy.
        FieldType::TxInfo => {
            let Some(p) = signed_digits(text, pos).and_then(|p| lit(text, p, b"#")) else {
                return Found::NoMatch;
            };
            let p = p + usize::from(text.get(p) == Some(&b'-'));
            greedy(p, run(text, p, digit), f)
        }
        // `[A-Za-z_][A-Za-z0-9_]* \(-?\d+\)`
        FieldType::Version => {
            let end = || {
                let c = *text.get(pos)?;
                (c.is_ascii_alphabetic() || c == b'_').then_some(())?;
                let p = pos + 1 + run(text, pos + 1, |c| c.is_ascii_alphanumeric() || c == b'_');
                let p = lit(text, p, b" (")?;
                let p = signed_digits(text, p)?;
                lit(text, p, b")")
            };
            one(end(), f)
        }
        // `conID: [0-9A-Za-z]+ locID: [0-9A-Za-z]+ bcsId: [0-9A-Za-z]+(?: replicaIndex: \S+)?`: the last run
        // is greedy; only at its full length can the optional part follow, and it is tried first.
        FieldType::BlockId => {
            let start = || {
                let p = lit(text, pos, b"conID: ")?;
                let n = run(text, p, alnum);
                let p = lit(text, p + n, b" locID: ").filter(|_| n > 0)?;
                let n = run(text, p, alnum);
                lit(text, p + n, b" bcsId: ").filter(|_| n > 0)
            };
            let Some(p) = start() else {
                return Found::NoMatch;
            };
            let n = run(text, p, alnum);
            if n == 0 {
                return Found::NoMatch;
            }
            if let Some(q) = lit(text, p + n, b" replicaIndex: ") {
                match greedy(q, run(text, q, not_space), f) {
                    Found::NoMatch => {}
                    found => return found,
                }
            }
            greedy(p, n, f)
        }
        // `SecretKey\([^)\n]*\)`
        FieldType::SecretKey => one(
            lit(text, pos, b"SecretKey(").and_then(|p| closed_by(text, p, b')')),
            f,
        ),
        // `\[[^\]\n]*\]`
        FieldType::SecretKeys => one(
            lit(text, pos, b"[").and_then(|p| closed_by(text, p, b']')),
            f,
        ),
        // `[0-9A-Za-z-]+(?:\([^)\n]*\)|\{[^\n]*?\})?`: at the run's full length the optional part is tried
        // first (`(...)` up to the first `)`, or `{...}` up to each `}` of the line, nearest first).
        FieldType::Datanode => {
            let n = run(text, pos, uuid_char);
            if n == 0 {
                return Found::NoMatch;
            }
            let e = pos + n;
            match text.get(e) {
                Some(b'(') => {
                    if let Some(end) = closed_by(text, e + 1, b')') {
                        match f(end) {
                            Found::NoMatch => {}
                            found => return found,
                        }
                    }
                }
                Some(b'{') => {
                    let line_end = memchr::memchr(b'\n', &text[e..]).map_or(text.len(), |n| e + n);
                    for q in memchr::memchr_iter(b'}', &text[e + 1..line_end]) {
                        match f(e + 1 + q + 1) {
                            Found::NoMatch => {}
                            found => return found,
                        }
                    }
                }
                _ => {}
            }
            greedy(pos, n, f)
        }
        // `\S+@group-[0-9A-Fa-f]+`: `\S+` may take `@group-...` itself, so every `@group-` in the run is a
        // place to end it, the last first; the hex run after it is greedy.
        FieldType::Member => {
            let n = run(text, pos, not_space);
            for l in (pos + 1..=pos + n).rev() {
                if let Some(h) = lit(text, l, b"@group-") {
                    match greedy(h, run(text, h, |c| c.is_ascii_hexdigit()), f) {
                        Found::NoMatch => {}
                        found => return found,
                    }
                }
            }
            Found::NoMatch
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::grammar::{literal_regex, type_pattern};
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use regex::bytes::Regex;

    /// The walk and the regex agree on `text`: the same capture ranges, or both no match. A walk that gives
    /// up agrees with anything (the regex answers for it); `walked` counts the walks that did not.
    pub(crate) fn agree(
        t: &Template,
        re: &Regex,
        text: &[u8],
        walked: &mut usize,
    ) -> Result<(), TestCaseError> {
        let mut slots = [(0, 0); MAX_CAPTURES];
        let found = t.find(text, &mut slots);
        let caps = re.captures(text);
        match (found, &caps) {
            (Found::GaveUp, _) => return Ok(()),
            (Found::Match, Some(c)) => {
                for (i, slot) in slots.iter().enumerate().take(t.captures) {
                    let m = c.get(i + 1).expect("every field takes part");
                    prop_assert_eq!(*slot, (m.start(), m.end()), "capture {}", i);
                }
            }
            (Found::NoMatch, None) => {}
            _ => prop_assert!(false, "walk {found:?}, regex {caps:?}"),
        }
        *walked += 1;
        Ok(())
    }

    #[derive(Debug, Clone)]
    enum Part {
        Lit(String),
        Skip,
        Field(FieldType),
    }

    /// A template and its regex, built the way `grammar::compile_template` builds them.
    fn build(parts: &[Part]) -> (Template, Regex) {
        let mut t = Template::default();
        let mut re = String::from("(?-u)^");
        for p in parts {
            match p {
                Part::Lit(s) => {
                    literal_regex(s, &mut re);
                    t.push_literal(s);
                }
                Part::Skip => {
                    re.push_str("(?:.*?)");
                    t.push_skip();
                }
                Part::Field(ty) => {
                    re.push('(');
                    re.push_str(type_pattern(*ty));
                    re.push(')');
                    t.push_field(*ty);
                }
            }
        }
        re.push_str(r"[ \t]*(?:\n|\z)");
        (t, Regex::new(&re).expect("compiles"))
    }

    /// Renderings of each type, right and nearly right.
    fn renderings(ty: FieldType) -> &'static [&'static str] {
        match ty {
            FieldType::U64 => &["42", "0x1F", "-3", "7 8"],
            FieldType::I64 => &["-5", "7", "--1", "-"],
            FieldType::Word | FieldType::HostIp => &["abc", "a:b", "x@group-1", "h/1.2.3.4"],
            FieldType::Text => &["some text", "", "a}b", "x: y"],
            FieldType::Uuid => &["1b4e28ba-2fa1-11d2-883f-0016d3cca427", "abc", "-"],
            FieldType::TermIndex => &[
                "(t:3, i:5120)",
                "(t:~1, i:~-1)",
                "<INITIAL_VALUE>",
                "(t:3,i:5)",
            ],
            FieldType::TxInfo => &["3#5120", "-1#-1", "3#", "12#34#5"],
            FieldType::Version => &["ZDU (100)", "INITIAL_VERSION (-1)", "9X (1)", "A  (1)"],
            FieldType::BlockId => &[
                "conID: 1 locID: 1137 bcsId: 0",
                "conID: 1 locID: 1137 bcsId: 0 replicaIndex: null",
                "conID: 1 locID: 1137 bcsId: 0 replicaIndex: ",
                "conID: 1 locID:  2 bcsId: 3",
            ],
            FieldType::SecretKey => &[
                "SecretKey(id = x, creation at: y)",
                "SecretKey(x",
                "SecretKey()",
            ],
            FieldType::SecretKeys => &["[SecretKey(a), SecretKey(b)]", "[]", "[x", "[a]]"],
            FieldType::Datanode => &[
                "d7-1(host/1.2.3.4)",
                "abc{ip: 1, host: h}",
                "abc{a}b}",
                "d-1",
                "d(x",
            ],
            FieldType::Member => &[
                "s1@group-ABCDEF012345",
                "a@group-1@group-2",
                "x@group-",
                "@group-1",
            ],
        }
    }

    /// Bytes that matter to some piece: separators, signs, brackets, white space, non-ASCII.
    const ALPHABET: &[u8] = b" \t\n\r\x0b-@#:(),<>{}[]~_.aZ09g\xc3\xff";

    fn part() -> impl Strategy<Value = Part> {
        prop_oneof![
            3 => proptest::string::string_regex("[a-c:(),@#<>{}~ \n-]{1,6}")
                .expect("valid")
                .prop_map(Part::Lit),
            1 => Just(Part::Skip),
            4 => proptest::sample::select(FieldType::ALL.to_vec()).prop_map(Part::Field),
        ]
    }

    /// A template and a text: each part rendered (a literal as itself), then a few bytes changed.
    fn case() -> impl Strategy<Value = (Vec<Part>, Vec<u8>)> {
        (
            proptest::collection::vec(part(), 1..7),
            proptest::collection::vec(any::<proptest::sample::Index>(), 7),
            proptest::collection::vec(
                (
                    any::<proptest::sample::Index>(),
                    0..3u8,
                    proptest::sample::select(ALPHABET.to_vec()),
                ),
                0..4,
            ),
            proptest::sample::select(vec!["", " ", " \t", "\nat x", " x", "\n"]),
        )
            .prop_map(|(parts, picks, edits, tail)| {
                let mut text = Vec::new();
                for (p, pick) in parts.iter().zip(&picks) {
                    match p {
                        Part::Lit(s) => text.extend_from_slice(s.as_bytes()),
                        Part::Skip => {
                            text.extend_from_slice(pick.get(&["", "x y", "}:"]).as_bytes())
                        }
                        Part::Field(ty) => {
                            text.extend_from_slice(pick.get(renderings(*ty)).as_bytes())
                        }
                    }
                }
                text.extend_from_slice(tail.as_bytes());
                edit(&mut text, &edits);
                (parts, text)
            })
    }

    /// Inserts, replaces or deletes a byte per edit.
    pub(crate) fn edit(text: &mut Vec<u8>, edits: &[(proptest::sample::Index, u8, u8)]) {
        for (at, op, byte) in edits {
            let i = at.index(text.len() + 1);
            match op {
                0 => text.insert(i, *byte),
                1 if i < text.len() => text[i] = *byte,
                _ if i < text.len() => {
                    text.remove(i);
                }
                _ => {}
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn the_walk_finds_what_the_regex_finds((parts, text) in case()) {
            let (t, re) = build(&parts);
            let mut walked = 0;
            agree(&t, &re, &text, &mut walked)?;
        }
    }

    #[test]
    fn random_cases_are_walked_not_left_to_the_regex() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut cases, mut walked, mut matched) = (0, 0, 0);
        for _ in 0..2000 {
            let (parts, text) = case().new_tree(&mut runner).expect("a case").current();
            let (t, re) = build(&parts);
            agree(&t, &re, &text, &mut walked).expect("agree");
            cases += 1;
            matched += usize::from(re.is_match(&text));
        }
        // The comparison means something only if most cases are walked and a fair share match.
        assert!(walked * 100 >= cases * 99, "{walked} of {cases} walked");
        assert!(matched * 5 >= cases, "{matched} of {cases} match");
    }

    #[test]
    fn pieces_follow_the_regex_for_spaces() {
        let mut t = Template::default();
        t.push_literal("a  b \nc ");
        assert_eq!(
            t.pieces,
            [
                Piece::Lit(b"a".to_vec()),
                Piece::Spaces { at_least_one: true },
                Piece::Lit(b"b".to_vec()),
                Piece::Spaces {
                    at_least_one: false
                },
                Piece::Lit(b"\nc".to_vec()),
                Piece::Spaces {
                    at_least_one: false
                },
            ]
        );
    }

    #[test]
    fn greedy_words_give_back_what_the_literal_after_them_needs() {
        let (t, _) = build(&[Part::Field(FieldType::Word), Part::Lit(": x".into())]);
        let mut slots = [(0, 0); MAX_CAPTURES];
        assert_eq!(t.find(b"a:b: x", &mut slots), Found::Match);
        assert_eq!(slots[0], (0, 3));
        assert_eq!(t.find(b"a:b: y", &mut slots), Found::NoMatch);
    }

    #[test]
    fn a_datanode_in_braces_ends_at_the_first_brace_that_lets_the_rest_match() {
        let (t, re) = build(&[Part::Field(FieldType::Datanode), Part::Lit("} end".into())]);
        let text = b"d1{a}b}} end";
        let mut slots = [(0, 0); MAX_CAPTURES];
        assert_eq!(t.find(text, &mut slots), Found::Match);
        assert_eq!(slots[0], (0, 7));
        let mut walked = 0;
        agree(&t, &re, text, &mut walked).expect("agree");
    }

    #[test]
    fn a_walk_that_backtracks_much_remembers_where_it_failed_and_may_give_up() {
        // Five lazy fields before a literal that is not there: the walk tries every way to split the line.
        let parts: Vec<Part> = (0..5)
            .flat_map(|_| [Part::Field(FieldType::Text), Part::Lit(" ".into())])
            .chain([Part::Lit("!".into())])
            .collect();
        let (t, re) = build(&parts);
        let mut slots = [(0, 0); MAX_CAPTURES];
        // Without the memo this line takes about 60^5 / 5! steps; with it, a few per (piece, position).
        let short = "a ".repeat(60);
        assert_eq!(t.find(short.as_bytes(), &mut slots), Found::NoMatch);
        let long = "a ".repeat(3000);
        assert_eq!(t.find(long.as_bytes(), &mut slots), Found::NoMatch);
        // Too long to remember every (piece, position): the walk gives up, and the regex answers.
        let too_long = "a ".repeat(60_000);
        assert_eq!(t.find(too_long.as_bytes(), &mut slots), Found::GaveUp);
        assert!(!re.is_match(long.as_bytes()));
        assert!(!re.is_match(too_long.as_bytes()));
    }
}
