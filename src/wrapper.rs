//! What collected a log, peeled off before its log4j layout is matched (DESIGN.md, "Wrappers before layouts").
//!
//! Operators rarely hand over the file log4j wrote: `kubectl logs --timestamps` and `docker logs -t` put an
//! RFC 3339 time before each line, kubectl's `--prefix` a `[pod/NAME/CONTAINER] `, the CRI runtimes write
//! `<time> stdout|stderr F|P <line>` to `/var/log/containers`, Docker's json-file one JSON object per line,
//! journald its short-iso text or `-o json`, and log shippers (Fluent Bit, Vector, Loki, Elasticsearch) NDJSON
//! with the line in a named field beside the Kubernetes metadata.
//!
//! A wrapper works one physical line at a time: [`Wrapper::unwrap`] gives the log's own line (a slice of the
//! wrapped one where it can, decoded text for JSON), the stream it belongs to (pod, host, stdout or stderr),
//! the runtime's receive time and whether the line is only part of one (CRI `P`, a json-file entry without
//! its `\n`). Spans stay those of the wrapped file: the scanner keeps the physical line's place.

use crate::time::{days_from_civil, digits, Timestamp};
use std::borrow::Cow;

/// How an input's lines are wrapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrapper {
    /// `kubectl logs --timestamps`, `docker logs -t` (`<RFC3339Nano> <line>`), and kubectl's `--prefix`
    /// (`[pod/scm-0/scm] `), either or both.
    Kubectl,
    /// The CRI log format (containerd, CRI-O): `<RFC3339Nano> stdout|stderr F|P <line>`.
    Cri,
    /// Docker's json-file driver: `{"log":"<line>\n","stream":"stdout","time":"..."}`.
    DockerJson,
    /// `journalctl -o short-iso` (or `short-iso-precise`): `<time> <host> <unit>[<pid>]: <line>`.
    Journald,
    /// `journalctl -o json`: the line in `MESSAGE`, the host in `_HOSTNAME`.
    JournaldJson,
    /// One JSON object per line with the log line in this field (a dotted path: `_source.message`).
    Ndjson(String),
}

/// The `stdout` or `stderr` of a container, kept apart so that a partial line joins only its own stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Unknown,
    Stdout,
    Stderr,
}

impl Channel {
    fn of(name: &[u8]) -> Channel {
        match name {
            b"stdout" => Channel::Stdout,
            b"stderr" => Channel::Stderr,
            _ => Channel::Unknown,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Channel::Unknown => "",
            Channel::Stdout => "stdout",
            Channel::Stderr => "stderr",
        }
    }
}

/// One physical line with its wrapper taken off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwrapped<'a> {
    /// The log's own line (no line end).
    pub text: Cow<'a, [u8]>,
    /// Where `text` starts in the wrapped line, when it is a slice of it.
    pub text_at: Option<usize>,
    /// The node the wrapper names (pod, `_HOSTNAME`, the journal's host column), if any.
    pub node: Option<Cow<'a, str>>,
    pub channel: Channel,
    /// The process on that node that wrote the line, where the wrapper tells (a journal's `unit[pid]`, a pod's
    /// container): lines of two processes are two streams, whose records never fold into each other.
    pub process: Option<Cow<'a, [u8]>>,
    /// The runtime's receive time, as written (parsed on demand: most lines never need it).
    pub time: Option<Cow<'a, [u8]>>,
    /// Only the start of a line; the next line of the same stream continues it.
    pub partial: bool,
}

/// Why a wrapped line is no record of its wrapper (counted as unparsed with this text).
pub type Malformed = String;

/// The names `--wrapper` takes.
pub const NAMES: &str =
    "kubectl, docker-logs, cri, docker-json, journald, journald-json, ndjson:FIELD";

impl Wrapper {
    /// `--wrapper NAME`.
    pub fn from_name(name: &str) -> Result<Wrapper, String> {
        Ok(match name {
            "kubectl" | "docker-logs" | "timestamps" => Wrapper::Kubectl,
            "cri" => Wrapper::Cri,
            "docker-json" | "json-file" => Wrapper::DockerJson,
            "journald" => Wrapper::Journald,
            "journald-json" => Wrapper::JournaldJson,
            _ => match name.strip_prefix("ndjson:") {
                Some(field) if !field.is_empty() => Wrapper::Ndjson(field.to_string()),
                _ => {
                    return Err(format!(
                        "unknown wrapper `{name}`; one of {NAMES} (ndjson needs the field that holds the line)"
                    ))
                }
            },
        })
    }

