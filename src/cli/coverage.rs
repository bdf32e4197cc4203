//! `check --coverage` and `--coverage-report FILE`: which spec actions the logs witnessed, inferred or never
//! showed ([`crate::coverage`]), as a table after the report, a `coverage` object in `--format json`, and a
//! Markdown or HTML file for a CI job to publish ([`crate::render::coverage`]).

use crate::coverage::RunCoverage;
use crate::render::Format;
use clap::Args;
use miette::{miette, Report};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone, Default)]
pub struct CoverageArgs {
    /// Also tell, per model, which actions of its spec the logs witnessed and how often, which were inferred
    /// (steps no log line shows) and which never appeared: a table after the report (full, concise,
    /// github), a `coverage` object in each json document. With --per-file, which run (test class) took
    /// which action.
    #[arg(long)]
    pub coverage: bool,
    /// Write the coverage as a report for CI to publish: Markdown, or HTML if FILE ends in .html or .htm.
    #[arg(long, value_name = "FILE")]
    pub coverage_report: Option<PathBuf>,
}

impl CoverageArgs {
    /// Is coverage to be gathered at all?
    pub fn wanted(&self) -> bool {
        self.coverage || self.coverage_report.is_some()
    }

    /// A usage error for what coverage cannot go with: formats that have no place for it, and live checks
    /// (coverage is of the whole input).
    pub fn check_usage(&self, format: Format, live: bool) -> Result<(), Report> {
        if self.wanted() && live {
            return Err(miette!(
                code = "ozone_conform::usage",
                "--coverage and --coverage-report count the actions of the whole input: not with --follow or a live stdin (give a file, or a document format such as --format json)"
            ));
        }
        if self.coverage && !(shows_table(format) || format == Format::Json) {
            return Err(miette!(
                code = "ozone_conform::usage",
                "--coverage prints a table after a full, concise or github report, or a `coverage` object in --format json; with --format {} write it to a file with --coverage-report FILE.md",
                format_name(format)
            ));
        }
        Ok(())
    }

    /// The report file's sink (`--coverage-report FILE`), made before the check as `-o`'s and `--report`'s
    /// are, so that a wrong directory fails before the check, not after it.
    pub fn open_report(&self) -> Result<Option<ReportFile>, Report> {
        self.coverage_report
            .as_ref()
            .map(|path| {
                let sink = super::out::Sink::new(Some(path)).map_err(|e| cannot(path, e))?;
                Ok(ReportFile {
                    path: path.clone(),
                    sink,
                })
            })
            .transpose()
    }

    /// After the report: the table (`--coverage` with a text format) into `out`, and the report file
    /// ([`CoverageArgs::open_report`]).
    pub fn write(
        &self,
        out: &mut dyn Write,
        format: Format,
        runs: &[RunCoverage],
        per_file: bool,
        report: Option<ReportFile>,
    ) -> Result<(), Report> {
        if self.coverage && shows_table(format) {
            crate::render::coverage::write_text(out, runs, per_file).map_err(super::out_err)?;
        }
        if let Some(report) = report {
            report.write(runs, per_file)?;
        }
        Ok(())
    }
}

/// The coverage report's file, open before the check.
pub struct ReportFile {
    path: PathBuf,
    sink: super::out::Sink,
}

impl ReportFile {
    /// Writes the report whole or not at all (as `-o` does): Markdown, or HTML by the file's extension.
    fn write(mut self, runs: &[RunCoverage], per_file: bool) -> Result<(), Report> {
        let path = self.path;
        let html = path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"));
        let written = if html {
            crate::render::coverage::write_html(&mut self.sink, runs, per_file)
        } else {
            crate::render::coverage::write_markdown(&mut self.sink, runs, per_file)
        };
        written
            .and_then(|_| self.sink.finish())
            .map_err(|e| cannot(&path, e))
    }
}

fn cannot(path: &Path, e: std::io::Error) -> Report {
    miette!(
        code = "ozone_conform::coverage_report",
        "cannot write the coverage report {}: {e}",
        path.display()
    )
}

/// The formats after whose report a text table may stand.
fn shows_table(format: Format) -> bool {
    matches!(
        format,
        Format::Full | Format::Concise | Format::Github | Format::Auto
    )
}

fn format_name(format: Format) -> String {
    clap::ValueEnum::to_possible_value(&format)
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// A run's coverage from the models' witnessed actions (`None` where they were not asked for); inferred
/// steps are counted only with `infer` (asked for with --coverage or --coverage-report; `--report` alone
/// shows the witnessed actions, which cost next to nothing).
pub fn of_run(
    run: Option<&str>,
    timeline: &crate::timeline::Timeline,
    by_model: Vec<(&'static str, crate::mirror::export::Witnessed)>,
    infer: bool,
) -> RunCoverage {
    crate::coverage::of_run_inferring(run, timeline, &by_model, infer)
}
