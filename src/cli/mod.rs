//! The command line: argument parsing and the `events`, `stats` and `grammar` commands.

pub mod audit;
pub mod coverage;
pub mod global;
pub mod link;
pub mod out;

use crate::event_stream::StreamInput;
use crate::grammar::Grammar;
use crate::input::{self, Source};
use crate::layout::{builtin_by_name, Layout};
use crate::scan::{scan_input, InputStats, ScanOptions, UnparsedLine, UnparsedReason};
use clap::{Args, Parser, Subcommand, ValueEnum};
use miette::{miette, Diagnostic, NamedSource, Report};
use std::io::{self, Write};
use std::path::PathBuf;

/// Exit codes: 0 nothing violated, 1 a violation, 2 a usage or input error, 3 `check --require-checks` and
/// no model made a check (a CI job pointed at the wrong logs).
pub const EXIT_OK: i32 = 0;
pub const EXIT_VIOLATION: i32 = 1;
pub const EXIT_ERROR: i32 = 2;
pub const EXIT_NOTHING_CHECKED: i32 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "ozone-conform",
    version,
    about = "Check Apache Ozone logs against formal models of Ozone's protocols"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: global::GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the abstract events found in the logs, one JSON object per line.
    Events(InputArgs),
    /// Print, per input: layout, records, unparsed lines and events by kind.
    Stats {
        #[command(flatten)]
        inputs: InputArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
        format: StatsFormat,
    },
    /// Check the logs against the models; report the first violation of each, with its causal chain.
    Check(CheckArgs),
    /// Replay a TLA+ trace (TLC output, TLC -simulate dump, -dumpTrace json, ITF) through the Rust mirror of
    /// its spec, state by state, and say whether they agree.
    Trace {
        /// The trace file, or `-` for stdin (e.g. TLC's output piped in).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The model whose spec the trace is of (default: from the trace's module name or variables).
        #[arg(long, value_name = "NAME", value_enum)]
        model: Option<crate::bugs::Bug>,
        /// The TLC config whose constants to use (default: the model's shipped bug config, then its fixed one).
        #[arg(long, value_name = "CFG")]
        config: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
        format: StatsFormat,
    },
    /// Convert any readable TLA+ trace to ITF JSON.
    Convert {
        /// The trace file, or `-` for stdin.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The format to write (ITF is the one there is).
        #[arg(long, value_enum, default_value_t = ConvertFormat::Itf)]
        to: ConvertFormat,
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Write the behaviour a model reads from the logs as a TLA+ trace: ITF, or a TLA+ module and TLC config
    /// that check it against the spec (trace validation).
    Export {
        #[command(flatten)]
        inputs: InputArgs,
        /// The model whose spec the behaviour is of.
        #[arg(long, value_name = "NAME", value_enum)]
        model: crate::bugs::Bug,
        /// ITF JSON, or a TLA+ module with its TLC config (needs -o DIR).
        #[arg(long, value_enum)]
        to: crate::cli::link::ExportFormat,
        /// The file (itf) or directory (tla) to write; itf goes to stdout without it.
        #[arg(short, long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// Clock skew tolerated between nodes, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = crate::timeline::DEFAULT_MAX_SKEW_MS as u64)]
        max_skew: u64,
    },
    /// Serve the Language Server Protocol on stdin/stdout: diagnostics for the log files an editor opens.
    Lsp {
        /// Accepted and ignored: stdio is the only transport (some clients pass this flag).
        #[arg(long, hide = true)]
        stdio: bool,
    },
    /// List the models `check` runs (the registry, in report order): name, issue, spec and invariants.
    Models {
        /// Output format.
        #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
        format: StatsFormat,
    },
    /// Print the shell completion script for SHELL (e.g. `ozone-conform completions bash > ~/.local/share/bash-completion/completions/ozone-conform`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `ozone-conform man > ozone-conform.1`.
    Man,
    /// Load and check the grammar (embedded rules plus --grammar directories) and list its rules.
    Grammar {
        /// Directory of *.rules files that add to or override the embedded rules.
        #[arg(long = "grammar", value_name = "DIR", global = true)]
        grammar: Vec<PathBuf>,
        #[command(subcommand)]
        action: Option<audit::GrammarAction>,
    },
}