    /// The name `--wrapper` would take, shown in `stats`.
    pub fn name(&self) -> String {
        match self {
            Wrapper::Kubectl => "kubectl".into(),
            Wrapper::Cri => "cri".into(),
            Wrapper::DockerJson => "docker-json".into(),
            Wrapper::Journald => "journald".into(),
            Wrapper::JournaldJson => "journald-json".into(),
            Wrapper::Ndjson(f) => format!("ndjson:{f}"),
        }
    }

    /// Takes the wrapper off one physical line (without its line end).
    pub fn unwrap<'a>(&self, line: &'a [u8]) -> Result<Unwrapped<'a>, Malformed> {
        match self {
            Wrapper::Kubectl => unwrap_kubectl(line),
            Wrapper::Cri => unwrap_cri(line),
            Wrapper::Journald => unwrap_journald(line),
            Wrapper::DockerJson | Wrapper::JournaldJson | Wrapper::Ndjson(_) => {
                self.unwrap_json(line)
            }
        }
    }

    fn unwrap_json<'a>(&self, line: &'a [u8]) -> Result<Unwrapped<'a>, Malformed> {
        let value: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
            format!(
                "broken JSON at column {}: {e}",
                e.column().max(1) // serde_json counts columns from 1; an empty line has none
            )
        })?;
        let object = value
            .as_object()
            .ok_or_else(|| "a JSON value that is not an object".to_string())?;
        // An Elasticsearch export keeps the document under `_source`.
        let doc = object
            .get("_source")
            .and_then(|s| s.as_object())
            .unwrap_or(object);
        let field = match self {
            Wrapper::DockerJson => "log",
            Wrapper::JournaldJson => "MESSAGE",
            Wrapper::Ndjson(f) => f.as_str(),
            _ => unreachable!("only the JSON wrappers come here"),
        };
        let message = lookup(doc, field).ok_or_else(|| format!("no `{field}` field"))?;
        let mut text: Vec<u8> = match message {
            serde_json::Value::String(s) => s.as_bytes().to_vec(),
            // journald writes a message that is not valid UTF-8 as an array of its bytes.
            serde_json::Value::Array(bytes) => bytes
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| format!("`{field}` is neither a string nor bytes"))?,
            _ => return Err(format!("`{field}` is not a string")),
        };
        // json-file cuts lines longer than 16 KiB into entries; only the last one ends with `\n`.
        let partial = *self == Wrapper::DockerJson && !text.ends_with(b"\n");
        while text.last().is_some_and(|&c| c == b'\n' || c == b'\r') {
            text.pop();
        }
        let channel = ["stream", "_TRANSPORT_STREAM"]
            .iter()
            .find_map(|k| doc.get(*k).and_then(|v| v.as_str()))
            .map_or(Channel::Unknown, |s| Channel::of(s.as_bytes()));
        let node = NODE_FIELDS
            .iter()
            .find_map(|path| lookup(doc, path).and_then(|v| v.as_str()))
            .filter(|s| !s.is_empty())
            .map(|s| Cow::Owned(s.to_string()));
        let time = TIME_FIELDS
            .iter()
            .find_map(|path| match lookup(doc, path)? {
                serde_json::Value::String(s) => Some(Cow::Owned(s.as_bytes().to_vec())),
                serde_json::Value::Number(n) => Some(Cow::Owned(n.to_string().into_bytes())),
                _ => None,
            });
        // The container and its run: a shipper's stream of a restarted pod holds each run's lines under a
        // new container id, and a run's records never continue in the next one.
        let mut process: Vec<u8> = Vec::new();
        for path in PROCESS_FIELDS {
            let part = match lookup(doc, path) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Number(n)) => n.to_string(),
                _ => continue,
            };
            process.extend_from_slice(part.as_bytes());
            process.push(b'/');
        }
        let process = (!process.is_empty()).then_some(Cow::Owned(process));
        Ok(Unwrapped {
            text: Cow::Owned(text),
            text_at: None,
            node,
            channel,
            process,
            time,
            partial,
        })
    }
}

