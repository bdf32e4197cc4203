//! Telling which node a record came from.
//!
//! Stronger sources win: `--node`, then the file name, the docker-compose prefix, the banner's `host =` line,
//! and, for single-JVM integration-test output, the thread name. When none applies the node is unknown
//! (`null`), never guessed.

use crate::event::NodeSource;
use std::sync::Arc;

/// `ozone-<user>-<service>-<host>.log[.N][.gz]` (daemon logs), `<svc>-audit-<host>.log`,
/// `dn-container-<host>.log`: the host and the service.
pub fn from_file_name(name: &str) -> Option<(String, String)> {
    let mut base = name.strip_suffix(".gz").unwrap_or(name);
    for sep in [".log.", ".log-", ".out."] {
        if let Some((b, n)) = base.rsplit_once(sep) {
            if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) {
                base = &base[..b.len() + 4];
            }
        }
    }
    let stem = base
        .strip_suffix(".log")
        .or_else(|| base.strip_suffix(".out"))?;
    if let Some(rest) = stem.strip_prefix("ozone-") {
        // The user name may hold dashes; the service is one of Ozone's daemons.
        for service in ["scm", "datanode", "om", "recon", "s3g", "httpfs"] {
            let needle = format!("-{service}-");
            if let Some(i) = rest.find(&needle) {
                let host = &rest[i + needle.len()..];
                if !host.is_empty() && i > 0 {
                    return Some((host.to_string(), service.to_string()));
                }
            }
        }
        return None;
    }
    for (prefix, service) in [
        ("scm-audit-", "scm"),
        ("om-audit-", "om"),
        ("dn-audit-", "datanode"),
        ("s3g-audit-", "s3g"),
        ("dn-container-", "datanode"),
    ] {
        if let Some(host) = stem.strip_prefix(prefix) {
            if !host.is_empty() {
                return Some((host.to_string(), service.to_string()));
            }
        }
    }
    None
}

/// docker-compose's `name_1   | ` (v1) or `name-1  | ` (v2) line prefix: the container name and the rest.
pub fn split_docker_prefix(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let first = *line.first()?;
    if !first.is_ascii_alphanumeric() {
        return None;
    }
    let name_len = line
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    let rest = &line[name_len..];
    let spaces = rest.iter().take_while(|&&c| c == b' ').count();
    if spaces == 0 {
        return None;
    }
    let rest = &rest[spaces..];
    let rest = rest.strip_prefix(b"|")?;
    // `name | ` before the text, or a bare `name |` for an empty line.
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    Some((&line[..name_len], rest))
}

/// A node named by the thread (or message start) in integration-test output where all nodes share one file.
pub fn from_thread(thread: &str, message: &[u8]) -> Option<(Arc<str>, NodeSource)> {
    if let Some(peer) = ratis_member_peer(thread.as_bytes()) {
        return Some((peer.into(), NodeSource::RatisMember));
    }
    if let Some(prefix) = node_id_prefix(thread) {
        return Some((prefix.into(), NodeSource::ThreadPrefix));
    }
    ratis_member_peer(message).map(|peer| (peer.into(), NodeSource::RatisMember))
}

/// `<peer>@group-<12 hex>` at the start: the peer id (the SCM id or datanode UUID).
fn ratis_member_peer(b: &[u8]) -> Option<&str> {
    let at = memchr::memchr(b'@', &b[..b.len().min(80)])?;
    let peer = &b[..at];
    if peer.is_empty()
        || !peer
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_')
    {
        return None;
    }
    let rest = b[at + 1..].strip_prefix(b"group-")?;
    let hex = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    if hex < 6 {
        return None;
    }
    std::str::from_utf8(peer).ok()
}