/// `check --format`: one renderer module each in `src/render/`.
pub use crate::render::Format as CheckFormat;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvertFormat {
    Itf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Output format; `auto` is `full` when stderr is a terminal, `concise` otherwise.
    #[arg(long, value_enum, default_value_t = CheckFormat::Auto)]
    pub format: CheckFormat,
    /// Check every input file as its own independent run (CI: one surefire `*-output.txt` per test class,
    /// each its own mini cluster); rotated files of one log stay together.
    #[arg(long)]
    pub per_file: bool,
    /// Report the first violation of every invariant of every instance, not only each model's first.
    #[arg(long)]
    pub all: bool,
    /// Check only this model (repeatable).
    #[arg(long = "model", value_name = "NAME", value_enum)]
    pub models: Vec<crate::bugs::Bug>,
    /// Clock skew tolerated between nodes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = crate::timeline::DEFAULT_MAX_SKEW_MS as u64)]
    pub max_skew: u64,
    /// The logs' offset from UTC: `+02:00` for every node, or `NODE=-05:00` for one (repeatable). Log4j
    /// prints local time; secret key expiry is in UTC. Without it, each node's offset is read off its own
    /// key-generation lines, else off its peers' where its own lines agree; keys that expire within 14 hours
    /// of a line of a node whose offset is unknown are not judged.
    #[arg(long, value_name = "[NODE=]±HH:MM", value_parser = parse_node_utc_offset, allow_hyphen_values = true)]
    pub log_utc_offset: Vec<(Option<String>, i64)>,
    /// Follow the files as they grow (like `tail -F`, across rotation by rename or copytruncate) and report
    /// violations as they happen; on SIGINT or SIGTERM prints the verdicts so far and exits 1 if
    /// a violation was found, else 0. Needs a line format (full, concise, json-lines,
    /// github). `-` (stdin) is always read this way.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// The inputs are event streams written by `ozone-conform events` (JSON lines, the contract in the
    /// README), not logs: the same verdicts, violations and spans a check of the logs gives. Streams of many
    /// hosts may be concatenated; give the same `--grammar` directories `events` had.
    #[arg(long, conflicts_with_all = ["follow", "layout", "node"])]
    pub events: bool,
    /// Exit 3 unless some model made a check (CI: fail when pointed at the wrong logs, or logs of nothing
    /// the models know, rather than pass with every model inconclusive). A violation (1) and an input error
    /// (2) win over it.
    #[arg(long)]
    pub require_checks: bool,
    /// Write the report to FILE (whole or not at all: it appears when the check ends) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub coverage: coverage::CoverageArgs,
    /// Also write a self-contained HTML page of what happened: one swim lane per node along time, the
    /// events the models read as marks linked to their log lines, each violation's causal chain as arrows,
    /// crashes and restarts, the verdicts, inputs and spec coverage (written whole when the check ends; not
    /// with --follow or a live stdin).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Log files, directories (searched recursively), globs, or `-` for stdin.
    #[arg(value_name = "INPUTS", required = true)]
    pub inputs: Vec<String>,
    /// The log4j ConversionPattern of the inputs (as in log4j.properties), or a builtin layout name
    /// (daemon, test, om-ha, audit, ...). Default: detected per input.
    #[arg(long, value_name = "PATTERN")]
    pub layout: Option<String>,
    /// The node every record comes from (for stdin, where no file name tells).
    #[arg(long, value_name = "NAME")]
    pub node: Option<String>,
    /// What collected the logs, taken off each line before its layout: kubectl (`kubectl logs --timestamps`,
    /// `--prefix`, `docker logs -t`), cri (/var/log/containers), docker-json, journald (short-iso),
    /// journald-json, or ndjson:FIELD (the field that holds the line). Default: detected per input.
    #[arg(long, value_name = "WRAPPER", value_parser = crate::wrapper::Wrapper::from_name)]
    pub wrapper: Option<crate::wrapper::Wrapper>,
    /// Directory of *.rules files that add to or override the embedded rules.
    #[arg(long = "grammar", value_name = "DIR")]
    pub grammar: Vec<PathBuf>,
    /// Show every line that belongs to no record, with its location.
    #[arg(long, short)]
    pub verbose: bool,
}

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

/// Diagnostics: colour only on a terminal (and never with `NO_COLOR`), no hyperlinks, a stable width, so
/// what CI logs and snapshot tests see does not depend on the machine.
fn install_report_handler() {
    let color = global::color_stderr();
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(WideLineSafe(
            miette::MietteHandlerOpts::new()
                .terminal_links(false)
                .color(color)
                .unicode(color)
                .width(width)
                .build(),
        ))
    }));
}

/// Columns past which miette's graphical renderer cannot pad (Rust's formatting widths stop at 65,535 and
/// miette panics with `Formatting argument out of range`).
const MAX_GRAPHICAL_COLUMN: usize = 60_000;

/// miette's handler, except for a diagnostic whose label sits on a line too long to draw: that one is told
/// in words (message, code, `name:line:column` of each label, help), never a panic.
struct WideLineSafe(miette::MietteHandler);

impl WideLineSafe {
    /// Each label's `(label, name, 1-based line, 1-based column)`, and whether any is too far right to draw.
    fn labels(diagnostic: &dyn Diagnostic) -> (Vec<(String, String, usize, usize)>, bool) {
        let mut out = Vec::new();
        let mut too_wide = false;
        let (Some(src), Some(labels)) = (diagnostic.source_code(), diagnostic.labels()) else {
            return (out, false);
        };
        for l in labels {
            let Ok(at) = src.read_span(l.inner(), 0, 0) else {
                continue;
            };
            let line_len = at.data().len().max(l.len());
            too_wide |= at.column() + line_len > MAX_GRAPHICAL_COLUMN;
            out.push((
                l.label().unwrap_or_default().to_string(),
                at.name().unwrap_or("input").to_string(),
                at.line() + 1,
                at.column() + 1,
            ));
        }
        (out, too_wide)
    }
}

