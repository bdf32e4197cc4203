//! `stats`: per input, its layout, nodes, records, unparsed lines and events by kind, as text or JSON.

use super::inputs::{prepare, report_input_errors, report_unparsed};
use super::{out_err, InputArgs, StatsFormat, EXIT_ERROR, EXIT_OK};
use crate::render::safe::sanitize;
use crate::scan::{scan_input, InputStats, UnparsedReason};
use miette::{miette, Report};
use std::io::{self, Write};

pub fn cmd_stats(args: &InputArgs, format: StatsFormat) -> Result<i32, Report> {
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
