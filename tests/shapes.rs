//! Same logs, same verdict, whatever the shape (issue 9, item 3): every scenario fixture, read as its per-node
//! files in sorted order, gives the canonical answer (verdict per model; violations as invariant, node and the
//! text of the primary line, and where a shape keeps files, their original file:line). Every other shape of
//! the same bytes must give that answer: any argument order, one concatenated file, the concatenation on
//! stdin, records interleaved by time, rotation at every record boundary (passed in shell-glob order, with
//! and without file names that tell the node), gzip, CRLF, duplicated inputs, and any rayon thread count
//! (byte-identical JSON).
//!
//! The sweeps drive the library in-process as `check` does (resolve, build the timeline, replay); stdin,
//! gzip, thread counts and JSON go through the binary.

use ozone_conform::check;
use ozone_conform::event::Event;
use ozone_conform::grammar::Grammar;
use ozone_conform::input;
use ozone_conform::scan::{scan_input, InputStats, ScanOptions};
use ozone_conform::timeline::{self, Timeline};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::{bin, shifted, timeline_of, SHIFTS_MIN};

const SCENARIOS: &str = "tests/fixtures/scenarios";

/// One scenario case: its per-node daemon files (sorted), read as bytes.
struct Fixture {
    name: String,
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    let mut models: Vec<_> = std::fs::read_dir(root().join(SCENARIOS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    models.sort();
    for m in models {
        let mut cases: Vec<_> = std::fs::read_dir(&m)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        for dir in cases {
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .map(|p| {
                    (
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        std::fs::read(&p).unwrap(),
                    )
                })
                .collect();
            files.sort();
            out.push(Fixture {
                name: format!(
                    "{}/{}",
                    m.file_name().unwrap().to_string_lossy(),
                    dir.file_name().unwrap().to_string_lossy()
                ),
                dir,
                files,
            });
        }
    }
    assert!(out.len() >= 13, "every scenario case: {}", out.len());
    out
}

/// A violation as shapes can compare it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    invariant: String,
    node: Option<String>,
    /// The primary line as logged (without a CR).
    text: String,
    /// The original file name and line, where the shape keeps them.
    at: Option<(String, u64)>,
}

/// Model → (verdict, violations sorted).
type Answer = BTreeMap<String, (String, Vec<Found>)>;

/// Where a line of this run's input was in the fixture: (file name, line), or None when a shape mixes files.
type Locate<'a> = &'a dyn Fn(&str, u64) -> Option<(String, u64)>;

fn same_place(path: &str, line: u64) -> Option<(String, u64)> {
    Some((
        Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        line,
    ))
}

fn nowhere(_: &str, _: u64) -> Option<(String, u64)> {
    None
}

/// What `timeline::build` does, with the scans of files that do not change between runs kept: the inputs
/// in `resolve`'s order, each scanned (or taken from `cache` by path), then merged.
fn build_cached(
    args: &[String],
    grammar: &Grammar,
    cache: &mut BTreeMap<String, (InputStats, Vec<Event>)>,
    cacheable: &dyn Fn(&str) -> bool,
) -> Timeline {
    let sources = input::resolve(args).unwrap();
    let mut inputs = Vec::new();
    let mut per_input = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let path = source.display();
        let (stats, mut events) = match cache.get(&path) {
            Some(hit) => hit.clone(),
            None => {
                let mut events = Vec::new();
                let stats = scan_input(
                    i as u32,
                    source,
                    grammar,
                    &ScanOptions::default(),
                    |e| events.push(e),
                    |_| {},
                );
                if cacheable(&path) {
                    cache.insert(path.clone(), (stats.clone(), events.clone()));
                }
                (stats, events)
            }
        };
        for e in &mut events {
            e.span.input = i as u32;
        }
        inputs.push(stats);
        per_input.push(events);
    }
    let test_output = inputs
        .iter()
        .map(|s| s.layout.as_deref() == Some("test"))
        .collect();
    timeline::from_events(
        inputs,
        per_input,
        test_output,
        ozone_conform::bugs::merge_rules(timeline::DEFAULT_MAX_SKEW_MS),
    )
}