impl miette::ReportHandler for WideLineSafe {
    fn debug(
        &self,
        diagnostic: &dyn Diagnostic,
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        let (labels, too_wide) = Self::labels(diagnostic);
        if !too_wide {
            return self.0.debug(diagnostic, f);
        }
        if let Some(code) = diagnostic.code() {
            writeln!(f, "{code}")?;
        }
        writeln!(f, "  x {diagnostic}")?;
        for (label, name, line, column) in labels {
            let label = if label.is_empty() {
                String::new()
            } else {
                format!(": {label}")
            };
            writeln!(
                f,
                "  at {name}:{line}:{column}{label} (the line is too long to show)"
            )?;
        }
        if let Some(help) = diagnostic.help() {
            writeln!(f, "  help: {help}")?;
        }
        Ok(())
    }
}

pub fn main() -> i32 {
    use clap::FromArgMatches;
    let cli = match global::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    global::apply(&cli.global);
    install_report_handler();
    match run(cli) {
        Ok(code) => code,
        Err(report) => {
            if is_broken_pipe(&report) {
                return EXIT_OK;
            }
            say!("{report:?}");
            EXIT_ERROR
        }
    }
}

/// Writing the output failed (a closed pipe is not an error: `| head` is a normal way to stop).
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("cannot write the output: {0}")]
#[diagnostic(code(ozone_conform::output))]
pub struct OutputError(pub io::Error);

pub fn out_err(e: io::Error) -> Report {
    Report::new(OutputError(e))
}

fn is_broken_pipe(report: &Report) -> bool {
    report
        .downcast_ref::<OutputError>()
        .is_some_and(|e| e.0.kind() == io::ErrorKind::BrokenPipe)
}

