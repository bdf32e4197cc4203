//! `ozone-conform grammar audit`: the rules against Java source trees or the pinned index.

use super::{out_err, EXIT_OK, EXIT_VIOLATION};
use crate::audit::{self, index, java, report};
use crate::grammar::{parse_rules, Grammar, Rule};
use clap::{Args, Subcommand, ValueEnum};
use miette::{miette, Report};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Subcommand)]
pub enum GrammarAction {
    /// Check each rule against the logging statements in Java source (Ozone, Ratis, Hadoop checkouts) or the
    /// pinned index: found, moved, level-changed, changed (with a word diff) or missing. Exit 1 when a rule
    /// is changed, missing or at another level.
    Audit(AuditArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum AuditFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// A Java source tree, `[NAME=]DIR`; NAME (e.g. `apache/ozone@78d5650c`) defaults to DIR and its git commit.
    #[arg(long = "source", value_name = "[NAME=]DIR")]
    pub sources: Vec<String>,
    /// A pinned index of statements (`grammars/pinned-templates.tsv`) to audit against, instead of or besides
    /// source trees.
    #[arg(long, value_name = "FILE")]
    pub index: Vec<PathBuf>,
    /// Audit only the rules of these grammar files (default: the embedded grammar and --grammar).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
    /// List the statements of these classes (FQCN or simple name) that no rule matches, instead of auditing.
    #[arg(long, value_name = "CLASS", num_args = 1..)]
    pub uncovered: Vec<String>,
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    pub format: AuditFormat,
    /// Update the `source` citation of every moved rule in its grammar file.
    #[arg(long)]
    pub write: bool,
    /// Write the statements the rules depend on to FILE (the pinned index), from the --source trees.
    #[arg(long, value_name = "FILE")]
    pub write_index: Option<PathBuf>,
}

/// `NAME=DIR` or `DIR`; an unnamed tree is named by its directory and, in a git checkout, its commit.
fn tree_name(spec: &str) -> (String, PathBuf) {
    if let Some((name, dir)) = spec.split_once('=') {
        return (name.to_string(), PathBuf::from(dir));
    }
    let dir = PathBuf::from(spec);
    let commit = checkout_commit(&dir);
    let name = match commit {
        Some(c) => format!("{spec}@{c}"),
        None => spec.to_string(),
    };
    (name, dir)
}

/// The commit of the git checkout whose top `dir` is. A source tree extracted from a tarball inside some
/// other checkout (a download into a project's directory) is not that checkout's commit: no name then.
fn checkout_commit(dir: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let (top, commit) = (lines.next()?, lines.next()?);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    same(Path::new(top), dir).then(|| commit.trim().to_string())
}

fn load_rules(dirs: &[PathBuf], files: &[PathBuf]) -> Result<Vec<Rule>, Report> {
    if files.is_empty() {
        return Ok(Grammar::with_overrides(dirs)?.rules);
    }
    let mut rules = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| miette!("cannot read grammar file {}: {e}", f.display()))?;
        rules.extend(parse_rules(&f.display().to_string(), &text).map_err(|e| Report::new(*e))?);
    }
    // Built like the shipped grammar, so the same shadowing checks hold.
    Ok(Grammar::build(rules).map_err(|e| Report::new(*e))?.rules)
}

