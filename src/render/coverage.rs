//! The spec coverage of a check ([`crate::coverage`]) as a person or a CI page reads it: a table per model,
//! as terminal text (after the report), Markdown or HTML (`--coverage-report FILE`). With `--per-file`, the
//! counts are summed over the runs and each action lists the runs (test classes) that took it.
//!
//! Each format is the same [`Summary`] written three ways; run names come from file names and notes from
//! logs, so each writer escapes them its own way.

use super::safe::{sanitize, xml};
use crate::coverage::{RunCoverage, Status};
use std::io::{self, Write};

/// One action over all runs.
struct Row {
    action: &'static str,
    witnessed: usize,
    inferred: usize,
    inferable: bool,
    /// `(run, count)` of the runs that witnessed it / took it inferred.
    witnessed_in: Vec<(String, usize)>,
    inferred_in: Vec<(String, usize)>,
}

impl Row {
    fn status(&self) -> Status {
        crate::coverage::ActionCount {
            action: self.action,
            witnessed: self.witnessed,
            inferred: self.inferred,
            inferable: self.inferable,
        }
        .status()
    }
}

/// One model over all runs.
struct ModelSummary {
    model: &'static str,
    module: &'static str,
    spec: &'static str,
    rows: Vec<Row>,
    /// Why some run's inferred steps are not counted, prefixed with the run.
    notes: Vec<String>,
}

impl ModelSummary {
    fn count(&self, status: Status) -> usize {
        self.rows.iter().filter(|r| r.status() == status).count()
    }

    /// `9 of 14 actions witnessed, 1 inferred, 4 never`.
    fn headline(&self) -> String {
        format!(
            "{} of {} actions witnessed, {} inferred, {} never",
            self.count(Status::Witnessed),
            self.rows.len(),
            self.count(Status::Inferred),
            self.count(Status::Never)
        )
    }
}

/// Every model's coverage over the runs, and the runs' short names.
struct Summary {
    models: Vec<ModelSummary>,
    /// `(short name, run)` with `--per-file`; empty for one run of all inputs.
    runs: Vec<(String, String)>,
}

/// A surefire file's test class (`org.apache.X.TestFoo-output.txt` → `TestFoo`), else the file name.
fn short_name(run: &str) -> String {
    let file = run.rsplit(['/', '\\']).next().unwrap_or(run);
    match file.strip_suffix("-output.txt") {
        Some(class) => class.rsplit('.').next().unwrap_or(class).to_string(),
        None => file.to_string(),
    }
}

fn summarize(runs: &[RunCoverage], per_file: bool) -> Summary {
    let names: Vec<String> = runs
        .iter()
        .map(|r| r.run.clone().unwrap_or_else(|| "all inputs".into()))
        .collect();
    let mut short: Vec<String> = names.iter().map(|n| short_name(n)).collect();
    // Two classes of one name (in two modules) are told apart by their whole file names.
    let clash = (1..short.len()).any(|i| short[..i].contains(&short[i]));
    if clash {
        short = names.clone();
    }
    let mut models: Vec<ModelSummary> = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        for m in &run.models {
            let at = match models.iter().position(|s| s.model == m.model) {
                Some(i) => i,
                None => {
                    models.push(ModelSummary {
                        model: m.model,
                        module: m.module,
                        spec: m.spec,
                        rows: m
                            .actions
                            .iter()
                            .map(|a| Row {
                                action: a.action,
                                witnessed: 0,
                                inferred: 0,
                                inferable: a.inferable,
                                witnessed_in: Vec::new(),
                                inferred_in: Vec::new(),
                            })
                            .collect(),
                        notes: Vec::new(),
                    });
                    models.len() - 1
                }
            };
            let s = &mut models[at];
            for (row, a) in s.rows.iter_mut().zip(&m.actions) {
                row.witnessed += a.witnessed;
                row.inferred += a.inferred;
                if a.witnessed > 0 {
                    row.witnessed_in.push((short[k].clone(), a.witnessed));
                }
                if a.inferred > 0 {
                    row.inferred_in.push((short[k].clone(), a.inferred));
                }
            }
            if let Some(n) = &m.note {
                s.notes.push(if per_file {
                    format!("{}: {n}", short[k])
                } else {
                    n.clone()
                });
            }
        }
    }
    Summary {
        models,
        runs: if per_file {
            short.into_iter().zip(names).collect()
        } else {
            Vec::new()
        },
    }
}

