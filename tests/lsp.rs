//! `ozone-conform lsp` driven as an editor would: real JSON-RPC messages with `Content-Length` framing over
//! the binary's stdin/stdout.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails (a check of the fixtures takes milliseconds).
const TIMEOUT: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// The latest diagnostics published per URI, and every publication in order.
    diagnostics: HashMap<String, Vec<Value>>,
    publications: Vec<(String, Vec<Value>)>,
    log_messages: Vec<String>,
}

impl Client {
    fn spawn() -> Client {
        Client::spawn_with(&[])
    }

    /// The server with these environment variables set.
    fn spawn_with(env: &[(&str, &Path)]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
            .arg("lsp")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn ozone-conform lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    assert!(line.ends_with("\r\n"), "header line {line:?}");
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = Some(v.parse::<usize>().unwrap());
                    }
                }
                let mut body = vec![0; len.expect("Content-Length header")];
                r.read_exact(&mut body).unwrap();
                let msg: Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(msg["jsonrpc"], "2.0");
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            next_id: 0,
            diagnostics: HashMap::new(),
            publications: Vec::new(),
            log_messages: Vec::new(),
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message from the server; notifications are recorded on the way.
    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = self
            .rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("no message from the server within {TIMEOUT:?}: {e}"));
        match msg["method"].as_str() {
            Some("textDocument/publishDiagnostics") => {
                let uri = msg["params"]["uri"].as_str().unwrap().to_string();
                let list = msg["params"]["diagnostics"].as_array().unwrap().clone();
                self.diagnostics.insert(uri.clone(), list.clone());
                self.publications.push((uri, list));
            }
            Some("window/logMessage") => self
                .log_messages
                .push(msg["params"]["message"].as_str().unwrap().to_string()),
            _ => {}
        }
        msg
    }

    /// Sends a request and returns its response; everything the server sent before it has been recorded.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self.recv(deadline);
            if msg["id"] == id && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    /// Waits until diagnostics were published for every one of `uris` (since the last `clear`).
    fn wait_for(&mut self, uris: &[&str]) {
        let deadline = Instant::now() + TIMEOUT;
        while !uris
            .iter()
            .all(|u| self.publications.iter().any(|(p, _)| p == u))
        {
            self.recv(deadline);
        }
    }

    /// Everything that follows `check_point` was published after it.
    fn check_point(&mut self) {
        // An unknown request is a barrier: the server answers in order.
        let r = self.request("ozone-conform/unknown", json!({}));
        assert_eq!(r["error"]["code"], -32601, "{r}");
        self.publications.clear();
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "log", "version": 1, "text": text}}),
        );
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `file:` URI of an absolute path (temp directories need no escaping beyond spaces).
fn uri(path: &Path) -> String {
    let p = path.to_str().unwrap();
    assert!(p.starts_with('/'), "{p}");
    format!("file://{}", p.replace(' ', "%20"))
}

fn fixtures(case: &str) -> PathBuf {
    crate::common::scenario("scm-secret-keys", case)
}

