//! The parsers' contracts over arbitrary input, asserted by panicking. The fuzz targets in `fuzz/` call one
//! function each; `tests/fuzz_regressions.rs` replays every input they ever broke through the same function,
//! so stable `cargo test` keeps each fix.
//!
//! Beyond "no panic": a scan accounts for every line exactly once (records, continuation lines, unparsed
//! lines), puts every span on line boundaries inside the input, and gives the same result however the input
//! is cut into blocks; every error names a location inside the text it came from and renders; a trace that
//! reads converts to ITF and reads back the same.

use crate::event::Event;
use crate::event_stream::{self, StreamError, StreamInput};
use crate::grammar::{parse_rules, Grammar, GrammarError, Rule};
use crate::layout::{builtin_layouts, Layout};
use crate::scan::{scan_bytes, InMemory, InputStats, ScanOptions, UnparsedLine, UnparsedReason};
use crate::tla::{Trace, TraceError};
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};
use std::sync::OnceLock;

fn embedded() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| Grammar::embedded().expect("the embedded grammar loads"))
}

fn builtins() -> &'static [Layout] {
    static LAYOUTS: OnceLock<Vec<Layout>> = OnceLock::new();
    LAYOUTS.get_or_init(builtin_layouts)
}

/// Block sizes a control byte picks from: tiny ones put a cut between nearly every two lines.
fn block_size(control: u8) -> usize {
    match control % 4 {
        0 => 1,
        1 => 2 + control as usize / 4,
        2 => 64 + control as usize,
        _ => 4096,
    }
}

/// Log scanning with every built-in layout. `data[0]` picks the layout (`0`: detected, `k`: the k-th
/// built-in as `--layout`), `data[1]` how small the blocks are; the rest is the input.
pub fn scan(data: &[u8]) {
    let [choice, cut, input @ ..] = data else {
        return;
    };
    let layouts = builtins();
    let layout = match *choice as usize % (layouts.len() + 1) {
        0 => None,
        k => Some(layouts[k - 1].clone()),
    };
    let options = ScanOptions {
        layout,
        ..ScanOptions::default()
    };
    scan_contract("input.log", input, &options, block_size(*cut));
}

/// A `--layout` pattern: the first line of `data` is the pattern, the rest a log in it.
pub fn layout_pattern(data: &[u8]) {
    let (pattern, log) = match memchr::memchr(b'\n', data) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(pattern) = std::str::from_utf8(pattern) else {
        return; // the command line is UTF-8 before a pattern is compiled
    };
    let layout = match Layout::compile("given", pattern) {
        Ok(layout) => layout,
        Err(e) => {
            let end = e.offset.checked_add(e.len);
            assert!(
                end.is_some_and(|end| end <= pattern.len()),
                "pattern error {e:?} outside the {}-byte pattern",
                pattern.len()
            );
            assert!(!e.message.is_empty(), "pattern error without a message");
            return;
        }
    };
    for line in log.split(|&b| b == b'\n') {
        if let Some(h) = layout.match_header(line) {
            let n = line.len() as u32;
            for (what, (a, b)) in [("thread", h.thread), ("logger", h.logger)] {
                assert!(a <= b && b <= n, "{what} {a}..{b} outside a {n}-byte line");
            }
            assert!(
                h.message_start <= n,
                "message at {} of {n}",
                h.message_start
            );
        }
    }
    let options = ScanOptions {
        layout: Some(layout),
        ..ScanOptions::default()
    };
    scan_contract("input.log", log, &options, block_size(data.len() as u8));
}

/// A grammar file given with `--grammar`: parsed, then built over the embedded rules it may replace.
pub fn grammar_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return; // read with read_to_string: not UTF-8 is an I/O error before parsing
    };
    let rules = match parse_rules("fuzz.rules", text) {
        Ok(rules) => rules,
        Err(e) => {
            check_grammar_error(&e, Some(text));
            return;
        }
    };
    for rule in &rules {
        for sample in &rule.samples {
            assert!(
                matches!(rule.try_match(sample.as_bytes()), Ok(Some(_))),
                "rule {} loaded but rejects its own sample {sample:?}",
                rule.id
            );
        }
    }
    let mut all: Vec<Rule> = embedded().rules.clone();
    for rule in rules {
        match all.iter().position(|r| r.id == rule.id) {
            Some(i) => all[i] = rule,
            None => all.push(rule),
        }
    }
    if let Err(e) = Grammar::build(all) {
        check_grammar_error(&e, None);
    }
}

