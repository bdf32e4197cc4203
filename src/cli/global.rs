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
    let rules = crate::grammar::Grammar::embedded_once()
        .map(|g| g.rules.len().to_string())
        .unwrap_or_else(|| "invalid".into());
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
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), BIN, &mut script);
    if shell == clap_complete::Shell::Bash {
        script = fix_bash_case_arms(&String::from_utf8_lossy(&script)).into_bytes();
    }
    out.write_all(&script).map_err(super::out_err)?;
    out.flush().map_err(super::out_err)?;
    Ok(super::EXIT_OK)
}

const BIN: &str = "ozone-conform";

/// clap_complete 4.6 names a subcommand's state `ozone__conform__subcmd__check` where it sets it but
/// `ozone__subcmd__conform__subcmd__check` in the `case` arm that completes it (the binary name's hyphen
/// taken for a subcommand separator), so no subcommand's options or values ever complete. The arms get the
/// name that is set.
fn fix_bash_case_arms(script: &str) -> String {
    let wrong = BIN.replace('-', "__subcmd__");
    let right = BIN.replace('-', "__");
    script.replace(&format!("{wrong}__subcmd__"), &format!("{right}__subcmd__"))
}

/// `man`: one man page (roff) on stdout with every command's options, the formats and the exit codes (no
/// page per subcommand to install, and none referred to).
pub fn cmd_man(out: &mut dyn Write) -> Result<i32, miette::Report> {
    man_page(out).map_err(super::out_err)?;
    out.flush().map_err(super::out_err)?;
    Ok(super::EXIT_OK)
}

fn man_page(out: &mut dyn Write) -> io::Result<()> {
    let mut cmd = command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        man_command(out, &format!("{BIN} {}", sub.get_name()), sub)?;
        for nested in sub.get_subcommands().filter(|s| s.get_name() != "help") {
            man_command(
                out,
                &format!("{BIN} {} {}", sub.get_name(), nested.get_name()),
                nested,
            )?;
        }
    }
    out.write_all(MAN_EXIT_STATUS.as_bytes())?;
    man.render_version_section(out)
}

/// One command's section: its name, what it does, its synopsis and options.
fn man_command(out: &mut dyn Write, name: &str, sub: &clap::Command) -> io::Result<()> {
    writeln!(out, ".SS \"{name}\"")?;
    let about = sub
        .get_long_about()
        .or(sub.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    writeln!(out, "{}", roff_text(&about))?;
    let page = clap_mangen::Man::new(sub.clone().bin_name(name));
    let mut part = Vec::new();
    page.render_synopsis_section(&mut part)?;
    page.render_options_section(&mut part)?;
    // Inside the COMMANDS section: the sub-page's headings become paragraphs.
    let part = String::from_utf8_lossy(&part)
        .replace(".SH SYNOPSIS\n", ".PP\n")
        .replace(".SH OPTIONS\n", ".PP\nOptions:\n");
    out.write_all(part.as_bytes())
}

/// Plain text as a roff paragraph: backslashes escaped, no line that starts like a request.
fn roff_text(text: &str) -> String {
    let mut out = String::from(".PP\n");
    for line in text.replace('\\', "\\e").lines() {
        if line.starts_with('.') || line.starts_with('\'') {
            out.push_str("\\&");
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

const MAN_EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
.B 0
Nothing violated.
.TP
.B 1
A violation (\fBcheck\fR, live or not; \fBtrace\fR when the invariant fails in both or the trace diverges from the mirror; \fBexport\fR when the exported behaviour violates an invariant).
.TP
.B 2
A usage or input error (missing file, unknown model, no layout fits an input, a truncated gzip, a malformed grammar, pattern, trace or TLC config). It wins over 1.
.TP
.B 3
\fBcheck \-\-require\-checks\fR and no model made a check: every verdict is inconclusive (a CI job pointed at the wrong logs). A violation (1) or an input error (2) wins over it.
.SH "SEE ALSO"
The README of the source repository: the JSON contract, CI set-ups, live checks, editors, the HTML report.
"#;
