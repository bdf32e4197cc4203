//! The event stream contract (version 1): what `ozone-conform events` writes and `check --events` reads.
//!
//! A stream holds, for each input scanned, a header object, that input's events (one [`Event`] per line, in
//! the input's order) and an end object with the input's counters:
//!
//! ```text
//! {"stream":"ozone-conform-events","version":1,"input":"logs/ozone-hadoop-scm-scm1.log"}
//! {"event":"ProcessStarted","rule":"ProcessStarted","node":"scm1",...,"source":{"path":...},...}
//! {"end":"logs/ozone-hadoop-scm-scm1.log","stats":{"layout":"daemon","records":135,...}}
//! ```
//!
//! `check` needs more than the events: the input's layout (single-JVM test output has its own lifecycle
//! rules) and its counters (reported, and the warnings); the end object carries them. Streams concatenate
//! (`cat host1.jsonl host2.jsonl | check --events -`, a Spark job's executors writing one stream per file):
//! their inputs are merged exactly as the logs would be, rotated parts ordered oldest first whatever order
//! the streams come in. Field values are typed by the rule that made the event (`rule`), so a reader needs
//! the grammar `events` ran with (the same `--grammar` directories).

use crate::event::{Event, NodeSource, Span};
use crate::event_store::InputEvents;
use crate::grammar::Grammar;
use crate::input::{self, Source};
use crate::layout::Level;
use crate::scan::InputStats;
use crate::time::Timestamp;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// The `stream` value of every header.
pub const STREAM: &str = "ozone-conform-events";
/// The version of the contract this build writes and reads.
pub const VERSION: u64 = 1;
/// A stream line longer than this is refused (an event line is a few hundred bytes; its excerpt is capped).
const MAX_LINE: usize = 1 << 20;

/// Writes the header that opens an input's part of a stream.
pub fn write_header(out: &mut impl Write, path: &str) -> io::Result<()> {
    serde_json::to_writer(
        &mut *out,
        &serde_json::json!({ "stream": STREAM, "version": VERSION, "input": path }),
    )?;
    out.write_all(b"\n")
}

/// Writes the end object that closes an input's part of a stream, with its counters.
pub fn write_end(out: &mut impl Write, stats: &InputStats) -> io::Result<()> {
    serde_json::to_writer(
        &mut *out,
        &serde_json::json!({ "end": stats.path, "stats": stats }),
    )?;
    out.write_all(b"\n")
}

/// One input read from a stream: its counters and its events, in its order, kept as `check` keeps the
/// events of a log ([`crate::event_store`]): a driver reading a fleet's streams holds heads, not events.
pub type StreamInput = (InputStats, InputEvents);

/// A stream that cannot be read: where (the stream, its 1-based line) and why.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{stream}:{line}: {message}")]
#[diagnostic(code(ozone_conform::events))]
pub struct StreamError {
    pub stream: String,
    pub line: u64,
    pub message: String,
}

/// The inputs a set of streams describe, each with its counters and events, merged and ordered as `check`
/// orders log files, ready for [`crate::timeline::from_events`]. Warnings (an input given twice) are in the
/// kept input's `warnings`.
pub fn read(streams: &[Source], grammar: &Grammar) -> Result<Vec<StreamInput>, StreamError> {
    let rules = rule_index(grammar);
    let mut inputs: Vec<StreamInput> = Vec::new();
    for stream in streams {
        let name = stream.display();
        let reader = input::open(stream).map_err(|e| StreamError {
            stream: name.clone(),
            line: 0,
            message: format!("cannot open: {e}"),
        })?;
        read_one(
            &name,
            &mut io::BufReader::with_capacity(1 << 16, reader),
            grammar,
            &rules,
            &mut inputs,
        )?;
    }
    Ok(merge(inputs))
}

/// One stream's inputs, appended to `inputs`.
/// Each rule's index in `grammar` by its id: how a stream's `rule` names the rule that made an event.
pub(crate) fn rule_index(grammar: &Grammar) -> HashMap<&str, u32> {
    grammar
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i as u32))
        .collect()
}

