//! Finds the SLF4J/log4j logging statements in Java source and says which logger and template each uses.
//!
//! Not a Java parser: a lexer (comments, strings, text blocks, chars) and a walk over its tokens that tracks
//! braces, class declarations, `Logger` fields and parameters, and `String` constants. What it cannot work out
//! statically is said so ([`Template::Unresolved`], [`LoggerRef::Runtime`]), never guessed.

use std::collections::HashMap;
use std::path::Path;

/// One piece of a message template: literal text or a hole (`{}`, a concatenated expression, `%s`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Lit(String),
    Hole,
}

/// The message a statement logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Template {
    Pieces(Vec<Piece>),
    /// Built at run time (a method call, a `StringBuilder`, a variable with no literal): the expression's text.
    Unresolved(String),
}

/// Which logger a statement writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoggerRef {
    /// The logger's name, as `LoggerFactory.getLogger(X.class)` gives it (`a.b.Outer$Inner`).
    Named(String),
    /// A `Logger` parameter of `method`: the caller's; `callers` are the loggers the tree's call sites pass.
    Param {
        method: String,
        callers: Vec<String>,
    },
    /// Decided at run time (a field assigned in a constructor, `getLogger(name)`): why.
    Runtime(String),
}

/// A logging statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The source tree it was read from (`apache/ozone@78d5650c`), empty until the caller names it.
    pub tree: String,
    /// Path relative to the source tree's root, `/`-separated.
    pub file: String,
    /// Lines of the call's start (`LOG.info(`) and its closing parenthesis.
    pub line: u32,
    pub end_line: u32,
    /// `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`.
    pub level: String,
    pub logger: LoggerRef,
    /// The innermost named class the statement is in (`a.b.Outer$Inner`).
    pub class: String,
    pub template: Template,
}

impl Statement {
    /// The file's base name, as rules cite it (`SCMStateMachine.java`).
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(&self.file)
    }

    /// Does the statement span `line`? A rule may cite the call's first line or the line of its literal.
    pub fn covers(&self, line: u32) -> bool {
        (self.line..=self.end_line).contains(&line)
    }

    /// Logger names the statement may write to (a parameter's: its callers').
    pub fn logger_names(&self) -> Vec<&str> {
        match &self.logger {
            LoggerRef::Named(n) => vec![n.as_str()],
            LoggerRef::Param { callers, .. } => callers.iter().map(String::as_str).collect(),
            LoggerRef::Runtime(_) => vec![],
        }
    }
}

impl Template {
    /// `{}` for each hole; literal text as is.
    pub fn display(&self) -> String {
        match self {
            Template::Pieces(p) => pieces_display(p),
            Template::Unresolved(expr) => format!("<built at run time: {expr}>"),
        }
    }
}

pub fn pieces_display(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(s) => s.as_str(),
            Piece::Hole => "{}",
        })
        .collect()
}

/// Splits SLF4J literal text at its `{}` anchors, merging neighbours.
pub fn slf4j_pieces(text: &str, out: &mut Vec<Piece>) {
    let mut rest = text;
    while let Some(i) = rest.find("{}") {
        push_lit(out, &rest[..i]);
        push_hole(out);
        rest = &rest[i + 2..];
    }
    push_lit(out, rest);
}

fn push_lit(out: &mut Vec<Piece>, s: &str) {
    if s.is_empty() {
        return;
    }
    if let Some(Piece::Lit(last)) = out.last_mut() {
        last.push_str(s);
    } else {
        out.push(Piece::Lit(s.to_string()));
    }
}

fn push_hole(out: &mut Vec<Piece>) {
    if out.last() != Some(&Piece::Hole) {
        out.push(Piece::Hole);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Lexing.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    /// Numbers and char literals: only their place matters.
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: u32,
}

fn lex(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1u32);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    if b[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
            }
            b'"' if b[i..].starts_with(b"\"\"\"") => {
                let start_line = line;
                let mut j = i + 3;
                while j < b.len() && !b[j..].starts_with(b"\"\"\"") {
                    if b[j] == b'\\' {
                        j += 1;
                    }
                    if b.get(j) == Some(&b'\n') {
                        line += 1;
                    }
                    j += 1;
                }
                let body = src.get(i + 3..j.min(b.len())).unwrap_or("");
                out.push(Token {
                    tok: Tok::Str(text_block(body)),
                    line: start_line,
                });
                i = j + 3;
            }
            b'"' | b'\'' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != c && b[j] != b'\n' {
                    if b[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
                let body = src.get(i + 1..j.min(b.len())).unwrap_or("");
                let tok = if c == b'"' {
                    Tok::Str(unescape(body))
                } else {
                    Tok::Other
                };
                out.push(Token { tok, line });
                i = j + 1;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 => {
                let mut j = i;
                while j < b.len()
                    && (b[j].is_ascii_alphanumeric()
                        || b[j] == b'_'
                        || b[j] == b'$'
                        || b[j] >= 0x80)
                {
                    j += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(src[i..j].to_string()),
                    line,
                });
                i = j;
            }
            _ if c.is_ascii_digit() => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'_')
                {
                    j += 1;
                }
                out.push(Token {
                    tok: Tok::Other,
                    line,
                });
                i = j;
            }
            _ => {
                out.push(Token {
                    tok: Tok::Punct(c as char),
                    line,
                });
                i += 1;
            }
        }
    }
    out
}