fn answer_of(tl: &Timeline, locate: Locate) -> Answer {
    let reports = check::replay(tl, check::select(&[]).unwrap(), &Default::default()).reports;
    reports
        .into_iter()
        .map(|r| {
            let mut found: Vec<Found> = r
                .violations
                .iter()
                .map(|v| {
                    let e = &tl.events.get(v.primary);
                    let excerpt = tl.excerpt(v.primary);
                    let text = excerpt.text.as_bytes();
                    // The line as its node logged it, without a docker-compose prefix.
                    let text = ozone_conform::node::split_docker_prefix(text)
                        .map_or(text, |(_, rest)| rest);
                    Found {
                        invariant: v.invariant.to_string(),
                        node: v.node.as_deref().map(String::from),
                        text: String::from_utf8_lossy(text)
                            .trim_end_matches('\r')
                            .to_string(),
                        at: locate(&tl.inputs[e.span.input as usize].path, e.span.line),
                    }
                })
                .collect();
            found.sort();
            let verdict = serde_json::to_value(r.verdict).unwrap();
            (
                r.model().to_string(),
                (verdict.as_str().unwrap().to_string(), found),
            )
        })
        .collect()
}

/// The answer with every `at` left out, for shapes that mix files.
fn without_places(a: &Answer) -> Answer {
    a.iter()
        .map(|(m, (v, found))| {
            let mut found: Vec<Found> = found
                .iter()
                .cloned()
                .map(|f| Found { at: None, ..f })
                .collect();
            found.sort();
            (m.clone(), (v.clone(), found))
        })
        .collect()
}

/// The canonical answer: the per-node files, sorted, where they are.
fn canonical(fx: &Fixture, grammar: &Grammar) -> Answer {
    let args: Vec<String> = fx
        .files
        .iter()
        .map(|(n, _)| fx.dir.join(n).to_string_lossy().into_owned())
        .collect();
    answer_of(&timeline_of(&args, grammar), &same_place)
}

/// Records as the fixtures write them: a line that starts with an ISO-8601 date opens one.
fn records(bytes: &[u8]) -> Vec<&[u8]> {
    let opens = |line: &[u8]| {
        line.len() > 11
            && line[..4].iter().all(u8::is_ascii_digit)
            && line[4] == b'-'
            && line[7] == b'-'
            && line[10] == b' '
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        let end = memchr(bytes, pos);
        if pos > start && opens(&bytes[pos..end]) {
            out.push(&bytes[start..pos]);
            start = pos;
        }
        pos = end;
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

/// The end (after the newline) of the line that starts at `pos`.
fn memchr(bytes: &[u8], pos: usize) -> usize {
    bytes[pos..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| pos + i + 1)
}

fn lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn concatenation<'a>(files: impl Iterator<Item = &'a (String, Vec<u8>)>) -> Vec<u8> {
    files.flat_map(|(_, b)| b.iter().copied()).collect()
}

/// The fixture's records interleaved by their timestamps (stable: a file's order is kept at equal times), as
/// `docker compose logs` prints them: each line after its node's `name | ` prefix. (Without a prefix nothing
/// in an interleaved line says which node wrote it.)
fn interleaved(fx: &Fixture) -> Vec<u8> {
    let mut all: Vec<(&[u8], Vec<u8>)> = Vec::new();
    for (name, bytes) in &fx.files {
        let (host, _) = ozone_conform::node::from_file_name(name).unwrap();
        for r in records(bytes) {
            let mut prefixed = Vec::new();
            for line in r.split_inclusive(|&b| b == b'\n') {
                prefixed.extend_from_slice(format!("{host:<8}| ").as_bytes());
                prefixed.extend_from_slice(line);
            }
            all.push((&r[..23.min(r.len())], prefixed));
        }
    }
    all.sort_by(|a, b| a.0.cmp(b.0));
    all.into_iter().flat_map(|(_, r)| r).collect()
}

/// The console appender's layout (`%d{ISO8601} [%t] %p %c{2}: %m%n`, what `ozone scm` in a container writes
/// to stderr) made from the RFA layout the fixtures use: the logger cut to its last two components.
fn console(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        out.push_str(&console_line(line));
    }
    out.into_bytes()
}

