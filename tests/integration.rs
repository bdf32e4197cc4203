//! The integration tests: one test crate (`cargo test --test integration`), one module per concern, and the
//! helpers they share in `common/` (the binary under test, fixture paths, `check --format json`, the
//! registry's model names, clock shifts). A test's full name is `<module>::<test>`, e.g.
//! `cargo test --test integration deletion_sweep::`.
//!
//! The modules stay beside this file (`tests/<module>.rs`) so that their snapshots (`tests/snapshots/`, named
//! `integration__<module>__<name>.snap`) and proptest regression files (`tests/<module>.proptest-regressions`)
//! are found where insta and proptest look for them. This file is not `main.rs` on purpose: proptest would
//! then keep its regressions under `tests/proptest-regressions/` instead.

mod common;

/// As the unit tests' (`src/lib.rs`): the in-process checks of many small inputs on test threads run a third
/// faster on mimalloc than on glibc's allocator, which trims each thread's arena with `madvise`.
#[global_allocator]
static TEST_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod check;
mod ci_mode;
mod cli;
mod clock_shift;
mod coverage;
mod deletion_sweep;
mod event_dense;
mod events_replay;
mod formats;
mod fuzz_regressions;
mod generated_logs;
mod grammar_audit;
mod html_report;
mod layering;
mod lifecycle;
mod live;
mod lsp;
mod memory_budget;
mod output_files;
mod progress;
mod real_ozone;
mod refinement;
mod robustness;
mod shapes;
mod shell_integration;
mod spark;
mod trace_replay;
mod traces;
mod wrappers;