/// TLC's console and `-tool` output.
pub fn tlc_text(data: &[u8]) {
    trace_contract(data, "tlc.out", |name, text| {
        crate::tla::tlc_text::read_tlc_output(name, text)
    });
}

/// A `-simulate file=` dump.
pub fn simulate(data: &[u8]) {
    trace_contract(data, "trace_0_0", |name, text| {
        crate::tla::simulate::read_simulate(name, text).map(|t| vec![t])
    });
}

/// `-dumpTrace json` files and ITF traces share the JSON reader; the targets differ in their seeds.
pub fn json_trace(data: &[u8]) {
    trace_contract(data, "trace.json", |name, text| {
        crate::tla::itf::read_json_traces(name, text)
    });
}

/// The event stream `ozone-conform events` writes for a scanned log (a header, one JSON line per event, the
/// end object with the counters) reads back as `check --events` reads it: the same events, the same counters.
pub fn event_lines(data: &[u8]) {
    let grammar = embedded();
    let path = "logs/ozone-hadoop-scm-scm1.log";
    let memory = InMemory {
        path,
        bytes: data,
        block_size: crate::input::BLOCK_SIZE,
    };
    let mut events = Vec::new();
    let stats = scan_bytes(
        0,
        memory,
        grammar,
        &ScanOptions::default(),
        |e| events.push(e),
        |_| {},
    );
    let stream = write_stream(&stats, &events, grammar);
    for line in stream.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).unwrap_or_else(|e| {
            panic!(
                "{e}: not one line of JSON: {}",
                String::from_utf8_lossy(line)
            )
        });
    }
    let inputs = read_stream(&stream, grammar)
        .unwrap_or_else(|e| panic!("the stream `events` writes does not read back: {e}"));
    assert_eq!(inputs.len(), 1, "one input, one part of the stream");
    assert_same_input(&inputs[0], &stats, &events);
}

/// An event stream (`check --events`): an error names a line of the stream (1-based, inside it); a stream
/// that reads writes back to one that reads the same (decoding loses nothing that encoding needs).
pub fn event_stream(data: &[u8]) {
    let grammar = embedded();
    let lines = data.iter().filter(|&&b| b == b'\n').count() as u64
        + u64::from(!data.is_empty() && !data.ends_with(b"\n"));
    let inputs = match read_stream(data, grammar) {
        Ok(inputs) => inputs,
        Err(e) => {
            assert!(
                (1..=lines).contains(&e.line),
                "error at line {} of a {lines}-line stream: {e}",
                e.line
            );
            assert!(!e.message.is_empty(), "an error says why");
            return;
        }
    };
    for (stats, events) in &inputs {
        let events = events.events();
        for e in &events {
            assert!(
                (e.rule as usize) < grammar.rules.len(),
                "an event read with rule {} of {}",
                e.rule,
                grammar.rules.len()
            );
        }
        let again = read_stream(&write_stream(stats, &events, grammar), grammar)
            .unwrap_or_else(|e| panic!("a stream that read, written back, does not read: {e}"));
        assert_eq!(again.len(), 1, "one input written, one read");
        assert_same_input(&again[0], stats, &events);
    }
}

/// What `ozone-conform events` writes for one input.
fn write_stream(stats: &InputStats, events: &[Event], grammar: &Grammar) -> Vec<u8> {
    let mut out = Vec::new();
    event_stream::write_header(&mut out, &stats.path).expect("writes to memory");
    for e in events {
        let rule = &grammar.rules[e.rule as usize].id;
        serde_json::to_writer(&mut out, &e.json_line(&stats.path, rule))
            .expect("an event serializes");
        out.push(b'\n');
    }
    event_stream::write_end(&mut out, stats).expect("writes to memory");
    out
}

fn read_stream(data: &[u8], grammar: &Grammar) -> Result<Vec<StreamInput>, StreamError> {
    let rules = event_stream::rule_index(grammar);
    let mut inputs = Vec::new();
    event_stream::read_one("fuzz.jsonl", &mut &data[..], grammar, &rules, &mut inputs)?;
    Ok(inputs)
}

