//! TLA+ traces: values, and readers and writers for the formats TLC, Apalache and Quint produce.

#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod cfg;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod convert;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod dump_json;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod itf;
pub mod json;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod read;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod simulate;
pub mod tla_expr;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod tlc_text;
#[allow(clippy::result_large_err)] // errors carry the source text for their diagnostic; a cold path
pub mod trace;
pub mod value;

pub use read::{read_trace_bytes, read_trace_file, read_trace_str};
pub use trace::{
    ActionLabel, Trace, TraceError, TraceFile, TraceFormat, TraceState, TraceViolation,
    ViolationKind,
};
