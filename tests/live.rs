//! Live checks: a pipe on stdin and `--follow` report a violation as soon as its line arrives, while the input
//! is still open.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

fn violating_test_output() -> (String, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios/scm-secret-keys/violating/merged");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file).unwrap();
    (
        file.file_name().unwrap().to_string_lossy().into_owned(),
        text.lines().map(|l| format!("{l}\n")).collect(),
    )
}

/// Lines of the child's stdout, as they come.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let (tx, rx) = channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    rx
}

/// The violation line `check --format concise` prints for the fixture: its primary record is line 171.
const VIOLATION: &str = ":171:1: error[OZ-SCM-KEYS-001]";

#[test]
fn a_pipe_is_checked_as_it_goes_and_the_verdicts_follow_at_its_end() {
    let (_, lines) = violating_test_output();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--format", "concise", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    // Up to a few records past the violating one (a record is complete once the next one starts).
    for l in &lines[..180] {
        stdin.write_all(l.as_bytes()).unwrap();
    }
    stdin.flush().unwrap();
    let first = out
        .recv_timeout(Duration::from_secs(30))
        .expect("the violation is reported while stdin is still open");
    assert!(
        first.starts_with("-") && first.contains(VIOLATION),
        "{first}"
    );
    for l in &lines[180..] {
        stdin.write_all(l.as_bytes()).unwrap();
    }
    drop(stdin);
    let rest: Vec<String> = out.iter().collect();
    assert!(
        rest.iter()
            .any(|l| l
                == "ozone-conform: scm-secret-keys: violated: 4 violation(s), 1 shown (--all for every one)"),
        "{rest:?}"
    );
    // The streamed violation is not printed twice.
    assert!(!rest.iter().any(|l| l.contains(VIOLATION)), "{rest:?}");
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// Waits until process `pid` has `path` open (Linux: /proc/PID/fd); elsewhere, waits a second and says yes.
fn holds_open(pid: u32, path: &Path, timeout: Duration) -> bool {
    let fds = format!("/proc/{pid}/fd");
    if !Path::new(&fds).exists() {
        std::thread::sleep(Duration::from_secs(1));
        return true;
    }
    let want = std::fs::canonicalize(path).unwrap();
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        let open = std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == want));
        if open {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn follow_reports_a_violation_written_after_it_started_even_across_a_rotation() {
    let (name, lines) = violating_test_output();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&name);
    std::fs::write(&path, lines[..100].concat()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--follow", "--format", "concise"])
        .arg(&path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    // Rotate only once the follower holds the first file open (a slow start on a loaded machine would
    // otherwise open the new file and never see the first part).
    assert!(
        holds_open(child.id(), &path, Duration::from_secs(30)),
        "the follower opens the file"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(out.try_recv().is_err(), "nothing violated yet");
    // log4j rolls the file over: the old one is renamed, the rest of the log goes to a new file.
    std::fs::rename(&path, path.with_extension("txt.1")).unwrap();
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(lines[100..].concat().as_bytes()).unwrap();
    f.flush().unwrap();
    let got = out.recv_timeout(Duration::from_secs(30));
    let _ = child.kill();
    let _ = child.wait();
    let line = got.expect("the violation is reported while the file is followed");
    assert!(line.contains(&name) && line.contains(VIOLATION), "{line}");
}

#[test]
fn follow_wants_a_line_format() {
    let (_, lines) = violating_test_output();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x-output.txt");
    std::fs::write(&path, lines.concat()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--follow", "--format", "sarif"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use a line format"));
}

/// The fixture file of a scenario's `merged/` copy.
fn merged(scenario: &str, kind: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios")
        .join(scenario)
        .join(kind)
        .join("merged");
    std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

/// Waits until process `pid` catches `signal` (Linux: the `SigCgt` mask of /proc/PID/status), so a signal
/// sent next reaches the handler rather than the default action; elsewhere, waits a second.
fn catches(pid: u32, signal: i32, timeout: Duration) -> bool {
    let status = format!("/proc/{pid}/status");
    if !Path::new(&status).exists() {
        std::thread::sleep(Duration::from_secs(1));
        return true;
    }
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("SigCgt:"))
                    .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            })
            .is_some_and(|mask| mask & (1 << (signal - 1)) != 0);
        if caught {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Bytes process `pid` has read so far (Linux: `rchar` of /proc/PID/io; elsewhere none).
fn bytes_read(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|n| n.trim().parse().ok())
}

/// Waits until process `pid` has read `len` more bytes than `before` (elsewhere, a second), then a look.
fn has_read(pid: u32, before: Option<u64>, len: usize, timeout: Duration) {
    let deadline = std::time::Instant::now() + timeout;
    match before {
        Some(before) => {
            while bytes_read(pid).is_some_and(|n| n < before + len as u64) {
                assert!(std::time::Instant::now() < deadline, "the checker reads");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        None => std::thread::sleep(Duration::from_secs(1)),
    }
    std::thread::sleep(live_look());
}

/// A little more than one look of the live loop.
fn live_look() -> Duration {
    Duration::from_millis(300)
}

fn send(child: &Child, signal: i32) {
    assert!(
        catches(child.id(), signal, Duration::from_secs(30)),
        "the checker handles signal {signal}"
    );
    // SAFETY: kill(2) on our own child's pid has no memory effects.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

/// Waits for the child to exit (at most 30 s) and returns its code and the rest of its stdout.
fn ends(mut child: Child, out: Receiver<String>) -> (Option<i32>, Vec<String>) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the checker did not end on the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let code = child.wait().unwrap().code();
    (code, out.iter().collect())
}

fn follow(path: &Path) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--follow", "--format", "concise"])
        .arg(path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    (child, out)
}

#[test]
fn follow_ends_on_sigint_with_the_verdicts_and_exit_1_after_a_violation() {
    let (child, out) = follow(&merged("scm-secret-keys", "violating"));
    let first = out.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(first.contains(VIOLATION), "{first}");
    send(&child, libc::SIGINT);
    let (code, rest) = ends(child, out);
    assert_eq!(code, Some(1), "{rest:?}");
    assert!(
        rest.iter()
            .any(|l| l
                == "ozone-conform: scm-secret-keys: violated: 4 violation(s), 1 shown (--all for every one)"),
        "{rest:?}"
    );
    assert!(!rest.iter().any(|l| l.contains(VIOLATION)), "{rest:?}");
}

#[test]
fn follow_ends_on_sigterm_with_the_verdicts_and_exit_0_when_healthy() {
    let path = merged("scm-secret-keys", "healthy");
    let (child, out) = follow(&path);
    assert!(catches(child.id(), libc::SIGTERM, Duration::from_secs(30)));
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    has_read(child.id(), Some(0), len, Duration::from_secs(30));
    send(&child, libc::SIGTERM);
    let (code, rest) = ends(child, out);
    assert_eq!(code, Some(0), "{rest:?}");
    assert!(
        rest.iter()
            .any(|l| l.starts_with("ozone-conform: scm-secret-keys: conforms: ")),
        "{rest:?}"
    );
    assert_eq!(rest.len(), 4, "one verdict per model: {rest:?}");
}

/// `check -` fed `text` by a pipe that stays open, then sent `signal`.
fn pipe_then_signal(
    text: &str,
    signal: i32,
    wait_for_violation: bool,
) -> (Option<i32>, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--format", "concise", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    assert!(catches(child.id(), signal, Duration::from_secs(30)));
    let before = bytes_read(child.id());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut seen = Vec::new();
    if wait_for_violation {
        seen.push(out.recv_timeout(Duration::from_secs(30)).unwrap());
    } else {
        // The verdicts must rest on what was written.
        has_read(child.id(), before, text.len(), Duration::from_secs(30));
    }
    send(&child, signal);
    let (code, rest) = ends(child, out);
    drop(stdin);
    seen.extend(rest);
    (code, seen)
}

#[test]
fn a_pipe_held_open_ends_on_sigterm_with_the_verdicts_and_exit_1_after_a_violation() {
    let text = std::fs::read_to_string(merged("scm-secret-keys", "violating")).unwrap();
    let (code, lines) = pipe_then_signal(&text, libc::SIGTERM, true);
    assert_eq!(code, Some(1), "{lines:?}");
    assert!(lines[0].contains(VIOLATION), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ozone-conform: scm-secret-keys: violated: ")),
        "{lines:?}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("error[")).count(),
        1,
        "one violation per model without --all: {lines:?}"
    );
}

#[test]
fn a_pipe_held_open_ends_on_sigint_with_the_verdicts_and_exit_0_when_healthy() {
    let text = std::fs::read_to_string(merged("scm-secret-keys", "healthy")).unwrap();
    let (code, lines) = pipe_then_signal(&text, libc::SIGINT, false);
    assert_eq!(code, Some(0), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ozone-conform: scm-secret-keys: conforms: ")),
        "{lines:?}"
    );
}

#[test]
fn a_late_input_with_an_earlier_violation_supersedes_the_first_printed() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios/scm-secret-keys/violating");
    let dir = tempfile::tempdir().unwrap();
    // A fourth SCM whose log is scm3's two days later: alone, its first violation is KEYS-002 at line 153.
    let scm3 = std::fs::read_to_string(src.join("ozone-hadoop-scm-scm3.log")).unwrap();
    let late: String = scm3
        .lines()
        .map(|l| {
            let l = l.replace("scm3", "scm4");
            match l.strip_prefix("2026-08-23") {
                Some(rest) => format!("2026-08-25{rest}\n"),
                None => format!("{l}\n"),
            }
        })
        .collect();
    let scm4 = dir.path().join("ozone-hadoop-scm-scm4.log");
    std::fs::write(&scm4, late).unwrap();
    // The real cluster's logs arrive after that one was reported: scm3's line 77 is earlier.
    let mut paths = vec![scm4.clone()];
    let mut rest = Vec::new();
    for n in 1..=3 {
        let name = format!("ozone-hadoop-scm-scm{n}.log");
        let text = std::fs::read_to_string(src.join(&name)).unwrap();
        let path = dir.path().join(&name);
        std::fs::write(&path, "").unwrap();
        paths.push(path.clone());
        rest.push((path, text));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args([
            "check",
            "--follow",
            "--format",
            "json-lines",
            "--model",
            "scm-secret-keys",
        ])
        .args(&paths)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    let first: serde_json::Value =
        serde_json::from_str(&out.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap();
    assert_eq!(first["type"], "violation");
    assert_eq!(first["code"], "OZ-SCM-KEYS-002", "{first}");
    for (path, _) in &rest {
        assert!(holds_open(child.id(), path, Duration::from_secs(30)));
    }
    for (path, text) in &rest {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }
    let note: serde_json::Value =
        serde_json::from_str(&out.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap();
    send(&child, libc::SIGTERM);
    let (code, rest) = ends(child, out);
    assert_eq!(note["type"], "superseded", "{note}");
    assert_eq!(note["model"], "scm-secret-keys");
    assert_eq!(note["printed"]["code"], "OZ-SCM-KEYS-002");
    assert_eq!(note["printed"]["line"], 153);
    assert!(note["printed"]["path"]
        .as_str()
        .unwrap()
        .ends_with("scm4.log"));
    assert_eq!(note["first"]["code"], "OZ-SCM-KEYS-001", "{note}");
    assert_eq!(note["first"]["first"], true);
    assert_eq!(code, Some(1));
    let types: Vec<String> = rest
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].to_string())
        .collect();
    assert_eq!(types, ["\"verdict\""], "{rest:?}");
}

/// A FIFO named on the command line (`mkfifo f; producer > f & check f`) is read like a pipe on stdin: its
/// violation is reported while its writer still holds it open, and the verdicts follow when the writer closes.
#[cfg(unix)]
#[test]
fn a_fifo_named_as_a_path_is_checked_as_it_goes() {
    let (name, lines) = violating_test_output();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join(&name);
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--format", "concise"])
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    // Opening for writing waits until the check opens the FIFO for reading.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    for l in &lines[..180] {
        writer.write_all(l.as_bytes()).unwrap();
    }
    writer.flush().unwrap();
    let first = out
        .recv_timeout(Duration::from_secs(30))
        .expect("the violation is reported while the FIFO's writer is still open");
    assert!(
        first.contains(&name) && first.contains(VIOLATION),
        "{first}"
    );
    for l in &lines[180..] {
        writer.write_all(l.as_bytes()).unwrap();
    }
    drop(writer);
    let rest: Vec<String> = out.iter().collect();
    assert!(
        rest.iter()
            .any(|l| l
                == "ozone-conform: scm-secret-keys: violated: 4 violation(s), 1 shown (--all for every one)"),
        "{rest:?}"
    );
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn follow_waits_for_a_file_that_is_not_there_yet_and_says_so() {
    let (name, lines) = violating_test_output();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&name);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--follow", "--format", "concise"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(&mut child);
    let (tx, err) = channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let said = err
        .recv_timeout(Duration::from_secs(30))
        .expect("it says it waits");
    assert!(
        said.contains(&format!(
            "{name}: not there yet; waiting for it to appear (--follow)"
        )),
        "{said}"
    );
    std::thread::sleep(live_look());
    assert!(
        child.try_wait().unwrap().is_none(),
        "it waits, as tail -F does"
    );
    std::fs::write(&path, lines.concat()).unwrap();
    let got = out
        .recv_timeout(Duration::from_secs(30))
        .expect("the file's violation, once it appeared");
    assert!(got.contains(VIOLATION), "{got}");
    send(&child, libc::SIGINT);
    let (code, _) = ends(child, out);
    assert_eq!(code, Some(1));
}