pub fn run(cli: Cli) -> Result<i32, Report> {
    match cli.command {
        Command::Events(args) => cmd_events(&args),
        Command::Stats { inputs, format } => cmd_stats(&inputs, format),
        Command::Grammar {
            grammar,
            action: None,
        } => cmd_grammar(&grammar),
        Command::Grammar {
            grammar,
            action: Some(action),
        } => audit::run(&grammar, action),
        Command::Completions { shell } => global::cmd_completions(shell, &mut out::stdout()),
        Command::Man => global::cmd_man(&mut out::stdout()),
        Command::Models { format } => cmd_models(format),
        Command::Lsp { stdio: _ } => Ok(crate::lsp::run()),
        Command::Trace {
            file,
            model,
            config,
            format,
        } => crate::cli::link::cmd_trace(
            &file,
            model,
            config.as_deref(),
            matches!(format, StatsFormat::Json),
        ),
        Command::Convert { file, to: _, out } => {
            crate::cli::link::cmd_convert(&file, out.as_deref())
        }
        Command::Export {
            inputs,
            model,
            to,
            out,
            max_skew,
        } => {
            let (timeline, had_errors) = load_timeline(&inputs, max_skew)?;
            let code = crate::cli::link::cmd_export(&timeline, &model, to, out.as_deref())?;
            Ok(if had_errors { EXIT_ERROR } else { code })
        }
        Command::Check(args) => cmd_check(&args),
    }
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
    let timeline =
        crate::timeline::build(&p.sources, &p.grammar, &p.options, max_skew, &on_unparsed);
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
fn prepare_following(args: &InputArgs, per_file: bool, follow: bool) -> Result<Prepared, Report> {
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

/// `scm2=+01:00` (one node) or `+01:00` (every node).
fn parse_node_utc_offset(s: &str) -> Result<(Option<String>, i64), String> {
    match s.split_once('=') {
        Some((node, offset)) if !node.is_empty() => {
            Ok((Some(node.to_string()), parse_utc_offset(offset)?))
        }
        Some(_) => Err(format!(
            "`{s}`: a node name goes before `=`, like scm2=+01:00"
        )),
        None => Ok((None, parse_utc_offset(s)?)),
    }
}

/// The `--log-utc-offset` values as offsets: one for all nodes at most, one per node at most.
fn given_offsets(values: &[(Option<String>, i64)]) -> Result<crate::clock::GivenOffsets, Report> {
    let mut given = crate::clock::GivenOffsets::default();
    for (node, ms) in values {
        let clash = match node {
            None => given.all.replace(*ms).is_some_and(|o| o != *ms),
            Some(n) => given
                .by_node
                .insert(n.clone(), *ms)
                .is_some_and(|o| o != *ms),
        };
        if clash {
            return Err(miette!(
                "--log-utc-offset gives {} two different offsets",
                node.as_deref().unwrap_or("all nodes")
            ));
        }
    }
    Ok(given)
}

/// `+02:00`, `-05:00`, `+0530`, `Z` → milliseconds east of UTC.
fn parse_utc_offset(s: &str) -> Result<i64, String> {
    if s == "Z" || s == "UTC" {
        return Ok(0);
    }
    let bad = || format!("`{s}` is not a UTC offset like +02:00 or -05:00");
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+') => (1, &s[1..]),
        Some(b'-') => (-1, &s[1..]),
        _ => return Err(bad()),
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (h, m): (i64, i64) = (
        digits[..2].parse().map_err(|_| bad())?,
        digits[2..].parse().map_err(|_| bad())?,
    );
    if h > 14 || m > 59 {
        return Err(bad());
    }
    Ok(sign * (h * 3_600_000 + m * 60_000))
}

pub use crate::render::safe::sanitize;

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
fn unparsed_printer(verbose: bool) -> impl Fn(&str, &UnparsedLine) + Send + Sync + 'static {
    move |path: &str, u: &UnparsedLine| {
        if verbose {
            print_unparsed(path, u);
        }
    }
}

fn report_unparsed(verbose: bool, path: &str) -> impl FnMut(&UnparsedLine) + '_ {
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

fn cmd_events(args: &InputArgs) -> Result<i32, Report> {
    let p = prepare(args)?;
    let mut out = io::BufWriter::with_capacity(1 << 16, crate::cli::out::stdout());
    let mut had_errors = false;
    let mut write_error: Option<io::Error> = None;
    for (i, source) in p.sources.iter().enumerate() {
        let path = source.display();
        crate::event_stream::write_header(&mut out, &path).map_err(out_err)?;
        let stats = scan_input(
            i as u32,
            source,
            &p.grammar,
            &p.options,
            |event| {
                if write_error.is_none() {
                    let rule = &p.grammar.rules[event.rule as usize].id;
                    if let Err(e) = serde_json::to_writer(&mut out, &event.json_line(&path, rule))
                        .map_err(io::Error::from)
                        .and_then(|_| out.write_all(b"\n"))
                    {
                        write_error = Some(e);
                    }
                }
            },
            report_unparsed(args.verbose, &path),
        );
        if let Some(e) = write_error.take() {
            return Err(out_err(e));
        }
        crate::event_stream::write_end(&mut out, &stats).map_err(out_err)?;
        had_errors |= report_input_errors(&stats);
        if stats.unparsed > 0 && !args.verbose {
            say!(
                "{}: {} line(s) belong to no record (--verbose shows them)",
                sanitize(&path),
                stats.unparsed
            );
        }
    }
    out.flush().map_err(out_err)?;
    Ok(if had_errors { EXIT_ERROR } else { EXIT_OK })
}

fn cmd_stats(args: &InputArgs, format: StatsFormat) -> Result<i32, Report> {
    let p = prepare(args)?;
    let mut all = Vec::new();
    let mut had_errors = false;
    for (i, source) in p.sources.iter().enumerate() {
        let path = source.display();
        let stats = scan_input(
            i as u32,
            source,
            &p.grammar,
            &p.options,
            |_| {},
            report_unparsed(args.verbose, &path),
        );
        let mut stats = stats;
        stats.rotation = p.rotation.get(i).cloned().flatten();
        had_errors |= report_input_errors(&stats);
        all.push(stats);
    }
    // Test output given with the per-node logs it retells is left out by `check`: say so here too (a second
    // scan, only where both kinds of input are given).
    let test = crate::timeline::test_layout(&all);
    if test.iter().any(|&t| t) && test.iter().any(|&t| !t) {
        let retold = crate::timeline::retold(&p.sources, &p.grammar, &p.options);
        for (s, repeats) in all.iter_mut().zip(retold) {
            s.repeats = repeats;
        }
    }
    let mut out = crate::cli::out::stdout();
    match format {
        StatsFormat::Json => {
            serde_json::to_writer_pretty(
                &mut out,
                &serde_json::json!({ "version": 1, "inputs": all, "skipped": p.skipped }),
            )
            .map_err(|e| miette!("{e}"))?;
            writeln!(out).map_err(out_err)?;
        }
        StatsFormat::Text => {
            for s in &all {
                write_stats_text(&mut out, s).map_err(out_err)?;
            }
            for s in &p.skipped {
                writeln!(
                    out,
                    "{}\n  skipped     {} as {}; read once",
                    sanitize(&s.path),
                    s.reason,
                    sanitize(&s.same_as)
                )
                .map_err(out_err)?;
            }
        }
    }
    Ok(if had_errors { EXIT_ERROR } else { EXIT_OK })
}

fn write_stats_text(out: &mut impl Write, s: &InputStats) -> io::Result<()> {
    writeln!(out, "{}", sanitize(&s.path))?;
    if let Some(logs) = &s.repeats {
        writeln!(
            out,
            "  check       leaves it out: it retells the per-node logs given with it ({})",
            sanitize(logs)
        )?;
    }
    match (&s.layout, &s.pattern) {
        (Some(name), Some(pattern)) => writeln!(
            out,
            "  layout      {name} ({}){}: {pattern}",
            s.layout_from,
            match (&s.wrapper, s.docker_prefixes) {
                (Some(w), _) => format!(", in wrapper {w}"),
                (None, true) => ", docker-compose prefixes".to_string(),
                (None, false) => String::new(),
            }
        )?,
        _ => writeln!(out, "  layout      none fits")?,
    }
    let nodes: Vec<String> = s
        .nodes
        .iter()
        .map(|(n, from)| format!("{} ({from})", sanitize(n)))
        .collect();
    writeln!(
        out,
        "  nodes       {}",
        if nodes.is_empty() {
            "unknown".to_string()
        } else {
            nodes.join(", ")
        }
    )?;
    if let Some(r) = &s.rotation {
        writeln!(out, "  rotation    {r}")?;
    }
    writeln!(out, "  bytes       {}", s.bytes)?;
    writeln!(out, "  lines       {}", s.lines)?;
    writeln!(
        out,
        "  records     {} ({} continuation lines)",
        s.records, s.continuation_lines
    )?;
    for (layout, n) in &s.records_in_other_layouts {
        writeln!(out, "              {n} in layout {layout}")?;
    }
    let reasons: Vec<String> = s
        .unparsed_by_reason
        .iter()
        .map(|(r, n)| {
            format!(
                "{n} {}",
                serde_json::to_value(r)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            )
        })
        .collect();
    writeln!(
        out,
        "  unparsed    {}{}",
        s.unparsed,
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        }
    )?;
    for r in &s.rejected {
        writeln!(out, "              rejected {}", sanitize(r))?;
    }
    if s.rejected.len()
        < s.unparsed_by_reason
            .get(&UnparsedReason::InvalidField)
            .copied()
            .unwrap_or(0) as usize
    {
        writeln!(
            out,
            "              (only the first {} rejected records are listed)",
            crate::scan::MAX_REJECTED_SHOWN
        )?;
    }
    if s.long_lines > 0 {
        writeln!(
            out,
            "  long lines  {} (longer than 16 MiB, matched on their first 16 MiB)",
            s.long_lines
        )?;
    }
    writeln!(out, "  events      {}", s.events)?;
    for (kind, n) in &s.events_by_kind {
        writeln!(out, "    {kind:<32} {n}")?;
    }
    Ok(())
}

