//! TLA+ values as TLC, Apalache and Quint print them, with TLA+'s own equality.
//!
//! One type serves every trace format: TLC text, TLC simulation dumps, `-dumpTrace json` and ITF. Values are
//! kept canonical so that derived `Eq`/`Ord` is TLA+ equality: set elements sorted and deduplicated, function
//! pairs sorted by key, a function whose domain is `1..n` is a sequence, one whose domain is all strings is a
//! record, and the empty function is the empty sequence `<<>>`. Build compound values through the
//! constructors ([`TlaValue::set`], [`TlaValue::function`], [`TlaValue::record`]) to keep that so.

use num_bigint::BigInt;
use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TlaValue {
    Bool(bool),
    /// Integers of any size (ITF `#bigint`, TLC's arbitrary literals).
    Int(BigInt),
    Str(String),
    /// A TLC model value (`s1`, `NoNode`) or an Apalache uninterpreted constant (`"a_OF_A"`).
    ModelValue(String),
    /// Canonical: sorted and deduplicated.
    Set(Vec<TlaValue>),
    /// Sequences and tuples (TLA+ does not tell them apart): the function with domain `1..n`.
    Seq(Vec<TlaValue>),
    /// Functions with a domain of strings, `[a |-> 1]`.
    Record(BTreeMap<String, TlaValue>),
    /// Any other function, `(k1 :> v1 @@ k2 :> v2)`: pairs sorted by key, keys distinct.
    Function(Vec<(TlaValue, TlaValue)>),
    /// A Quint/ITF sum-type value, `{"tag": "Some", "value": ...}`.
    Variant {
        tag: String,
        value: Box<TlaValue>,
    },
    /// A value the producing tool could not write (ITF `#unserializable`): kept as its text.
    Unserializable(String),
}

impl TlaValue {
    pub fn int(n: i64) -> TlaValue {
        TlaValue::Int(BigInt::from(n))
    }

    pub fn str(s: impl Into<String>) -> TlaValue {
        TlaValue::Str(s.into())
    }

    pub fn model(s: impl Into<String>) -> TlaValue {
        TlaValue::ModelValue(s.into())
    }

    /// A set of these elements, canonical.
    pub fn set(elements: impl IntoIterator<Item = TlaValue>) -> TlaValue {
        let mut v: Vec<TlaValue> = elements.into_iter().collect();
        v.sort();
        v.dedup();
        TlaValue::Set(v)
    }

    pub fn seq(elements: impl IntoIterator<Item = TlaValue>) -> TlaValue {
        TlaValue::Seq(elements.into_iter().collect())
    }

    pub fn record<K: Into<String>>(fields: impl IntoIterator<Item = (K, TlaValue)>) -> TlaValue {
        let map: BTreeMap<String, TlaValue> =
            fields.into_iter().map(|(k, v)| (k.into(), v)).collect();
        if map.is_empty() {
            TlaValue::Seq(Vec::new())
        } else {
            TlaValue::Record(map)
        }
    }

    /// The function with these pairs, canonical: a sequence when the domain is `1..n`, a record when it is
    /// strings. With a repeated key the last pair wins, as `@@` lets the left operand win: callers that read
    /// `a @@ b` pass `b`'s pairs first. Returns the repeated key too, so readers can flag it.
    pub fn function(pairs: impl IntoIterator<Item = (TlaValue, TlaValue)>) -> TlaValue {
        let mut v: Vec<(TlaValue, TlaValue)> = pairs.into_iter().collect();
        // Stable sort keeps insertion order among equal keys; keep the last of each run.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(TlaValue, TlaValue)> = Vec::with_capacity(v.len());
        for (k, val) in v {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = val,
                _ => out.push((k, val)),
            }
        }
        if out.is_empty() {
            return TlaValue::Seq(Vec::new());
        }
        if out.iter().all(|(k, _)| matches!(k, TlaValue::Str(_))) {
            return TlaValue::Record(
                out.into_iter()
                    .map(|(k, v)| match k {
                        TlaValue::Str(s) => (s, v),
                        _ => unreachable!("checked: all keys are strings"),
                    })
                    .collect(),
            );
        }
        let is_one_to_n = out
            .iter()
            .enumerate()
            .all(|(i, (k, _))| matches!(k, TlaValue::Int(n) if *n == BigInt::from(i + 1)));
        if is_one_to_n {
            return TlaValue::Seq(out.into_iter().map(|(_, v)| v).collect());
        }
        TlaValue::Function(out)
    }

    /// `f[k]` for a function, record or sequence.
    pub fn apply(&self, key: &TlaValue) -> Option<&TlaValue> {
        match (self, key) {
            (TlaValue::Function(pairs), _) => pairs
                .binary_search_by(|(k, _)| k.cmp(key))
                .ok()
                .map(|i| &pairs[i].1),
            (TlaValue::Record(m), TlaValue::Str(s)) => m.get(s),
            (TlaValue::Seq(v), TlaValue::Int(n)) => {
                let i: usize = n.try_into().ok()?;
                v.get(i.checked_sub(1)?)
            }
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            TlaValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            TlaValue::Int(n) => n.try_into().ok(),
            _ => None,
        }
    }

    /// The elements of a set, or `None` for any other value.
    pub fn as_set(&self) -> Option<&[TlaValue]> {
        match self {
            TlaValue::Set(v) => Some(v),
            _ => None,
        }
    }

    /// The kind of value, in TLA+ words, for diagnostics.
    pub fn kind(&self) -> &'static str {
        match self {
            TlaValue::Bool(_) => "boolean",
            TlaValue::Int(_) => "integer",
            TlaValue::Str(_) => "string",
            TlaValue::ModelValue(_) => "model value",
            TlaValue::Set(_) => "set",
            TlaValue::Seq(_) => "sequence",
            TlaValue::Record(_) => "record",
            TlaValue::Function(_) => "function",
            TlaValue::Variant { .. } => "variant",
            TlaValue::Unserializable(_) => "unserializable value",
        }
    }

    /// Can this value be written as a TLA+ expression? (ITF's unserializable values and Quint variants cannot.)
    pub fn is_tla_expressible(&self) -> bool {
        match self {
            TlaValue::Unserializable(_) | TlaValue::Variant { .. } => false,
            TlaValue::Set(v) | TlaValue::Seq(v) => v.iter().all(TlaValue::is_tla_expressible),
            TlaValue::Record(m) => m.values().all(TlaValue::is_tla_expressible),
            TlaValue::Function(p) => p
                .iter()
                .all(|(k, v)| k.is_tla_expressible() && v.is_tla_expressible()),
            _ => true,
        }
    }
}

