//! PLACEHOLDER (replaced by the readers' branch): the trace model every reader produces.
use super::value::TlaValue;
use miette::SourceSpan;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    TlcText,
    TlcTool,
    TlcSimulate,
    TlcDumpJson,
    Itf,
}
#[derive(Debug, Clone)]
pub struct ActionLabel {
    pub name: String,
    pub module: Option<String>,
    pub line: Option<u32>,
}
#[derive(Debug, Clone)]
pub struct TraceState {
    pub number: usize,
    pub action: Option<ActionLabel>,
    pub vars: Vec<(String, TlaValue, SourceSpan)>,
    pub span: SourceSpan,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViolationKind {
    Invariant,
    ActionProperty,
    TemporalProperty,
    Deadlock,
    Assertion,
    Other,
}
#[derive(Debug, Clone)]
pub struct TraceViolation {
    pub kind: ViolationKind,
    pub name: Option<String>,
    pub message: String,
}
#[derive(Debug, Clone)]
pub struct Trace {
    pub format: TraceFormat,
    pub module: Option<String>,
    pub violation: Option<TraceViolation>,
    pub states: Vec<TraceState>,
    pub back_to_state: Option<usize>,
    pub stuttering: bool,
    pub notes: Vec<String>,
}
pub struct TraceFile {
    pub name: String,
    pub text: std::sync::Arc<String>,
    pub traces: Vec<Trace>,
}
impl Trace {
    pub fn var(&self, state: usize, name: &str) -> Option<&TlaValue> {
        self.states
            .get(state)?
            .vars
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
    }
}
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("stub")]
pub struct TraceError;
pub fn read_trace_file(_p: &std::path::Path) -> Result<TraceFile, TraceError> {
    Err(TraceError)
}
pub fn read_trace_str(_n: &str, _t: String) -> Result<TraceFile, TraceError> {
    Err(TraceError)
}