/// The runs of a check: all inputs together, or with `--per-file` each file (its rotations with it).
fn check_runs(sources: Vec<Source>, per_file: bool) -> Vec<(Option<String>, Vec<Source>)> {
    if !per_file {
        return vec![(None, sources)];
    }
    let mut runs: Vec<(Option<String>, Vec<Source>)> = Vec::new();
    let mut bases: Vec<Option<PathBuf>> = Vec::new();
    for s in sources {
        let base = match &s {
            Source::File(p) | Source::Follow(p) => Some(input::rotation_base(p)),
            Source::Stdin => None,
        };
        match bases.iter().position(|b| b.is_some() && *b == base) {
            Some(i) => runs[i].1.push(s),
            None => {
                let name = base
                    .as_ref()
                    .map_or_else(|| s.display(), |b| b.display().to_string());
                bases.push(base);
                runs.push((Some(name), vec![s]));
            }
        }
    }
    runs
}

fn cmd_check(check: &CheckArgs) -> Result<i32, Report> {
    let CheckArgs {
        inputs: args,
        format,
        all,
        per_file,
        models,
        max_skew,
        log_utc_offset,
        follow,
        events,
        output,
        coverage,
        report,
        require_checks,
    } = check;
    let (format, all, per_file, max_skew) = (*format, *all, *per_file, *max_skew);
    let log_utc_offset = given_offsets(log_utc_offset)?;
    use crate::model::Verdict;
    use std::io::IsTerminal;
    let max_skew = i64::try_from(max_skew)
        .map_err(|_| miette!(code = "ozone_conform::usage", "--max-skew is too large"))?;
    let mut p = prepare_following(args, per_file, *follow && !per_file)?;
    p.options.max_skew_ms = Some(max_skew);
    let format = format.resolve(io::stderr().is_terminal());
    if *follow {
        if per_file {
            return Err(miette!(
                code = "ozone_conform::usage",
                "--follow checks one live cluster; it does not go with --per-file"
            ));
        }
        p.sources = p
            .sources
            .into_iter()
            .map(|s| match s {
                Source::File(path) => Source::Follow(path),
                s => s,
            })
            .collect();
    }
    // An event stream on stdin is read whole: its verdicts need every host's stream.
    let live = !*events && p.sources.iter().any(input::is_live) && !per_file;
    coverage.check_usage(format, false)?;
    if live {
        let options = render_options(all, per_file);
        let renderer = crate::render::renderer(format, options);
        if renderer.streams() {
            coverage.check_usage(format, true)?;
            if report.is_some() {
                return Err(miette!(
                    code = "ozone_conform::usage",
                    "--report draws the whole input: not with --follow or a live stdin (give files)"
                ));
            }
            return check_live(
                &p,
                output.as_deref(),
                renderer,
                models,
                all,
                max_skew,
                log_utc_offset.clone(),
                args.verbose,
                *require_checks,
            );
        }
        if *follow {
            return Err(miette!(
                code = "ozone_conform::usage",
                "--follow reports violations as they happen: use a line format (full, concise, json-lines, github), not a document"
            ));
        }
    }
    let mut progress = (!*events && crate::progress::wanted(format, args.verbose))
        .then(|| crate::progress::start(&p.sources));
    p.options.progress = progress.as_ref().map(|bar| bar.bar().clone());
    // A batch check keeps no line per event: reports read theirs back from the files.
    p.options.read_back = true;
    let verbose = args.verbose;
    let on_unparsed = unparsed_printer(verbose);
    let mut renderer = crate::render::renderer(format, render_options(all, per_file));
    let mut out =
        io::BufWriter::new(crate::cli::out::Sink::new(output.as_deref()).map_err(out_err)?);
    renderer.begin(&mut out).map_err(out_err)?;
    // The HTML page: its file is made now, so that a wrong directory fails before the check, not after.
    let mut page = match report {
        Some(path) => Some((
            crate::render::html::HtmlReport::new(),
            crate::cli::out::Sink::new(Some(path)).map_err(|e| report_error(path, e))?,
            model_reads(models),
        )),
        None => None,
    };
    let (mut had_errors, mut violated, mut checks) = (false, false, 0);
    let mut coverages = Vec::new();
    // Each run's inputs: logs, or the inputs of event streams.
    let runs: Vec<(Option<String>, RunInputs)> = if *events {
        let inputs = crate::event_stream::read(&p.sources, &p.grammar)?;
        event_runs(inputs, per_file)
            .into_iter()
            .map(|(name, inputs)| (name, RunInputs::Streams(inputs)))
            .collect()
    } else {
        check_runs(std::mem::take(&mut p.sources), per_file)
            .into_iter()
            .map(|(name, sources)| (name, RunInputs::Logs(sources)))
            .collect()
    };
    let run_count = runs.len();
    for (k, (name, inputs)) in runs.into_iter().enumerate() {
        if let (Some(bar), Some(name)) = (&mut progress, &name) {
            bar.reading(Some(&format!("{}/{run_count}: {}", k + 1, sanitize(name))));
        }
        let mut clock = std::time::Instant::now();
        let (stats, per_input, test_output) = match inputs {
            RunInputs::Logs(sources) => {
                crate::timeline::scan_all(&sources, &p.grammar, &p.options, &on_unparsed)
            }
            RunInputs::Streams(inputs) => streams_as_inputs(inputs),
        };
        crate::timings::phase("scan", &mut clock);
        if let Some(bar) = &mut progress {
            bar.merging(
                per_input
                    .iter()
                    .map(crate::event_store::InputEvents::len)
                    .sum(),
                per_input.len(),
            );
        }
        let mut timeline = crate::timeline::from_inputs(stats, per_input, test_output, max_skew);
        timeline.set_utc_offsets(log_utc_offset.clone());
        let mut clock = std::time::Instant::now();
        let monitors = crate::check::monitors(models);
        // With coverage, the same pass also gives each model's witnessed spec actions.
        let witnesses = coverage.wanted() || page.is_some();
        let observed = match &mut progress {
            Some(bar) => {
                bar.replaying(timeline.events.len());
                let bar = &*bar;
                let tick = |done| bar.replayed(done);
                let observed = crate::check::observe_ticking(
                    &timeline,
                    monitors,
                    true,
                    witnesses,
                    Some(&tick),
                );
                bar.replayed(timeline.events.len());
                observed
            }
            None => crate::check::observe_ticking(&timeline, monitors, true, witnesses, None),
        };
        crate::timings::phase("replay", &mut clock);
        let (reports, witnessed): (Vec<_>, Vec<_>) = observed.into_iter().unzip();
        let run_coverage = witnesses.then(|| {
            let by_model: Vec<_> = reports.iter().map(|r| r.model).zip(witnessed).collect();
            crate::cli::coverage::of_run(name.as_deref(), &timeline, by_model, coverage.wanted())
        });
        if let Some(bar) = &progress {
            bar.suspend(|| {
                for s in &timeline.inputs {
                    had_errors |= report_input_errors(s);
                }
            });
        } else {
            for s in &timeline.inputs {
                had_errors |= report_input_errors(s);
            }
        }
        violated |= reports.iter().any(|r| r.verdict == Verdict::Violated);
        checks += reports.iter().map(|r| r.checks).sum::<usize>();
        let run = crate::render::Run {
            name: name.as_deref(),
            timeline: &timeline,
            reports: &reports,
            // The JSON document carries it with --coverage only (a report file alone leaves stdout as it was).
            coverage: run_coverage.as_ref().filter(|_| coverage.coverage),
        };
        match &progress {
            Some(bar) => bar.suspend(|| renderer.run(&mut out, &run).and_then(|_| out.flush())),
            None => renderer.run(&mut out, &run),
        }
        .map_err(out_err)?;
        if let Some((html, _, reads)) = &mut page {
            html.add_run(&run, all, reads, run_coverage.as_ref())
                .map_err(out_err)?;
        }
        coverages.extend(run_coverage);
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    renderer.end(&mut out).map_err(out_err)?;
    coverage.write(&mut out, format, &coverages, per_file)?;
    if let (Some((html, mut sink, _)), Some(path)) = (page, report) {
        html.write(
            &mut sink,
            &crate::render::html::Meta::now(args.inputs.clone()),
        )
        .and_then(|_| sink.finish())
        .map_err(|e| report_error(path, e))?;
    }
    out.into_inner()
        .map_err(|e| out_err(e.into_error()))?
        .finish()
        .map_err(out_err)?;
    Ok(check_exit_code(
        had_errors,
        violated,
        *require_checks,
        checks,
    ))
}

/// `--report FILE` could not be written (the sink's errors begin with the path).
fn report_error(path: &std::path::Path, e: io::Error) -> Report {
    let e = e.to_string();
    let path = path.display().to_string();
    let why = e
        .strip_prefix(&path)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&e);
    miette!(
        code = "ozone_conform::report",
        "cannot write the HTML report {path}: {why}"
    )
}