/// Writes a string literal with TLA+'s escapes.
fn write_tla_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            '\u{c}' => f.write_str("\\f")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

fn write_joined(f: &mut fmt::Formatter<'_>, items: &[TlaValue]) -> fmt::Result {
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

/// TLA+ syntax, as TLC prints values. Variants and unserializable values have no TLA+ form: they print as
/// a record `[tag |-> ..., value |-> ...]` and a string, so check [`TlaValue::is_tla_expressible`] first.
impl fmt::Display for TlaValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlaValue::Bool(true) => f.write_str("TRUE"),
            TlaValue::Bool(false) => f.write_str("FALSE"),
            TlaValue::Int(n) => write!(f, "{n}"),
            TlaValue::Str(s) => write_tla_string(f, s),
            TlaValue::ModelValue(m) => f.write_str(m),
            TlaValue::Set(v) => {
                f.write_str("{")?;
                write_joined(f, v)?;
                f.write_str("}")
            }
            TlaValue::Seq(v) => {
                f.write_str("<<")?;
                write_joined(f, v)?;
                f.write_str(">>")
            }
            TlaValue::Record(m) => {
                f.write_str("[")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k} |-> {v}")?;
                }
                f.write_str("]")
            }
            TlaValue::Function(pairs) => {
                f.write_str("(")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" @@ ")?;
                    }
                    write!(f, "{k} :> {v}")?;
                }
                f.write_str(")")
            }
            TlaValue::Variant { tag, value } => {
                write!(f, "[tag |-> ")?;
                write_tla_string(f, tag)?;
                write!(f, ", value |-> {value}]")
            }
            TlaValue::Unserializable(s) => write_tla_string(f, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(n: i64) -> TlaValue {
        TlaValue::int(n)
    }

    #[test]
    fn sets_are_canonical_whatever_the_order_or_repeats() {
        assert_eq!(
            TlaValue::set([i(2), i(1), i(2)]),
            TlaValue::set([i(1), i(2)])
        );
        assert_eq!(TlaValue::set([i(3), i(1)]).to_string(), "{1, 3}");
    }

    #[test]
    fn functions_with_domain_one_to_n_are_sequences_and_string_domains_are_records() {
        let f = TlaValue::function([(i(2), TlaValue::str("b")), (i(1), TlaValue::str("a"))]);
        assert_eq!(f, TlaValue::seq([TlaValue::str("a"), TlaValue::str("b")]));
        let r = TlaValue::function([(TlaValue::str("x"), i(1))]);
        assert_eq!(r, TlaValue::record([("x", i(1))]));
        assert_eq!(r.to_string(), "[x |-> 1]");
        assert_eq!(TlaValue::function([]), TlaValue::seq([]));
        let g = TlaValue::function([(TlaValue::model("s2"), i(0)), (TlaValue::model("s1"), i(5))]);
        assert_eq!(g.to_string(), "(s1 :> 5 @@ s2 :> 0)");
        assert_eq!(g.apply(&TlaValue::model("s1")), Some(&i(5)));
    }

    #[test]
    fn strings_print_with_tla_escapes_and_big_integers_keep_every_digit() {
        assert_eq!(TlaValue::str("a\"b\\c\n").to_string(), r#""a\"b\\c\n""#);
        let big: BigInt = "123456789012345678901234567890".parse().unwrap();
        assert_eq!(
            TlaValue::Int(big).to_string(),
            "123456789012345678901234567890"
        );
        assert_eq!(TlaValue::Bool(true).to_string(), "TRUE");
        assert_eq!(TlaValue::seq([]).to_string(), "<<>>");
    }
}
