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
            .any(|l| l == "ozone-conform: scm-secret-keys: violated: 4 violation(s)"),
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
