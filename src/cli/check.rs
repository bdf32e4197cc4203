//! `check`: the command around [`crate::check::Pipeline`]. It resolves the arguments into runs (all inputs
//! together, or with `--per-file` each file with its rotations), runs the pipeline on each, and writes what
//! comes back: the report in the chosen format, input errors on stderr, the spec coverage and the HTML page;
//! live inputs (`--follow`, a pipe) go through [`crate::live`]. The exit code says what was found.

use super::inputs::{prepare_following, report_input_errors, unparsed_printer, Prepared};
use super::{
    global, out_err, CheckArgs, EXIT_ERROR, EXIT_NOTHING_CHECKED, EXIT_OK, EXIT_VIOLATION,
};
use crate::check::{Checked, Inputs, Pipeline, Scanned, Watch};
use crate::event_stream::StreamInput;
use crate::input::{self, Source};
use crate::monitor::Verdict;
use crate::progress::Progress;
use crate::render::safe::sanitize;
use miette::{miette, Report};
use std::io::{self, Write};
use std::path::PathBuf;

/// The runs of a check: all inputs together, or with `--per-file` each file (its rotations with it).
fn check_runs(sources: Vec<Source>, per_file: bool) -> Vec<(Option<String>, Vec<Source>)> {
    if !per_file {
        return vec![(None, sources)];
    }
    let mut runs: Vec<(Option<String>, Vec<Source>)> = Vec::new();
    let mut bases: Vec<Option<PathBuf>> = Vec::new();
    for s in sources {
        let base = s.path().map(input::rotation_base);
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

/// The progress bar, moved through the pipeline's phases.
impl Watch for Progress {
    fn merging(&mut self, events: usize, inputs: usize) {
        Progress::merging(self, events, inputs);
    }

    fn replaying(&mut self, events: usize) {
        Progress::replaying(self, events);
    }

    fn replayed(&self, done: usize) {
        Progress::replayed(self, done);
    }
}

pub fn cmd_check(check: &CheckArgs) -> Result<i32, Report> {
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
        memory_budget,
    } = check;
    crate::memory::set_budget(*memory_budget);
    let (format, all, per_file, max_skew) = (*format, *all, *per_file, *max_skew);
    let log_utc_offset = super::given_offsets(log_utc_offset)?;
    use std::io::IsTerminal;
    let max_skew = i64::try_from(max_skew)
        .map_err(|_| miette!(code = "ozone_conform::usage", "--max-skew is too large"))?;
    let mut p = prepare_following(args, per_file, *follow && !per_file)?;
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
    let mut pipeline = Pipeline {
        bugs: models,
        max_skew_ms: max_skew,
        utc_offsets: log_utc_offset,
        // With coverage or the HTML page, the same pass also gives each model's witnessed spec actions.
        witnesses: coverage.wanted() || report.is_some(),
        partial: false,
    };
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
            pipeline.witnesses = false;
            return check_live(
                &pipeline,
                &p,
                output.as_deref(),
                renderer,
                all,
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
    let on_unparsed = unparsed_printer(args.verbose);
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
    // The coverage report's file too.
    let coverage_report = coverage.open_report()?;
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
    for (k, (name, run_inputs)) in runs.into_iter().enumerate() {
        if let (Some(bar), Some(name)) = (&mut progress, &name) {
            bar.reading(Some(&format!("{}/{run_count}: {}", k + 1, sanitize(name))));
        }
        let sources;
        let inputs = match run_inputs {
            RunInputs::Logs(logs) => {
                sources = logs;
                Inputs::Logs {
                    sources: &sources,
                    grammar: &p.grammar,
                    options: &p.options,
                    on_unparsed: &on_unparsed,
                }
            }
            RunInputs::Streams(streams) => Inputs::Scanned(Scanned::from_streams(streams)),
        };
        let watch: &mut dyn Watch = match &mut progress {
            Some(bar) => bar,
            None => &mut (),
        };
        let Checked {
            timeline,
            reports,
            witnessed,
        } = pipeline.run(inputs, watch);
        let run_coverage = pipeline.witnesses.then(|| {
            let by_model: Vec<_> = reports.iter().map(|r| r.model()).zip(witnessed).collect();
            crate::cli::coverage::of_run(name.as_deref(), &timeline, by_model, coverage.wanted())
        });
        match &progress {
            Some(bar) => bar.suspend(|| {
                for s in &timeline.inputs {
                    had_errors |= report_input_errors(s);
                }
            }),
            None => {
                for s in &timeline.inputs {
                    had_errors |= report_input_errors(s);
                }
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
    coverage.write(&mut out, format, &coverages, per_file, coverage_report)?;
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
fn check_live(
    pipeline: &Pipeline,
    p: &Prepared,
    output: Option<&std::path::Path>,
    mut renderer: Box<dyn crate::render::Renderer>,
    all: bool,
    verbose: bool,
    require_checks: bool,
) -> Result<i32, Report> {
    use crate::live::Found as Live;
    let stop = stop_on_signals()?;
    let on_unparsed = std::sync::Arc::new(unparsed_printer(verbose));
    let mut out = io::BufWriter::new(crate::cli::out::Sink::new(output).map_err(out_err)?);
    renderer.begin(&mut out).map_err(out_err)?;
    let mut write_error = None;
    let mut firsts = std::collections::HashSet::new();
    let (timeline, reports, _end) = crate::live::check_live(
        pipeline,
        &p.sources,
        &p.grammar,
        &p.options,
        all,
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
            let first = firsts.insert(report.model()) || printed.is_some();
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
