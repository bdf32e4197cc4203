//! What every command takes (`--color`, `--quiet`), the long `--version`, and the `completions` and `man`
//! commands.

use clap::{Args, CommandFactory, ValueEnum};
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// When to colour diagnostics and the `full` report: `auto` on a terminal without `NO_COLOR`.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    pub color: Color,
    /// Print nothing but errors; the exit code is the same.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

static COLOR: OnceLock<Color> = OnceLock::new();
static QUIET: AtomicBool = AtomicBool::new(false);

/// Takes the global flags in force for the rest of the process.
pub fn apply(args: &GlobalArgs) {
    let _ = COLOR.set(args.color);
    QUIET.store(args.quiet, Ordering::Relaxed);
}

/// Whether to colour a stream that is (or is not) a terminal.
pub fn color(is_terminal: bool) -> bool {
    match COLOR.get().copied().unwrap_or(Color::Auto) {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => is_terminal && std::env::var_os("NO_COLOR").is_none(),
    }
}

pub fn color_stderr() -> bool {
    color(io::stderr().is_terminal())
}

/// `--quiet`: only errors are printed.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// `--version --long` text: the commit, the embedded grammar's rule count, and the models' spec modules.
pub fn long_version() -> String {
    let rules = crate::grammar::Grammar::embedded()
        .map(|g| g.rules.len().to_string())
        .unwrap_or_else(|_| "invalid".into());
    let specs: Vec<String> = crate::bugs::BUGS
        .iter()
        .map(|b| format!("{} ({})", b.mirror.module(), b.name()))
        .collect();
    format!(
        "{} (git {})\ngrammar: {rules} rules embedded\nspecs: {}",
        env!("CARGO_PKG_VERSION"),
        env!("OZONE_CONFORM_GIT_REV"),
        specs.join(", ")
    )
}

/// The command line as clap sees it, with the long version.
pub fn command() -> clap::Command {
    super::Cli::command().long_version(long_version())
}

/// `completions SHELL`: the shell's completion script on stdout.
pub fn cmd_completions(
    shell: clap_complete::Shell,
    out: &mut dyn Write,
) -> Result<i32, miette::Report> {
    clap_complete::generate(shell, &mut command(), "ozone-conform", out);
    out.flush().map_err(super::out_err)?;
    Ok(super::EXIT_OK)
}

/// `man`: the man page (roff) on stdout.
pub fn cmd_man(out: &mut dyn Write) -> Result<i32, miette::Report> {
    clap_mangen::Man::new(command())
        .render(out)
        .map_err(super::out_err)?;
    out.flush().map_err(super::out_err)?;
    Ok(super::EXIT_OK)
}