fn console_line(line: &str) -> String {
    let opens = line.len() > 24
        && line.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && line.as_bytes()[23] == b' ';
    let Some(close) = line.find("] ").filter(|_| opens) else {
        return line.to_string();
    };
    let after = &line[close + 2..];
    let Some((level, rest)) = after.split_once(' ') else {
        return line.to_string();
    };
    let Some((logger, message)) = rest.split_once(": ") else {
        return line.to_string();
    };
    let parts: Vec<&str> = logger.split('.').collect();
    let short = parts[parts.len().saturating_sub(2)..].join(".");
    format!("{}{level} {short}: {message}", &line[..close + 2])
}

/// A file name that tells no node, so the node comes from the banner (`stdout-3.log`).
fn anonymous(i: usize) -> String {
    format!("stdout-{i}.log")
}

#[test]
fn the_canonical_answers_are_the_documented_ones() {
    // Guards the comparisons below against comparing nothing with nothing.
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures() {
        let a = canonical(&fx, &grammar);
        let own = fx.name.split('/').next().unwrap();
        let case = fx.name.split('/').nth(1).unwrap();
        let (verdict, found) = &a[own];
        match case {
            "violating" => assert!(
                verdict == "violated" && !found.is_empty(),
                "{}: {a:?}",
                fx.name
            ),
            "healthy" => assert_eq!(verdict, "conforms", "{}", fx.name),
            _ => assert_eq!(verdict, "inconclusive", "{}", fx.name),
        }
        for (m, (v, _)) in &a {
            if m != own {
                assert_ne!(v, "violated", "{} {m}", fx.name);
            }
        }
    }
}

#[test]
fn argument_order_concatenation_interleaving_crlf_and_duplicates_keep_the_answer() {
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures() {
        every_shape_keeps_the_answer(&fx, &grammar);
    }
}

/// The same sweep with one node's clock off (issue 19, item 6): each per-node file of each case in turn,
/// shifted by one of ±30 min, ±1 h, ±2 h. The shifted logs have an answer of their own (a skewed clock may
/// leave a verdict undecided); every shape of the shifted bytes must give that answer, and it must never hold
/// a violation the true logs do not have.
#[test]
fn every_shape_with_one_nodes_clock_off_keeps_the_shifted_answer() {
    let grammar = Grammar::embedded().unwrap();
    let mut runs = 0;
    for (k, fx) in fixtures().into_iter().enumerate() {
        let truth = without_places(&canonical(&fx, &grammar));
        let tmp = tempfile::tempdir().unwrap();
        for f in 0..fx.files.len() {
            let minutes = SHIFTS_MIN[(k + f) % SHIFTS_MIN.len()];
            let dir = tmp.path().join(format!("{f}{minutes:+}"));
            let files: Vec<(String, Vec<u8>)> = fx
                .files
                .iter()
                .enumerate()
                .map(|(i, (n, b))| {
                    (
                        n.clone(),
                        if i == f {
                            shifted(b, minutes)
                        } else {
                            b.clone()
                        },
                    )
                })
                .collect();
            for (n, b) in &files {
                write(&dir, n, b);
            }
            let off = Fixture {
                name: format!("{} ({} {minutes:+} min)", fx.name, fx.files[f].0),
                dir,
                files,
            };
            // A violation is the same one when its line is, but for the shifted time.
            let untimed = |v: &Found| {
                (
                    v.invariant.clone(),
                    v.node.clone(),
                    v.text.get(23..).map(str::to_string),
                )
            };
            let answer = without_places(&canonical(&off, &grammar));
            for (model, (_, found)) in &answer {
                let true_ones: Vec<_> = truth[model].1.iter().map(untimed).collect();
                let alarms: Vec<&Found> = found
                    .iter()
                    .filter(|v| !true_ones.contains(&untimed(v)))
                    .collect();
                assert!(
                    alarms.is_empty(),
                    "{}: false alarm {model} {alarms:?}",
                    off.name
                );
            }
            every_shape_keeps_the_answer(&off, &grammar);
            runs += 1;
        }
    }
    assert!(runs >= 40, "{runs}");
}

