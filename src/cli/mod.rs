//! The command line: its arguments (clap) and the dispatch to each command's module.

pub mod audit;
pub mod check;
pub mod coverage;
pub mod events;
pub mod global;
pub mod grammar;
pub mod inputs;
pub mod models;
pub mod out;
mod report_handler;
pub mod stats;
pub mod tla_traces;

pub use out::{out_err, OutputError};

use clap::{Args, Parser, Subcommand, ValueEnum};
use miette::{miette, Report};
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
        to: crate::cli::tla_traces::ExportFormat,
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
    /// Memory the events may take (K, M or G: 64M, 1G): past it, the events' heads, fields and the merge's
    /// sort go to temporary files, and the report is the same. Below it nothing is written.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = crate::memory::parse_size)]
    pub memory_budget: usize,
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
    report_handler::install();
    match run(cli) {
        Ok(code) => code,
        Err(report) => {
            if out::is_broken_pipe(&report) {
                return EXIT_OK;
            }
            say!("{report:?}");
            EXIT_ERROR
        }
    }
}

pub fn run(cli: Cli) -> Result<i32, Report> {
    match cli.command {
        Command::Events(args) => events::cmd_events(&args),
        Command::Stats { inputs, format } => stats::cmd_stats(&inputs, format),
        Command::Grammar {
            grammar,
            action: None,
        } => grammar::cmd_grammar(&grammar),
        Command::Grammar {
            grammar,
            action: Some(action),
        } => audit::run(&grammar, action),
        Command::Completions { shell } => global::cmd_completions(shell, &mut out::stdout()),
        Command::Man => global::cmd_man(&mut out::stdout()),
        Command::Models { format } => models::cmd_models(format),
        Command::Lsp { stdio: _ } => Ok(crate::lsp::run()),
        Command::Trace {
            file,
            model,
            config,
            format,
        } => crate::cli::tla_traces::cmd_trace(
            &file,
            model,
            config.as_deref(),
            matches!(format, StatsFormat::Json),
        ),
        Command::Convert { file, to: _, out } => {
            crate::cli::tla_traces::cmd_convert(&file, out.as_deref())
        }
        Command::Export {
            inputs,
            model,
            to,
            out,
            max_skew,
        } => {
            let (timeline, had_errors) = inputs::load_timeline(&inputs, max_skew)?;
            let code = crate::cli::tla_traces::cmd_export(&timeline, &model, to, out.as_deref())?;
            Ok(if had_errors { EXIT_ERROR } else { code })
        }
        Command::Check(args) => check::cmd_check(&args),
    }
}

/// `scm2=+01:00` (one node) or `+01:00` (every node).
pub(crate) fn parse_node_utc_offset(s: &str) -> Result<(Option<String>, i64), String> {
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
pub(crate) fn given_offsets(
    values: &[(Option<String>, i64)],
) -> Result<crate::clock::GivenOffsets, Report> {
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
pub(crate) fn parse_utc_offset(s: &str) -> Result<i64, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::safe::sanitize;

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
