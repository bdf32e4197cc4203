//! `grammar`: loads the grammar (the embedded rules and `--grammar` directories), checks every rule's
//! samples, and lists the rules. (`grammar audit` is [`super::audit`].)

use super::{out_err, EXIT_OK};
use crate::grammar::Grammar;
use miette::Report;
use std::io::Write;
use std::path::PathBuf;

/// Lists the rules, one a line, and how many samples were checked.
pub fn cmd_grammar(dirs: &[PathBuf]) -> Result<i32, Report> {
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