/// Every shape of `fx`'s bytes (argument order, concatenation, interleaving, CRLF, duplicates) gives the
/// answer of its per-node files.
fn every_shape_keeps_the_answer(fx: &Fixture, grammar: &Grammar) {
    let want = canonical(fx, grammar);
    let loose = without_places(&want);
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let original: Vec<String> = fx
        .files
        .iter()
        .map(|(n, _)| fx.dir.join(n).to_string_lossy().into_owned())
        .collect();

    let mut reversed = original.clone();
    reversed.reverse();
    let got = answer_of(&timeline_of(&reversed, grammar), &same_place);
    assert_eq!(got, want, "{}: per-node files in reverse order", fx.name);

    for (shape, bytes) in [
        ("concatenated", concatenation(fx.files.iter())),
        (
            "concatenated in reverse",
            concatenation(fx.files.iter().rev()),
        ),
        ("interleaved by time", interleaved(fx)),
    ] {
        let one = write(t, &format!("{}.log", shape.replace(' ', "-")), &bytes);
        let got = answer_of(&timeline_of(&[one], grammar), &nowhere);
        assert_eq!(got, loose, "{}: {shape}", fx.name);
    }

    // CRLF line ends: same files, same lines.
    let crlf: Vec<String> = fx
        .files
        .iter()
        .map(|(n, b)| {
            let mut out = Vec::with_capacity(b.len() * 2);
            for &c in b {
                if c == b'\n' {
                    out.push(b'\r');
                }
                out.push(c);
            }
            write(&t.join("crlf"), n, &out)
        })
        .collect();
    let got = answer_of(&timeline_of(&crlf, grammar), &same_place);
    assert_eq!(got, want, "{}: CRLF", fx.name);

    // Duplicates: every file twice, a copy of each under another path, the case directory (per-node
    // files and the `merged/` copy of the same story) beside its files, and `cat a a` per node.
    let mut twice = original.clone();
    twice.extend(original.iter().cloned());
    twice.extend(fx.files.iter().map(|(n, b)| write(&t.join("copies"), n, b)));
    twice.push(fx.dir.to_string_lossy().into_owned());
    let got = answer_of(&timeline_of(&twice, grammar), &same_place);
    assert_eq!(got, want, "{}: duplicated inputs", fx.name);
    let doubled: Vec<String> = fx
        .files
        .iter()
        .map(|(n, b)| write(&t.join("doubled"), n, &[b.as_slice(), b].concat()))
        .collect();
    let got = answer_of(&timeline_of(&doubled, grammar), &same_place);
    assert_eq!(got, want, "{}: each file's records twice", fx.name);
    let cat_twice = [
        concatenation(fx.files.iter()),
        concatenation(fx.files.iter()),
    ]
    .concat();
    let one = write(t, "twice.log", &cat_twice);
    let got = answer_of(&timeline_of(&[one], grammar), &nowhere);
    assert_eq!(got, loose, "{}: the concatenation twice", fx.name);
}

