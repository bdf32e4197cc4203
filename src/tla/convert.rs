//! PLACEHOLDER
pub fn convert_to_itf(_f: &super::trace::TraceFile) -> (serde_json::Value, Vec<String>) {
    (serde_json::Value::Null, vec![])
}
