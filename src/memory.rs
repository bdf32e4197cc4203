//! The memory budget (`check --memory-budget`, default [`DEFAULT_BUDGET`]) and its shares: what the
//! structures that grow with the number of events keep in memory before they move to disk.
//!
//! The shares leave room for what does not move: the scan's buffers (a few MiB per thread), a bit per event
//! in the merge, its causal edges (a few per secret key and leader term), the models' state, and the report.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The default budget: 256 MiB.
pub const DEFAULT_BUDGET: usize = 256 << 20;

static BUDGET: AtomicUsize = AtomicUsize::new(DEFAULT_BUDGET);

/// Sets the process's budget (bytes).
pub fn set_budget(bytes: usize) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

pub fn budget() -> usize {
    BUDGET.load(Ordering::Relaxed)
}

/// Runs of records ([`crate::spill`]: event heads, the merge's chains and order): half the budget.
pub fn runs_budget() -> usize {
    budget() / 2
}

/// Decoded chunks of records read back from disk: a sixteenth.
pub fn cache_budget() -> usize {
    budget() / 16
}

/// The merge's chain links' own cache ([`crate::spill::Run::with_own_cache`]): a sixty-fourth. The merge
/// reads the links at one place per chain at once, which the shared cache, filled by the event heads read
/// before, would serve from disk record by record.
pub fn chains_cache_budget() -> usize {
    budget() / 64
}

/// Packed fields and excerpts ([`crate::event_store`]): an eighth.
pub fn packed_budget() -> usize {
    budget() / 8
}

/// Parses a size: bytes, or a number with `K`, `M` or `G` (powers of 1024; `KiB`, `MB` and the like are
/// read the same way).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let n: usize = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (a number with K, M or G: 64M, 1G)"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (K, M or G)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_with_binary_units() {
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("2gib"), Ok(2 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("M").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("-1M").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