/// Where shippers put the pod (Fluent Bit, Vector, Loki labels, ECS), then the host (journald, syslog).
const NODE_FIELDS: &[&str] = &[
    "kubernetes.pod_name",
    "kubernetes.pod.name",
    "labels.pod",
    "labels.pod_name",
    "k8s.pod.name",
    "pod_name",
    "pod",
    "_HOSTNAME",
    "host.name",
    "hostname",
    "host",
];

/// Which process on the node wrote the line: the container and its id (shippers), the unit and pid
/// (journald). Every one present counts.
const PROCESS_FIELDS: &[&str] = &[
    "kubernetes.container_name",
    "kubernetes.container.name",
    "labels.container",
    "container_name",
    "kubernetes.docker_id",
    "kubernetes.container_id",
    "kubernetes.container.id",
    "container_id",
    "_SYSTEMD_UNIT",
    "_PID",
];

/// Where the receive time is: json-file and Fluent Bit `time`, Loki `timestamp`, ECS `@timestamp`,
/// journald `__REALTIME_TIMESTAMP` (microseconds since the epoch).
const TIME_FIELDS: &[&str] = &["time", "timestamp", "@timestamp", "__REALTIME_TIMESTAMP"];

/// A dotted path into a JSON object; a key that itself holds dots (`k8s.pod.name` flat) is tried first.
fn lookup<'v>(
    object: &'v serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> Option<&'v serde_json::Value> {
    if let Some(v) = object.get(path) {
        return Some(v);
    }
    let (head, rest) = path.split_once('.')?;
    lookup(object.get(head)?.as_object()?, rest)
}

/// `[pod/scm-0/scm] ` and/or `<RFC3339> `, at least one.
fn unwrap_kubectl(line: &[u8]) -> Result<Unwrapped<'_>, Malformed> {
    let mut at = 0;
    let mut node = None;
    let mut process = None;
    if line.starts_with(b"[pod/") {
        let close = memchr::memchr(b']', line).ok_or("a `[pod/` prefix without its `]`")?;
        let inside = &line[5..close];
        let pod = match memchr::memchr(b'/', inside) {
            Some(i) => {
                process = Some(Cow::Borrowed(&inside[i + 1..]));
                &inside[..i]
            }
            None => inside,
        };
        node = Some(String::from_utf8_lossy(pod));
        at = close + 1;
        if line.get(at) == Some(&b' ') {
            at += 1;
        }
    }
    let mut time = None;
    if let Some(n) = rfc3339_len(&line[at..]) {
        if matches!(line.get(at + n), Some(b' ') | None) {
            time = Some(Cow::Borrowed(&line[at..at + n]));
            at = (at + n + 1).min(line.len());
        }
    }
    if node.is_none() && time.is_none() {
        return Err("no `kubectl logs` timestamp or `[pod/...]` prefix".into());
    }
    Ok(Unwrapped {
        text: Cow::Borrowed(&line[at..]),
        text_at: Some(at),
        node,
        channel: Channel::Unknown,
        process,
        time,
        partial: false,
    })
}

/// `<RFC3339Nano> stdout|stderr F|P <line>`.
fn unwrap_cri(line: &[u8]) -> Result<Unwrapped<'_>, Malformed> {
    let n = rfc3339_len(line).ok_or("a CRI line that does not start with an RFC 3339 time")?;
    let rest = &line[n..];
    let rest = rest
        .strip_prefix(b" ")
        .ok_or("a CRI line without a stream")?;
    let (channel, rest) = if let Some(r) = rest.strip_prefix(b"stdout ") {
        (Channel::Stdout, r)
    } else if let Some(r) = rest.strip_prefix(b"stderr ") {
        (Channel::Stderr, r)
    } else {
        return Err("a CRI line without its stream (`stdout` or `stderr`)".into());
    };
    // The tag is `F` or `P`, possibly followed by more `:`-separated tags of later CRI versions.
    let tag_len = memchr::memchr(b' ', rest).unwrap_or(rest.len());
    let tag = &rest[..tag_len];
    let partial = match tag.first() {
        Some(b'F') => false,
        Some(b'P') => true,
        _ => return Err("a CRI line without its tag (`F` or `P`)".into()),
    };
    if tag.len() > 1 && tag[1] != b':' {
        return Err("a CRI line without its tag (`F` or `P`)".into());
    }
    let at = (line.len() - rest.len() + tag_len + 1).min(line.len());
    Ok(Unwrapped {
        text: Cow::Borrowed(&line[at..]),
        text_at: Some(at),
        node: None,
        channel,
        process: None,
        time: Some(Cow::Borrowed(&line[..n])),
        partial,
    })
}