/// The same events and counters, up to what a stream does not carry: which input of a run an event came
/// from and the node key, which `check` assigns when it merges its inputs.
fn assert_same_input(got: &StreamInput, want_stats: &InputStats, want: &[Event]) {
    let json = |s: &InputStats| serde_json::to_value(s).expect("counters serialize");
    assert_eq!(json(&got.0), json(want_stats), "the counters change");
    assert_eq!(got.1.len(), want.len(), "events are lost or added");
    for (i, (g, w)) in got.1.events().iter().zip(want).enumerate() {
        let mut g = g.clone();
        g.node_key = w.node_key;
        g.span.input = w.span.input;
        assert_eq!(&g, w, "event {i} changes");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Scanning.

/// Scans `input` cut into blocks of `block_size` and into blocks of [`crate::input::BLOCK_SIZE`]: each
/// result accounts for every line, and the two are the same.
fn scan_contract(path: &str, input: &[u8], options: &ScanOptions, block_size: usize) {
    let whole = scan_once(path, input, options, crate::input::BLOCK_SIZE);
    whole.check(input);
    let cut = scan_once(path, input, options, block_size);
    assert_eq!(
        cut.events, whole.events,
        "blocks of {block_size} bytes change the events"
    );
    // A rejected record is reported when it closes, which may come after lines read later in another
    // block: the lines must be the same, their order only up to that.
    let sorted = |u: &[Unparsed]| {
        let mut u = u.to_vec();
        u.sort_by_key(|u| u.0);
        u
    };
    assert_eq!(
        sorted(&cut.unparsed),
        sorted(&whole.unparsed),
        "blocks of {block_size} bytes change the unparsed lines"
    );
    assert_eq!(
        cut.stats, whole.stats,
        "blocks of {block_size} bytes change the stats"
    );
}

type Unparsed = (u64, u64, String, UnparsedReason, Option<String>);

struct Scanned {
    stats: serde_json::Value,
    raw: InputStats,
    events: Vec<Event>,
    unparsed: Vec<Unparsed>,
}

fn scan_once(path: &str, input: &[u8], options: &ScanOptions, block_size: usize) -> Scanned {
    let mut events = Vec::new();
    let mut unparsed = Vec::new();
    let memory = InMemory {
        path,
        bytes: input,
        block_size,
    };
    let raw = scan_bytes(
        0,
        memory,
        embedded(),
        options,
        |e| events.push(e),
        |u: &UnparsedLine| {
            unparsed.push((
                u.line,
                u.byte_offset,
                u.text.clone(),
                u.reason,
                u.detail.clone(),
            ))
        },
    );
    Scanned {
        stats: serde_json::to_value(&raw).expect("stats serialize"),
        raw,
        events,
        unparsed,
    }
}

/// Where each line of an input starts (byte offsets; a final line without a newline counts).
fn line_starts(input: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', input).map(|i| i + 1));
    if starts.last() == Some(&input.len()) {
        starts.pop();
    }
    starts
}

impl Scanned {
    fn check(&self, input: &[u8]) {
        let s = &self.raw;
        let starts = line_starts(input);
        assert_eq!(s.bytes, input.len() as u64, "bytes counted");
        assert_eq!(s.lines, starts.len() as u64, "lines counted");
        assert_eq!(
            s.records + s.continuation_lines + s.unparsed,
            s.lines,
            "records {} + continuation lines {} + unparsed {} must be the lines: each line once",
            s.records,
            s.continuation_lines,
            s.unparsed
        );
        assert_eq!(
            s.unparsed_by_reason.values().sum::<u64>(),
            s.unparsed,
            "every unparsed line has its reason"
        );
        assert_eq!(
            self.unparsed.len() as u64,
            s.unparsed,
            "each unparsed line is reported"
        );
        assert_eq!(self.events.len() as u64, s.events, "events counted");
        let line_at = |offset: u64, what: &str| -> usize {
            let i = starts
                .binary_search(&(offset as usize))
                .unwrap_or_else(|_| panic!("{what} starts at byte {offset}, not at a line start"));
            i + 1
        };
        let mut last_start = None;
        let mut covered: Vec<(u64, u64)> = Vec::new();
        for e in &self.events {
            let (off, len) = (e.span.byte_offset, e.span.byte_len);
            let end = off
                .checked_add(len)
                .filter(|&end| end <= input.len() as u64)
                .unwrap_or_else(|| panic!("event span {off}+{len} beyond {} bytes", input.len()));
            assert_eq!(line_at(off, "an event") as u64, e.span.line, "event line");
            let end = end as usize;
            // A line ends at `\n`, `\r\n`, the end of the input, or a `\r` that ends it (a CRLF file cut
            // between the two bytes): the span never holds the line's terminator.
            assert!(
                end == input.len()
                    || input[end] == b'\n'
                    || input[end..].starts_with(b"\r\n")
                    || &input[end..] == b"\r",
                "event span {off}+{len} does not end at a line end"
            );
            assert!(last_start < Some(off), "events out of input order");
            last_start = Some(off);
            covered.push((off, end as u64));
        }
        let mut last_unparsed = 0;
        for (line, offset, text, reason, _) in &self.unparsed {
            assert_eq!(
                line_at(*offset, "an unparsed line") as u64,
                *line,
                "unparsed line number"
            );
            // A rejected record is reported when it closes; every other unparsed line as it is read.
            if *reason != UnparsedReason::InvalidField {
                assert!(
                    *line > last_unparsed,
                    "unparsed line {line} after {last_unparsed}"
                );
                last_unparsed = *line;
                let start = *offset as usize;
                let end = memchr::memchr(b'\n', &input[start..]).map_or(input.len(), |i| start + i);
                let raw = &input[start..end];
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                assert_eq!(*text, String::from_utf8_lossy(raw), "unparsed text");
            }
            // docker-compose output interleaves streams, so only a plain input's spans are disjoint.
            if !s.docker_prefixes && s.wrapper.is_none() && *reason != UnparsedReason::InvalidField
            {
                assert!(
                    !covered.iter().any(|&(a, b)| a <= *offset && *offset < b),
                    "unparsed line {line} inside an event's span"
                );
            }
        }
        if !s.docker_prefixes && s.wrapper.is_none() {
            for w in covered.windows(2) {
                assert!(w[0].1 < w[1].0, "event spans overlap: {w:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Errors and traces.

/// The span of every label lies inside the source text, on character boundaries, and the diagnostic
/// renders.
fn check_diagnostic(d: &dyn Diagnostic, expected_text: Option<&str>) {
    let src = d.source_code();
    let labels: Vec<_> = d.labels().into_iter().flatten().collect();
    if let Some(src) = src {
        for l in &labels {
            let contents = src
                .read_span(l.inner(), 0, 0)
                .unwrap_or_else(|e| panic!("label {l:?} cannot be read: {e}"));
            let _ = contents;
        }
    }
    if let (Some(want), Some(src)) = (expected_text, src) {
        let whole = src
            .read_span(&(0, want.len()).into(), 0, 0)
            .expect("the source holds the text");
        assert_eq!(
            whole.data(),
            want.as_bytes(),
            "the error's source is the input"
        );
        for l in &labels {
            let (a, n) = (l.offset(), l.len());
            assert!(
                a + n <= want.len(),
                "label {a}+{n} beyond {} bytes",
                want.len()
            );
            assert!(
                want.is_char_boundary(a) && want.is_char_boundary(a + n),
                "label {a}+{n} splits a character"
            );
        }
    }
    let mut out = String::new();
    GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, d)
        .expect("the diagnostic renders");
    assert!(!out.is_empty());
}

fn check_grammar_error(e: &GrammarError, text: Option<&str>) {
    assert!(!e.message.is_empty(), "grammar error without a message");
    let src_len = e.src.inner().len();
    let (a, n) = (e.span.offset(), e.span.len());
    assert!(
        a + n <= src_len,
        "grammar error span {a}+{n} beyond {src_len} bytes"
    );
    check_diagnostic(e, text);
}

fn trace_contract(
    data: &[u8],
    name: &str,
    read: impl Fn(&str, &str) -> Result<Vec<Trace>, TraceError>,
) {
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(_) => {
            let e = crate::tla::read_trace_bytes(name, data.to_vec())
                .expect_err("bytes that are not UTF-8 are an error");
            assert!(matches!(e, TraceError::InvalidUtf8 { .. }), "{e:?}");
            check_diagnostic(&e, None);
            return;
        }
    };
    match read(name, text) {
        Err(e) => {
            let text_of = match &e {
                TraceError::NoErrorFound { .. } | TraceError::Io { .. } => None,
                // A config error names the config file, not the trace.
                TraceError::Config { .. } => None,
                _ => Some(text),
            };
            check_diagnostic(&e, text_of);
        }
        Ok(traces) => {
            assert!(!traces.is_empty(), "a trace file that reads holds a trace");
            round_trip(name, text, traces);
        }
    }
}

/// A trace converts to ITF, and the ITF reads back with the same states, unless the conversion said what
/// would not come back as it was.
fn round_trip(name: &str, text: &str, traces: Vec<Trace>) {
    let file = crate::tla::TraceFile {
        name: name.to_string(),
        text: std::sync::Arc::new(text.to_string()),
        traces,
    };
    let (itf, notes) = crate::tla::convert::convert_to_itf(&file);
    let back = crate::tla::read_trace_str("back.itf.json", itf.to_string())
        .unwrap_or_else(|e| panic!("our own ITF does not read back: {e:?}\n{itf}"));
    assert_eq!(back.traces.len(), file.traces.len(), "traces read back");
    let lossy = notes.iter().any(|n| n.contains("reads back"));
    for (a, b) in file.traces.iter().zip(&back.traces) {
        assert_eq!(a.states.len(), b.states.len(), "states read back");
        if lossy {
            continue;
        }
        for (x, y) in a.states.iter().zip(&b.states) {
            // ITF objects have no order: compare the variables by name.
            let by_name = |s: &crate::tla::TraceState| {
                let mut v: Vec<_> = s
                    .vars
                    .iter()
                    .map(|(n, v, _)| (n.clone(), v.clone()))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            };
            let (xv, yv) = (by_name(x), by_name(y));
            assert_eq!(
                xv, yv,
                "state {} reads back changed; notes {notes:?}",
                x.number
            );
        }
        assert_eq!(a.back_to_state, b.back_to_state, "lasso reads back");
        assert_eq!(a.violation, b.violation, "violation reads back");
    }
}

/// Logs built by [`crate::log_gen::generate`] from `data`: every rule's samples on random nodes, threads and
/// times, with crashes, stops and banners, in the daemon, console or MiniOzoneCluster layout. The contract
/// of [`check_files`]: `check` with every model, then every output format, panics nowhere, and says the
/// same under 1 and 8 rayon threads.
pub fn generated_logs(data: &[u8]) {
    let generated = crate::log_gen::generate(embedded(), data);
    check_files(&generated.files);
}

/// A behaviour of a mirror in which no state violates an invariant, rendered by its bug's refinement
/// renderer (`src/bugs/<bug>/logs.rs`) and written in the daemon or the console layout, perhaps cut at an
/// instant (logs collected while the cluster runs): [`check_files`]'s contract, and no model reports a
/// violation. `data` picks the bug, the config, the walk's seed, the layout and the cut.
pub fn healthy_behaviour(data: &[u8]) {
    use crate::log_gen::GenLayout;
    use crate::refinement::Config;
    let mut c = crate::log_gen::Choices::new(data);
    let bugs = crate::bugs::BUGS;
    let bug = &bugs[c.below(bugs.len())];
    let config = if c.chance(128) {
        Config::Fixed
    } else {
        Config::Bug
    };
    let seed = (0..8).fold(0u64, |s, _| s << 8 | c.below(256) as u64);
    let Some(logs) = bug.refinement.healthy(config, seed) else {
        return; // the mirror violates an invariant somewhere on this walk
    };
    let layout = [GenLayout::Daemon, GenLayout::Console][c.below(2)];
    let cut = c
        .chance(96)
        .then(|| crate::refinement::BASE_MS + c.below(1 << 12) as i64 * 1000);
    let files: Vec<(String, String)> = logs
        .files
        .iter()
        .map(|f| crate::log_gen::relayout(&f.name, &f.text, layout, cut))
        .collect();
    let checked = check_files(&files);
    for (model, verdict, first) in &checked {
        assert!(
            *verdict != crate::monitor::Verdict::Violated,
            "{model} reports a violation on a healthy behaviour of {} ({config:?} config, seed {seed}, {layout:?} layout, cut at {cut:?}): {first}",
            bug.name()
        );
    }
}

/// What [`check_files`] saw per model: its name, verdict and first violation (`path:line invariant`).
pub type Checked = Vec<(&'static str, crate::monitor::Verdict, String)>;

/// Runs `check` (all models) on these files, written into a temporary directory, as the binary does: scan,
/// merge, replay with the witness tables `--coverage` and `export` run, then every `--format` with and
/// without `--all`. Asserts that nothing panics and that every output but JUnit's (which holds
/// timings) is the same under 1 and under 8 rayon threads.
pub fn check_files(files: &[(String, String)]) -> Checked {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut args = Vec::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("the generated log is written");
        args.push(path.display().to_string());
    }
    let pools = pools();
    let one = pools[0].install(|| check_once(&args));
    let eight = pools[1].install(|| check_once(&args));
    for ((what, a), (_, b)) in one.outputs.iter().zip(&eight.outputs) {
        if what.starts_with("junit") {
            continue;
        }
        assert!(
            a == b,
            "{what} differs under 1 and 8 rayon threads:\n--- 1 thread\n{}\n--- 8 threads\n{}",
            String::from_utf8_lossy(a),
            String::from_utf8_lossy(b)
        );
    }
    one.checked
}

fn pools() -> &'static [rayon::ThreadPool; 2] {
    static POOLS: OnceLock<[rayon::ThreadPool; 2]> = OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 8].map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("a thread pool")
        })
    })
}

