//! Logs as operators collect them (issue 23): every scenario fixture, wrapped the way Kubernetes, container
//! runtimes, journald and log shippers hand it over, gives the answer of the unwrapped per-node files: the same
//! verdicts, and the same primary lines, found at the place in the wrapped file that holds them.
//!
//! The wrapped inputs are made here from the fixtures (`tests/fixtures/scenarios`), so they stay in step with
//! them. Each wrapper names the node its own way (a pod in a file name or a prefix, a journal's host, a
//! shipper's metadata; Docker's json-file names none, so the banner does), and the shapes that put every node
//! in one stream (`kubectl logs -l ... --prefix`, a shipper's export) must be split per pod.

use ozone_conform::check;
use ozone_conform::grammar::Grammar;
use ozone_conform::input;
use ozone_conform::scan::{scan_input, ScanOptions, UnparsedReason};
use ozone_conform::timeline::Timeline;
use ozone_conform::wrapper::Wrapper;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::{bin, timeline_of};

const SCENARIOS: &str = "tests/fixtures/scenarios";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One scenario case: its per-node daemon files (sorted), as bytes.
struct Fixture {
    name: String,
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    let sorted_dirs = |p: &Path| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        v.sort();
        v
    };
    for model in sorted_dirs(&root().join(SCENARIOS)) {
        for dir in sorted_dirs(&model) {
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .map(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    (name, std::fs::read(&p).unwrap())
                })
                .collect();
            files.sort();
            let name = format!(
                "{}/{}",
                model.file_name().unwrap().to_string_lossy(),
                dir.file_name().unwrap().to_string_lossy()
            );
            out.push(Fixture { name, dir, files });
        }
    }
    assert!(out.len() >= 13, "every scenario case: {}", out.len());
    out
}

/// A violation as the runs compare it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    invariant: String,
    node: Option<String>,
    /// The primary line as the fixture logged it.
    text: String,
    /// The fixture's file name and line the primary line came from.
    at: Option<(String, u64)>,
}

/// Model → (verdict, violations sorted).
type Answer = BTreeMap<String, (String, Vec<Found>)>;

/// Where each line of a wrapped input came from: `(fixture file, line)`, `None` for a line the wrapping added.
type LineMap = Vec<Option<(String, u64)>>;

/// A wrapped input as the test writes it.
struct Wrapped {
    name: String,
    bytes: Vec<u8>,
    map: LineMap,
}

/// Where a wrapped input's line came from: (path, line) → fixture file, line and text.
type Original<'a> = &'a dyn Fn(&str, u64) -> Option<(String, u64, String)>;