/// Java escapes in a string literal.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('s') => out.push(' '),
            Some('b') | Some('f') => {}
            Some('u') => {
                let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                while let Some(&n @ '0'..='7') = chars.peek() {
                    v = v * 8 + n.to_digit(8).unwrap_or(0);
                    chars.next();
                }
                out.extend(char::from_u32(v));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// A text block's content: the first line break dropped, the common indentation stripped.
fn text_block(body: &str) -> String {
    let body = body.split_once('\n').map(|x| x.1).unwrap_or(body);
    let indent = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = body
        .lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    unescape(&lines.join("\n"))
}

// ---------------------------------------------------------------------------------------------------------
// Walking one file.

const LEVELS: [(&str, &str); 5] = [
    ("trace", "TRACE"),
    ("debug", "DEBUG"),
    ("info", "INFO"),
    ("warn", "WARN"),
    ("error", "ERROR"),
];

/// How a `Logger` field got its value.
#[derive(Debug, Clone)]
enum FieldInit {
    Named(String),
    Runtime(String),
}

#[derive(Debug, Default)]
struct ClassInfo {
    fqcn: String,
    /// Names of the types it extends or implements, as written (`RaftServer.Division`).
    supers: Vec<String>,
    loggers: HashMap<String, FieldInit>,
}

/// A call that passes arguments to a method, kept to find who hands a logger to a helper.
#[derive(Debug)]
struct Call {
    method: String,
    /// Each argument that is one identifier, resolved to a logger name where it names a logger in scope.
    args: Vec<Option<String>>,
}

/// What one file yields before names are resolved across the tree.
#[derive(Debug, Default)]
struct FileFacts {
    classes: Vec<ClassInfo>,
    statements: Vec<(Statement, Receiver)>,
    /// `import static a.b.C.LOG;`: `LOG` -> `a.b.C`.
    static_imports: HashMap<String, String>,
    /// Methods with a `Logger` parameter: method -> parameter positions.
    logger_params: HashMap<String, Vec<usize>>,
    calls: Vec<Call>,
}

/// The receiver of a logging call, to be resolved once every file is read.
#[derive(Debug, Clone)]
enum Receiver {
    Done,
    /// A field name not declared in the file's classes, looked up in static imports and supertypes: the
    /// classes in scope (innermost first) and an explicit qualifier (`Division.LOG`).
    Field {
        name: String,
        scope: Vec<usize>,
        qualifier: Option<String>,
    },
}

struct Walker<'a> {
    toks: &'a [Token],
    file: &'a str,
    package: String,
    imports: HashMap<String, String>,
    facts: FileFacts,
    /// Open named classes: index into `facts.classes` and the brace depth inside them.
    class_stack: Vec<(usize, usize)>,
    /// Open method bodies with `Logger` parameters: (parameter names, method, depth inside).
    param_scopes: Vec<(Vec<String>, String, usize)>,
    /// `String NAME = expr;` seen so far: the expression's token range.
    strings: HashMap<String, (usize, usize)>,
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t.map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

fn punct(t: Option<&Token>, c: char) -> bool {
    matches!(t.map(|t| &t.tok), Some(Tok::Punct(p)) if *p == c)
}

impl<'a> Walker<'a> {
    fn new(toks: &'a [Token], file: &'a str) -> Self {
        Walker {
            toks,
            file,
            package: String::new(),
            imports: HashMap::new(),
            facts: FileFacts::default(),
            class_stack: Vec::new(),
            param_scopes: Vec::new(),
            strings: HashMap::new(),
        }
    }

    /// The index after the token that closes the bracket opened at `open`.
    fn close_of(&self, open: usize) -> usize {
        let mut depth = 0i32;
        let mut i = open;
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.toks.len()
    }

    /// A dotted name starting at `i`: the name and the index after it.
    fn dotted(&self, mut i: usize) -> (String, usize) {
        let mut name = String::new();
        while let Some(id) = ident(self.toks.get(i)) {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(id);
            if punct(self.toks.get(i + 1), '.') && ident(self.toks.get(i + 2)).is_some() {
                i += 2;
            } else {
                return (name, i + 1);
            }
        }
        (name, i)
    }

    /// A class named in source (`X`, `Outer.Inner`, `a.b.X`) as a logger name: nested classes of this file,
    /// then imports, then this package.
    fn class_name(&self, written: &str) -> String {
        let (head, rest) = written.split_once('.').unwrap_or((written, ""));
        let nested = |base: String| {
            if rest.is_empty() {
                base
            } else {
                format!("{base}${}", rest.replace('.', "$"))
            }
        };
        if let Some(c) = self
            .facts
            .classes
            .iter()
            .find(|c| c.fqcn.rsplit(['.', '$']).next() == Some(head))
        {
            return nested(c.fqcn.clone());
        }
        if let Some(fq) = self.imports.get(head) {
            return nested(fq.clone());
        }
        if head.starts_with(|c: char| c.is_ascii_lowercase()) && !rest.is_empty() {
            // Already qualified: the first segment starting with a capital is the class.
            let parts: Vec<&str> = written.split('.').collect();
            if let Some(k) = parts
                .iter()
                .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
            {
                return format!("{}${}", parts[..=k].join("."), parts[k + 1..].join("$"))
                    .trim_end_matches('$')
                    .to_string();
            }
            return written.to_string();
        }
        if self.package.is_empty() {
            nested(head.to_string())
        } else {
            nested(format!("{}.{head}", self.package))
        }
    }

    fn current_class(&self) -> Option<usize> {
        self.class_stack.last().map(|&(c, _)| c)
    }

    fn walk(mut self) -> FileFacts {
        let mut depth = 0usize;
        let mut pending_class: Option<usize> = None;
        let mut pending_params: Vec<String> = Vec::new();
        let mut pending_method = String::new();
        let mut parens: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < self.toks.len() {
            let t = &self.toks[i];
            match &t.tok {
                Tok::Punct('{') => {
                    depth += 1;
                    if let Some(c) = pending_class.take() {
                        self.class_stack.push((c, depth));
                    } else if !pending_params.is_empty() {
                        let names = std::mem::take(&mut pending_params);
                        self.param_scopes
                            .push((names, pending_method.clone(), depth));
                    }
                }
                Tok::Punct('}') => {
                    if self.class_stack.last().is_some_and(|&(_, d)| d == depth) {
                        self.class_stack.pop();
                    }
                    if self.param_scopes.last().is_some_and(|s| s.2 == depth) {
                        self.param_scopes.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Punct(';') => pending_params.clear(),
                Tok::Punct('(') => parens.push(i),
                Tok::Punct(')') => {
                    parens.pop();
                }
                Tok::Ident(id) => match id.as_str() {
                    "package" if depth == 0 => {
                        let (name, next) = self.dotted(i + 1);
                        self.package = name;
                        i = next;
                        continue;
                    }
                    "import" if depth == 0 => {
                        let is_static = ident(self.toks.get(i + 1)) == Some("static");
                        let (name, next) = self.dotted(i + 1 + is_static as usize);
                        if let Some((owner, last)) = name.rsplit_once('.') {
                            if is_static {
                                self.facts
                                    .static_imports
                                    .insert(last.to_string(), owner.to_string());
                            } else {
                                self.imports.insert(last.to_string(), name.clone());
                            }
                        }
                        i = next;
                        continue;
                    }
                    "class" | "interface" | "enum" | "record"
                        if !punct(i.checked_sub(1).and_then(|p| self.toks.get(p)), '.')
                            && ident(self.toks.get(i + 1)).is_some() =>
                    {
                        let name = ident(self.toks.get(i + 1)).unwrap_or_default().to_string();
                        let fqcn = match self.current_class() {
                            Some(c) => format!("{}${name}", self.facts.classes[c].fqcn),
                            None if self.package.is_empty() => name,
                            None => format!("{}.{name}", self.package),
                        };
                        let mut supers = Vec::new();
                        let mut j = i + 2;
                        let mut in_supers = false;
                        let mut angle = 0;
                        while j < self.toks.len() && !punct(self.toks.get(j), '{') {
                            match &self.toks[j].tok {
                                Tok::Punct('(') => {
                                    j = self.close_of(j);
                                    continue;
                                }
                                Tok::Punct('<') => angle += 1,
                                Tok::Punct('>') => angle -= 1,
                                Tok::Ident(k) if k == "extends" || k == "implements" => {
                                    in_supers = true
                                }
                                Tok::Ident(k) if k == "permits" => in_supers = false,
                                Tok::Ident(_) if in_supers && angle == 0 => {
                                    let (n, next) = self.dotted(j);
                                    supers.push(n);
                                    j = next;
                                    continue;
                                }
                                _ => {}
                            }
                            j += 1;
                        }
                        self.facts.classes.push(ClassInfo {
                            fqcn,
                            supers,
                            loggers: HashMap::new(),
                        });
                        pending_class = Some(self.facts.classes.len() - 1);
                        i = j;
                        continue;
                    }
                    "Logger" if ident(self.toks.get(i + 1)).is_some() => {
                        let name = ident(self.toks.get(i + 1)).unwrap_or_default().to_string();
                        let after = self.toks.get(i + 2);
                        if punct(after, ',') || punct(after, ')') {
                            // A parameter: the method is the identifier before the open parenthesis.
                            if let Some(&open) = parens.last() {
                                let method =
                                    ident(open.checked_sub(1).and_then(|p| self.toks.get(p)))
                                        .unwrap_or("lambda")
                                        .to_string();
                                let pos = self.toks[open + 1..i]
                                    .iter()
                                    .filter(|t| matches!(t.tok, Tok::Punct(',')))
                                    .count();
                                self.facts
                                    .logger_params
                                    .entry(method.clone())
                                    .or_default()
                                    .push(pos);
                                pending_method = method;
                                pending_params.push(name);
                            }
                        } else if let Some(c) = self.current_class() {
                            let init = if punct(after, '=') {
                                self.logger_init(i + 3)
                            } else {
                                FieldInit::Runtime(format!("field {name} assigned at run time"))
                            };
                            if self.param_scopes.is_empty() {
                                self.facts.classes[c].loggers.insert(name, init);
                            }
                        }
                    }
                    "String"
                        if ident(self.toks.get(i + 1)).is_some()
                            && punct(self.toks.get(i + 2), '=') =>
                    {
                        let name = ident(self.toks.get(i + 1)).unwrap_or_default().to_string();
                        let start = i + 3;
                        let end = self.expr_end(start);
                        self.strings.insert(name, (start, end));
                    }
                    _ => {
                        if let Some(next) = self.logging_call(i) {
                            i = next;
                            continue;
                        }
                        self.record_call(i);
                    }
                },
                _ => {}
            }
            i += 1;
        }
        self.facts
    }

    /// The end of an expression starting at `i`: the `;` or `,` or `)` at its own nesting level.
    fn expr_end(&self, mut i: usize) -> usize {
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::Punct('(' | '[' | '{') => {
                    i = self.close_of(i);
                    continue;
                }
                Tok::Punct(';' | ',' | ')' | ']' | '}') => return i,
                _ => {}
            }
            i += 1;
        }
        i
    }

    /// `LoggerFactory.getLogger(X.class)` and its variants, from the token after `=`.
    fn logger_init(&self, start: usize) -> FieldInit {
        let end = self.expr_end(start);
        let Some(g) = (start..end)
            .find(|&k| ident(self.toks.get(k)).is_some_and(|s| s == "getLogger" || s == "getLog"))
        else {
            return FieldInit::Runtime(format!("logger from `{}`", self.text(start, end)));
        };
        let arg_start = g + 2;
        let arg_end = self.expr_end(arg_start);
        let arg = &self.toks[arg_start.min(arg_end)..arg_end];
        if let [Token {
            tok: Tok::Str(s), ..
        }] = arg
        {
            return FieldInit::Named(s.clone());
        }
        let (written, next) = self.dotted(arg_start);
        let ends_with = |k: &str| written.ends_with(k);
        if written == "getClass" || written == "this.getClass" {
            if let Some(c) = self.current_class() {
                return FieldInit::Named(self.facts.classes[c].fqcn.clone());
            }
        }
        if next <= arg_end && ends_with(".class")
            || ends_with(".class.getName")
            || ends_with(".class.getCanonicalName")
        {
            let class = written.split(".class").next().unwrap_or_default();
            return FieldInit::Named(self.class_name(class));
        }
        if ends_with(".class.getSimpleName") {
            let class = written.split(".class").next().unwrap_or_default();
            return FieldInit::Named(class.rsplit('.').next().unwrap_or(class).to_string());
        }
        FieldInit::Runtime(format!("getLogger({})", self.text(arg_start, arg_end)))
    }

    fn text(&self, start: usize, end: usize) -> String {
        let mut s = String::new();
        for t in &self.toks[start.min(end)..end] {
            match &t.tok {
                Tok::Ident(x) => {
                    if s.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        s.push(' ');
                    }
                    s.push_str(x);
                }
                Tok::Str(x) => s.push_str(&format!("{x:?}")),
                Tok::Punct(c) => s.push(*c),
                Tok::Other => s.push('…'),
            }
        }
        s
    }

    /// `recv.level(args)` at `i` (the receiver's first identifier): records the statement, returns the index
    /// after the call.
    fn logging_call(&mut self, i: usize) -> Option<usize> {
        if punct(i.checked_sub(1).and_then(|p| self.toks.get(p)), '.') {
            return None;
        }
        let (chain, next) = self.dotted(i);
        let (recv, method) = chain.rsplit_once('.')?;
        let level = LEVELS.iter().find(|(m, _)| *m == method)?.1;
        if !punct(self.toks.get(next), '(') {
            return None;
        }
        let (qualifier, field) = match recv.rsplit_once('.') {
            Some(("this", f)) => (None, f),
            Some((q, f)) => (Some(q.trim_start_matches("this.").to_string()), f),
            None => (None, recv),
        };
        // Only receivers that look like loggers: a known logger name, or a conventional one.
        let conventional = matches!(
            field,
            "LOG" | "LOGGER" | "log" | "logger" | "LOG_" | "AUDIT" | "Log"
        );
        let (logger, receiver) = match self.resolve_local(field, qualifier.as_deref()) {
            Some(l) => (l, Receiver::Done),
            None if conventional
                || qualifier.is_some()
                    && field.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                (
                    LoggerRef::Runtime(format!("{recv} not resolved")),
                    Receiver::Field {
                        name: field.to_string(),
                        scope: self.class_stack.iter().rev().map(|&(c, _)| c).collect(),
                        qualifier: qualifier.clone(),
                    },
                )
            }
            None => return None,
        };
        let open = next;
        let close = self.close_of(open);
        let arg_end = self.expr_end(open + 1);
        let template = self.template(open + 1, arg_end, 0);
        let class = self
            .current_class()
            .map(|c| self.facts.classes[c].fqcn.clone())
            .unwrap_or_default();
        let st = Statement {
            tree: String::new(),
            file: self.file.to_string(),
            line: self.toks[i].line,
            end_line: self.toks[close.saturating_sub(1).max(i)].line,
            level: level.to_string(),
            logger,
            class,
            template,
        };
        self.facts.statements.push((st, receiver));
        // The arguments may hold further calls (lambdas); they are walked too.
        Some(open)
    }

    /// A receiver resolved within this file: a `Logger` parameter in scope, or a field of an enclosing class.
    fn resolve_local(&self, field: &str, qualifier: Option<&str>) -> Option<LoggerRef> {
        if qualifier.is_none() {
            if let Some((_, method, _)) = self
                .param_scopes
                .iter()
                .rev()
                .find(|s| s.0.iter().any(|n| n == field))
            {
                return Some(LoggerRef::Param {
                    method: method.clone(),
                    callers: vec![],
                });
            }
        }
        let classes: Vec<usize> = match qualifier {
            Some(q) => {
                let fq = self.class_name(q);
                self.facts
                    .classes
                    .iter()
                    .position(|c| c.fqcn == fq)
                    .into_iter()
                    .collect()
            }
            None => self.class_stack.iter().rev().map(|&(c, _)| c).collect(),
        };
        classes.iter().find_map(|&c| {
            self.facts.classes[c]
                .loggers
                .get(field)
                .map(|init| match init {
                    FieldInit::Named(n) => LoggerRef::Named(n.clone()),
                    FieldInit::Runtime(why) => LoggerRef::Runtime(why.clone()),
                })
        })
    }

    /// Any other call `name(args)`: kept if an argument is a logger in scope, to resolve helpers' parameters.
    fn record_call(&mut self, i: usize) {
        let Some(name) = ident(self.toks.get(i)) else {
            return;
        };
        if !punct(self.toks.get(i + 1), '(') {
            return;
        }
        let close = self.close_of(i + 1);
        let mut args = Vec::new();
        let mut k = i + 2;
        while k < close.saturating_sub(1) {
            let end = self.expr_end(k);
            let arg = match &self.toks[k..end] {
                [Token {
                    tok: Tok::Ident(a), ..
                }] => match self.resolve_local(a, None) {
                    Some(LoggerRef::Named(n)) => Some(n),
                    _ => None,
                },
                _ => None,
            };
            args.push(arg);
            k = end + 1;
        }
        if args.iter().any(Option::is_some) {
            self.facts.calls.push(Call {
                method: name.to_string(),
                args,
            });
        }
    }

    /// The template of the expression `start..end`: literals and `{}` anchors, holes for whatever is
    /// concatenated, `String.format` conversions as holes, `String` constants followed (a few levels deep).
    fn template(&self, start: usize, end: usize, depth: u32) -> Template {
        let mut pieces = Vec::new();
        let mut literal = false;
        for (a, b) in self.operands(start, end) {
            match &self.toks[a..b] {
                [Token {
                    tok: Tok::Str(s), ..
                }] => {
                    slf4j_pieces(s, &mut pieces);
                    literal = true;
                }
                [Token {
                    tok: Tok::Ident(n), ..
                }] if depth < 4 && self.strings.contains_key(n) => {
                    let (s, e) = self.strings[n];
                    match self.template(s, e, depth + 1) {
                        Template::Pieces(p) => {
                            for piece in p {
                                match piece {
                                    Piece::Lit(s) => push_lit(&mut pieces, &s),
                                    Piece::Hole => push_hole(&mut pieces),
                                }
                            }
                            literal = true;
                        }
                        Template::Unresolved(_) => push_hole(&mut pieces),
                    }
                }
                toks if toks.len() > 3
                    && ident(toks.first()) == Some("String")
                    && ident(toks.get(2)) == Some("format")
                    && punct(toks.get(3), '(') =>
                {
                    let fs = a + 4;
                    let fe = self.expr_end(fs);
                    match self.template(fs, fe, depth + 1) {
                        Template::Pieces(p) => {
                            for piece in p {
                                match piece {
                                    Piece::Lit(s) => format_pieces(&s, &mut pieces),
                                    Piece::Hole => push_hole(&mut pieces),
                                }
                            }
                            literal = true;
                        }
                        Template::Unresolved(_) => push_hole(&mut pieces),
                    }
                }
                [Token {
                    tok: Tok::Punct('('),
                    ..
                }, .., Token {
                    tok: Tok::Punct(')'),
                    ..
                }] if self.close_of(a) == b => match self.template(a + 1, b - 1, depth + 1) {
                    Template::Pieces(p) if p.iter().any(|x| matches!(x, Piece::Lit(_))) => {
                        for piece in p {
                            match piece {
                                Piece::Lit(s) => push_lit(&mut pieces, &s),
                                Piece::Hole => push_hole(&mut pieces),
                            }
                        }
                        literal = true;
                    }
                    _ => push_hole(&mut pieces),
                },
                _ => push_hole(&mut pieces),
            }
        }
        if literal {
            Template::Pieces(pieces)
        } else {
            Template::Unresolved(self.text(start, end))
        }
    }

    /// The operands of a `+` chain at the expression's own level.
    fn operands(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let (mut i, mut from) = (start, start);
        while i < end {
            match &self.toks[i].tok {
                Tok::Punct('(' | '[' | '{') => {
                    i = self.close_of(i);
                    continue;
                }
                Tok::Punct('+') if !punct(self.toks.get(i + 1), '+') && i > from => {
                    out.push((from, i));
                    from = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        if from < end {
            out.push((from, end));
        }
        out
    }
}

/// `String.format` text: conversions (`%s`, `%d`, `%5.2f`) are holes, `%%` and `%n` literal.
fn format_pieces(s: &str, out: &mut Vec<Piece>) {
    let mut lit = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            lit.push(c);
            continue;
        }
        match chars.peek() {
            Some('%') => {
                chars.next();
                lit.push('%');
            }
            Some('n') => {
                chars.next();
                lit.push('\n');
            }
            _ => {
                while let Some(&f) = chars.peek() {
                    chars.next();
                    if f.is_ascii_alphabetic() {
                        break;
                    }
                }
                push_lit(out, &lit);
                lit.clear();
                push_hole(out);
            }
        }
    }
    push_lit(out, &lit);
}

