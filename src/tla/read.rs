//! Reading a trace file of any supported format: detects the format and hands the text to its reader
//! ([`super::tlc_text`], [`super::simulate`], [`super::itf`] for ITF and `-dumpTrace json`). The readers
//! build [`super::trace`]'s types; only this module knows them all, so there is no loop between them.

use super::trace::{source, span_in, TraceError, TraceFile};
use std::path::Path;
use std::sync::Arc;

/// Reads and parses a trace file in any supported format.
pub fn read_trace_file(path: &Path) -> Result<TraceFile, TraceError> {
    let bytes = std::fs::read(path).map_err(|e| TraceError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    read_trace_bytes(&path.display().to_string(), bytes)
}

/// Like [`read_trace_str`], for bytes that may not be UTF-8 (an error naming the first bad byte's offset).
pub fn read_trace_bytes(name: &str, bytes: Vec<u8>) -> Result<TraceFile, TraceError> {
    match String::from_utf8(bytes) {
        Ok(text) => read_trace_str(name, text),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let bad = e.utf8_error().error_len().unwrap_or(1);
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // Bytes before `offset` are valid, so the offset is the same in the lossy text; the bad bytes
            // became one U+FFFD (3 bytes).
            let _ = bad;
            let span = span_in(&lossy, offset, 3);
            Err(TraceError::InvalidUtf8 {
                name: name.to_string(),
                offset,
                src: source(name, &lossy),
                span,
            })
        }
    }
}

/// Parses a trace from text, detecting the format.
pub fn read_trace_str(name: &str, text: String) -> Result<TraceFile, TraceError> {
    let text = Arc::new(text);
    let traces = match detect(&text) {
        Detected::Json => super::itf::read_json_traces(name, &text)?,
        Detected::Simulate => vec![super::simulate::read_simulate(name, &text)?],
        Detected::TlcText => super::tlc_text::read_tlc_output(name, &text)?,
    };
    Ok(TraceFile {
        name: name.to_string(),
        text,
        traces,
    })
}

enum Detected {
    Json,
    Simulate,
    TlcText,
}

fn detect(text: &str) -> Detected {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        return Detected::Json;
    }
    let mut module_header = false;
    for line in t.lines().take(5) {
        let l = line.trim();
        if l.starts_with("----") && l.contains(" MODULE ") {
            module_header = true;
        }
        if module_header && l.starts_with("STATE_") {
            return Detected::Simulate;
        }
    }
    if module_header {
        Detected::Simulate
    } else {
        Detected::TlcText
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_an_error_naming_the_byte_offset() {
        let mut bytes = b"State 1: <Initial predicate>\n/\\ x = ".to_vec();
        bytes.push(0xff);
        let e = read_trace_bytes("t.out", bytes).unwrap_err();
        match e {
            TraceError::InvalidUtf8 { offset, .. } => assert_eq!(offset, 36),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn empty_and_garbage_input_are_errors_not_panics() {
        assert!(matches!(
            read_trace_str("e", String::new()),
            Err(TraceError::NotATrace { .. })
        ));
        for junk in [
            "\u{0}\u{1}garbage",
            "{",
            "[",
            "---- MODULE x ----",
            "State 1: <",
            "1: Back to state: <",
        ] {
            assert!(read_trace_str("j", junk.to_string()).is_err(), "{junk:?}");
        }
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let e = read_trace_file(Path::new("/nonexistent/trace.out")).unwrap_err();
        assert!(matches!(e, TraceError::Io { .. }));
    }
}
