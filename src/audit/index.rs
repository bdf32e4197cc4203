//! The pinned index: the logging statements the rules depend on, extracted from the pinned Ozone and Ratis
//! revisions and kept in `grammars/pinned-templates.tsv`, so the rules can be audited without the sources.
//!
//! Tab-separated, `#` comments. A `tree NAME` line starts a source tree, a `file PATH` line a file of it; each
//! statement is `line end_line level logger class template`, where `class` is `-` when it is the logger, and
//! `template` is `=TEXT` (holes as `{}`) or `?EXPR` for a template built at run time. `\t`, `\n`, `\\` escape.

use super::java::{slf4j_pieces, LoggerRef, Statement, Template};
use super::{cited, java_logger_display};
use crate::grammar::Rule;
use std::collections::BTreeSet;

/// The statements of the files the rules depend on: those that hold a statement of a rule's logger class
/// (written by it or with its logger) and those the rules cite. What the audit and `--uncovered` need, and no
/// helper that merely receives a rule's logger from somewhere else.
pub fn select<'a>(rules: &[Rule], statements: &'a [Statement]) -> Vec<&'a Statement> {
    let mut files: BTreeSet<(&str, &str)> = BTreeSet::new();
    for rule in rules {
        let cited_file = cited(rule).map(|c| c.0);
        for st in statements {
            let of_class = rule
                .loggers
                .iter()
                .any(|l| *l == st.class || matches!(&st.logger, LoggerRef::Named(n) if n == l));
            if of_class || cited_file.as_deref() == Some(st.file_name()) {
                files.insert((&st.tree, &st.file));
            }
        }
    }
    let mut out: Vec<&Statement> = statements
        .iter()
        .filter(|s| files.contains(&(s.tree.as_str(), s.file.as_str())))
        .collect();
    out.sort_by(|a, b| (&a.tree, &a.file, a.line).cmp(&(&b.tree, &b.file, b.line)));
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// The index text: a header saying how it was made, then the statements by tree and file.
pub fn write(statements: &[&Statement], header: &[String]) -> String {
    let mut out = String::from(
        "# ozone-conform pinned logging templates: `grammar audit --index` checks the rules against these.\n\
         # Regenerate as grammars/README.md (Auditing the grammar) says; do not edit by hand.\n\
         # tree NAME | file PATH | line end_line level logger class(- = logger) template(=TEXT or ?EXPR)\n",
    );
    for h in header {
        out.push_str(&format!("# {h}\n"));
    }
    let (mut tree, mut file) = ("", "");
    for st in statements {
        if st.tree != tree {
            tree = &st.tree;
            file = "";
            out.push_str(&format!("tree\t{}\n", escape(tree)));
        }
        if st.file != file {
            file = &st.file;
            out.push_str(&format!("file\t{}\n", escape(file)));
        }
        let logger = java_logger_display(&st.logger);
        let class = if st.class == logger { "-" } else { &st.class };
        let template = match &st.template {
            Template::Pieces(_) => format!("={}", st.template.display()),
            Template::Unresolved(e) => format!("?{e}"),
        };
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            st.line,
            st.end_line,
            st.level,
            escape(&logger),
            escape(class),
            escape(&template)
        ));
    }
    out
}

/// Reads an index back; a malformed line is an error naming its line.
pub fn read(name: &str, text: &str) -> Result<Vec<Statement>, String> {
    let (mut tree, mut file) = (String::new(), String::new());
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{name}:{}", n + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["tree", t] => tree = unescape(t),
            ["file", f] => {
                if tree.is_empty() {
                    return Err(format!("{}: a file line before any tree line", at()));
                }
                file = unescape(f);
            }
            [l, e, level, logger, class, template] => {
                if file.is_empty() {
                    return Err(format!("{}: a statement before any file line", at()));
                }
                let num = |s: &str, what: &str| {
                    s.parse::<u32>()
                        .map_err(|_| format!("{}: {what} `{s}` is not a line number", at()))
                };
                let logger = parse_logger(&unescape(logger));
                let class = match *class {
                    "-" => match &logger {
                        LoggerRef::Named(n) => n.clone(),
                        _ => return Err(format!("{}: class `-` needs a named logger", at())),
                    },
                    c => unescape(c),
                };
                let template = unescape(template);
                let template = if let Some(t) = template.strip_prefix('=') {
                    let mut pieces = Vec::new();
                    slf4j_pieces(t, &mut pieces);
                    Template::Pieces(pieces)
                } else if let Some(e) = template.strip_prefix('?') {
                    Template::Unresolved(e.to_string())
                } else {
                    return Err(format!("{}: a template starts with `=` or `?`", at()));
                };
                if !["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(level) {
                    return Err(format!("{}: unknown level `{level}`", at()));
                }
                out.push(Statement {
                    tree: tree.clone(),
                    file: file.clone(),
                    line: num(l, "line")?,
                    end_line: num(e, "end line")?,
                    level: level.to_string(),
                    logger,
                    class,
                    template,
                });
            }
            _ => {
                return Err(format!(
                    "{}: expected `tree NAME`, `file PATH` or six tab-separated columns, got {}",
                    at(),
                    cols.len()
                ))
            }
        }
    }
    Ok(out)
}

fn parse_logger(s: &str) -> LoggerRef {
    if let Some(rest) = s.strip_prefix("?param:") {
        let (method, callers) = rest.split_once(':').unwrap_or((rest, ""));
        LoggerRef::Param {
            method: method.to_string(),
            callers: callers
                .split(',')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect(),
        }
    } else if let Some(why) = s.strip_prefix("?runtime:") {
        LoggerRef::Runtime(why.to_string())
    } else {
        LoggerRef::Named(s.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::java::extract_sources;
    use super::*;

    #[test]
    fn write_then_read_gives_the_statements_back() {
        let src = "package p;\nclass X {\n static final Logger LOG = LoggerFactory.getLogger(X.class);\n void f(Logger log) {\n  LOG.info(\"a\\tb {} c\\n\" + d);\n  log.warn(make());\n }\n static class Y { Logger L; void g() { L.error(\"y\"); } }\n}\n";
        let mut sts = extract_sources(&[("p/X.java".into(), src.into())]);
        for s in &mut sts {
            s.tree = "t@1".into();
        }
        let refs: Vec<&Statement> = sts.iter().collect();
        let text = write(&refs, &["made by a test".into()]);
        assert_eq!(read("i.tsv", &text).unwrap(), sts);
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let e = read("i.tsv", "# c\ntree\tt\nfile\tf\n1\t1\tINFO\tx\t-\n").unwrap_err();
        assert_eq!(
            e,
            "i.tsv:4: expected `tree NAME`, `file PATH` or six tab-separated columns, got 5"
        );
        let e = read("i.tsv", "tree\tt\nfile\tf\nx\t1\tINFO\tl\t-\t=a\n").unwrap_err();
        assert_eq!(e, "i.tsv:3: line `x` is not a line number");
        let e = read("i.tsv", "tree\tt\nfile\tf\n1\t1\tLOUD\tl\t-\t=a\n").unwrap_err();
        assert_eq!(e, "i.tsv:3: unknown level `LOUD`");
    }
}