pub fn run(dirs: &[PathBuf], action: GrammarAction) -> Result<i32, Report> {
    let GrammarAction::Audit(args) = action;
    if args.sources.is_empty() && args.index.is_empty() {
        return Err(miette!(
            help = "e.g. `--source ../ozone --source ../ratis`, or `--index grammars/pinned-templates.tsv`",
            "grammar audit needs --source DIR or --index FILE"
        ));
    }
    if args.write_index.is_some() && args.sources.is_empty() {
        return Err(miette!(
            "--write-index extracts from --source trees; give at least one"
        ));
    }
    let rules = load_rules(dirs, &args.rules)?;
    let mut statements = Vec::new();
    let mut trees = Vec::new();
    for spec in &args.sources {
        let (name, dir) = tree_name(spec);
        if !dir.is_dir() {
            return Err(miette!("--source {}: not a directory", dir.display()));
        }
        let mut sts = java::extract_tree(&dir)
            .map_err(|e| miette!("cannot read Java sources under {}: {e}", dir.display()))?;
        for s in &mut sts {
            s.tree = name.clone();
        }
        statements.extend(sts);
        trees.push(name);
    }
    if let Some(path) = &args.write_index {
        let chosen = index::select(&rules, &statements);
        let header = [format!(
            "from {} statements in {}",
            chosen.len(),
            trees.join(", ")
        )];
        std::fs::write(path, index::write(&chosen, &header))
            .map_err(|e| miette!("cannot write index {}: {e}", path.display()))?;
    }
    for path in &args.index {
        let text = std::fs::read_to_string(path)
            .map_err(|e| miette!("cannot read index {}: {e}", path.display()))?;
        let sts = index::read(&path.display().to_string(), &text).map_err(|e| miette!("{e}"))?;
        for s in &sts {
            if !trees.contains(&s.tree) {
                trees.push(s.tree.clone());
            }
        }
        statements.extend(sts);
    }
    let mut out = super::out::stdout();
    if !args.uncovered.is_empty() {
        let items = audit::uncovered(&rules, &statements, &args.uncovered);
        match args.format {
            AuditFormat::Text => write!(out, "{}", report::uncovered_text(&items)),
            AuditFormat::Json => writeln!(out, "{:#}", report::uncovered_json(&items, &trees)),
        }
        .map_err(out_err)?;
        return Ok(EXIT_OK);
    }
    let audits = audit::audit(&rules, &statements);
    match args.format {
        AuditFormat::Text => write!(out, "{}", report::text(&audits)),
        AuditFormat::Json => writeln!(out, "{:#}", report::json(&audits, &trees)),
    }
    .map_err(out_err)?;
    if args.write {
        let updated = write_citations(&rules, &audits)?;
        if !updated.is_empty() {
            eprintln!(
                "updated {} source citations: {}",
                updated.len(),
                updated.join(", ")
            );
        }
    }
    Ok(if audits.iter().any(|a| a.status.fails()) {
        EXIT_VIOLATION
    } else {
        EXIT_OK
    })
}

/// Rewrites the `source` line of each moved rule in its grammar file (named by the rule's origin, relative to
/// the working directory for the embedded grammar); the rules that changed.
fn write_citations(rules: &[Rule], audits: &[audit::RuleAudit]) -> Result<Vec<String>, Report> {
    let mut by_file: std::collections::BTreeMap<&str, Vec<(usize, String, &str)>> =
        Default::default();
    for (rule, a) in rules.iter().zip(audits) {
        if let audit::Status::Moved { at } = &a.status {
            let file_name = at.file.rsplit('/').next().unwrap_or(&at.file);
            let old = rule.source.as_deref().unwrap_or_default();
            // Keep a prefix such as `hadoop-common `.
            let prefix = old.rsplit_once(' ').map_or("", |(p, _)| p);
            let new = if prefix.is_empty() {
                format!("{file_name}:{}", at.line)
            } else {
                format!("{prefix} {file_name}:{}", at.line)
            };
            by_file.entry(rule.origin.0.as_str()).or_default().push((
                rule.origin.1,
                new,
                rule.id.as_str(),
            ));
        }
    }
    let mut updated = Vec::new();
    for (file, edits) in by_file {
        let path = Path::new(file);
        let text = std::fs::read_to_string(path).map_err(|e| {
            miette!(
                help = "--write edits the grammar files in place: run it from the ozone-conform checkout, or pass --rules FILE",
                "cannot read grammar file {file}: {e}"
            )
        })?;
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        for (origin_line, new, id) in edits {
            // The rule's `source` key, between its `event` line and the next rule.
            let start = origin_line.saturating_sub(1);
            let at = (start..lines.len())
                .take_while(|&i| i == start || !lines[i].trim_start().starts_with("event "))
                .find(|&i| lines[i].trim_start().starts_with("source"));
            let Some(i) = at else {
                return Err(miette!(
                    "{file}:{origin_line}: rule {id} has no source line to update"
                ));
            };
            let indent_end = lines[i].find("source").unwrap_or(0);
            let value_start = lines[i][indent_end + "source".len()..]
                .find(|c: char| !c.is_whitespace())
                .map_or(lines[i].len(), |k| indent_end + "source".len() + k);
            let comment = lines[i][value_start..]
                .find(" #")
                .map(|k| lines[i][value_start + k..].to_string())
                .unwrap_or_default();
            lines[i] = format!("{}{new}{comment}", &lines[i][..value_start]);
            updated.push(id.to_string());
        }
        std::fs::write(path, lines.join("\n"))
            .map_err(|e| miette!("cannot write grammar file {file}: {e}"))?;
    }
    Ok(updated)
}
