//! How errors and diagnostics are drawn on stderr: miette's graphical handler, made to never panic on a
//! line too long to draw.

use miette::Diagnostic;

/// Diagnostics: colour only on a terminal (and never with `NO_COLOR`), no hyperlinks, a stable width, so
/// what CI logs and snapshot tests see does not depend on the machine.
pub(super) fn install() {
    let color = super::global::color_stderr();
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
