//! TLA+ traces: values, and readers and writers for the formats TLC, Apalache and Quint produce.

pub mod cfg;
pub mod convert;
pub mod dump_json;
pub mod itf;
pub mod json;
pub mod simulate;
pub mod tla_expr;
pub mod tlc_text;
pub mod trace;
pub mod value;

pub use trace::{
    read_trace_bytes, read_trace_file, read_trace_str, ActionLabel, Trace, TraceError, TraceFile,
    TraceFormat, TraceState, TraceViolation, ViolationKind,
};