/// A model's table: header and rows, cells as raw text (each writer escapes them).
fn table(m: &ModelSummary, per_file: bool) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let mut header = vec!["action", "witnessed", "inferred", "status", "inferable"];
    if per_file {
        header.extend(["witnessed in", "inferred in"]);
    }
    let list = |runs: &[(String, usize)]| {
        runs.iter()
            .map(|(r, n)| format!("{r} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows = m
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.action.to_string(),
                r.witnessed.to_string(),
                r.inferred.to_string(),
                r.status().name().to_string(),
                if r.inferable { "yes" } else { "no" }.to_string(),
            ];
            if per_file {
                cells.push(list(&r.witnessed_in));
                cells.push(list(&r.inferred_in));
            }
            cells
        })
        .collect();
    (header, rows)
}

/// Counts are right-aligned.
fn is_number_column(header: &str) -> bool {
    matches!(header, "witnessed" | "inferred")
}

const LEGEND: &str = "witnessed: log lines show the action; inferred: the behaviour built from the logs \
(as `export` builds it) takes it with no line of its own; never: neither; inferable: the model may insert \
the action where no line shows it (before the first witnessed step, any action may be)";

fn runs_phrase(s: &Summary) -> String {
    match s.runs.len() {
        0 => String::new(),
        1 => " over 1 run".into(),
        n => format!(" over {n} runs"),
    }
}

/// The terminal table, written after the report.
pub fn write_text(out: &mut dyn Write, runs: &[RunCoverage], per_file: bool) -> io::Result<()> {
    let s = summarize(runs, per_file);
    writeln!(out, "\nspec coverage{} ({LEGEND})", runs_phrase(&s))?;
    for m in &s.models {
        writeln!(
            out,
            "\n{} ({}, {}): {}",
            m.model,
            m.module,
            m.spec,
            m.headline()
        )?;
        let (header, rows) = table(m, per_file);
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|r| r.iter().map(|c| sanitize(c)).collect())
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                rows.iter()
                    .map(|r| r[c].chars().count())
                    .chain([header[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let mut l = String::from(" ");
            for (c, cell) in cells.iter().enumerate() {
                let pad = widths[c] - cell.chars().count();
                l.push(' ');
                if is_number_column(header[c]) {
                    l.extend(std::iter::repeat_n(' ', pad));
                    l.push_str(cell);
                } else {
                    l.push_str(cell);
                    l.extend(std::iter::repeat_n(' ', pad));
                }
                l.push(' ');
            }
            l.trim_end().to_string()
        };
        writeln!(out, "{}", line(header.clone()))?;
        for r in &rows {
            writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
        }
        for n in &m.notes {
            writeln!(out, "  note: {}", sanitize(n))?;
        }
    }
    if !s.runs.is_empty() {
        writeln!(out, "\nruns:")?;
        let width = s
            .runs
            .iter()
            .map(|(short, _)| sanitize(short).chars().count())
            .max();
        for (short, run) in &s.runs {
            let short = sanitize(short);
            let pad = width.unwrap_or(0) - short.chars().count();
            writeln!(out, "  {short}{}  {}", " ".repeat(pad), sanitize(run))?;
        }
    }
    Ok(())
}

/// Text for a Markdown table cell or paragraph: markup characters backslash-escaped, line breaks as
/// spaces, terminal controls neutralised.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in sanitize(text).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The Markdown report.
pub fn write_markdown(out: &mut dyn Write, runs: &[RunCoverage], per_file: bool) -> io::Result<()> {
    let s = summarize(runs, per_file);
    writeln!(out, "# Spec coverage{}\n", runs_phrase(&s))?;
    writeln!(out, "{}.", md(LEGEND))?;
    for m in &s.models {
        writeln!(out, "\n## `{}`: {}\n", m.model, m.module)?;
        writeln!(out, "`{}`: {}.\n", m.spec, m.headline())?;
        let (header, rows) = table(m, per_file);
        writeln!(out, "| {} |", header.join(" | "))?;
        let rule: Vec<&str> = header
            .iter()
            .map(|h| if is_number_column(h) { "--:" } else { "---" })
            .collect();
        writeln!(out, "|{}|", rule.join("|"))?;
        for r in rows {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, cell)| match c {
                    0 => format!("`{cell}`"),
                    _ => md(cell),
                })
                .collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
        if !m.notes.is_empty() {
            writeln!(out)?;
            for n in &m.notes {
                writeln!(out, "- note: {}", md(n))?;
            }
        }
    }
    if !s.runs.is_empty() {
        writeln!(out, "\n## Runs\n\n| run | file |\n|---|---|")?;
        for (short, run) in &s.runs {
            writeln!(out, "| {} | {} |", md(short), md(run))?;
        }
    }
    Ok(())
}

