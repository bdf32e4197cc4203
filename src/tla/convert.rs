//! Converting any trace file to ITF.
//!
//! One trace becomes one ITF object. Several traces (a TLC `-continue` run) become a JSON array of ITF
//! objects, one per trace, in file order; ITF itself has no multi-trace form, so this is said in the notes.
//! The ITF reader ([`super::read::read_trace_str`]) reads such arrays back.
//!
//! Nothing is dropped silently: each trace's own notes, and everything ITF has no field for (the violation,
//! stuttering, action modules and lines, model values' encoding), are written under `#meta` (the
//! `x-ozone-conform` object and the `description` text) and returned as notes.

use super::itf::{itf_document, ItfDocument};
use super::trace::TraceFile;
use serde_json::Value;

/// The ITF form of `file`, and notes on what the conversion could not carry over exactly.
pub fn convert_to_itf(file: &TraceFile) -> (Value, Vec<String>) {
    let (docs, notes) = itf_documents(file);
    let value = serde_json::to_value(&docs).expect("ITF documents are plain JSON");
    (value, notes)
}

/// What [`convert_to_itf`] gives, as documents that build each state's JSON only while they are written:
/// `convert` streams them to its output (`serde_json::to_writer_pretty`), in the same bytes.
pub enum ItfDocuments<'a> {
    One(ItfDocument<'a>),
    /// A `-continue` run's traces: a JSON array.
    Many(Vec<ItfDocument<'a>>),
    /// A file without traces (never read as one): `null`.
    None,
}

impl serde::Serialize for ItfDocuments<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            ItfDocuments::One(d) => d.serialize(ser),
            ItfDocuments::Many(ds) => ds.serialize(ser),
            ItfDocuments::None => ser.serialize_unit(),
        }
    }
}

/// [`ItfDocuments`] for `file`, and notes on what the conversion could not carry over exactly.
pub fn itf_documents(file: &TraceFile) -> (ItfDocuments<'_>, Vec<String>) {
    let mut notes = Vec::new();
    let several = file.traces.len() > 1;
    if several {
        notes.push(format!(
            "{} holds {} traces: writing a JSON array of {} ITF objects (ITF has no multi-trace form)",
            file.name,
            file.traces.len(),
            file.traces.len()
        ));
    }
    let mut out = Vec::with_capacity(file.traces.len());
    for (k, t) in file.traces.iter().enumerate() {
        let prefix = if several {
            format!("trace {}: ", k + 1)
        } else {
            String::new()
        };
        let (v, written) = itf_document(t);
        if let Some(v) = &t.violation {
            notes.push(format!(
                "{prefix}ITF has no field for the violation ({:?}: {}); it is kept in #meta.x-ozone-conform",
                v.kind, v.message
            ));
        }
        if t.stuttering {
            notes.push(format!(
                "{prefix}ITF has no field for a behaviour ending in stuttering; it is kept in #meta.x-ozone-conform"
            ));
        }
        if t.states.iter().any(|s| {
            s.action
                .as_ref()
                .is_some_and(|a| a.module.is_some() || a.line.is_some())
        }) {
            notes.push(format!(
                "{prefix}action modules and lines are kept in each state's #meta (actionModule, actionLine), which ITF does not define"
            ));
        }
        notes.extend(t.notes.iter().map(|n| format!("{prefix}{n}")));
        notes.extend(written.into_iter().map(|n| format!("{prefix}{n}")));
        out.push(v);
    }
    let docs = if several {
        ItfDocuments::Many(out)
    } else {
        out.pop().map_or(ItfDocuments::None, ItfDocuments::One)
    };
    (docs, notes)
}

#[cfg(test)]
mod tests {
    use super::super::read::read_trace_str;
    use super::*;

    #[test]
    fn continue_runs_become_an_array_and_losses_are_noted() {
        let one = "Error: Temporal properties were violated.\nState 1: <Initial predicate>\n/\\ x = a\n\nState 2: <N line 1, col 1 to line 1, col 2 of module M>\n/\\ x = b\n\nState 3: Stuttering\n";
        let f = read_trace_str("c.out", format!("{one}{one}")).unwrap();
        let (v, notes) = convert_to_itf(&f);
        assert_eq!(v.as_array().map(Vec::len), Some(2));
        for word in [
            "JSON array",
            "violation",
            "stuttering",
            "actionLine",
            "uninterpreted",
        ] {
            assert!(notes.iter().any(|n| n.contains(word)), "{word}: {notes:?}");
        }
        let back = read_trace_str("c.itf.json", v.to_string()).unwrap();
        assert_eq!(back.traces.len(), 2);
        assert!(back.traces[1].stuttering);
        assert_eq!(back.traces[0].violation, f.traces[0].violation);
        assert_eq!(back.traces[0].var(1, "x"), f.traces[0].var(1, "x"));
        assert!(v[0]["#meta"]["description"]
            .as_str()
            .unwrap()
            .contains("stuttering"));
    }
}