/// Which of the chosen models read which event kinds (the colour of an event's mark on the page).
fn model_reads(models: &[crate::bugs::Bug]) -> crate::render::html::Reads {
    use crate::vocab::EventKind;
    crate::check::monitors(models)
        .iter()
        .map(|m| {
            let reads = EventKind::ALL.iter().map(|k| m.reads(*k)).collect();
            (m.name(), reads)
        })
        .collect()
}

/// What one run of `check` reads: log files, or the inputs of event streams.
enum RunInputs {
    Logs(Vec<Source>),
    Streams(Vec<StreamInput>),
}

/// The runs of `check --events`: all inputs together, or with `--per-file` each input with its rotated
/// parts (as [`check_runs`] groups files).
fn event_runs(inputs: Vec<StreamInput>, per_file: bool) -> Vec<(Option<String>, Vec<StreamInput>)> {
    if !per_file {
        return vec![(None, inputs)];
    }
    let mut runs: Vec<(Option<String>, Vec<StreamInput>)> = Vec::new();
    for input in inputs {
        let base = input::rotation_base(std::path::Path::new(&input.0.path))
            .display()
            .to_string();
        match runs
            .iter_mut()
            .find(|(name, _)| name.as_deref() == Some(&base))
        {
            Some((_, members)) => members.push(input),
            None => runs.push((Some(base), vec![input])),
        }
    }
    runs
}