/// Copies a case's daemon logs (not `merged/`) into `dir`.
fn copy_case(case: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(fixtures(case)).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// `check --all --format json` on a directory: what the server must publish.
fn check_json(dir: &Path) -> Value {
    let (code, report) = crate::common::check_json(&["--all"], &[dir]);
    assert_eq!(code, 1, "the case is violating");
    report
}

#[test]
fn lsp_publishes_violations_with_their_causal_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let violating = tmp.path().join("violating cluster");
    let healthy = tmp.path().join("healthy");
    copy_case("violating", &violating);
    copy_case("healthy", &healthy);
    let expected = check_json(&violating);
    let violations: Vec<&Value> = expected["models"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["violations"].as_array().unwrap())
        .collect();
    assert!(!violations.is_empty());
    let first = violations[0];
    assert_eq!(first["code"], "OZ-SCM-KEYS-001");

    let mut c = Client::spawn();
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["textDocumentSync"]["openClose"], true, "{init}");
    assert_eq!(caps["textDocumentSync"]["change"], 1, "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "ozone-conform");
    c.notify("initialized", json!({}));

    // Opening one SCM's log checks the whole directory: the violation is on another SCM's log.
    let scm1 = violating.join("ozone-hadoop-scm-scm1.log");
    let scm1_text = std::fs::read_to_string(&scm1).unwrap();
    c.open(&scm1, &scm1_text);
    let primary_path = PathBuf::from(first["primary"]["path"].as_str().unwrap());
    assert_ne!(primary_path, scm1);
    let primary_uri = uri(&primary_path);
    c.wait_for(&[&uri(&scm1), &primary_uri]);
    c.check_point();

    // One diagnostic per violation of `check --all`, each on its file.
    let published: usize = c.diagnostics.values().map(Vec::len).sum();
    assert_eq!(published, violations.len(), "{:?}", c.diagnostics);
    for v in &violations {
        let line = v["primary"]["line"].as_u64().unwrap() - 1;
        let list = &c.diagnostics[&uri(Path::new(v["primary"]["path"].as_str().unwrap()))];
        assert!(
            list.iter()
                .any(|d| d["code"] == v["code"] && d["range"]["start"]["line"] == line),
            "{v} not in {list:?}"
        );
    }

    // The first violation, in detail.
    let line = first["primary"]["line"].as_u64().unwrap() - 1;
    let d = c.diagnostics[&primary_uri]
        .iter()
        .find(|d| d["code"] == "OZ-SCM-KEYS-001" && d["range"]["start"]["line"] == line)
        .unwrap()
        .clone();
    assert_eq!(d["severity"], 1, "error");
    assert_eq!(d["source"], "ozone-conform");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("KeyFileCoversDb"), "{message}");
    let spec = format!(
        "{}:{}",
        first["spec"]["path"].as_str().unwrap(),
        first["spec"]["line"]
    );
    assert!(message.contains(&spec), "{message} cites {spec}");
    assert_eq!(
        d["codeDescription"]["href"],
        "https://issues.apache.org/jira/browse/HDDS-16923"
    );
    // The range is the message part of the line: from after the layout's header to the end of the line.
    let text = std::fs::read_to_string(&primary_path).unwrap();
    let line_text = text.lines().nth(line as usize).unwrap();
    let (start, end) = (
        d["range"]["start"]["character"].as_u64().unwrap() as usize,
        d["range"]["end"]["character"].as_u64().unwrap() as usize,
    );
    assert_eq!(d["range"]["end"]["line"], line);
    assert_eq!(end, line_text.encode_utf16().count());
    assert!(line_text[..start].ends_with(": "), "{line_text} at {start}");
    // The causal chain: the earlier lines, in order, with what each contributed.
    let related = d["relatedInformation"].as_array().unwrap();
    let want = first["related"].as_array().unwrap();
    assert!(!want.is_empty());
    assert_eq!(related.len(), want.len(), "{related:?}");
    for (r, w) in related.iter().zip(want) {
        let rl = r["location"]["range"]["start"]["line"].as_u64().unwrap();
        assert_eq!(
            r["location"]["uri"],
            uri(Path::new(w["path"].as_str().unwrap()))
        );
        assert_eq!(rl, w["line"].as_u64().unwrap() - 1);
        assert!(
            rl < line,
            "related line {rl} is before the violation at {line}"
        );
        assert_eq!(r["message"], w["label"]);
    }

    // A healthy cluster in another directory is checked on its own: nothing to report.
    let healthy_scm1 = healthy.join("ozone-hadoop-scm-scm1.log");
    c.open(
        &healthy_scm1,
        &std::fs::read_to_string(&healthy_scm1).unwrap(),
    );
    c.wait_for(&[&uri(&healthy_scm1)]);
    c.check_point();
    assert_eq!(c.diagnostics[&uri(&healthy_scm1)], Vec::<Value>::new());
    for (u, list) in &c.diagnostics {
        assert!(!u.contains("/healthy/") || list.is_empty(), "{u}: {list:?}");
    }
    assert!(
        c.log_messages
            .iter()
            .any(|m| m.contains("scm-secret-keys: conforms")),
        "{:?}",
        c.log_messages
    );

    // Unsaved text counts: the healthy scm3 edited (not saved) into the violating one's story.
    let healthy_scm3 = healthy.join("ozone-hadoop-scm-scm3.log");
    let violating_scm3_text =
        std::fs::read_to_string(violating.join("ozone-hadoop-scm-scm3.log")).unwrap();
    c.open(&healthy_scm3, &violating_scm3_text);
    c.wait_for(&[&uri(&healthy_scm3)]);
    c.check_point();
    let list = &c.diagnostics[&uri(&healthy_scm3)];
    assert!(
        list.iter()
            .any(|d| d["code"] == "OZ-SCM-KEYS-001" && d["range"]["start"]["line"] == line),
        "{list:?}"
    );

    // Edited back and saved: the diagnostics are withdrawn with an empty list.
    let healthy_scm3_text = std::fs::read_to_string(&healthy_scm3).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&healthy_scm3), "version": 2},
               "contentChanges": [{"text": healthy_scm3_text}]}),
    );
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&healthy_scm3)}}),
    );
    c.wait_for(&[&uri(&healthy_scm3)]);
    c.check_point();
    assert_eq!(c.diagnostics[&uri(&healthy_scm3)], Vec::<Value>::new());

    // Garbage between messages is reported, not fatal.
    write!(c.stdin, "Content-Length: 9\r\n\r\n{{not json").unwrap();
    c.check_point();
    assert!(
        c.log_messages
            .iter()
            .any(|m| m.contains("unreadable message")),
        "{:?}",
        c.log_messages
    );

    // Closing the violating cluster's last open log withdraws its diagnostics.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&scm1)}}),
    );
    c.wait_for(&[&primary_uri]);
    c.check_point();
    assert_eq!(c.diagnostics[&primary_uri], Vec::<Value>::new());

    // shutdown, then exit: exit code 0.
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null, "{r}");
    assert!(r.get("error").is_none(), "{r}");
    let after = c.request("ozone-conform/unknown", json!({}));
    assert_eq!(
        after["error"]["code"], -32600,
        "requests after shutdown are invalid"
    );
    c.notify("exit", Value::Null);
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(s) = c.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn inconclusive_diagnostics_carry_a_code_and_the_range_of_the_first_record_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("midflight");
    copy_case("midflight", &dir);
    let mut c = Client::spawn();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"inconclusive": true}}),
    );
    c.notify("initialized", json!({}));
    let scm1 = dir.join("ozone-hadoop-scm-scm1.log");
    let text = std::fs::read_to_string(&scm1).unwrap();
    c.open(&scm1, &text);
    let deadline = Instant::now() + TIMEOUT;
    let found = loop {
        let all: Vec<Value> = c.diagnostics.values().flatten().cloned().collect();
        if let Some(d) = all.into_iter().find(|d| {
            d["data"]["verdict"] == "inconclusive" && d["data"]["model"] == "scm-secret-keys"
        }) {
            break d;
        }
        c.recv(deadline);
    };
    assert_eq!(found["code"], "OZ-SCM-KEYS-INCONCLUSIVE", "{found}");
    let r = &found["range"];
    assert_eq!(r["start"]["line"], r["end"]["line"], "{found}");
    assert!(
        r["end"]["character"].as_u64().unwrap() > r["start"]["character"].as_u64().unwrap(),
        "a real range, not an empty one at 0:0: {found}"
    );
}

