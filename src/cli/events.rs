//! `events`: the abstract events of the logs, one JSON object a line (the event-stream contract that
//! `check --events` reads back).

use super::inputs::{prepare, report_input_errors, report_unparsed};
use super::{out_err, InputArgs, EXIT_ERROR, EXIT_OK};
use crate::render::safe::sanitize;
use crate::scan::scan_input;
use miette::Report;
use std::io::{self, Write};

pub fn cmd_events(args: &InputArgs) -> Result<i32, Report> {
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