/// Rotates each file of each fixture at every record boundary into `x.log.1` (older) and `x.log`, and passes
/// the inputs in shell-glob order (`x.log` before `x.log.1`). With `named`, files keep their daemon names
/// (the node is in the name); without, they are `stdout-N.log` in the console layout (stderr of a foreground
/// daemon), so the rotated part without a banner must get its node from the family's banner. Returns how
/// many runs were made.
fn rotation_sweep(named: bool) -> usize {
    let grammar = Grammar::embedded().unwrap();
    let mut runs = 0;
    for fx in fixtures() {
        let mut want = canonical(&fx, &grammar);
        let mut fx = fx;
        if !named {
            for (_, b) in &mut fx.files {
                *b = console(b);
            }
            for (_, found) in want.values_mut() {
                for f in found.iter_mut() {
                    f.text = console_line(&f.text);
                }
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        let names: Vec<String> = (0..fx.files.len())
            .map(|i| {
                if named {
                    fx.files[i].0.clone()
                } else {
                    anonymous(i)
                }
            })
            .collect();
        let to_original: BTreeMap<String, String> = names
            .iter()
            .cloned()
            .zip(fx.files.iter().map(|(n, _)| n.clone()))
            .collect();
        // The files not rotated in a run are the same bytes in every run: scanned once.
        let whole: Vec<String> = fx
            .files
            .iter()
            .zip(&names)
            .map(|((_, b), n)| write(&t.join("whole"), n, b))
            .collect();
        let mut cache = BTreeMap::new();
        let whole_dir = t.join("whole").to_string_lossy().into_owned();
        let cacheable = |p: &str| p.starts_with(&whole_dir);
        for (i, (_, bytes)) in fx.files.iter().enumerate() {
            let recs = records(bytes);
            let banner = |r: &[u8]| String::from_utf8_lossy(r).contains("STARTUP_MSG");
            for cut in 1..recs.len() {
                // Without names, every other boundary and every one next to a banner (where a part without
                // a banner begins or ends), to keep the run short.
                if !named && cut % 2 == 0 && !banner(recs[cut - 1]) && !banner(recs[cut]) {
                    continue;
                }
                let dir = t.join(format!("{i}-{cut}"));
                let older = recs[..cut].concat();
                let newer = recs[cut..].concat();
                let mut args = Vec::new();
                for (j, w) in whole.iter().enumerate() {
                    if j == i {
                        args.push(write(&dir, &names[j], &newer));
                        args.push(write(&dir, &format!("{}.1", names[j]), &older));
                    } else {
                        args.push(w.clone());
                    }
                }
                // The shell's glob order puts `x.log` before `x.log.1`; the other files come first or after.
                args.sort();
                let shift = lines(&older);
                let part = names[i].clone();
                let locate = |path: &str, line: u64| {
                    let file = Path::new(path).file_name()?.to_string_lossy().into_owned();
                    if file == format!("{part}.1") {
                        Some((to_original[&part].clone(), line))
                    } else if file == part {
                        Some((to_original[&part].clone(), line + shift))
                    } else {
                        Some((to_original[&file].clone(), line))
                    }
                };
                let got = answer_of(
                    &build_cached(&args, &grammar, &mut cache, &cacheable),
                    &locate,
                );
                assert_eq!(
                    got,
                    want,
                    "{}: {} rotated before its record {} (of {}), named={named}",
                    fx.name,
                    fx.files[i].0,
                    cut + 1,
                    recs.len()
                );
                std::fs::remove_dir_all(&dir).unwrap();
                runs += 1;
            }
        }
    }
    runs
}

#[test]
fn rotation_at_every_record_boundary_in_glob_order_keeps_the_answer() {
    let runs = rotation_sweep(true);
    assert!(runs > 1000, "{runs} runs");
}

#[test]
fn a_rotated_part_without_a_banner_keeps_the_node_of_its_familys_banner() {
    let runs = rotation_sweep(false);
    assert!(runs > 500, "{runs} runs");
}

/// The answer in `check --all --format json` output; `text_of(path, line)` gives a primary line's text.
fn answer_of_json(json: &[u8], text_of: &dyn Fn(&str, u64) -> String, locate: Locate) -> Answer {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mut found: Vec<Found> = m["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| {
                    let path = v["primary"]["path"].as_str().unwrap();
                    let line = v["primary"]["line"].as_u64().unwrap();
                    Found {
                        invariant: v["invariant"].as_str().unwrap().to_string(),
                        node: v["node"].as_str().map(String::from),
                        text: text_of(path, line),
                        at: locate(path, line),
                    }
                })
                .collect();
            found.sort();
            (
                m["model"].as_str().unwrap().to_string(),
                (m["verdict"].as_str().unwrap().to_string(), found),
            )
        })
        .collect()
}

fn line_of(bytes: &[u8], line: u64) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .nth(line as usize - 1)
        .unwrap_or_default()
        .trim_end_matches('\r')
        .to_string()
}