// ---------------------------------------------------------------------------------------------------------
// A tree.

/// Every logging statement under `root` (skipping `src/test` trees), loggers resolved across its files.
pub fn extract_tree(root: &Path) -> std::io::Result<Vec<Statement>> {
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
        .map(|e| e.into_path())
        .filter(|p| {
            !p.components()
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| w[0].as_os_str() == "src" && w[1].as_os_str() == "test")
        })
        .collect();
    files.sort();
    let mut sources = Vec::with_capacity(files.len());
    for f in &files {
        let bytes = std::fs::read(f)?;
        let rel = f
            .strip_prefix(root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        sources.push((rel, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(extract_sources(&sources))
}

/// The statements of in-memory sources `(path, text)`, resolved across them.
pub fn extract_sources(sources: &[(String, String)]) -> Vec<Statement> {
    use rayon::prelude::*;
    let facts: Vec<FileFacts> = sources
        .par_iter()
        .map(|(path, text)| {
            let toks = lex(text);
            Walker::new(&toks, path).walk()
        })
        .collect();
    resolve(facts)
}

/// Resolves receivers through static imports and supertypes, and parameters through their call sites.
fn resolve(facts: Vec<FileFacts>) -> Vec<Statement> {
    let mut fields: HashMap<String, &HashMap<String, FieldInit>> = HashMap::new();
    let mut supers: HashMap<String, Vec<String>> = HashMap::new();
    for f in &facts {
        for c in &f.classes {
            fields.insert(c.fqcn.clone(), &c.loggers);
            supers.insert(c.fqcn.clone(), c.supers.clone());
        }
    }
    // A class's logger field by FQCN, through the supertypes it names (matched by simple name).
    let simple_index: HashMap<String, Vec<String>> = {
        let mut m: HashMap<String, Vec<String>> = HashMap::new();
        for fq in fields.keys() {
            let simple = fq.rsplit(['.', '$']).next().unwrap_or(fq).to_string();
            m.entry(simple).or_default().push(fq.clone());
        }
        m
    };
    fn lookup(
        fq: &str,
        name: &str,
        fields: &HashMap<String, &HashMap<String, FieldInit>>,
        supers: &HashMap<String, Vec<String>>,
        simple: &HashMap<String, Vec<String>>,
        hops: u32,
    ) -> Option<FieldInit> {
        if let Some(init) = fields.get(fq).and_then(|m| m.get(name)) {
            return Some(init.clone());
        }
        if hops == 0 {
            return None;
        }
        for s in supers.get(fq).into_iter().flatten() {
            let last = s.rsplit('.').next().unwrap_or(s);
            for cand in simple.get(last).into_iter().flatten() {
                if cand.replace('$', ".").ends_with(s.as_str()) {
                    if let Some(i) = lookup(cand, name, fields, supers, simple, hops - 1) {
                        return Some(i);
                    }
                }
            }
        }
        None
    }
    let mut params: HashMap<&str, &Vec<usize>> = HashMap::new();
    for f in &facts {
        for (m, p) in &f.logger_params {
            params.insert(m, p);
        }
    }
    let mut callers: HashMap<String, Vec<String>> = HashMap::new();
    for f in &facts {
        for call in &f.calls {
            let Some(positions) = params.get(call.method.as_str()) else {
                continue;
            };
            for &p in positions.iter() {
                if let Some(Some(l)) = call.args.get(p) {
                    let v = callers.entry(call.method.clone()).or_default();
                    if !v.contains(l) {
                        v.push(l.clone());
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for f in &facts {
        for (st, recv) in &f.statements {
            let mut st = st.clone();
            if let Receiver::Field {
                name,
                scope,
                qualifier,
            } = recv
            {
                let owners: Vec<String> = match (qualifier, f.static_imports.get(name)) {
                    (Some(q), _) => simple_index
                        .get(q.rsplit('.').next().unwrap_or(q))
                        .cloned()
                        .unwrap_or_default(),
                    (None, Some(owner)) => {
                        let parts: Vec<&str> = owner.split('.').collect();
                        let k = parts
                            .iter()
                            .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
                            .unwrap_or(parts.len() - 1);
                        let fq = format!("{}${}", parts[..=k].join("."), parts[k + 1..].join("$"));
                        vec![fq.trim_end_matches('$').to_string()]
                    }
                    (None, None) => scope.iter().map(|&c| f.classes[c].fqcn.clone()).collect(),
                };
                let found = owners
                    .iter()
                    .find_map(|o| lookup(o, name, &fields, &supers, &simple_index, 4));
                st.logger = match found {
                    Some(FieldInit::Named(n)) => LoggerRef::Named(n),
                    Some(FieldInit::Runtime(why)) => LoggerRef::Runtime(why),
                    None => st.logger,
                };
            }
            if let LoggerRef::Param { method, callers: c } = &mut st.logger {
                *c = callers.get(method.as_str()).cloned().unwrap_or_default();
                c.sort();
            }
            out.push(st);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Vec<Statement> {
        extract_sources(&[("a/X.java".into(), src.into())])
    }

    fn lit(s: &str) -> Piece {
        Piece::Lit(s.into())
    }

    #[test]
    fn own_logger_literal_and_anchors() {
        let s = one(
            "package a.b;\nimport org.slf4j.Logger;\nclass X {\n  private static final Logger LOG = LoggerFactory.getLogger(X.class);\n  void f() {\n    LOG.info(\"Replaced DB, term: {}, index: {}\", t, i);\n  }\n}\n",
        );
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].line, 6);
        assert_eq!(s[0].level, "INFO");
        assert_eq!(s[0].logger, LoggerRef::Named("a.b.X".into()));
        assert_eq!(
            s[0].template,
            Template::Pieces(vec![
                lit("Replaced DB, term: "),
                Piece::Hole,
                lit(", index: "),
                Piece::Hole
            ])
        );
    }

    #[test]
    fn concatenation_format_and_constants() {
        let s = one(
            "package p;\nclass X {\n static final Logger LOG = LoggerFactory.getLogger(X.class);\n static final String PREFIX = \"Ready: \";\n void f() {\n  LOG.warn(\"a \" + x + \" b\" /* c */ + y.z());\n  LOG.error(String.format(\"n=%d, %s%%\", 1, s), e);\n  final String m = PREFIX + n;\n  LOG.debug(m);\n  LOG.trace(build(x));\n }\n}\n",
        );
        let t: Vec<String> = s.iter().map(|s| s.template.display()).collect();
        assert_eq!(t[0], "a {} b{}");
        assert_eq!(t[1], "n={}, {}%");
        assert_eq!(t[2], "Ready: {}");
        assert!(
            matches!(s[3].template, Template::Unresolved(ref e) if e == "build(x)"),
            "{:?}",
            s[3]
        );
    }

    #[test]
    fn nested_class_inherited_and_static_import() {
        let api = "package r;\npublic interface Server {\n  Logger LOG = LoggerFactory.getLogger(Server.class);\n  interface Division {\n    Logger LOG = LoggerFactory.getLogger(Division.class);\n  }\n}\n";
        let imp = "package r.impl;\nimport r.Server;\nimport static r.Server.Division.LOG;\nclass State {\n void f() { LOG.info(\"{}: change Leader\", id); }\n}\nclass Impl implements Server.Division {\n void g() { LOG.info(\"{}: changes role\", id); }\n static class Inner {\n  static final Logger LOG = LoggerFactory.getLogger(Inner.class);\n  void h() { LOG.debug(\"inner\"); }\n }\n}\n";
        let s = extract_sources(&[
            ("Server.java".into(), api.into()),
            ("impl/State.java".into(), imp.into()),
        ]);
        let loggers: Vec<(&str, &LoggerRef)> =
            s.iter().map(|s| (s.class.as_str(), &s.logger)).collect();
        assert_eq!(
            loggers,
            vec![
                (
                    "r.impl.State",
                    &LoggerRef::Named("r.Server$Division".into())
                ),
                ("r.impl.Impl", &LoggerRef::Named("r.Server$Division".into())),
                (
                    "r.impl.Impl$Inner",
                    &LoggerRef::Named("r.impl.Impl$Inner".into())
                ),
            ]
        );
    }

    #[test]
    fn a_logger_handed_to_a_helper_is_the_callers() {
        let util = "package u;\nclass Util {\n static void terminate(int status, String msg, Logger log) {\n  final String s = \"Terminating with exit status \" + status + \": \" + msg;\n  log.error(s);\n }\n}\n";
        let user = "package v;\nclass Daemon {\n private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);\n void stop() { Util.terminate(1, \"bye\", LOG); }\n}\n";
        let s = extract_sources(&[
            ("Util.java".into(), util.into()),
            ("Daemon.java".into(), user.into()),
        ]);
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].logger,
            LoggerRef::Param {
                method: "terminate".into(),
                callers: vec!["v.Daemon".into()]
            }
        );
        assert_eq!(
            s[0].template.display(),
            "Terminating with exit status {}: {}"
        );
    }

    #[test]
    fn comments_strings_and_other_receivers_are_not_statements() {
        let s = one("class X {\n // LOG.info(\"no\");\n String s = \"LOG.info(no)\";\n void f() { list.info(\"no\"); LOG.isDebugEnabled(); }\n}\n");
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn multi_line_statements_span_their_lines() {
        let s = one("class X {\n Logger LOG = LoggerFactory.getLogger(\"named\");\n void f() {\n  LOG.info(\n   \"x {}\"\n   , y);\n }\n}\n");
        assert_eq!((s[0].line, s[0].end_line), (4, 6));
        assert!(s[0].covers(5));
        assert_eq!(s[0].logger, LoggerRef::Named("named".into()));
    }
}
