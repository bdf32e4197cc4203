//! The inputs a command names: resolved into sources with the grammar and scan options to read them
//! ([`Prepared`]), and what is said on stderr about them (skipped repeats, unparsed lines, input errors).

use super::{global, InputArgs};
use crate::grammar::Grammar;
use crate::input::{self, Source};
use crate::layout::{builtin_by_name, Layout};
use crate::render::safe::sanitize;
use crate::scan::{InputStats, ScanOptions, UnparsedLine};
use miette::{miette, Diagnostic, NamedSource, Report};

#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("invalid --layout pattern: {message}")]
#[diagnostic(
    code(ozone_conform::layout),
    help("write the pattern as in log4j.properties, e.g. '%d{{ISO8601}} [%t] %p %c: %m%n'")
)]
struct LayoutArgError {
    message: String,
    #[source_code]
    src: NamedSource<String>,
    #[label("here")]
    span: miette::SourceSpan,
}

/// Reads the inputs into a merged timeline; reports input errors on stderr and says whether there were any.
pub fn load_timeline(
    args: &InputArgs,
    max_skew: u64,
) -> Result<(crate::timeline::Timeline, bool), Report> {
    let max_skew = i64::try_from(max_skew)
        .map_err(|_| miette!(code = "ozone_conform::usage", "--max-skew is too large"))?;
    let mut p = prepare(args)?;
    p.options.max_skew_ms = Some(max_skew);
    let verbose = args.verbose;
    let on_unparsed = unparsed_printer(verbose);
    let timeline = crate::timeline::build(
        &p.sources,
        &p.grammar,
        &p.options,
        crate::bugs::merge_rules(max_skew),
        &on_unparsed,
    );
    let mut had_errors = false;
    for s in &timeline.inputs {
        had_errors |= report_input_errors(s);
    }
    Ok((timeline, had_errors))
}

/// Everything a command needs to read its inputs.
pub struct Prepared {
    pub sources: Vec<Source>,
    /// Inputs named but left out because they repeat another (said on stderr).
    pub skipped: Vec<input::Skipped>,
    /// For each source, its place in its rotation family (for `stats`).
    pub rotation: Vec<Option<String>>,
    pub grammar: Grammar,
    pub options: ScanOptions,
}

pub fn prepare(args: &InputArgs) -> Result<Prepared, Report> {
    prepare_runs(args, false)
}

/// [`prepare`]; with `per_file` (each file a run of its own) a repeated file is no double replay, so every
/// file named is kept.
pub fn prepare_runs(args: &InputArgs, per_file: bool) -> Result<Prepared, Report> {
    prepare_following(args, per_file, false)
}

/// [`prepare_runs`]; with `follow`, files that do not exist yet are followed from when they appear (said on
/// stderr), as `tail -F` does.
pub(crate) fn prepare_following(
    args: &InputArgs,
    per_file: bool,
    follow: bool,
) -> Result<Prepared, Report> {
    let grammar = Grammar::with_overrides(&args.grammar)?;
    let layout = match &args.layout {
        None => None,
        Some(p) => Some(match builtin_by_name(p) {
            Some(l) => l,
            None => Layout::compile("given", p).map_err(|e| LayoutArgError {
                message: e.message,
                src: NamedSource::new("--layout", p.clone()),
                span: (e.offset, e.len).into(),
            })?,
        }),
    };
    let input::Resolved {
        mut sources,
        skipped,
        mut rotation,
        waiting,
    } = input::resolve_all_following(&args.inputs, !per_file, follow)?;
    for path in waiting {
        say!(
            "ozone-conform: {}: not there yet; waiting for it to appear (--follow)",
            sanitize(&path.display().to_string())
        );
        sources.push(Source::Follow(path));
        rotation.push(None);
    }
    for s in &skipped {
        say!(
            "ozone-conform: warning: {}: {} as {}; read once",
            sanitize(&s.path),
            s.reason,
            sanitize(&s.same_as)
        );
    }
    if sources.iter().filter(|s| **s == Source::Stdin).count() > 1 {
        return Err(miette!("`-` (stdin) can be given only once"));
    }
    Ok(Prepared {
        sources,
        skipped,
        rotation,
        grammar,
        options: ScanOptions {
            layout,
            node: args.node.clone(),
            progress: None,
            read_back: false,
            wrapper: args.wrapper.clone(),
            max_skew_ms: None,
        },
    })
}

/// `--verbose`: one line on stderr per line that belongs to no record, with its location.
fn print_unparsed(path: &str, u: &UnparsedLine) {
    say!(
        "{}:{}: unparsed ({}{}): {}",
        sanitize(path),
        u.line,
        reason_name(u),
        u.detail
            .as_deref()
            .map(|d| format!(": {}", sanitize(d)))
            .unwrap_or_default(),
        sanitize(&u.text)
    );
}

/// The `on_unparsed` callback of a timeline build: prints each unparsed line with `--verbose`.
pub(crate) fn unparsed_printer(
    verbose: bool,
) -> impl Fn(&str, &UnparsedLine) + Send + Sync + 'static {
    move |path: &str, u: &UnparsedLine| {
        if verbose {
            print_unparsed(path, u);
        }
    }
}

pub(crate) fn report_unparsed(verbose: bool, path: &str) -> impl FnMut(&UnparsedLine) + '_ {
    move |u: &UnparsedLine| {
        if verbose {
            print_unparsed(path, u);
        }
    }
}

fn reason_name(u: &UnparsedLine) -> String {
    serde_json::to_value(u.reason)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Prints input errors to stderr; returns whether there were any.
pub fn report_input_errors(stats: &InputStats) -> bool {
    for e in &stats.errors {
        say!(
            "{:?}",
            miette!(code = "ozone_conform::input", "{}", sanitize(e))
        );
    }
    for w in stats.warnings.iter().filter(|_| !global::quiet()) {
        say!("ozone-conform: warning: {}", sanitize(w));
    }
    !stats.errors.is_empty()
}