#[test]
fn stdin_gzip_and_thread_counts_through_the_binary() {
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures() {
        let want = canonical(&fx, &grammar);
        let code = if want.values().any(|(v, _)| v == "violated") {
            1
        } else {
            0
        };
        let by_name = |path: &str| -> Vec<u8> {
            let name = Path::new(path).file_name().unwrap().to_string_lossy();
            let name = name.strip_suffix(".gz").unwrap_or(&name);
            fx.files.iter().find(|(n, _)| n == name).unwrap().1.clone()
        };

        // The concatenation on stdin.
        let cat = concatenation(fx.files.iter());
        let out = bin()
            .args(["check", "--all", "--format", "json", "-"])
            .write_stdin(cat.clone())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{}: stdin: {}",
            fx.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let got = answer_of_json(&out.stdout, &|_, l| line_of(&cat, l), &nowhere);
        assert_eq!(
            got,
            without_places(&want),
            "{}: concatenation on stdin",
            fx.name
        );

        // Gzip, by magic bytes, named `.log.gz`.
        let tmp = tempfile::tempdir().unwrap();
        let gz: Vec<String> = fx
            .files
            .iter()
            .map(|(n, b)| {
                let p = tmp.path().join(format!("{n}.gz"));
                let mut enc =
                    GzEncoder::new(std::fs::File::create(&p).unwrap(), Compression::fast());
                enc.write_all(b).unwrap();
                enc.finish().unwrap();
                p.to_string_lossy().into_owned()
            })
            .collect();
        let out = bin()
            .env("RAYON_NUM_THREADS", "2")
            .args(["check", "--all", "--format", "json"])
            .args(&gz)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{}: gzip", fx.name);
        let locate = |path: &str, line: u64| {
            let name = Path::new(path).file_name()?.to_string_lossy().into_owned();
            Some((name.strip_suffix(".gz").unwrap_or(&name).to_string(), line))
        };
        let got = answer_of_json(&out.stdout, &|p, l| line_of(&by_name(p), l), &locate);
        assert_eq!(got, want, "{}: gzip", fx.name);

        // Any thread count: the same bytes out (of the gzip run above, with 1 thread and with 8).
        for threads in ["1", "8"] {
            let again = bin()
                .env("RAYON_NUM_THREADS", threads)
                .args(["check", "--all", "--format", "json"])
                .args(&gz)
                .output()
                .unwrap();
            assert_eq!(
                again.status.code(),
                Some(code),
                "{}: {threads} threads",
                fx.name
            );
            assert!(
                again.stdout == out.stdout,
                "{}: JSON with {threads} threads differs from 2 threads",
                fx.name
            );
        }
    }
}

#[test]
fn repeated_inputs_are_named_on_stderr_and_in_stats() {
    let h = format!("{SCENARIOS}/scm-secret-keys/healthy");
    let scm1 = format!("{h}/ozone-hadoop-scm-scm1.log");
    let tmp = tempfile::tempdir().unwrap();
    let copy = write(
        tmp.path(),
        "elsewhere.log",
        &std::fs::read(root().join(&scm1)).unwrap(),
    );
    let out = bin()
        .args(["check", &format!("{h}/"), &scm1, &copy])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{scm1}: same file as {h}/ozone-hadoop-scm-scm1.log; read once"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{copy}: same bytes as {h}/ozone-hadoop-scm-scm1.log; read once"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "single-JVM test output that tells the story of the per-node logs also given"
        ),
        "{stderr}"
    );

    let out = bin()
        .args([
            "stats",
            "--format",
            "json",
            &format!("{h}/ozone-hadoop-scm-scm1.log"),
            &copy,
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["skipped"][0]["path"], copy.as_str());
    assert_eq!(v["skipped"][0]["reason"], "same bytes");
    assert_eq!(v["inputs"].as_array().unwrap().len(), 1);
    let out = bin().args(["stats", &scm1, &copy]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{copy}\n  skipped     same bytes as {scm1}; read once"
        )),
        "{text}"
    );

    // `cat a a`: the repeat is counted and said, not replayed (every record a rule reads, once).
    let out = bin()
        .args(["stats", "--format", "json", &scm1])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = v["inputs"][0]["events"].as_u64().unwrap();
    assert!(read > 10);
    let twice = [
        std::fs::read(root().join(&scm1)).unwrap(),
        std::fs::read(root().join(&scm1)).unwrap(),
    ]
    .concat();
    let out = bin()
        .args(["check", "-"])
        .write_stdin(twice)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "-: {read} record(s) repeat earlier records of the same node"
        )),
        "{stderr}"
    );
}

#[test]
fn stats_says_how_a_rotation_family_was_ordered() {
    let tmp = tempfile::tempdir().unwrap();
    let recs: Vec<Vec<u8>> = {
        let b = std::fs::read(
            root()
                .join(SCENARIOS)
                .join("scm-secret-keys/violating/ozone-hadoop-scm-scm3.log"),
        )
        .unwrap();
        records(&b).into_iter().map(<[u8]>::to_vec).collect()
    };
    let n = recs.len();
    let live = write(
        tmp.path(),
        "ozone-hadoop-scm-scm3.log",
        &recs[2 * n / 3..].concat(),
    );
    let one = write(
        tmp.path(),
        "ozone-hadoop-scm-scm3.log.1",
        &recs[n / 3..2 * n / 3].concat(),
    );
    let two = write(
        tmp.path(),
        "ozone-hadoop-scm-scm3.log.2",
        &recs[..n / 3].concat(),
    );
    let out = bin()
        .args(["stats", "--format", "json", &live, &one, &two])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inputs = v["inputs"].as_array().unwrap();
    let paths: Vec<&str> = inputs.iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [two.as_str(), one.as_str(), live.as_str()]);
    assert_eq!(
        inputs[0]["rotation"],
        "part 1 of 3 of ozone-hadoop-scm-scm3.log, oldest first (by suffix .2)"
    );
    assert_eq!(
        inputs[2]["rotation"],
        "part 3 of 3 of ozone-hadoop-scm-scm3.log, oldest first (by live file, newest)"
    );
    let out = bin().args(["stats", &live, &one, &two]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "  rotation    part 2 of 3 of ozone-hadoop-scm-scm3.log, oldest first (by suffix .1)"
    ));
}