/// Ozone's `HddsUtils.threadNamePrefix(id)` makes threads like `scm1-SCMInstallSnapshot-0`: the SCM or OM node
/// id (`scm1`, `scmNode-2`, `om1`), a datanode's UUID, or `Recon`. Only those shapes count: any other
/// dash-separated word (`Thread-0`, `ReconTaskThread-1`) is an ordinary thread name.
fn node_id_prefix(thread: &str) -> Option<&str> {
    let b = thread.as_bytes();
    if b.len() > 37 && b[36] == b'-' && is_uuid(&b[..36]) {
        return Some(&thread[..36]);
    }
    if thread.starts_with("Recon-") {
        return Some("Recon");
    }
    for service in ["scmNode-", "omNode-", "scm", "om", "dn", "datanode"] {
        if let Some(rest) = thread.strip_prefix(service) {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && rest.as_bytes().get(digits) == Some(&b'-') && rest.len() > digits + 1 {
                return Some(&thread[..service.len() + digits]);
            }
        }
    }
    None
}

/// The canonical 8-4-4-4-12 hex form of a UUID.
pub(crate) use crate::value::is_uuid;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let f = |n: &str| from_file_name(n);
        assert_eq!(
            f("ozone-hadoop-scm-scm1.log"),
            Some(("scm1".into(), "scm".into()))
        );
        assert_eq!(
            f("ozone-hadoop-datanode-dn-1.example.com.log.3"),
            Some(("dn-1.example.com".into(), "datanode".into()))
        );
        assert_eq!(
            f("ozone-ozone-user-recon-host1.log.gz"),
            Some(("host1".into(), "recon".into()))
        );
        assert_eq!(
            f("ozone-hadoop-scm-scm1.out"),
            Some(("scm1".into(), "scm".into()))
        );
        assert_eq!(
            f("dn-audit-dn1.log"),
            Some(("dn1".into(), "datanode".into()))
        );
        assert_eq!(f("TestFoo-output.txt"), None);
        assert_eq!(f("scm.log"), None);
    }

    #[test]
    fn docker_prefixes() {
        assert_eq!(
            split_docker_prefix(b"scm_1       | 2019-11-15 x"),
            Some((&b"scm_1"[..], &b"2019-11-15 x"[..]))
        );
        assert_eq!(
            split_docker_prefix(b"ozone-datanode-1  | WARNING: x"),
            Some((&b"ozone-datanode-1"[..], &b"WARNING: x"[..]))
        );
        assert_eq!(
            split_docker_prefix(b"om1_1 |"),
            Some((&b"om1_1"[..], &b""[..]))
        );
        assert_eq!(
            split_docker_prefix(b"2018-09-06 01:57:22,996 | INFO  | OMAudit"),
            None
        );
        assert_eq!(split_docker_prefix(b"Attaching to a, b"), None);
    }

    #[test]
    fn threads() {
        assert_eq!(
            from_thread("scm1-SCMInstallSnapshot-0", b""),
            Some(("scm1".into(), NodeSource::ThreadPrefix))
        );
        let member = "2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-StateMachineUpdater";
        assert_eq!(
            from_thread(member, b""),
            Some((
                "2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d".into(),
                NodeSource::RatisMember
            ))
        );
        assert_eq!(
            from_thread("main", b"abc@group-9F3A1C2B4D5E: changes role"),
            Some(("abc".into(), NodeSource::RatisMember))
        );
        assert_eq!(from_thread("main", b"hello"), None);
        assert_eq!(from_thread("IPC Server handler 3 on 9861", b""), None);
        assert_eq!(from_thread("ReconTaskThread-1", b""), None);
        assert_eq!(from_thread("Thread-0", b""), None);
        assert_eq!(
            from_thread("scmNode-2-SCMInstallSnapshot-0", b""),
            Some(("scmNode-2".into(), NodeSource::ThreadPrefix))
        );
        assert_eq!(
            from_thread("Recon-SyncOM-0", b""),
            Some(("Recon".into(), NodeSource::ThreadPrefix))
        );
        assert_eq!(
            from_thread(
                "1d3c5e7a-2b4c-4d6e-8f0a-1b2c3d4e5f60-DatanodeStateMachineDaemonThread",
                b""
            ),
            Some((
                "1d3c5e7a-2b4c-4d6e-8f0a-1b2c3d4e5f60".into(),
                NodeSource::ThreadPrefix
            ))
        );
        assert_eq!(from_thread("scm-x", b""), None);
    }
}
