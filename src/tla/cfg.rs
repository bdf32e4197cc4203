//! PLACEHOLDER
pub struct TlcConfig {
    pub constants: crate::spec::Constants,
    pub invariants: Vec<String>,
}
pub fn parse_cfg(_name: &str, _text: &str) -> Result<TlcConfig, super::trace::TraceError> {
    Err(super::trace::TraceError)
}