#[test]
fn a_part_of_only_continuation_lines_is_a_warning_not_an_abort() {
    let h = root().join(SCENARIOS).join("scm-secret-keys/healthy");
    let tmp = tempfile::tempdir().unwrap();
    let live = write(
        tmp.path(),
        "ozone-hadoop-scm-scm1.log",
        &std::fs::read(h.join("ozone-hadoop-scm-scm1.log")).unwrap(),
    );
    let old = write(
        tmp.path(),
        "ozone-hadoop-scm-scm1.log.1",
        b"java.io.IOException: Connection reset by peer\n\tat sun.nio.ch.SocketDispatcher.read0(Native Method)\n\t... 12 more\nCaused by: java.net.SocketException: reset\n",
    );
    let out = bin().args(["check", &live, &old]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: {old}: holds only continuation lines (4 line(s)"
        )),
        "{stderr}"
    );
    // Lines that are no log at all stay an input error.
    let junk = write(tmp.path(), "junk.log", b"hello world\nthis is not a log\n");
    let out = bin().args(["check", &live, &junk]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no known log layout fits this input"));
}

/// Issue 19, item 5: bytes before the first record never hide it. Each per-node file in the console layout
/// under a name that tells no node (so the first record, the banner, is what names the node), behind a UTF-8
/// BOM, behind a truncated partial line, and behind NUL padding on the first record's own line: the answer
/// of the plain files. The partial line is an unparsed line; the padding is part of its record's line, counted
/// and warned about; the BOM is neither.
#[test]
fn a_bom_or_junk_before_the_first_record_never_hides_it() {
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures() {
        // The primary lines as the console layout prints them.
        let loose: Answer = without_places(&canonical(&fx, &grammar))
            .into_iter()
            .map(|(m, (v, found))| {
                let found = found
                    .into_iter()
                    .map(|f| Found {
                        text: console_line(&f.text),
                        ..f
                    })
                    .collect();
                (m, (v, found))
            })
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        // (shape, leading bytes, unparsed lines, records read after junk on their line)
        for (shape, lead, unparsed, junk) in [
            ("bom", &b"\xEF\xBB\xBF"[..], 0u64, 0u64),
            (
                "partial line",
                &b"ing the previous run's last record\n"[..],
                1,
                0,
            ),
            ("nul padding", &b"\0\0\0\0\0\0\0\0"[..], 0, 1),
        ] {
            let dir = tmp.path().join(shape.replace(' ', "-"));
            let files: Vec<String> = fx
                .files
                .iter()
                .enumerate()
                .map(|(i, (_, b))| write(&dir, &anonymous(i), &[lead, &console(b)].concat()))
                .collect();
            let tl = timeline_of(&files, &grammar);
            let got = answer_of(&tl, &nowhere);
            assert_eq!(without_places(&got), loose, "{}: {shape}", fx.name);
            for stats in &tl.inputs {
                let what = format!("{}: {shape}: {}", fx.name, stats.path);
                assert_eq!(stats.unparsed, unparsed, "{what}");
                assert_eq!(stats.junk_before_header, junk, "{what}");
                // Every line once: a record's first line, a continuation line, or an unparsed line.
                assert_eq!(
                    stats.records + stats.continuation_lines + stats.unparsed,
                    stats.lines,
                    "{what}"
                );
                let warned = stats
                    .warnings
                    .iter()
                    .any(|w| w.contains("no text on their line"));
                assert_eq!(warned, junk > 0, "{what}: {:?}", stats.warnings);
            }
        }
    }
}
