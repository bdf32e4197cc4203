//! Every input a fuzz target (`fuzz/`) ever broke, replayed through the same contract on stable Rust:
//! `tests/fixtures/fuzz/<target>/<name>` goes to `ozone_conform::contract::<target's function>`.

use ozone_conform::contract;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
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