pub(crate) fn read_one(
    name: &str,
    reader: &mut impl BufRead,
    grammar: &Grammar,
    rules: &HashMap<&str, u32>,
    inputs: &mut Vec<StreamInput>,
) -> Result<(), StreamError> {
    let mut line_no = 0u64;
    let err = |line: u64, message: String| StreamError {
        stream: name.to_string(),
        line,
        message,
    };
    // The input whose header was read and whose end was not yet.
    let mut open: Option<(String, InputEvents, u64)> = None;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = io::Read::take(&mut *reader, MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| err(line_no + 1, format!("read error: {e}")))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if buf.len() > MAX_LINE && !buf.ends_with(b"\n") {
            return Err(err(
                line_no,
                format!("line longer than {MAX_LINE} bytes: not an event stream line"),
            ));
        }
        let text = buf.trim_ascii_end();
        if text.is_empty() {
            continue;
        }
        let line: Line = serde_json::from_slice(text).map_err(|e| {
            err(
                line_no,
                format!("not a JSON object of an ozone-conform event stream: {e}"),
            )
        })?;
        match line {
            Line {
                stream: Some(stream),
                ..
            } => {
                if stream != STREAM {
                    return Err(err(
                        line_no,
                        format!("a header of `{stream}`, not of `{STREAM}`"),
                    ));
                }
                match line.version {
                    Some(VERSION) => {}
                    Some(v) => {
                        return Err(err(
                            line_no,
                            format!(
                                "the stream is version {v} of the event contract; this ozone-conform {} reads version {VERSION}: write the events with the same version of ozone-conform that checks them",
                                env!("CARGO_PKG_VERSION")
                            ),
                        ))
                    }
                    None => return Err(err(line_no, "a header without `version`".into())),
                }
                if let Some((path, _, at)) = &open {
                    return Err(err(
                        line_no,
                        format!("a new input begins before the end of `{path}` (its header is line {at}): the stream was cut or interleaved"),
                    ));
                }
                let path = line
                    .input
                    .ok_or_else(|| err(line_no, "a header without `input`".into()))?;
                open = Some((path, InputEvents::new(), line_no));
            }
            Line { end: Some(end), .. } => {
                let Some((path, events, _)) = open.take() else {
                    return Err(err(
                        line_no,
                        format!("the end of `{end}` without its header"),
                    ));
                };
                if end != path {
                    return Err(err(
                        line_no,
                        format!("the end of `{end}` where `{path}` is open"),
                    ));
                }
                let mut stats = line.stats.unwrap_or_default();
                stats.path = path;
                inputs.push((stats, events));
            }
            Line {
                event: Some(kind), ..
            } => {
                let Some((path, events, _)) = open.as_mut() else {
                    return Err(err(
                        line_no,
                        format!("an event before any header: not an ozone-conform event stream of version {VERSION} (`events` of this version writes a header per input)"),
                    ));
                };
                let event = decode_event(kind, line.rest, grammar, rules, path)
                    .map_err(|m| err(line_no, m))?;
                events.push(event);
            }
            _ => {
                return Err(err(
                    line_no,
                    "neither a header, an event nor an end object".into(),
                ))
            }
        }
    }
    if let Some((path, events, at)) = open {
        // A cut stream: check what arrived, but say so and fail the run (exit 2), never a silent pass.
        let stats = InputStats {
            path: path.clone(),
            layout_from: "none".into(),
            events: events.len() as u64,
            errors: vec![format!(
                "{name}: the stream ends inside `{path}` (header at line {at}, no end object): its events may be incomplete"
            )],
            ..InputStats::default()
        };
        inputs.push((stats, events));
    }
    Ok(())
}

