//! The progress bar of `check`: bytes read of the inputs' total, throughput and time left, on stderr.
//!
//! Drawn only for a person: stderr is a terminal, the format is a human one (`full`, `concise`), `CI` is not
//! set, and `--verbose` is not printing lines of its own. It is advanced by the input reader once per 256 KiB
//! read (see [`crate::input::open_with_progress`]), never per line, and cleared before the report is written.

use crate::input::Source;
use crate::render::Format;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Whether a bar is wanted for this run.
pub fn wanted(format: Format, verbose: bool) -> bool {
    format.is_human()
        && !verbose
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
}

/// A bar over the inputs' total size (a spinner when stdin makes it unknown). Sizes are of the files as
/// stored, so a gzip input counts its compressed bytes.
pub fn start(sources: &[Source]) -> ProgressBar {
    let total: Option<u64> = sources
        .iter()
        .map(|s| match s {
            Source::Stdin | Source::Follow(_) => None,
            Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
        })
        .sum();
    let bar = match total {
        Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template(
                "{spinner} checking {wide_bar} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{spinner} checking {binary_bytes} {binary_bytes_per_sec}")
                .expect("valid template"),
        ),
    };
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
