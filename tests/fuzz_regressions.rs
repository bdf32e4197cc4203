//! Every input a fuzz target (`fuzz/`) ever broke, replayed through the same contract on stable Rust:
//! `tests/fixtures/fuzz/<target>/<name>` goes to `ozone_conform::contract::<target's function>`.

use ozone_conform::contract;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    // git keeps no empty directory: a target that never broke has none.
    let entries: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    let mut inputs: Vec<_> = entries.into_iter().filter(|p| p.is_file()).collect();
    inputs.sort();
    for path in &inputs {
        let data = std::fs::read(path).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{} breaks its contract", path.display());
    }
    println!("{target}: {} input(s) replayed", inputs.len());
}

#[test]
fn scan() {
    replay("scan", contract::scan);
}

#[test]
fn layout_pattern() {
    replay("layout_pattern", contract::layout_pattern);
}

#[test]
fn grammar_file() {
    replay("grammar_file", contract::grammar_file);
}

#[test]
fn tlc_text() {
    replay("tlc_text", contract::tlc_text);
}

#[test]
fn simulate() {
    replay("simulate", contract::simulate);
}

#[test]
fn dump_json() {
    replay("dump_json", contract::json_trace);
}

#[test]
fn itf() {
    replay("itf", contract::json_trace);
}

#[test]
fn event_lines() {
    replay("event_lines", contract::event_lines);
}

#[test]
fn event_stream() {
    replay("event_stream", contract::event_stream);
}

#[test]
fn generated_logs() {
    replay("generated_logs", contract::generated_logs);
}

#[test]
fn healthy_behaviour() {
    replay("healthy_behaviour", contract::healthy_behaviour);
}