/// `text` XML-escaped, with each `quoted` span as `<code>`.
fn with_code(text: &str) -> String {
    super::html::backticks_as_code(&xml(text))
}

/// The HTML report: one page, no scripts, a little inline style.
pub fn write_html(out: &mut dyn Write, runs: &[RunCoverage], per_file: bool) -> io::Result<()> {
    let s = summarize(runs, per_file);
    let title = format!("Spec coverage{}", runs_phrase(&s));
    let meta = crate::render::html::Meta::now(Vec::new());
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n\
         <style>body{{font-family:sans-serif}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}td.n{{text-align:right}}\
         tr.never td{{color:#888}}p.meta{{color:#666}}</style>\n</head>\n<body>\n<h1>{}</h1>\n\
         <p class=\"meta\">ozone-conform {}, {}. The verdicts, inputs and a picture of the run: \
         <code>check --report FILE.html</code>.</p>\n<p>{}.</p>",
        xml(&title),
        xml(&title),
        xml(&meta.version),
        xml(&meta.date),
        with_code(LEGEND)
    )?;
    // A model none of whose actions showed up is one line, not a table of zeros.
    let (seen, unseen): (Vec<&ModelSummary>, Vec<&ModelSummary>) = s
        .models
        .iter()
        .partition(|m| !m.notes.is_empty() || m.rows.iter().any(|r| r.status() != Status::Never));
    if !unseen.is_empty() {
        let names: Vec<String> = unseen
            .iter()
            .map(|m| format!("<code>{}</code> ({})", xml(m.model), xml(m.module)))
            .collect();
        writeln!(
            out,
            "<p>No action witnessed or inferred in these logs: {}.</p>",
            names.join(", ")
        )?;
    }
    for m in seen {
        writeln!(
            out,
            "<h2><code>{}</code>: {}</h2>\n<p><code>{}</code>: {}.</p>\n<table>",
            m.model,
            m.module,
            m.spec,
            m.headline()
        )?;
        let (header, rows) = table(m, per_file);
        let ths: Vec<String> = header.iter().map(|h| format!("<th>{h}</th>")).collect();
        writeln!(out, "<tr>{}</tr>", ths.concat())?;
        for (r, row) in rows.iter().zip(&m.rows) {
            let tds: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    if is_number_column(header[c]) {
                        format!("<td class=\"n\">{}</td>", xml(cell))
                    } else if c == 0 {
                        format!("<td><code>{}</code></td>", xml(cell))
                    } else {
                        format!("<td>{}</td>", xml(cell))
                    }
                })
                .collect();
            writeln!(
                out,
                "<tr class=\"{}\">{}</tr>",
                row.status().name(),
                tds.concat()
            )?;
        }
        writeln!(out, "</table>")?;
        if !m.notes.is_empty() {
            writeln!(out, "<ul>")?;
            for n in &m.notes {
                writeln!(out, "<li>note: {}</li>", with_code(n))?;
            }
            writeln!(out, "</ul>")?;
        }
    }
    if !s.runs.is_empty() {
        writeln!(
            out,
            "<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>file</th></tr>"
        )?;
        for (short, run) in &s.runs {
            writeln!(out, "<tr><td>{}</td><td>{}</td></tr>", xml(short), xml(run))?;
        }
        writeln!(out, "</table>")?;
    }
    writeln!(out, "</body>\n</html>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{ActionCount, ModelCoverage};

    fn run(name: &str, counts: &[(usize, usize)], note: Option<&str>) -> RunCoverage {
        let actions = ["A", "B", "C"]
            .iter()
            .zip(counts)
            .map(|(a, (w, i))| ActionCount {
                action: a,
                witnessed: *w,
                inferred: *i,
                inferable: *a == "C",
            })
            .collect();
        RunCoverage {
            run: Some(name.into()),
            models: vec![ModelCoverage {
                model: "m",
                module: "M",
                spec: "traces/m/M.tla",
                actions,
                note: note.map(String::from),
            }],
        }
    }

    #[test]
    fn runs_are_summed_and_each_action_names_the_test_classes_that_took_it() {
        let runs = [
            run(
                "d/org.x.TestOne-output.txt",
                &[(2, 0), (0, 0), (0, 1)],
                None,
            ),
            run(
                "d/org.y.TestTwo-output.txt",
                &[(1, 0), (0, 0), (0, 3)],
                Some("stuck"),
            ),
        ];
        let s = summarize(&runs, true);
        let m = &s.models[0];
        assert_eq!(
            m.headline(),
            "1 of 3 actions witnessed, 1 inferred, 1 never"
        );
        let a = &m.rows[0];
        assert_eq!((a.witnessed, a.inferred), (3, 0));
        assert_eq!(
            a.witnessed_in,
            [("TestOne".into(), 2), ("TestTwo".into(), 1)]
        );
        assert_eq!(
            m.rows[2].inferred_in,
            [("TestOne".into(), 1), ("TestTwo".into(), 3)]
        );
        assert_eq!(m.notes, ["TestTwo: stuck"]);
        assert_eq!(
            s.runs[1],
            ("TestTwo".into(), "d/org.y.TestTwo-output.txt".into())
        );
    }

    #[test]
    fn test_classes_of_one_name_are_told_apart_by_their_files() {
        let runs = [
            run(
                "a/org.x.TestOne-output.txt",
                &[(1, 0), (0, 0), (0, 0)],
                None,
            ),
            run(
                "b/org.y.TestOne-output.txt",
                &[(1, 0), (0, 0), (0, 0)],
                None,
            ),
        ];
        let s = summarize(&runs, true);
        assert_eq!(
            s.models[0].rows[0].witnessed_in[1].0,
            "b/org.y.TestOne-output.txt"
        );
        assert_eq!(
            short_name("x/ozone-hadoop-scm-scm1.log"),
            "ozone-hadoop-scm-scm1.log"
        );
    }

    #[test]
    fn run_names_and_notes_are_escaped_for_each_format() {
        let runs = [run(
            "d/<b>|x\u{1b}[31m-output.txt",
            &[(1, 0), (0, 0), (0, 0)],
            Some("a | b <i>"),
        )];
        let mut text = Vec::new();
        write_text(&mut text, &runs, true).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(!text.contains('\u{1b}'), "{text}");
        let mut md_out = Vec::new();
        write_markdown(&mut md_out, &runs, true).unwrap();
        let md_out = String::from_utf8(md_out).unwrap();
        assert!(md_out.contains("a \\| b \\<i\\>"), "{md_out}");
        assert!(!md_out.contains("<b>"), "{md_out}");
        let mut html = Vec::new();
        write_html(&mut html, &runs, true).unwrap();
        let html = String::from_utf8(html).unwrap();
        assert!(html.contains("a | b &lt;i&gt;"), "{html}");
        assert!(!html.contains("<b>") && !html.contains('\u{1b}'), "{html}");
    }
}
