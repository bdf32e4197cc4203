//! `grammar audit`: do the grammar's rules still match the logging statements in Ozone's and Ratis' source?
//!
//! [`java`] finds the statements in a source tree, [`index`] reads and writes the pinned index of them kept in
//! `grammars/`, [`matching`] compares one rule's template with one statement's, this module decides each
//! rule's status, and [`report`] prints the result.

pub mod index;
pub mod java;
pub mod matching;
pub mod report;

use crate::grammar::Rule;
use java::{LoggerRef, Statement, Template};
use matching::{rule_pieces, same_template, similarity, word_diff, words};
use serde::Serialize;

/// Where a statement is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    pub tree: String,
    pub file: String,
    pub line: u32,
    pub level: String,
    pub template: String,
}

impl Location {
    fn of(st: &Statement) -> Location {
        Location {
            tree: st.tree.clone(),
            file: st.file.clone(),
            line: st.line,
            level: st.level.clone(),
            template: st.template.display(),
        }
    }
}

/// What the sources say about one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// The rule's statement is where the rule cites it, at the rule's level.
    Found { at: Location },
    /// The same template on another line (or file): the citation to update.
    Moved { at: Location },
    /// The same template at another level.
    LevelChanged { at: Location },
    /// No statement has the rule's template; this is the closest in the rule's class, with a word diff from
    /// the rule's literal parts to the statement's.
    Changed {
        at: Location,
        diff: String,
        similarity: f64,
    },
    /// No statement in the rule's class comes close.
    Missing,
    /// The cited statement's template is built at run time: it cannot be compared.
    Unresolved { at: Location },
    /// The sources hold no code of the rule's package: not audited.
    NotAudited { reason: String },
}

impl Status {
    pub fn name(&self) -> &'static str {
        match self {
            Status::Found { .. } => "found",
            Status::Moved { .. } => "moved",
            Status::LevelChanged { .. } => "level-changed",
            Status::Changed { .. } => "changed",
            Status::Missing => "missing",
            Status::Unresolved { .. } => "unresolved",
            Status::NotAudited { .. } => "not-audited",
        }
    }

    /// Does this status fail the audit (exit 1)?
    pub fn fails(&self) -> bool {
        matches!(
            self,
            Status::Changed { .. } | Status::Missing | Status::LevelChanged { .. }
        )
    }
}

/// One rule's audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleAudit {
    pub rule: String,
    /// Grammar file and line of the rule.
    pub origin: String,
    /// The tree its file's templates were copied from (`templates-from`), if the file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub templates_from: Option<String>,
    pub source: Option<String>,
    pub levels: Vec<String>,
    pub loggers: Vec<String>,
    #[serde(flatten)]
    pub status: Status,
}

/// `File.java:line` out of a rule's `source` (`hadoop-common ExitUtil.java:251` names the file last).
pub fn cited(rule: &Rule) -> Option<(String, u32)> {
    let src = rule.source.as_deref()?.split_whitespace().last()?;
    let (file, line) = src.rsplit_once(':')?;
    Some((file.to_string(), line.parse().ok()?))
}

fn package_of_class(fqcn: &str) -> &str {
    let outer = fqcn.split('$').next().unwrap_or(fqcn);
    outer.rsplit_once('.').map_or("", |(p, _)| p)
}

/// The closest-word threshold below which a rule's class holds nothing like it.
const CHANGED_MIN_SIMILARITY: f64 = 0.3;

/// Audits each rule against the statements.
pub fn audit(rules: &[Rule], statements: &[Statement]) -> Vec<RuleAudit> {
    // The packages the sources hold: of the classes with statements, and of the loggers they use.
    let packages: std::collections::HashSet<&str> = statements
        .iter()
        .flat_map(|s| std::iter::once(s.class.as_str()).chain(s.logger_names()))
        .map(package_of_class)
        .collect();
    rules
        .iter()
        .map(|rule| RuleAudit {
            rule: rule.id.clone(),
            origin: format!("{}:{}", rule.origin.0, rule.origin.1),
            templates_from: rule.templates_from.clone(),
            source: rule.source.clone(),
            levels: rule.levels.iter().map(|l| l.name().to_string()).collect(),
            loggers: rule.loggers.clone(),
            status: audit_rule(rule, statements, &packages),
        })
        .collect()
}