struct CheckOnce {
    checked: Checked,
    /// (format and `--all`, output).
    outputs: Vec<(String, Vec<u8>)>,
}

fn check_once(args: &[String]) -> CheckOnce {
    use crate::render::{renderer, Format, Options, Run};
    let sources = crate::input::resolve(args).expect("the generated files resolve");
    let options = crate::scan::ScanOptions {
        read_back: true,
        ..crate::scan::ScanOptions::default()
    };
    let (stats, per_input, test_output) =
        crate::timeline::scan_all(&sources, embedded(), &options, &|_, _| {});
    let timeline = crate::timeline::from_inputs(
        stats,
        per_input,
        test_output,
        crate::bugs::merge_rules(crate::timeline::DEFAULT_MAX_SKEW_MS),
    );
    let options = crate::check::ReplayOptions {
        witnesses: true,
        ..Default::default()
    };
    let observed = crate::check::replay(&timeline, crate::check::monitors(&[]), &options);
    // The witness tables run (as `--coverage` and `export` run them), but the coverage is not computed: its
    // search for the mirror's behaviour (`behaviour_steps`) took a minute on a generated log of 700 lines in a
    // debug build, far beyond a fuzz iteration.
    let reports = observed.reports;
    let mut outputs = Vec::new();
    for all in [false, true] {
        for format in [
            Format::Full,
            Format::Concise,
            Format::Json,
            Format::JsonLines,
            Format::Sarif,
            Format::Github,
            Format::Junit,
        ] {
            let mut r = renderer(
                format,
                Options {
                    all,
                    color: false,
                    width: 100,
                    per_file: false,
                },
            );
            let run = Run {
                name: None,
                timeline: &timeline,
                reports: &reports,
                coverage: None,
            };
            let mut out = Vec::new();
            r.begin(&mut out)
                .and_then(|_| r.run(&mut out, &run))
                .and_then(|_| r.end(&mut out))
                .expect("writing to memory");
            outputs.push((format!("{format:?} all={all}").to_lowercase(), out));
        }
    }
    let checked = reports
        .iter()
        .map(|r| {
            let first = r
                .first()
                .map(|v| {
                    let at = crate::render::loc(&timeline, v.primary);
                    format!("{}:{} {}", at.path, at.line, v.invariant.name)
                })
                .unwrap_or_default();
            (r.model(), r.verdict, first)
        })
        .collect();
    CheckOnce { checked, outputs }
}