/// `2026-08-23T09:00:01+0000 scm1 ozone-scm[123]: <line>`.
fn unwrap_journald(line: &[u8]) -> Result<Unwrapped<'_>, Malformed> {
    if line.starts_with(b"-- ") {
        return Err("journalctl's own line (`-- Boot ...`, `-- No entries --`)".into());
    }
    let n = rfc3339_len(line).ok_or("a journal line that does not start with a short-iso time")?;
    let rest = line[n..]
        .strip_prefix(b" ")
        .ok_or("a journal line without its host")?;
    let host_len = memchr::memchr(b' ', rest).ok_or("a journal line without its unit")?;
    let host = &rest[..host_len];
    let after_host = &rest[host_len + 1..];
    let colon = memchr::memmem::find(after_host, b": ")
        .or_else(|| after_host.ends_with(b":").then(|| after_host.len() - 1))
        .ok_or("a journal line without `unit[pid]: `")?;
    let at = (line.len() - after_host.len() + colon + 2).min(line.len());
    Ok(Unwrapped {
        text: Cow::Borrowed(&line[at..]),
        text_at: Some(at),
        node: Some(String::from_utf8_lossy(host)),
        channel: Channel::Unknown,
        process: Some(Cow::Borrowed(&after_host[..colon])),
        time: Some(Cow::Borrowed(&line[..n])),
        partial: false,
    })
}

