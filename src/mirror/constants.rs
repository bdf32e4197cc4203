//! Reading a mirror's constants out of a TLC config's assignments, with errors that name the constant.

use super::Constants;
use crate::tla::value::TlaValue;

fn get<'a>(c: &'a Constants, name: &str) -> Result<&'a TlaValue, String> {
    c.get(name)
        .ok_or_else(|| format!("constant `{name}` is not assigned"))
}

fn wrong(name: &str, want: &str, got: &TlaValue) -> String {
    format!(
        "constant `{name}` should be {want}, not the {} {got}",
        got.kind()
    )
}

/// A boolean constant such as the patch flag.
pub fn boolean(c: &Constants, name: &str) -> Result<bool, String> {
    let v = get(c, name)?;
    v.as_bool().ok_or_else(|| wrong(name, "TRUE or FALSE", v))
}

/// A natural-number constant such as a bound.
pub fn natural(c: &Constants, name: &str) -> Result<u32, String> {
    let v = get(c, name)?;
    v.as_i64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| wrong(name, "a natural number", v))
}

/// A single model value such as `NoNode`.
pub fn model_value(c: &Constants, name: &str) -> Result<String, String> {
    match get(c, name)? {
        TlaValue::ModelValue(m) => Ok(m.clone()),
        v => Err(wrong(name, "a model value", v)),
    }
}

/// A non-empty set of model values such as `Nodes = {s1, s2}`, in TLA+ order.
pub fn model_values(c: &Constants, name: &str) -> Result<Vec<String>, String> {
    let v = get(c, name)?;
    let elems = v
        .as_set()
        .ok_or_else(|| wrong(name, "a set of model values", v))?;
    let names: Option<Vec<String>> = elems
        .iter()
        .map(|e| match e {
            TlaValue::ModelValue(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    match names {
        Some(n) if !n.is_empty() => Ok(n),
        _ => Err(wrong(name, "a non-empty set of model values", v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_read_with_their_types_and_errors_name_them() {
        let mut c = Constants::new();
        c.insert(
            "Nodes".into(),
            TlaValue::set([TlaValue::model("s2"), TlaValue::model("s1")]),
        );
        c.insert("MaxLog".into(), TlaValue::int(3));
        c.insert("Fix".into(), TlaValue::Bool(true));
        c.insert("NoNode".into(), TlaValue::model("NoNode"));
        assert_eq!(model_values(&c, "Nodes").unwrap(), ["s1", "s2"]);
        assert_eq!(natural(&c, "MaxLog").unwrap(), 3);
        assert!(boolean(&c, "Fix").unwrap());
        assert_eq!(model_value(&c, "NoNode").unwrap(), "NoNode");
        assert_eq!(
            natural(&c, "Fix").unwrap_err(),
            "constant `Fix` should be a natural number, not the boolean TRUE"
        );
        assert_eq!(
            boolean(&c, "Missing").unwrap_err(),
            "constant `Missing` is not assigned"
        );
    }
}
