//! TLA+ traces: values, and readers and writers for the formats TLC, Apalache and Quint produce.

pub mod cfg;
pub mod convert;
pub mod itf;
pub mod trace;
pub mod value;