/// The length of an RFC 3339 time at the start of `b`: `2026-08-23T09:00:01[.fraction](Z|±HH:MM|±HHMM)`.
fn rfc3339_len(b: &[u8]) -> Option<usize> {
    let head = b.get(..19)?;
    let shape = head.iter().enumerate().all(|(i, c)| match i {
        4 | 7 => *c == b'-',
        10 => *c == b'T',
        13 | 16 => *c == b':',
        _ => c.is_ascii_digit(),
    });
    if !shape {
        return None;
    }
    let mut n = 19;
    if b.get(n) == Some(&b'.') {
        let digits = b[n + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        n += 1 + digits;
    }
    match b.get(n)? {
        b'Z' => Some(n + 1),
        b'+' | b'-' => {
            let zone = &b[n + 1..];
            if zone.len() >= 5
                && zone[2] == b':'
                && zone[..2].iter().chain(&zone[3..5]).all(u8::is_ascii_digit)
            {
                Some(n + 6)
            } else if zone.len() >= 4 && zone[..4].iter().all(u8::is_ascii_digit) {
                Some(n + 5)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A receive time as wrappers write it, in UTC milliseconds since the epoch: RFC 3339 with any zone, or
/// journald's microseconds since the epoch.
pub fn parse_time(b: &[u8]) -> Option<i64> {
    if !b.is_empty() && b.iter().all(u8::is_ascii_digit) {
        let micros: i64 = std::str::from_utf8(b).ok()?.parse().ok()?;
        return Some(micros / 1000);
    }
    let n = rfc3339_len(b)?;
    let b = &b[..n];
    let (y, mo, d) = (digits(&b[0..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    let (h, mi, s) = (
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut p = 19;
    let mut ms = 0;
    if b[p] == b'.' {
        let frac: Vec<u8> = b[p + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .copied()
            .collect();
        for i in 0..3 {
            ms = ms * 10 + frac.get(i).map_or(0, |c| (c - b'0') as i64);
        }
        p += 1 + frac.len();
    }
    let offset_min = match b[p] {
        b'Z' => 0,
        sign => {
            let z = &b[p + 1..];
            let (hh, mm) = if z.get(2) == Some(&b':') {
                (digits(&z[..2])?, digits(&z[3..5])?)
            } else {
                (digits(&z[..2])?, digits(&z[2..4])?)
            };
            let m = (hh * 60 + mm) as i64;
            if sign == b'-' {
                -m
            } else {
                m
            }
        }
    };
    let days = days_from_civil(y as i64, mo, d);
    let local = ((days * 24 + h as i64) * 60 + mi as i64) * 60_000 + s as i64 * 1000 + ms;
    Some(local - offset_min * 60_000)
}

/// Lines inspected to tell the wrapper.
const DETECT_LINES: usize = 200;

/// The wrapper most of an input's first lines are in, if any.
pub fn detect(first_block: &[u8]) -> Option<Wrapper> {
    let lines: Vec<&[u8]> = first_block
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
        .take(DETECT_LINES)
        .collect();
    if lines.is_empty() {
        return None;
    }
    let most = |w: &Wrapper| lines.iter().filter(|l| w.unwrap(l).is_ok()).count() * 2 > lines.len();
    if lines[0].starts_with(b"{") {
        // The first object that parses says which JSON it is (a broken first line is only a bad record).
        let w = lines.iter().take(20).find_map(|l| json_kind(l))?;
        return most(&w).then_some(w);
    }
    // Most specific first: a CRI line is also a timestamped line, and so is a journal line.
    [Wrapper::Cri, Wrapper::Journald, Wrapper::Kubectl]
        .into_iter()
        .find(|w| most(w) && (*w != Wrapper::Journald || journal_shaped(&lines)))
}

/// A kubectl timestamped line is `<time> <text>`; a journal line `<time> <host> <unit>[pid]: `: it is one
/// only if the unit column repeats (`ozone-scm[123]: ` on most lines), not where the log's own text happens
/// to hold a `: `.
fn journal_shaped(lines: &[&[u8]]) -> bool {
    let units = lines
        .iter()
        .filter(|l| {
            let Ok(u) = unwrap_journald(l) else {
                return false;
            };
            let at = u.text_at.unwrap_or(0);
            let head = &l[..at.saturating_sub(2)];
            head.ends_with(b"]") || !head.contains(&b'[')
        })
        .count();
    units * 2 > lines.len()
        && lines
            .iter()
            .all(|l| !starts_like_log4j(&l[rfc3339_len(l).map_or(0, |n| n + 1)..]))
}

/// `2026-08-23 10:00:01,234 ` or `10:00:01.234 `: a log4j header, which a journal's host column never is.
fn starts_like_log4j(b: &[u8]) -> bool {
    b.len() > 8
        && b[..2].iter().all(u8::is_ascii_digit)
        && (b[2] == b':' || b.get(4) == Some(&b'-'))
}

/// Which JSON wrapper a first object is in.
fn json_kind(line: &[u8]) -> Option<Wrapper> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let o = v.as_object()?;
    let doc = o.get("_source").and_then(|s| s.as_object()).unwrap_or(o);
    let has = |k: &str| lookup(doc, k).is_some();
    if has("MESSAGE") && (has("__REALTIME_TIMESTAMP") || has("_HOSTNAME") || has("_SYSTEMD_UNIT")) {
        return Some(Wrapper::JournaldJson);
    }
    let shipped = NODE_FIELDS.iter().any(|f| has(f));
    if has("log") && has("stream") && has("time") && !shipped {
        return Some(Wrapper::DockerJson);
    }
    let field = ["log", "message", "line", "msg", "MESSAGE"]
        .into_iter()
        .find(|f| doc.get(*f).is_some_and(|v| v.is_string()))?;
    Some(Wrapper::Ndjson(field.to_string()))
}

/// How far back [`unfinished_partial`] looks for a stream's last line: a line cut into parts is written at
/// once, so its parts are never further apart than a few lines of the other stream.
const PARTIAL_LOOKBACK: usize = 64;

/// Where the earliest CRI partial line that no later line of `block` finishes begins (a byte offset into
/// `block`), if any: a block must not end there, or the line's parts would be cut apart. `block` ends with a
/// newline. Plain logs stop at their last line: it is no CRI line.
pub fn unfinished_partial(block: &[u8]) -> Option<usize> {
    // Per channel (stdout, stderr): decided once its last line is seen; if that is a `P`, where its run of
    // `P` lines begins.
    let mut decided = [false; 2];
    let mut earliest: Option<usize> = None;
    let mut run_open = [false; 2];
    let mut end = block.len();
    for _ in 0..PARTIAL_LOOKBACK {
        if end == 0 || decided.iter().all(|d| *d) && !run_open.iter().any(|o| *o) {
            break;
        }
        let body = &block[..end - 1];
        let start = memchr::memrchr(b'\n', body).map_or(0, |i| i + 1);
        let Ok(u) = unwrap_cri(strip_cr(&block[start..end - 1])) else {
            break;
        };
        let c = match u.channel {
            Channel::Stderr => 1,
            _ => 0,
        };
        if !decided[c] {
            decided[c] = true;
            run_open[c] = u.partial;
        } else if run_open[c] && !u.partial {
            // The `F` before the run: the run began after it.
            run_open[c] = false;
        }
        if run_open[c] {
            earliest = Some(start);
        }
        end = start;
    }
    earliest
}

/// Where a block read up to `cut` (just after a newline) should end so that no CRI partial line is parted
/// from the line that finishes it: at the start of the earliest unfinished one, unless that is the block's
/// start (a run longer than a block is cut where it must be). Plain logs keep `cut`.
pub fn keep_partials_together(block: &[u8], cut: usize) -> usize {
    match unfinished_partial(&block[..cut]) {
        Some(start) if start > 0 => start,
        _ => cut,
    }
}

/// Is this a CRI line tagged `P` (only the start of a line)?
pub fn is_cri_partial(line: &[u8]) -> bool {
    matches!(unwrap_cri(line), Ok(u) if u.partial)
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The pod a Kubernetes log file is named for: `/var/log/containers/<pod>_<namespace>_<container>-<id>.log`
/// or `/var/log/pods/<namespace>_<pod>_<uid>/<container>/<N>.log`.
pub fn pod_of_path(path: &std::path::Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".gz").unwrap_or(name);
    if let Some(stem) = stem.strip_suffix(".log") {
        let parts: Vec<&str> = stem.splitn(3, '_').collect();
        if let [pod, _namespace, container_id] = parts[..] {
            let id = container_id.rsplit_once('-').map(|(_, id)| id);
            if !pod.is_empty()
                && id.is_some_and(|id| id.len() >= 12 && id.bytes().all(|c| c.is_ascii_hexdigit()))
            {
                return Some(pod.to_string());
            }
        }
        if stem.bytes().all(|c| c.is_ascii_digit()) {
            let pod_dir = path.parent()?.parent()?.file_name()?.to_str()?;
            let parts: Vec<&str> = pod_dir.splitn(3, '_').collect();
            if let [_namespace, pod, _uid] = parts[..] {
                return (!pod.is_empty()).then(|| pod.to_string());
            }
        }
    }
    None
}

/// The container a Kubernetes log file is for, whatever run of it: `<pod>_<namespace>_<container>` of
/// `/var/log/containers/<pod>_<namespace>_<container>-<id>.log` (a restarted container gets a new id), or the
/// directory of `/var/log/pods/<namespace>_<pod>_<uid>/<container>/<restart>.log`.
pub fn container_of_path(path: &std::path::Path) -> Option<String> {
    pod_of_path(path)?;
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(name)
        .strip_suffix(".log")?;
    match stem.rsplit_once('-') {
        Some((container, _id)) if stem.contains('_') => Some(container.to_string()),
        _ => path.parent().map(|d| d.display().to_string()),
    }
}

/// The receive time on a file's first line, for the files of one container's runs.
pub fn first_receive_time(path: &std::path::Path) -> Option<i64> {
    use std::io::Read;
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .ok()?
        .take(64)
        .read_to_end(&mut head)
        .ok()?;
    parse_time(&head[..rfc3339_len(&head)?])
}

/// A log4j time made exact by the wrapper's receive time. log4j prints local time without a zone, and some
/// layouts only whole seconds (`yyyy-MM-dd HH:mm:ss`) or no date (`HH:mm:ss.SSS`); the runtime's clock is
/// UTC to the microsecond. The zone is the difference rounded to a quarter hour; if what remains is within
/// `max_skew_ms` (plus the second the layout cut off), the line is the receive time in the log's own zone.
/// Otherwise the log's time stays as it was.
pub fn refine(log: Timestamp, received_utc: i64, max_skew_ms: i64) -> Timestamp {
    const QUARTER_HOUR: i64 = 15 * 60_000;
    const DAY: i64 = 24 * 3_600_000;
    let diff = if log.has_date {
        log.millis - received_utc
    } else {
        // Only the time of day: the difference modulo a day, within ±12 hours.
        let d = (log.millis - received_utc).rem_euclid(DAY);
        if d > DAY / 2 {
            d - DAY
        } else {
            d
        }
    };
    let zone = (diff as f64 / QUARTER_HOUR as f64).round() as i64 * QUARTER_HOUR;
    if zone.abs() > 14 * 3_600_000 || (diff - zone).abs() > max_skew_ms + 1000 {
        return log;
    }
    Timestamp {
        millis: received_utc + zone,
        has_date: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(w: &Wrapper, line: &str) -> String {
        String::from_utf8(w.unwrap(line.as_bytes()).unwrap().text.into_owned()).unwrap()
    }

    const LOG: &str = "2026-08-23 09:00:01,123 [main] INFO ha.SCMHAManagerImpl: hello \"x\"";

    #[test]
    fn every_wrapper_gives_the_line_back() {
        let cases: Vec<(Wrapper, String)> = vec![
            (
                Wrapper::Kubectl,
                format!("2026-08-23T09:00:01.123456789Z {LOG}"),
            ),
            (Wrapper::Kubectl, format!("[pod/scm-0/scm] {LOG}")),
            (
                Wrapper::Kubectl,
                format!("[pod/scm-0/scm] 2026-08-23T09:00:01.123456789Z {LOG}"),
            ),
            (
                Wrapper::Cri,
                format!("2026-08-23T09:00:01.123456789+02:00 stderr F {LOG}"),
            ),
            (
                Wrapper::DockerJson,
                format!(
                    r#"{{"log":{},"stream":"stderr","time":"2026-08-23T09:00:01.123456789Z"}}"#,
                    serde_json::to_string(&format!("{LOG}\n")).unwrap()
                ),
            ),
            (
                Wrapper::Journald,
                format!("2026-08-23T09:00:01+0000 scm1 ozone-scm[812]: {LOG}"),
            ),
            (
                Wrapper::JournaldJson,
                format!(
                    r#"{{"MESSAGE":{},"_HOSTNAME":"scm1","_SYSTEMD_UNIT":"ozone-scm.service","__REALTIME_TIMESTAMP":"1787475601123456"}}"#,
                    serde_json::to_string(LOG).unwrap()
                ),
            ),
            (
                Wrapper::Ndjson("log".into()),
                format!(
                    r#"{{"log":{},"kubernetes":{{"pod_name":"scm-0","container_name":"scm","namespace_name":"ozone"}}}}"#,
                    serde_json::to_string(LOG).unwrap()
                ),
            ),
            (
                Wrapper::Ndjson("message".into()),
                format!(
                    r#"{{"_source":{{"message":{},"kubernetes":{{"pod":{{"name":"scm-0"}}}},"@timestamp":"2026-08-23T09:00:01.123Z"}}}}"#,
                    serde_json::to_string(LOG).unwrap()
                ),
            ),
        ];
        for (w, line) in &cases {
            assert_eq!(text(w, line), LOG, "{w:?}: {line}");
            assert_eq!(
                detect(format!("{line}\n{line}\n").as_bytes()).as_ref(),
                Some(w),
                "{line}"
            );
        }
        let u = Wrapper::Kubectl.unwrap(cases[2].1.as_bytes()).unwrap();
        assert_eq!(u.node.as_deref(), Some("scm-0"));
        let u = Wrapper::Ndjson("message".into())
            .unwrap(cases[8].1.as_bytes())
            .unwrap();
        assert_eq!(u.node.as_deref(), Some("scm-0"));
        let u = Wrapper::JournaldJson.unwrap(cases[6].1.as_bytes()).unwrap();
        assert_eq!(u.node.as_deref(), Some("scm1"));
        assert_eq!(
            parse_time(&u.time.unwrap()),
            parse_time(b"2026-08-23T09:00:01.123Z")
        );
    }

    #[test]
    fn a_broken_first_object_does_not_hide_the_json_wrapper() {
        let good = r#"{"log":"2026-08-23 09:00:01,123 [main] INFO a.B: x\n","stream":"stderr","time":"2026-08-23T09:00:01Z"}"#;
        let text = format!("{{\"log\":\"cut\n{good}\n{good}\n");
        assert_eq!(detect(text.as_bytes()), Some(Wrapper::DockerJson));
    }

    #[test]
    fn plain_logs_and_compose_output_have_no_wrapper() {
        assert_eq!(detect(format!("{LOG}\n{LOG}\n").as_bytes()), None);
        assert_eq!(detect(format!("scm_1  | {LOG}\n").as_bytes()), None);
        assert_eq!(detect(b"\tat a.b(C.java:1)\n"), None);
        assert_eq!(detect(b""), None);
    }

    #[test]
    fn cri_tags_and_bad_lines() {
        let u = unwrap_cri(b"2026-08-23T09:00:01.1Z stdout P part one").unwrap();
        assert!(u.partial);
        assert_eq!(&*u.text, b"part one");
        assert_eq!(u.channel, Channel::Stdout);
        assert_eq!(
            &*unwrap_cri(b"2026-08-23T09:00:01.1Z stdout F").unwrap().text,
            b""
        );
        let err = unwrap_cri(b"2026-08-23T09:00:01.1Z stdout hello").unwrap_err();
        assert!(err.contains("tag"), "{err}");
        assert!(unwrap_cri(b"2026-08-23T09:00:01.1Z hello F x").is_err());
        let err = Wrapper::DockerJson.unwrap(br#"{"log":"x"#).unwrap_err();
        assert!(err.starts_with("broken JSON at column"), "{err}");
        assert!(Wrapper::Ndjson("log".into())
            .unwrap(br#"{"msg":"x"}"#)
            .unwrap_err()
            .contains("`log`"));
    }

    #[test]
    fn an_unfinished_partial_is_found_across_the_other_stream() {
        let block = b"2026-08-23T09:00:01Z stdout F zero\n2026-08-23T09:00:01Z stdout P one\n2026-08-23T09:00:01Z stderr F warn\n";
        assert_eq!(unfinished_partial(block), Some(35));
        let done = b"2026-08-23T09:00:01Z stdout P one\n2026-08-23T09:00:01Z stderr F warn\n2026-08-23T09:00:01Z stdout F two\n";
        assert_eq!(unfinished_partial(done), None);
        assert_eq!(unfinished_partial(b"plain line\n"), None);
    }

    #[test]
    fn partial_runs_stay_in_one_block() {
        let block = b"2026-08-23T09:00:01Z stdout F one\n2026-08-23T09:00:01Z stdout P tw\n2026-08-23T09:00:01Z stdout P o\n";
        let cut = keep_partials_together(block, block.len());
        assert_eq!(&block[..cut], b"2026-08-23T09:00:01Z stdout F one\n");
        let only = b"2026-08-23T09:00:01Z stdout P tw\n";
        assert_eq!(keep_partials_together(only, only.len()), only.len());
        let plain = b"a\nb\n";
        assert_eq!(keep_partials_together(plain, 2), 2);
    }

    #[test]
    fn times_and_zones() {
        let z = parse_time(b"2026-08-23T09:00:01.123456789Z").unwrap();
        assert_eq!(parse_time(b"2026-08-23T11:00:01.123+02:00"), Some(z));
        assert_eq!(parse_time(b"2026-08-23T04:00:01.123-0500"), Some(z));
        assert_eq!(parse_time(b"1787475601123456").unwrap() % 1000, 123);
        // A seconds-only local time two hours ahead of UTC takes the receive time's milliseconds.
        let local = Timestamp::from_parts(2026, 8, 23, 11, 0, 1, 0);
        let t = refine(local, z, 500);
        assert_eq!(t.to_string(), "2026-08-23T11:00:01.123");
        // A time of day gets the date.
        let tod = Timestamp {
            millis: (9 * 3600 + 1) * 1000 + 120,
            has_date: false,
        };
        assert_eq!(refine(tod, z, 500).to_string(), "2026-08-23T09:00:01.123");
        // Too far apart: left alone.
        let off = Timestamp::from_parts(2026, 8, 23, 9, 7, 1, 0);
        assert_eq!(refine(off, z, 500), off);
    }

    #[test]
    fn pods_from_kubernetes_paths() {
        let p = std::path::Path::new(
            "/var/log/containers/scm-0_ozone_scm-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.log",
        );
        assert_eq!(pod_of_path(p).as_deref(), Some("scm-0"));
        let p = std::path::Path::new("/var/log/pods/ozone_scm-1_3f1c2b4a/scm/2.log");
        assert_eq!(pod_of_path(p).as_deref(), Some("scm-1"));
        assert_eq!(
            pod_of_path(std::path::Path::new("ozone-hadoop-scm-scm1.log")),
            None
        );
    }
}