/// The statements a rule may be about: those of its loggers (a helper's, through its callers), and those in
/// the file it cites whose logger is not known statically.
pub fn candidates<'a>(rule: &Rule, statements: &'a [Statement]) -> Vec<&'a Statement> {
    let cited_file = cited(rule).map(|c| c.0);
    statements
        .iter()
        .filter(|st| {
            let in_cited = cited_file.as_deref() == Some(st.file_name());
            if rule.loggers.is_empty() {
                return in_cited;
            }
            let names = st.logger_names();
            names.iter().any(|n| rule.loggers.iter().any(|l| l == n))
                || in_cited && matches!(st.logger, LoggerRef::Runtime(_) | LoggerRef::Param { .. })
        })
        .collect()
}

fn audit_rule(
    rule: &Rule,
    statements: &[Statement],
    packages: &std::collections::HashSet<&str>,
) -> Status {
    let cite = cited(rule);
    let in_scope = if rule.loggers.is_empty() {
        cite.as_ref()
            .is_some_and(|(f, _)| statements.iter().any(|s| s.file_name() == f))
    } else {
        rule.loggers
            .iter()
            .any(|l| packages.contains(package_of_class(l)))
    };
    if !in_scope {
        let what = if rule.loggers.is_empty() {
            cite.map_or("its source file".to_string(), |c| c.0)
        } else {
            format!("package {}", package_of_class(&rule.loggers[0]))
        };
        return Status::NotAudited {
            reason: format!("no source of {what} was given"),
        };
    }
    let rule_words = words(&rule_pieces(rule));
    let cands = candidates(rule, statements);
    let at_cite = |st: &Statement| {
        cite.as_ref()
            .is_some_and(|(f, l)| st.file_name() == f && st.covers(*l))
    };
    let level_ok =
        |st: &Statement| rule.levels.is_empty() || rule.levels.iter().any(|l| l.name() == st.level);
    let mut matches: Vec<&Statement> = cands
        .iter()
        .copied()
        .filter(|st| same_template(rule, &rule_words, st, at_cite(st)))
        .collect();
    if matches.is_empty() && rule.loggers.is_empty() {
        // A logger-independent statement may have moved to another file.
        matches = statements
            .iter()
            .filter(|st| same_template(rule, &rule_words, st, false))
            .collect();
    }
    let nearest = |sts: &[&Statement]| -> Option<Location> {
        let cited_file = cite.as_ref().map(|c| c.0.as_str());
        let line = cite.as_ref().map_or(0, |c| c.1);
        sts.iter()
            .min_by_key(|st| (Some(st.file_name()) != cited_file, st.line.abs_diff(line)))
            .map(|st| Location::of(st))
    };
    if !matches.is_empty() {
        let right_level: Vec<&Statement> =
            matches.iter().copied().filter(|s| level_ok(s)).collect();
        if let Some(st) = right_level.iter().find(|s| at_cite(s)) {
            return Status::Found {
                at: Location::of(st),
            };
        }
        if let Some(at) = nearest(&right_level) {
            return Status::Moved { at };
        }
        let cited_first: Vec<&Statement> = matches.iter().copied().filter(|s| at_cite(s)).collect();
        let at = nearest(if cited_first.is_empty() {
            &matches
        } else {
            &cited_first
        });
        return Status::LevelChanged {
            at: at.expect("matches is not empty"),
        };
    }
    if let Some(st) = statements
        .iter()
        .find(|st| at_cite(st) && matches!(st.template, Template::Unresolved(_)))
    {
        return Status::Unresolved {
            at: Location::of(st),
        };
    }
    let best = cands
        .iter()
        .filter_map(|st| match &st.template {
            Template::Pieces(p) => {
                let w = words(p);
                Some((similarity(&rule_words, &w), st, w))
            }
            Template::Unresolved(_) => None,
        })
        .max_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| at_cite(a.1).cmp(&at_cite(b.1)))
        });
    match best {
        Some((sim, st, w)) if sim >= CHANGED_MIN_SIMILARITY => Status::Changed {
            at: Location::of(st),
            diff: word_diff(&rule_words, &w),
            similarity: (sim * 100.0).round() / 100.0,
        },
        _ => Status::Missing,
    }
}

/// A statement no rule matches, in one of the classes asked about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Uncovered {
    pub class: String,
    pub logger: String,
    #[serde(flatten)]
    pub at: Location,
}

/// Does a class (or logger) name `name` answer to `wanted` (a FQCN, or a simple name like `SCMStateMachine`)?
pub fn class_matches(name: &str, wanted: &str) -> bool {
    name == wanted
        || name.ends_with(wanted)
            && matches!(
                name.as_bytes().get(name.len() - wanted.len() - 1),
                Some(b'.' | b'$')
            )
}