/// One line of a stream: a header, an event or an end object.
#[derive(Deserialize)]
struct Line {
    stream: Option<String>,
    version: Option<u64>,
    input: Option<String>,
    end: Option<String>,
    stats: Option<InputStats>,
    event: Option<String>,
    #[serde(flatten)]
    rest: EventBody,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EventBody {
    rule: Option<String>,
    node: Option<String>,
    node_from: Option<NodeSource>,
    component: Option<String>,
    time: Option<String>,
    level: Option<Level>,
    thread: Option<String>,
    fields: serde_json::Map<String, Json>,
    source: Option<SourceBody>,
    excerpt: Option<String>,
    message_offset: Option<u32>,
}

#[derive(Deserialize)]
struct SourceBody {
    path: String,
    line: u64,
    byte_offset: u64,
    byte_len: u64,
}

fn decode_event(
    kind: String,
    body: EventBody,
    grammar: &Grammar,
    rules: &HashMap<&str, u32>,
    input_path: &str,
) -> Result<Event, String> {
    let kind = EventKind::from_name(&kind).ok_or_else(|| format!("unknown event `{kind}`"))?;
    let rule_id = body.rule.ok_or("an event without `rule`")?;
    let &rule = rules.get(rule_id.as_str()).ok_or_else(|| {
        format!("rule `{rule_id}` is not in this grammar: give check the same --grammar directories events had")
    })?;
    let r = &grammar.rules[rule as usize];
    if r.event != kind {
        return Err(format!(
            "rule `{rule_id}` makes {} events in this grammar, not {}",
            r.event.name(),
            kind.name()
        ));
    }
    let component = body.component.ok_or("an event without `component`")?;
    let component = Component::from_name(&component)
        .ok_or_else(|| format!("unknown component `{component}`"))?;
    let time = match body.time {
        None => None,
        Some(t) => Some(Timestamp::parse_event_time(&t).ok_or_else(|| format!("bad time `{t}`"))?),
    };
    let mut fields = Vec::with_capacity(body.fields.len());
    for (name, value) in &body.fields {
        let (place, name, ty) = r
            .field(name)
            .ok_or_else(|| format!("rule `{rule_id}` has no field `{name}`"))?;
        let value = Value::from_json(ty, value).map_err(|e| format!("field `{name}`: {e}"))?;
        fields.push((place, name, value));
    }
    // In the rule's order, as a match fills them (JSON objects carry no order).
    fields.sort_by_key(|f| f.0);
    let fields = fields.into_iter().map(|(_, n, v)| (n, v)).collect();
    let source = body.source.ok_or("an event without `source`")?;
    if source.path != input_path {
        return Err(format!(
            "an event of `{}` inside the part of `{input_path}`",
            source.path
        ));
    }
    let excerpt = body.excerpt.unwrap_or_default();
    let message_offset = body.message_offset.unwrap_or(0);
    if message_offset as usize > excerpt.len() || !excerpt.is_char_boundary(message_offset as usize)
    {
        return Err(format!(
            "message_offset {message_offset} is not inside the excerpt"
        ));
    }
    Ok(Event {
        kind,
        rule,
        component,
        node: body.node.map(Arc::from),
        node_key: u32::MAX,
        node_from: body.node_from,
        time,
        level: body.level,
        thread: Arc::from(body.thread.unwrap_or_default()),
        fields,
        span: Span {
            input: 0,
            line: source.line,
            byte_offset: source.byte_offset,
            byte_len: source.byte_len,
        },
        excerpt_hash: crate::excerpt::hash(&excerpt),
        excerpt: Some(Arc::from(excerpt)),
        message_offset,
    })
}

/// The inputs in `check`'s order: an input given twice is read once (the later copy is a warning), rotated
/// parts of one log oldest first where the family's first member came; spans renumbered to the new order.
fn merge(inputs: Vec<StreamInput>) -> Vec<StreamInput> {
    let mut kept: Vec<StreamInput> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (stats, events) in inputs {
        match index.get(&stats.path) {
            Some(&i) => {
                let note = format!(
                    "{}: given twice in the event streams; read once",
                    stats.path
                );
                kept[i].0.warnings.push(note);
            }
            None => {
                index.insert(stats.path.clone(), kept.len());
                kept.push((stats, events));
            }
        }
    }
    let sources: Vec<Source> = kept
        .iter()
        .map(|(s, _)| Source::File(PathBuf::from(&s.path)))
        .collect();
    let (ordered, _) = input::order_families(sources);
    let mut slots: Vec<Option<StreamInput>> = kept.into_iter().map(Some).collect();
    ordered
        .iter()
        .enumerate()
        .map(|(new, source)| {
            let old = index[&source.display()];
            let (stats, mut events) = slots[old].take().expect("each input once");
            events.set_input(new as u32);
            (stats, events)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{scan_input, ScanOptions};

    fn grammar() -> Grammar {
        Grammar::embedded().unwrap()
    }

    /// The stream `events` writes for these files.
    fn stream_of(paths: &[&str], g: &Grammar) -> (Vec<u8>, Vec<StreamInput>) {
        let mut out = Vec::new();
        let mut scanned = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            let source = Source::File(PathBuf::from(p));
            write_header(&mut out, p).unwrap();
            let mut events = Vec::new();
            let stats = scan_input(
                i as u32,
                &source,
                g,
                &ScanOptions::default(),
                |e| {
                    let rule = &g.rules[e.rule as usize].id;
                    serde_json::to_writer(&mut out, &e.json_line(p, rule)).unwrap();
                    out.push(b'\n');
                    events.push(e);
                },
                |_| {},
            );
            write_end(&mut out, &stats).unwrap();
            scanned.push((stats, events));
        }
        let scanned = scanned
            .into_iter()
            .map(|(stats, events)| (stats, InputEvents::from_events(events)))
            .collect();
        (out, scanned)
    }

    fn read_bytes(bytes: &[u8], g: &Grammar) -> Result<Vec<StreamInput>, StreamError> {
        let rules = rule_index(g);
        let mut inputs = Vec::new();
        read_one("s.jsonl", &mut &bytes[..], g, &rules, &mut inputs)?;
        Ok(merge(inputs))
    }

    fn every_fixture_log() -> Vec<String> {
        let mut all: Vec<String> = walkdir::WalkDir::new("tests/fixtures")
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.path().display().to_string())
            .filter(|p| input::is_log_file_name(p) && !p.ends_with(".gz"))
            .collect();
        all.sort();
        all
    }

    #[test]
    fn every_fixture_event_reads_back_as_the_event_the_scan_made() {
        let g = grammar();
        let logs = every_fixture_log();
        assert!(logs.len() > 20, "fixtures found: {}", logs.len());
        for log in &logs {
            let (bytes, scanned) = stream_of(&[log], &g);
            let read = read_bytes(&bytes, &g).unwrap_or_else(|e| panic!("{log}: {e}"));
            assert_eq!(read.len(), 1);
            let ((want_stats, want), (got_stats, got)) = (&scanned[0], &read[0]);
            assert_eq!(got.len(), want.len(), "{log}");
            for (g, w) in got.events().iter().zip(want.events()) {
                assert_eq!(g, &w, "{log}");
            }
            assert_eq!(
                serde_json::to_value(got_stats).unwrap(),
                serde_json::to_value(want_stats).unwrap(),
                "{log}"
            );
        }
    }

    #[test]
    fn rotated_parts_come_back_oldest_first_whatever_the_stream_order() {
        let g = grammar();
        let mut stream = Vec::new();
        for p in ["a/x.log", "a/x.log.2", "a/x.log.1"] {
            write_header(&mut stream, p).unwrap();
            let stats = InputStats {
                path: p.into(),
                ..InputStats::default()
            };
            write_end(&mut stream, &stats).unwrap();
        }
        let read = read_bytes(&stream, &g).unwrap();
        let order: Vec<&str> = read.iter().map(|(s, _)| s.path.as_str()).collect();
        assert_eq!(order, ["a/x.log.2", "a/x.log.1", "a/x.log"]);
    }

    #[test]
    fn an_input_given_twice_is_read_once_with_a_warning() {
        let g = grammar();
        let log = "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm1.log";
        let (once, _) = stream_of(&[log], &g);
        let twice = [once.clone(), once].concat();
        let read = read_bytes(&twice, &g).unwrap();
        assert_eq!(read.len(), 1);
        assert!(
            read[0].0.warnings[0].contains("given twice"),
            "{:?}",
            read[0].0
        );
    }

    #[test]
    fn bad_streams_are_refused_with_their_line() {
        let g = grammar();
        let log = "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm1.log";
        let (good, _) = stream_of(&[log], &g);
        let text = String::from_utf8(good).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let cases: Vec<(String, u64, &str)> = vec![
            (
                text.replacen("\"version\":1", "\"version\":2", 1),
                1,
                "version 2 of the event contract",
            ),
            (lines[1..].join("\n"), 1, "an event before any header"),
            (
                format!("{}\n{{\"event\":\n{}", lines[0], lines[1..].join("\n")),
                2,
                "not a JSON object",
            ),
            (
                text.replacen("\"rule\":\"", "\"rule\":\"Nope", 1),
                2,
                "is not in this grammar",
            ),
            (
                format!("{}\n{}", lines[0], lines[0]),
                2,
                "a new input begins before the end",
            ),
        ];
        for (stream, line, what) in cases {
            let e = read_bytes(stream.as_bytes(), &g).unwrap_err();
            assert_eq!(e.line, line, "{e}");
            assert!(e.message.contains(what), "{e}");
        }
    }

    #[test]
    fn a_cut_stream_keeps_its_events_and_says_it_was_cut() {
        let g = grammar();
        let log = "tests/fixtures/scenarios/scm-secret-keys/violating/ozone-hadoop-scm-scm1.log";
        let (good, scanned) = stream_of(&[log], &g);
        let text = String::from_utf8(good).unwrap();
        let cut: Vec<&str> = text.lines().collect();
        let cut = cut[..cut.len() - 1].join("\n");
        let read = read_bytes(cut.as_bytes(), &g).unwrap();
        assert_eq!(read[0].1.events(), scanned[0].1.events());
        assert!(
            read[0].0.errors[0].contains("no end object"),
            "{:?}",
            read[0].0
        );
    }
}
