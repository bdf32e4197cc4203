//! TLA+ traces: values, and readers and writers for the formats TLC, Apalache and Quint produce.

pub mod value;