/// The answer of a run. A report's excerpt, unwrapped by its input's wrapper (`wrapper_of_input`, none for
/// the unwrapped files), must be the fixture's line, or its start where the runtime cut it into partial lines.
fn answer_of(
    tl: &Timeline,
    wrapper_of_input: &dyn Fn(&str) -> Option<Wrapper>,
    original: Original,
) -> Answer {
    let reports = check::replay(tl, check::select(&[]).unwrap(), &Default::default()).reports;
    reports
        .into_iter()
        .map(|r| {
            let mut found: Vec<Found> = r
                .violations
                .iter()
                .map(|v| {
                    let e = tl.events.get(v.primary);
                    let path = &tl.inputs[e.span.input as usize].path;
                    let excerpt = tl.excerpt(v.primary).text.into_owned();
                    let (file, line, text) = original(path, e.span.line)
                        .unwrap_or_else(|| panic!("{path}:{}: no fixture line", e.span.line));
                    let (shown, partial) = match wrapper_of_input(path) {
                        Some(w) => {
                            let u = w.unwrap(excerpt.as_bytes()).unwrap();
                            (String::from_utf8_lossy(&u.text).into_owned(), u.partial)
                        }
                        None => (excerpt, false),
                    };
                    if partial {
                        assert!(
                            !shown.is_empty() && text.starts_with(&shown),
                            "{path}:{}: shows {shown:?}, the fixture has {text:?}",
                            e.span.line
                        );
                    } else {
                        assert_eq!(shown, text, "{path}:{}", e.span.line);
                    }
                    Found {
                        invariant: v.invariant.to_string(),
                        node: v.node.as_deref().map(String::from),
                        text,
                        at: Some((file, line)),
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

fn fixture_line(fx: &Fixture, file: &str, line: u64) -> String {
    let bytes = &fx.files.iter().find(|(n, _)| n == file).unwrap().1;
    let text = String::from_utf8_lossy(bytes);
    text.lines().nth(line as usize - 1).unwrap().to_string()
}

/// The unwrapped per-node files, where they are: the answer every wrapping must give.
fn canonical(fx: &Fixture, grammar: &Grammar) -> Answer {
    let args: Vec<String> = fx
        .files
        .iter()
        .map(|(n, _)| fx.dir.join(n).to_string_lossy().into_owned())
        .collect();
    let original = |path: &str, line: u64| {
        let file = Path::new(path).file_name()?.to_string_lossy().into_owned();
        let text = fixture_line(fx, &file, line);
        Some((file, line, text))
    };
    answer_of(&timeline_of(&args, grammar), &|_| None, &original)
}

/// The node and service a fixture file is for (`ozone-hadoop-scm-scm1.log` → scm1, scm).
fn node_of(file: &str) -> (String, String) {
    ozone_conform::node::from_file_name(file).unwrap()
}

/// The receive time of each line: its log4j time read as UTC (continuation lines keep the record's).
fn receive_times(bytes: &[u8]) -> Vec<(String, &str)> {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut last = "2026-08-23T00:00:00.000000000Z".to_string();
    text.lines()
        .map(|line| {
            let b = line.as_bytes();
            if b.len() > 23 && b[4] == b'-' && b[10] == b' ' && b[19] == b',' {
                last = format!("{}T{}.{}000000Z", &line[..10], &line[11..19], &line[20..23]);
            }
            (last.clone(), line)
        })
        .collect()
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Micros since the epoch of an RFC 3339 UTC time, as journald writes `__REALTIME_TIMESTAMP`.
fn micros(rfc3339: &str) -> String {
    let t = ozone_conform::time::Timestamp::parse_instant(rfc3339).unwrap();
    format!("{}", t.millis * 1000 + 456)
}

/// One wrapped line per fixture line, in the file's own order.
fn per_line(file: &str, bytes: &[u8], wrap: &dyn Fn(&str, &str) -> String) -> (Vec<u8>, LineMap) {
    let mut out = String::new();
    let mut map = Vec::new();
    for (i, (time, line)) in receive_times(bytes).into_iter().enumerate() {
        out.push_str(&wrap(&time, line));
        out.push('\n');
        map.push(Some((file.to_string(), i as u64 + 1)));
    }
    (out.into_bytes(), map)
}

/// A container id made from a name (64 hex digits, as CRI file names carry).
fn container_id(name: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    format!("{:016x}", h.finish()).repeat(4)
}

/// Every file of a fixture wrapped one way. `names_node`: whether the wrapping itself names each line's node.
fn wrap(fx: &Fixture, how: &str) -> Vec<Wrapped> {
    let one_per_file = |name: &dyn Fn(&str, &str, &str) -> String,
                        line: &dyn Fn(&str, &str, &str, &str) -> String| {
        fx.files
            .iter()
            .map(|(file, bytes)| {
                let (node, service) = node_of(file);
                let (bytes, map) = per_line(file, bytes, &|t, l| line(&node, &service, t, l));
                Wrapped {
                    name: name(file, &node, &service),
                    bytes,
                    map,
                }
            })
            .collect()
    };
    match how {
        // `kubectl logs scm1 --timestamps > scm1.log` per pod: the node comes from the banner.
        "kubectl" => one_per_file(
            &|_, node, _| format!("{node}.kubectl.txt"),
            &|_, _, t, l| format!("{t} {l}"),
        ),
        // /var/log/containers: the pod is in the file name.
        "cri" => one_per_file(
            &|_, node, service| format!("{node}_ozone_{service}-{}.log", container_id(node)),
            &|_, _, t, l| format!("{t} stderr F {l}"),
        ),
        // Docker's json-file, named by container id only: the banner names the node.
        "docker-json" => one_per_file(
            &|_, node, _| format!("{id}-json.log", id = container_id(node)),
            &|_, _, t, l| {
                format!(
                    r#"{{"log":{},"stream":"stderr","time":"{t}"}}"#,
                    json(&format!("{l}\n"))
                )
            },
        ),
        // `journalctl -u ozone-scm -o short-iso` per host.
        "journald" => one_per_file(
            &|_, node, _| format!("{node}.journal.txt"),
            &|node, service, t, l| format!("{}+0000 {node} ozone-{service}[4711]: {l}", &t[..19]),
        ),
        "journald-json" => one_per_file(
            &|_, node, _| format!("{node}.journal.json"),
            &|node, service, t, l| {
                format!(
                    r#"{{"__REALTIME_TIMESTAMP":"{}","_HOSTNAME":"{node}","_SYSTEMD_UNIT":"ozone-{service}.service","MESSAGE":{}}}"#,
                    micros(t),
                    json(l)
                )
            },
        ),
        // CRI with every line longer than 80 bytes cut into `P` parts of 50 bytes, as containerd cuts lines
        // longer than its buffer.
        "cri-partial" => fx
            .files
            .iter()
            .map(|(file, bytes)| {
                let (node, service) = node_of(file);
                let mut out = String::new();
                let mut map = Vec::new();
                for (i, (t, line)) in receive_times(bytes).into_iter().enumerate() {
                    let mut rest = line;
                    let mut first = true;
                    while rest.len() > 80 {
                        let mut cut = 50;
                        while !rest.is_char_boundary(cut) {
                            cut += 1;
                        }
                        out.push_str(&format!("{t} stderr P {}\n", &rest[..cut]));
                        map.push(first.then(|| (file.clone(), i as u64 + 1)));
                        first = false;
                        rest = &rest[cut..];
                    }
                    out.push_str(&format!("{t} stderr F {rest}\n"));
                    map.push(first.then(|| (file.clone(), i as u64 + 1)));
                }
                Wrapped {
                    name: format!("{node}_ozone_{service}-{}.log", container_id(&node)),
                    bytes: out.into_bytes(),
                    map,
                }
            })
            .collect(),
        // One stream of every pod: `kubectl logs -l app=ozone --prefix --timestamps`, and a shipper's
        // export of the namespace (Fluent Bit), lines interleaved by time.
        "kubectl-prefix" | "ndjson" => {
            let mut all: Vec<(String, String, (String, u64))> = Vec::new();
            for (file, bytes) in &fx.files {
                let (node, service) = node_of(file);
                for (i, (t, l)) in receive_times(bytes).into_iter().enumerate() {
                    let line = if how == "ndjson" {
                        format!(
                            r#"{{"time":"{t}","stream":"stderr","log":{},"kubernetes":{{"pod_name":"{node}","namespace_name":"ozone","container_name":"{service}","host":"worker-1"}}}}"#,
                            json(&format!("{l}\n"))
                        )
                    } else {
                        format!("[pod/{node}/{service}] {t} {l}")
                    };
                    all.push((t, line, (file.clone(), i as u64 + 1)));
                }
            }
            // Stable: each pod's lines keep their order at equal times.
            all.sort_by(|a, b| a.0.cmp(&b.0));
            let mut bytes = Vec::new();
            let mut map = Vec::new();
            for (_, line, at) in all {
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
                map.push(Some(at));
            }
            vec![Wrapped {
                name: format!("{how}.log"),
                bytes,
                map,
            }]
        }
        _ => unreachable!("{how}"),
    }
}

/// The wrapper a report's excerpt is unwrapped with.
fn wrapper_of(how: &str) -> Wrapper {
    match how {
        "cri-partial" => Wrapper::Cri,
        "kubectl-prefix" => Wrapper::Kubectl,
        "ndjson" => Wrapper::Ndjson("log".into()),
        other => Wrapper::from_name(other).unwrap(),
    }
}

const WRAPPERS: &[&str] = &[
    "kubectl",
    "kubectl-prefix",
    "cri",
    "cri-partial",
    "docker-json",
    "journald",
    "journald-json",
    "ndjson",
];

/// Writes wrapped inputs into `dir`; returns their paths and a lookup from (path, line) to the fixture.
fn write_all(dir: &Path, wrapped: &[Wrapped]) -> (Vec<String>, BTreeMap<String, LineMap>) {
    std::fs::create_dir_all(dir).unwrap();
    let mut paths = Vec::new();
    let mut maps = BTreeMap::new();
    for w in wrapped {
        let p = dir.join(&w.name).to_string_lossy().into_owned();
        std::fs::write(&p, &w.bytes).unwrap();
        maps.insert(p.clone(), w.map.clone());
        paths.push(p);
    }
    (paths, maps)
}

#[test]
fn every_fixture_in_every_wrapper_keeps_the_verdicts_and_primary_lines() {
    let grammar = Grammar::embedded().unwrap();
    let mut runs = 0;
    for fx in fixtures() {
        let want = canonical(&fx, &grammar);
        for how in WRAPPERS {
            let tmp = tempfile::tempdir().unwrap();
            let (paths, maps) = write_all(tmp.path(), &wrap(&fx, how));
            let original = |path: &str, line: u64| {
                let (file, l) = maps[path][line as usize - 1].clone()?;
                let text = fixture_line(&fx, &file, l);
                Some((file, l, text))
            };
            let tl = timeline_of(&paths, &grammar);
            for s in &tl.inputs {
                assert!(s.errors.is_empty(), "{} {how}: {:?}", fx.name, s.errors);
                assert_eq!(
                    s.unparsed, 0,
                    "{} {how}: {}: {:?}",
                    fx.name, s.path, s.unparsed_by_reason
                );
                let expected = wrapper_of(how).name();
                assert_eq!(
                    s.wrapper.as_deref(),
                    Some(expected.as_str()),
                    "{} {how}",
                    fx.name
                );
            }
            let got = answer_of(&tl, &|_| Some(wrapper_of(how)), &original);
            assert_eq!(got, want, "{}: wrapped as {how}", fx.name);
            runs += 1;
        }
    }
    assert!(runs >= 13 * WRAPPERS.len(), "{runs} runs");
}

#[test]
fn the_wrapper_names_the_node_and_one_stream_of_many_pods_is_split_per_pod() {
    let grammar = Grammar::embedded().unwrap();
    let fx = fixtures()
        .into_iter()
        .find(|f| f.name == "scm-secret-keys/violating")
        .unwrap();
    for (how, source) in [
        ("cri", "wrapper"),
        ("kubectl-prefix", "wrapper"),
        ("journald", "wrapper"),
        ("ndjson", "wrapper"),
        ("docker-json", "banner"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let (paths, _) = write_all(tmp.path(), &wrap(&fx, how));
        let tl = timeline_of(&paths, &grammar);
        let mut nodes: Vec<(String, String)> = tl
            .inputs
            .iter()
            .flat_map(|s| s.nodes.iter().map(|(n, f)| (n.clone(), f.clone())))
            .collect();
        nodes.sort();
        nodes.dedup();
        let want: Vec<(String, String)> = fx
            .files
            .iter()
            .map(|(f, _)| (node_of(f).0, source.to_string()))
            .collect();
        assert_eq!(nodes, want, "{how}");
    }
}

#[test]
fn two_wrappers_in_one_run_cri_for_the_scms_and_journald_for_the_rest() {
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures() {
        let want = canonical(&fx, &grammar);
        let cri = wrap(&fx, "cri");
        let journald = wrap(&fx, "journald");
        // File by file: the SCMs' from the CRI wrapping, the others' from journald (same order).
        let mixed: Vec<Wrapped> = fx
            .files
            .iter()
            .zip(cri.into_iter().zip(journald))
            .map(|((file, _), (c, j))| if node_of(file).1 == "scm" { c } else { j })
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        let (paths, maps) = write_all(tmp.path(), &mixed);
        let tl = timeline_of(&paths, &grammar);
        let wrappers: BTreeMap<String, Wrapper> = tl
            .inputs
            .iter()
            .map(|s| {
                (
                    s.path.clone(),
                    Wrapper::from_name(s.wrapper.as_deref().unwrap()).unwrap(),
                )
            })
            .collect();
        let original = |path: &str, line: u64| {
            let (file, l) = maps[path][line as usize - 1].clone()?;
            let text = fixture_line(&fx, &file, l);
            Some((file, l, text))
        };
        let got = answer_of(&tl, &|path| wrappers.get(path).cloned(), &original);
        assert_eq!(got, want, "{}: CRI and journald mixed", fx.name);
    }
}

/// The answer in `check --all --format json` output, each primary line looked up in `map`.
fn answer_of_json(json: &[u8], fx: &Fixture, map: &LineMap) -> Answer {
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
                    let line = v["primary"]["line"].as_u64().unwrap();
                    let (file, l) = map[line as usize - 1].clone().expect("a fixture line");
                    Found {
                        invariant: v["invariant"].as_str().unwrap().to_string(),
                        node: v["node"].as_str().map(String::from),
                        text: fixture_line(fx, &file, l),
                        at: Some((file, l)),
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

#[test]
fn stdin_works_for_every_wrapper_detected_and_forced() {
    // The violating case of every model (every fixture in every wrapper is read from files above): a run of
    // the binary each, detected and with `--wrapper`.
    let grammar = Grammar::embedded().unwrap();
    for fx in fixtures()
        .into_iter()
        .filter(|f| f.name.ends_with("/violating"))
    {
        let want = canonical(&fx, &grammar);
        let code = if want.values().any(|(v, _)| v == "violated") {
            1
        } else {
            0
        };
        for how in WRAPPERS {
            // What a pipe gets: the pods' logs one after another (`for p in ...; do kubectl logs $p; done`),
            // or the one interleaved stream.
            let wrapped = wrap(&fx, how);
            let mut bytes = Vec::new();
            let mut map = LineMap::new();
            for w in &wrapped {
                bytes.extend_from_slice(&w.bytes);
                map.extend(w.map.iter().cloned());
            }
            let forced = wrapper_of(how).name();
            for extra in [&[][..], &["--wrapper", forced.as_str()][..]] {
                let out = bin()
                    .args(["check", "--all", "--format", "json"])
                    .args(extra)
                    .arg("-")
                    .write_stdin(bytes.clone())
                    .output()
                    .unwrap();
                assert_eq!(
                    out.status.code(),
                    Some(code),
                    "{} {how} {extra:?}: {}",
                    fx.name,
                    String::from_utf8_lossy(&out.stderr)
                );
                let got = answer_of_json(&out.stdout, &fx, &map);
                assert_eq!(got, want, "{}: {how} on stdin {extra:?}", fx.name);
            }
        }
    }
}

#[test]
fn a_bad_wrapper_record_is_an_unparsed_line_with_its_reason_not_an_input_error() {
    let grammar = Grammar::embedded().unwrap();
    let fx = fixtures()
        .into_iter()
        .find(|f| f.name == "scm-finalization/violating")
        .unwrap();
    let want = canonical(&fx, &grammar);
    for (how, bad, reason) in [
        (
            "cri",
            "2026-08-23T10:00:00.000000000Z stderr oops",
            "a CRI line without its tag (`F` or `P`)",
        ),
        (
            "docker-json",
            r#"{"log":"half a rec"#,
            "broken JSON at column",
        ),
        (
            "journald-json",
            r#"{"_HOSTNAME":"scm1"}"#,
            "no `MESSAGE` field",
        ),
        ("ndjson", "not json at all", "broken JSON at column"),
        (
            "journald",
            "-- Boot 0123456789abcdef --",
            "journalctl's own line",
        ),
    ] {
        let mut wrapped = wrap(&fx, how);
        // The bad line in the middle of the first input (inside some record: it must not end it).
        let w = &mut wrapped[0];
        let lines: Vec<&[u8]> = w.bytes.split_inclusive(|&b| b == b'\n').collect();
        let at = lines.len() / 2;
        let mut bytes = lines[..at].concat();
        bytes.extend_from_slice(bad.as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(&lines[at..].concat());
        w.bytes = bytes;
        w.map.insert(at, None);
        let tmp = tempfile::tempdir().unwrap();
        let (paths, maps) = write_all(tmp.path(), &wrapped);
        let tl = timeline_of(&paths, &grammar);
        let s = &tl.inputs[0];
        assert!(s.errors.is_empty(), "{how}: {:?}", s.errors);
        assert_eq!(s.unparsed, 1, "{how}");
        assert_eq!(
            s.unparsed_by_reason.get(&UnparsedReason::Wrapper),
            Some(&1),
            "{how}"
        );
        let original = |path: &str, line: u64| {
            let (file, l) = maps[path][line as usize - 1].clone()?;
            let text = fixture_line(&fx, &file, l);
            Some((file, l, text))
        };
        assert_eq!(
            answer_of(&tl, &|_| Some(wrapper_of(how)), &original),
            want,
            "{how}"
        );

        // Through the binary: exit 1 (the violation), and `--verbose` says where and why.
        let out = bin()
            .args(["check", "--verbose", "--all"])
            .args(&paths)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{how}: {stderr}");
        assert!(
            stderr.contains(&format!("{}:{}", paths[0], at + 1)),
            "{how}: the bad line's place in {stderr}"
        );
        assert!(stderr.contains(reason), "{how}: {reason} in {stderr}");
    }
}

#[test]
fn stats_names_the_wrapper() {
    let fx = fixtures()
        .into_iter()
        .find(|f| f.name == "scm-secret-keys/healthy")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (paths, _) = write_all(tmp.path(), &wrap(&fx, "cri"));
    let out = bin().arg("stats").arg(&paths[0]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("layout      daemon (detected), in wrapper cri:"),
        "{text}"
    );
    // A wrong `--wrapper` says so, not that no layout fits.
    let out = bin()
        .args(["check", "--wrapper", "journald-json", &paths[0]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The report wraps long lines at the terminal's width, with a gutter: read it as one line of words.
    let words: Vec<&str> = stderr
        .split_whitespace()
        .filter(|w| !matches!(*w, "|" | "│"))
        .collect();
    assert!(
        words.join(" ").contains(
            "no line of this input is in the wrapper `journald-json` (broken JSON at column"
        ),
        "{stderr}"
    );
    let out = bin()
        .args(["stats", "--wrapper", "nonsense", &paths[0]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown wrapper `nonsense`"));
}

#[test]
fn the_receive_time_orders_lines_whose_log4j_clock_has_only_seconds() {
    // Two SCMs in the om-ha layout (`yyyy-MM-dd HH:mm:ss`, local time two hours ahead of UTC): within one
    // second the log4j times tie, and only the runtime's clock tells scm2's line came first.
    let grammar = Grammar::embedded().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let line = |ms: &str, index: u64| {
        format!(
            "2026-08-23T08:00:01.{ms}Z stderr F 2026-08-23 10:00:01 INFO  SCMHAManagerImpl:317 - Replaced DB with checkpoint, term: 2, index: {index}\n"
        )
    };
    let scm1 = write_one(
        tmp.path(),
        &format!("scm1_ozone_scm-{}.log", container_id("a")),
        &line("900", 1),
    );
    let scm2 = write_one(
        tmp.path(),
        &format!("scm2_ozone_scm-{}.log", container_id("b")),
        &line("100", 2),
    );
    let sources = input::resolve(&[scm1.clone(), scm2.clone()]).unwrap();
    let mut times = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        scan_input(
            i as u32,
            s,
            &grammar,
            &ScanOptions::default(),
            |e| times.push(e.time.unwrap().to_string()),
            |_| {},
        );
    }
    assert_eq!(
        times,
        ["2026-08-23T10:00:01.900", "2026-08-23T10:00:01.100"]
    );
    let tl = timeline_of(&[scm1, scm2], &grammar);
    let order: Vec<String> = (0..tl.events.len())
        .map(|i| tl.events.get(i).node.unwrap().to_string())
        .collect();
    assert_eq!(order, ["scm2", "scm1"]);
    // A receive time further from the log's own than --max-skew allows is not taken.
    let far = write_one(
        tmp.path(),
        &format!("scm3_ozone_scm-{}.log", container_id("c")),
        "2026-08-23T08:07:01.100Z stderr F 2026-08-23 10:00:01 INFO  SCMHAManagerImpl:317 - Replaced DB with checkpoint, term: 2, index: 3\n",
    );
    let options = ScanOptions {
        max_skew_ms: Some(1000),
        ..ScanOptions::default()
    };
    let mut time = None;
    scan_input(
        0,
        &input::resolve(&[far]).unwrap()[0],
        &grammar,
        &options,
        |e| time = e.time,
        |_| {},
    );
    assert_eq!(time.unwrap().to_string(), "2026-08-23T10:00:01.000");
}

fn write_one(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn a_pods_container_runs_are_read_in_the_order_they_ran_whatever_their_ids() {
    // /var/log/containers keeps a file per container id; a restart (a new banner) starts a new id. The ids
    // are random, so the later run's file may come first by name: here it always does.
    let grammar = Grammar::embedded().unwrap();
    let mut restarts = 0;
    for fx in fixtures() {
        let want = canonical(&fx, &grammar);
        let mut runs: Vec<Wrapped> = Vec::new();
        for (file, bytes) in &fx.files {
            let (node, service) = node_of(file);
            let lines = receive_times(bytes);
            let starts: Vec<usize> = lines
                .iter()
                .enumerate()
                .filter(|(i, (_, l))| {
                    *i > 0 && l.ends_with("STARTUP_MSG: ") && l.as_bytes()[0].is_ascii_digit()
                })
                .map(|(i, _)| i)
                .collect();
            let bounds: Vec<usize> = std::iter::once(0)
                .chain(starts.iter().copied())
                .chain(std::iter::once(lines.len()))
                .collect();
            restarts += bounds.len() - 2;
            for (k, w) in bounds.windows(2).enumerate() {
                // Later runs get smaller ids: name order is the reverse of the order they ran.
                let id = format!("{:x}", 15 - k).repeat(64);
                let mut text = String::new();
                let mut map = LineMap::new();
                for (i, (t, l)) in lines.iter().enumerate().take(w[1]).skip(w[0]) {
                    text.push_str(&format!("{t} stderr F {l}\n"));
                    map.push(Some((file.clone(), i as u64 + 1)));
                }
                runs.push(Wrapped {
                    name: format!("{node}_ozone_{service}-{id}.log"),
                    bytes: text.into_bytes(),
                    map,
                });
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let (mut paths, maps) = write_all(tmp.path(), &runs);
        paths.sort();
        let original = |path: &str, line: u64| {
            let (file, l) = maps[path][line as usize - 1].clone()?;
            let text = fixture_line(&fx, &file, l);
            Some((file, l, text))
        };
        let tl = timeline_of(&paths, &grammar);
        let got = answer_of(&tl, &|_| Some(Wrapper::Cri), &original);
        assert_eq!(got, want, "{}: one CRI file per container run", fx.name);
    }
    assert!(restarts >= 5, "{restarts} restarts");
}

#[test]
fn event_streams_of_wrapped_logs_replay_to_the_report_of_the_logs() {
    // What the Spark job does (integrations/spark): `events` on each file where it lies, `check --events`
    // over the streams on the driver. Wrapped logs go through it unchanged: the same report, byte for byte.
    for name in ["scm-secret-keys/violating", "recon-om-sync/violating"] {
        let fx = fixtures().into_iter().find(|f| f.name == name).unwrap();
        for how in ["cri", "journald-json", "ndjson", "kubectl-prefix"] {
            let tmp = tempfile::tempdir().unwrap();
            let (paths, _) = write_all(tmp.path(), &wrap(&fx, how));
            let mut streams = Vec::new();
            for p in &paths {
                let out = bin().args(["events", p]).output().unwrap();
                assert!(
                    out.status.success(),
                    "{how}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                streams.extend_from_slice(&out.stdout);
            }
            let direct = bin()
                .args(["check", "--all", "--format", "json"])
                .args(&paths)
                .output()
                .unwrap();
            let replayed = bin()
                .args(["check", "--all", "--format", "json", "--events", "-"])
                .write_stdin(streams)
                .output()
                .unwrap();
            assert_eq!(direct.status.code(), Some(1), "{name} {how}");
            assert_eq!(replayed.status.code(), direct.status.code(), "{name} {how}");
            assert!(
                replayed.stdout == direct.stdout,
                "{name} {how}: the replayed report differs:\n{}\n---\n{}",
                String::from_utf8_lossy(&replayed.stdout),
                String::from_utf8_lossy(&direct.stdout)
            );
        }
    }
}

#[test]
fn the_scan_contract_holds_for_wrapped_input_cut_into_any_blocks() {
    // The fuzz targets' contract (src/contract.rs): every line counted once, spans at line starts and ends,
    // and the same events, unparsed lines and stats however the input is cut into blocks (down to a line a
    // block, where CRI partial lines must still be joined).
    let fx = fixtures()
        .into_iter()
        .find(|f| f.name == "recon-om-sync/violating")
        .unwrap();
    for how in WRAPPERS {
        for w in wrap(&fx, how) {
            for cut in [0u8, 1 + 4 * 3, 2 + 4 * 10, 3] {
                let mut data = vec![0, cut];
                data.extend_from_slice(&w.bytes);
                ozone_conform::contract::scan(&data);
            }
        }
    }
}
