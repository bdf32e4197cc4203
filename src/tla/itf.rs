//! PLACEHOLDER
pub fn to_itf(_t: &super::trace::Trace) -> serde_json::Value {
    serde_json::Value::Null
}