/// Scans one log held in memory with `grammar`: how many events, the stats and the unparsed lines
/// (`line: reason: text`).
pub fn scan_text(
    path: &str,
    input: &[u8],
    grammar: &Grammar,
    options: &ScanOptions,
) -> (usize, InputStats, Vec<String>) {
    let mut events = 0;
    let mut unparsed = Vec::new();
    let memory = InMemory {
        path,
        bytes: input,
        block_size: crate::input::BLOCK_SIZE,
    };
    let stats = scan_bytes(
        0,
        memory,
        grammar,
        options,
        |_| events += 1,
        |u| unparsed.push(format!("{}: {:?}: {}", u.line, u.reason, u.text)),
    );
    (events, stats, unparsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_count_a_last_line_without_newline_once() {
        assert_eq!(line_starts(b""), Vec::<usize>::new());
        assert_eq!(line_starts(b"a"), [0]);
        assert_eq!(line_starts(b"a\n"), [0]);
        assert_eq!(line_starts(b"a\n\nb"), [0, 2, 3]);
    }

    #[test]
    fn block_sizes_reach_one_byte_and_whole_pages() {
        let sizes: Vec<usize> = (0..=255).map(block_size).collect();
        assert!(sizes.contains(&1));
        assert!(sizes.contains(&4096));
        assert!(sizes.iter().all(|&s| s >= 1));
    }

    #[test]
    #[should_panic(expected = "beyond")]
    fn a_label_outside_its_text_breaks_the_contract() {
        let e = GrammarError {
            message: "m".into(),
            src: miette::NamedSource::new("x", "abc".to_string()),
            span: (2, 5).into(),
            label: "l".into(),
            help: None,
        };
        check_grammar_error(&e, Some("abc"));
    }

    #[test]
    fn the_shipped_logs_keep_the_scan_contract_at_every_layout() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs");
        let mut files = 0;
        for entry in walkdir::WalkDir::new(dir) {
            let entry = entry.unwrap();
            if !entry.file_type().is_file() {
                continue;
            }
            let bytes = std::fs::read(entry.path()).unwrap();
            if bytes.starts_with(&[0x1f, 0x8b]) {
                continue; // gzip is the input layer's, not the scanner's
            }
            files += 1;
            for choice in 0..=builtins().len() as u8 {
                let mut data = vec![choice, 5];
                data.extend_from_slice(&bytes);
                scan(&data);
            }
            event_lines(&bytes);
        }
        assert!(files > 5, "{files} fixture logs");
    }

    #[test]
    fn the_streams_of_the_shipped_logs_keep_the_event_stream_contract() {
        let grammar = embedded();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios");
        let mut events = 0;
        for entry in walkdir::WalkDir::new(dir) {
            let entry = entry.unwrap();
            if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "log") {
                continue;
            }
            let path = entry.path().display().to_string();
            let bytes = std::fs::read(entry.path()).unwrap();
            let memory = InMemory {
                path: &path,
                bytes: &bytes,
                block_size: crate::input::BLOCK_SIZE,
            };
            let mut found = Vec::new();
            let options = ScanOptions::default();
            let stats = scan_bytes(0, memory, grammar, &options, |e| found.push(e), |_| {});
            events += found.len();
            let stream = write_stream(&stats, &found, grammar);
            event_stream(&stream);
            // Cut anywhere, it still reads or fails at one of its lines.
            for cut in [1, stream.len() / 3, stream.len() / 2, stream.len() - 1] {
                event_stream(&stream[..cut]);
            }
        }
        assert!(events > 100, "{events} events in the scenario logs");
    }

    #[test]
    fn a_bad_stream_fails_at_its_line() {
        let grammar = embedded();
        let at = |data: &[u8]| read_stream(data, grammar).err().map(|e| e.line);
        assert_eq!(at(b"\n\n{\"event\":\"ProcessStarted\"}\n"), Some(3));
        assert_eq!(at(b"not json"), Some(1));
        assert_eq!(
            at(b"{\"stream\":\"ozone-conform-events\",\"version\":9}\n"),
            Some(1)
        );
        assert_eq!(at(b""), None);
        for data in [
            &b"\n\n{\"event\":\"ProcessStarted\"}\n"[..],
            b"not json",
            b"\xff\n{}",
        ] {
            event_stream(data);
        }
    }

    #[test]
    fn the_shipped_traces_keep_the_reader_contract() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = 0;
        for entry in walkdir::WalkDir::new(root.join("traces"))
            .into_iter()
            .chain(walkdir::WalkDir::new(root.join("tests/fixtures/traces")))
        {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy();
            if !entry.file_type().is_file() {
                continue;
            }
            let bytes = std::fs::read(path).unwrap();
            if name.ends_with(".json") {
                json_trace(&bytes);
            } else if name.starts_with("trace_") {
                simulate(&bytes);
            } else if name.ends_with(".out") {
                tlc_text(&bytes);
            } else {
                continue;
            }
            read += 1;
        }
        assert!(read > 20, "{read} trace files");
    }

    #[test]
    fn the_shipped_grammars_and_builtin_patterns_keep_their_contracts() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rules") {
                grammar_file(&std::fs::read(&path).unwrap());
            }
        }
        for layout in builtins() {
            layout_pattern(format!("{}\n", layout.pattern).as_bytes());
        }
    }
}