/// The inputs of event streams as [`crate::timeline::scan_all`] gives those of logs, numbered from 0 in
/// this run.
fn streams_as_inputs(
    inputs: Vec<StreamInput>,
) -> (
    Vec<InputStats>,
    Vec<crate::event_store::InputEvents>,
    Vec<bool>,
) {
    let (stats, mut per_input): (Vec<_>, Vec<_>) = inputs.into_iter().unzip();
    for (i, events) in per_input.iter_mut().enumerate() {
        events.set_input(i as u32);
    }
    let test_output = crate::timeline::test_layout(&stats);
    (stats, per_input, test_output)
}

fn render_options(all: bool, per_file: bool) -> crate::render::Options {
    use std::io::IsTerminal;
    crate::render::Options {
        all,
        color: global::color(io::stdout().is_terminal()),
        width: std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(100),
        per_file,
    }
}

/// `check` on live inputs (a pipe on stdin, `--follow`): each violation is written and flushed as soon as it
/// is found; the verdicts follow when every input has ended, or on SIGINT or SIGTERM (those of what had
/// arrived; a second signal ends the run at once).
#[allow(clippy::too_many_arguments)]
fn check_live(
    p: &Prepared,
    output: Option<&std::path::Path>,
    mut renderer: Box<dyn crate::render::Renderer>,
    models: &[crate::bugs::Bug],
    all: bool,
    max_skew: i64,
    log_utc_offset: crate::clock::GivenOffsets,
    verbose: bool,
    require_checks: bool,
) -> Result<i32, Report> {
    use crate::live::Found as Live;
    use crate::model::Verdict;
    let stop = stop_on_signals()?;
    let on_unparsed = std::sync::Arc::new(unparsed_printer(verbose));
    let mut out = io::BufWriter::new(crate::cli::out::Sink::new(output).map_err(out_err)?);
    renderer.begin(&mut out).map_err(out_err)?;
    let mut write_error = None;
    let mut firsts = std::collections::HashSet::new();
    let (timeline, reports, _end) = crate::live::check_live(
        &p.sources,
        &p.grammar,
        &p.options,
        models,
        all,
        max_skew,
        log_utc_offset,
        &stop,
        on_unparsed,
        &mut |timeline, report, found| {
            if write_error.is_some() {
                return;
            }
            let (v, printed) = match found {
                Live::New(v) => (v, None),
                Live::Supersedes { printed, first } => (first, Some(printed)),
            };
            let first = firsts.insert(report.model) || printed.is_some();
            let found = crate::render::Found {
                run: None,
                timeline,
                report,
                violation: v,
                first,
            };
            let written = match printed {
                None => renderer.violation(&mut out, &found),
                Some(printed) => renderer.superseded(&mut out, printed, &found),
            };
            if let Err(e) = written.and_then(|_| out.flush()) {
                write_error = Some(e);
            }
        },
    );
    if let Some(e) = write_error {
        return Err(out_err(e));
    }
    let mut had_errors = false;
    for s in &timeline.inputs {
        had_errors |= report_input_errors(s);
    }
    let run = crate::render::Run {
        name: None,
        timeline: &timeline,
        reports: &reports,
        coverage: None,
    };
    renderer.verdicts(&mut out, &run).map_err(out_err)?;
    renderer.end(&mut out).map_err(out_err)?;
    out.into_inner()
        .map_err(|e| out_err(e.into_error()))?
        .finish()
        .map_err(out_err)?;
    let violated = reports.iter().any(|r| r.verdict == Verdict::Violated);
    let checks = reports.iter().map(|r| r.checks).sum();
    Ok(check_exit_code(
        had_errors,
        violated,
        require_checks,
        checks,
    ))
}

