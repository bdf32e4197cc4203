//! ozone-conform: checks Apache Ozone logs against models of Ozone's protocols.
//!
//! Data flows one way: [`input`] (files, directories, globs, stdin, gzip) → [`scan`] (records with
//! [`layout`]s, events with a [`grammar`]) → [`event`]s with spans and [`node`]s → models → reports.

/// `eprintln!` that ignores a failed write: a closed stderr (`... 2>&1 | head`) must not crash a check.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod audit;
mod block_bytes;
pub mod bugs;
pub mod check;
pub mod cli;
pub mod clock;
#[doc(hidden)]
#[allow(clippy::result_large_err)] // trace errors carry their source text, as in crate::tla
#[cfg(any(test, feature = "testing"))]
pub mod contract;
pub mod coverage;
pub mod event;
pub mod event_store;
pub mod event_stream;
pub mod excerpt;
pub mod grammar;
pub mod happens_before;
pub mod head_run;
pub mod input;
pub mod lanes;
pub mod layout;
pub mod lifecycle;
pub mod live;
#[doc(hidden)]
#[cfg(any(test, feature = "testing"))]
pub mod log_gen;
pub mod lsp;
pub mod mapped;
pub mod memory;
pub mod mirror;
pub mod monitor;
pub mod node;
pub mod packed;
pub mod progress;
pub mod ranked;
#[doc(hidden)]
#[cfg(any(test, feature = "testing"))]
pub mod refinement;
pub mod render;
pub mod scan;
pub mod spill;
mod template_match;
pub mod time;
pub mod timeline;
pub mod timings;
pub mod tla;
pub mod value;
pub mod vocab;
pub mod wrapper;

/// The unit tests run thousands of small checks, each on a test thread of its own: glibc's allocator gives
/// the memory of a thread's arena back with `madvise` and a TLB shootdown after almost every one, which cost
/// the tests a third of their time. The shipped binary keeps the system allocator (mimalloc was no faster on
/// large inputs and held more memory).
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