/// The statements in `classes` (by enclosing class or logger) that no rule matches.
pub fn uncovered(rules: &[Rule], statements: &[Statement], classes: &[String]) -> Vec<Uncovered> {
    let prepared: Vec<(&Rule, Vec<String>)> =
        rules.iter().map(|r| (r, words(&rule_pieces(r)))).collect();
    statements
        .iter()
        .filter(|st| {
            classes.iter().any(|c| {
                class_matches(&st.class, c) || st.logger_names().iter().any(|l| class_matches(l, c))
            })
        })
        .filter(|st| {
            !prepared.iter().any(|(r, w)| {
                let at_cite = cited(r).is_some_and(|(f, l)| st.file_name() == f && st.covers(l));
                candidates(r, std::slice::from_ref(st)).len() == 1
                    && same_template(r, w, st, at_cite)
            })
        })
        .map(|st| Uncovered {
            class: st.class.clone(),
            logger: java_logger_display(&st.logger),
            at: Location::of(st),
        })
        .collect()
}

/// How a statement's logger reads in reports and in the index.
pub fn java_logger_display(l: &LoggerRef) -> String {
    match l {
        LoggerRef::Named(n) => n.clone(),
        LoggerRef::Param { method, callers } if callers.is_empty() => {
            format!("?param:{method}")
        }
        LoggerRef::Param { method, callers } => format!("?param:{method}:{}", callers.join(",")),
        LoggerRef::Runtime(why) => format!("?runtime:{why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::parse_rules;

    const RULES: &str = "component scm\nevent CheckpointInstalled\n  logger  a.Ha\n  level   INFO\n  source  Ha.java:4\n  message \"Replaced DB with checkpoint, term: {term:u64}, index: {index:u64}\"\n  sample  \"Replaced DB with checkpoint, term: 2, index: 202\"\n";

    fn statements(java: &str) -> Vec<Statement> {
        java::extract_sources(&[("a/Ha.java".into(), java.into())])
    }

    fn status(java: &str) -> Status {
        let rules = parse_rules("t.rules", RULES).unwrap();
        audit(&rules, &statements(java)).remove(0).status
    }

    const HEAD: &str =
        "package a;\nclass Ha {\n static final Logger LOG = LoggerFactory.getLogger(Ha.class);\n";

    #[test]
    fn found_moved_level_changed_changed_missing() {
        let at = |s: &str| format!("{HEAD}{s}}}\n");
        let found = at(
            " void f() { LOG.info(\"Replaced DB with checkpoint, term: {}, index: {}\", t, i); }\n",
        );
        assert_eq!(status(&found).name(), "found");
        let moved = at("\n\n void f() { LOG.info(\"Replaced DB with checkpoint, term: {}, index: {}\", t, i); }\n");
        assert!(matches!(status(&moved), Status::Moved { at } if at.line == 6));
        let level = at(" void f() { LOG.debug(\"Replaced DB with checkpoint, term: {}, index: {}\", t, i); }\n");
        assert!(matches!(status(&level), Status::LevelChanged { at } if at.level == "DEBUG"));
        let changed = at(
            " void f() { LOG.info(\"Replaced DB with snapshot, term: {}, index: {}\", t, i); }\n",
        );
        match status(&changed) {
            Status::Changed { diff, .. } => assert_eq!(
                diff,
                "Replaced DB with [-checkpoint,-] {+snapshot,+} term: {}, index: {}"
            ),
            other => panic!("{other:?}"),
        }
        let missing = at(" void f() { LOG.info(\"Something else entirely\"); }\n");
        assert_eq!(status(&missing), Status::Missing);
        let runtime = at(" void f() { LOG.info(msg()); }\n");
        assert_eq!(status(&runtime).name(), "unresolved");
    }

    #[test]
    fn rules_of_packages_not_in_the_sources_are_not_audited() {
        let rules = parse_rules("t.rules", &RULES.replace("a.Ha", "b.Ha")).unwrap();
        let s = audit(&rules, &statements(&format!("{HEAD}}}\n")))
            .remove(0)
            .status;
        assert!(!s.fails());
        assert_eq!(s.name(), "not-audited");
    }

    #[test]
    fn uncovered_lists_what_no_rule_matches() {
        let rules = parse_rules("t.rules", RULES).unwrap();
        let sts = statements(&format!(
            "{HEAD} void f() {{ LOG.info(\"Replaced DB with checkpoint, term: {{}}, index: {{}}\", t, i);\n LOG.warn(\"New line {{}}\", x); }}\n}}\n"
        ));
        let u = uncovered(&rules, &sts, &["Ha".into()]);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].at.template, "New line {}");
        assert!(uncovered(&rules, &sts, &["Other".into()]).is_empty());
        assert!(class_matches("a.b.Outer$Inner", "Inner"));
        assert!(!class_matches("a.b.XInner", "Inner"));
    }
}