/// `check`'s exit code: an input error (2) wins over a violation (1), which wins over `--require-checks`
/// with no check made (3, said on stderr).
fn check_exit_code(had_errors: bool, violated: bool, require_checks: bool, checks: usize) -> i32 {
    if had_errors {
        EXIT_ERROR
    } else if violated {
        EXIT_VIOLATION
    } else if require_checks && checks == 0 {
        say!(
            "ozone-conform: error: no model made a check in these inputs (--require-checks): every verdict is inconclusive; are these the right logs?"
        );
        EXIT_NOTHING_CHECKED
    } else {
        EXIT_OK
    }
}

/// A flag set by the first SIGINT or SIGTERM; a second one exits at once (130 or 143, as the shell would).
fn stop_on_signals() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, Report> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for (signal, code) in [(SIGINT, 130), (SIGTERM, 143)] {
        signal_hook::flag::register_conditional_shutdown(
            signal,
            code,
            std::sync::Arc::clone(&stop),
        )
        .and_then(|_| signal_hook::flag::register(signal, std::sync::Arc::clone(&stop)))
        .map_err(|e| miette!("cannot handle signal {signal}: {e}"))?;
    }
    Ok(stop)
}

/// `models`: one line per registered bug, or a JSON array (scripts read the model names from it).
fn cmd_models(format: StatsFormat) -> Result<i32, Report> {
    let mut out = crate::cli::out::stdout();
    match format {
        StatsFormat::Text => {
            for b in &crate::bugs::BUGS {
                let invariants: Vec<&str> = b.about.invariants.iter().map(|i| i.name).collect();
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}",
                    b.name(),
                    b.about.spec.issue,
                    b.about.spec.path,
                    invariants.join(",")
                )
                .map_err(out_err)?;
            }
        }
        StatsFormat::Json => {
            let models: Vec<serde_json::Value> = crate::bugs::BUGS
                .iter()
                .map(|b| {
                    serde_json::json!({
                        "model": b.name(),
                        "issue": b.about.spec.issue,
                        "module": b.about.spec.module,
                        "spec": b.about.spec.path,
                        "invariants": b.about.invariants.iter().map(|i| {
                            serde_json::json!({"name": i.name, "code": i.code})
                        }).collect::<Vec<_>>(),
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::Value::Array(models)).map_err(out_err)?;
        }
    }
    Ok(EXIT_OK)
}

fn cmd_grammar(dirs: &[PathBuf]) -> Result<i32, Report> {
    let g = Grammar::with_overrides(dirs)?;
    let mut out = crate::cli::out::stdout();
    for r in &g.rules {
        let loggers = if r.loggers.is_empty() {
            "*".to_string()
        } else {
            r.loggers.join(",")
        };
        let levels: Vec<&str> = r.levels.iter().map(|l| l.name()).collect();
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}:{}",
            r.id,
            r.component.name(),
            levels.join("|"),
            loggers,
            r.origin.0,
            r.origin.1
        )
        .map_err(out_err)?;
    }
    writeln!(
        out,
        "{} rules, {} samples checked",
        g.rules.len(),
        g.rules.iter().map(|r| r.samples.len()).sum::<usize>()
    )
    .map_err(out_err)?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_offsets() {
        assert_eq!(parse_utc_offset("+02:00"), Ok(7_200_000));
        assert_eq!(parse_utc_offset("-05:00"), Ok(-18_000_000));
        assert_eq!(parse_utc_offset("+0530"), Ok(19_800_000));
        assert_eq!(parse_utc_offset("Z"), Ok(0));
        assert!(parse_utc_offset("02:00").is_err());
        assert!(parse_utc_offset("+15:00").is_err());
        assert!(parse_utc_offset("+2").is_err());
        assert_eq!(
            parse_node_utc_offset("scm2=-01:00"),
            Ok((Some("scm2".into()), -3_600_000))
        );
        assert_eq!(parse_node_utc_offset("+01:00"), Ok((None, 3_600_000)));
        assert!(parse_node_utc_offset("=+01:00").is_err());
        assert!(parse_node_utc_offset("scm2=01:00").is_err());
        let given =
            given_offsets(&[(None, 0), (Some("scm2".into()), 3_600_000), (None, 0)]).unwrap();
        assert_eq!(given.all, Some(0));
        assert_eq!(given.by_node["scm2"], 3_600_000);
        assert!(given_offsets(&[(Some("scm2".into()), 0), (Some("scm2".into()), 60_000)]).is_err());
    }

    #[test]
    fn sanitize_escapes_control_characters() {
        assert_eq!(sanitize("a\x1b[31mred\u{7}\tz"), "a\\u{1b}[31mred\\u{7}\tz");
    }
}