/// Unsaved text is checked from memory: with no temporary directory the server could write to, an edited
/// log's violation is still found, and no error is logged (the server once wrote each unsaved buffer to a
/// temporary file and rewrote its path in the errors).
#[test]
fn unsaved_text_is_checked_without_temporary_files() {
    let tmp = tempfile::tempdir().unwrap();
    let healthy = tmp.path().join("healthy");
    copy_case("healthy", &healthy);
    // A temporary directory under a plain file: nothing can be made there.
    let blocked = tmp.path().join("a file");
    std::fs::write(&blocked, "").unwrap();
    let mut c = Client::spawn_with(&[("TMPDIR", &blocked.join("tmp"))]);
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    c.notify("initialized", json!({}));
    let scm3 = healthy.join("ozone-hadoop-scm-scm3.log");
    let violating_scm3 =
        std::fs::read_to_string(fixtures("violating").join("ozone-hadoop-scm-scm3.log")).unwrap();
    c.open(&scm3, &violating_scm3);
    c.wait_for(&[&uri(&scm3)]);
    c.check_point();
    let list = &c.diagnostics[&uri(&scm3)];
    assert!(
        list.iter().any(|d| d["code"] == "OZ-SCM-KEYS-001"),
        "{list:?} {:?}",
        c.log_messages
    );
    assert!(
        !c.log_messages.iter().any(|m| m.contains("cannot write")),
        "{:?}",
        c.log_messages
    );
    // The file on disk is the healthy one still.
    assert_eq!(
        std::fs::read_to_string(&scm3).unwrap(),
        std::fs::read_to_string(fixtures("healthy").join("ozone-hadoop-scm-scm3.log")).unwrap()
    );
}
