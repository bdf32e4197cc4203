//! Structure-aware log generation for the monitors' no-panic contract (issue 19, item 1).
//!
//! [`generate`] turns bytes (a fuzzer's input, or a proptest's) into the logs of a small cluster: every
//! rule of the embedded grammar is reachable, each record is one of its rule's samples, written on a node of
//! the rule's component with a thread of a kind Ozone prints, at a time that moves forward per node with
//! jitter and now and then steps back; processes start (a `STARTUP_MSG` banner, without a `SHUTDOWN_MSG`
//! before it when the process crashed) and stop (`SIGTERM`, `SHUTDOWN_MSG`). The logs are written in the
//! three layouts the tool ships for Ozone's own output, as the fixtures show them:
//!
//! * [`GenLayout::Daemon`]: one file per node, `ozone-hadoop-<service>-<host>.log`, `%d{ISO8601} [%t] %p %c: %m%n`
//!   (`tests/fixtures/scenarios/*/*/ozone-hadoop-*.log`);
//! * [`GenLayout::Console`]: one file per node, `<host>-console.log`, `%d{ISO8601} [%t] %p %c{2}: %m%n`
//!   (`tests/fixtures/logs/console/`), the node named by its banner;
//! * [`GenLayout::Test`]: one MiniOzoneCluster output file for all nodes,
//!   `%d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n` (`tests/fixtures/scenarios/*/*/merged/`), where only
//!   Recon prints banners and node ids sit in thread prefixes (`scmNode-1-…`, a datanode's UUID, `Recon-…`).
//!
//! The bytes are decisions, read in order; once they run out every decision is its first choice and the log
//! ends. A byte string names one log on every platform.

use crate::grammar::{Grammar, Rule};
use crate::layout::Level;
use crate::refinement::{shutdown_banner, startup_banner, ts_text, BASE_MS};
use crate::vocab::Component;
use std::fmt::Write as _;

/// The decisions, read from bytes.
#[derive(Debug, Clone)]
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u8]) -> Choices<'a> {
        Choices { data, at: 0 }
    }
    /// Are the bytes used up?
    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }
    /// The next byte (0 once they run out).
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// Uniform-ish in `0..n` (`0` for `n == 0` and once the bytes run out); two bytes above 256 choices.
    pub fn below(&mut self, n: usize) -> usize {
        match n {
            0 | 1 => {
                self.at += usize::from(n == 1);
                0
            }
            2..=256 => self.byte() as usize % n,
            _ => (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n,
        }
    }
    /// True with probability about `p` in 256.
    pub fn chance(&mut self, p: u8) -> bool {
        self.byte() < p
    }
}

/// The layouts a generated log is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenLayout {
    Daemon,
    Console,
    Test,
}

impl GenLayout {
    pub const ALL: [GenLayout; 3] = [GenLayout::Daemon, GenLayout::Console, GenLayout::Test];
}

/// One node of the generated cluster, with the ids the scenario fixtures use (`tests/fixtures/scenarios/README.md`),
/// so that the ids inside rule samples name these nodes.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub host: &'static str,
    pub ip: &'static str,
    /// `scm`, `datanode`, `recon`, `om`: the daemon file name's service.
    pub service: &'static str,
    pub component: Component,
    /// The Ratis peer id (SCM id, datanode UUID, OM node id).
    pub peer: &'static str,
    /// The Raft group its state machine runs in.
    pub group: &'static str,
    /// `HddsUtils.threadNamePrefix` in a daemon and in MiniOzoneCluster output.
    pub daemon_prefix: &'static str,
    pub test_prefix: &'static str,
    /// The logger of its banners and signal lines, and the service its banner names.
    pub starter: &'static str,
    pub started: &'static str,
    /// Its clock's offset (daemon clocks differ; the test layout has one clock).
    pub skew_ms: i64,
}

const SCM_GROUP: &str = "group-9F3A1C2B4D5E";
const DN_GROUP: &str = "group-0C1B2A3D4E5F";
const PIPELINE: &str = "4d7e2f1a-8b3c-4e5d-a6f7-0c1b2a3d4e5f";

const fn scm(n: usize, peer: &'static str, skew_ms: i64) -> Node {
    Node {
        host: ["scm1", "scm2", "scm3"][n],
        ip: ["172.18.0.4", "172.18.0.5", "172.18.0.6"][n],
        service: "scm",
        component: Component::Scm,
        peer,
        group: SCM_GROUP,
        daemon_prefix: ["scm1", "scm2", "scm3"][n],
        test_prefix: ["scmNode-1", "scmNode-2", "scmNode-3"][n],
        starter: "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter",
        started: "StorageContainerManager",
        skew_ms,
    }
}

const fn dn(n: usize, peer: &'static str, skew_ms: i64) -> Node {
    Node {
        host: ["dn1", "dn2", "dn3"][n],
        ip: ["172.18.0.7", "172.18.0.8", "172.18.0.9"][n],
        service: "datanode",
        component: Component::Datanode,
        peer,
        group: DN_GROUP,
        daemon_prefix: peer,
        test_prefix: peer,
        starter: "org.apache.hadoop.ozone.HddsDatanodeService",
        started: "HddsDatanodeService",
        skew_ms,
    }
}

/// The cluster: three SCMs, three datanodes, Recon and an OM.
pub const NODES: [Node; 8] = [
    scm(0, "5f1b7e2a-3c4d-4e8f-9a0b-1c2d3e4f5a61", 0),
    scm(1, "8a2c9d3e-4f5a-4b6c-8d7e-9f0a1b2c3d72", 180),
    scm(2, "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e83", -240),
    dn(0, "0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01", 90),
    dn(1, "1f5b2d8c-3e4a-4b6c-8d7e-8f9a0b1c2d02", -120),
    dn(2, "2a6c3e9d-4f5b-4c7d-9e8f-9a0b1c2d3e03", 260),
    Node {
        host: "recon1",
        ip: "172.18.0.10",
        service: "recon",
        component: Component::Recon,
        peer: "recon1",
        group: SCM_GROUP,
        daemon_prefix: "Recon",
        test_prefix: "Recon",
        starter: "org.apache.hadoop.ozone.recon.ReconServer",
        started: "ReconServer",
        skew_ms: 50,
    },
    Node {
        host: "om1",
        ip: "172.18.0.3",
        service: "om",
        component: Component::Om,
        peer: "om1",
        group: "group-D66704EFC61C",
        daemon_prefix: "om1",
        test_prefix: "omNode-1",
        starter: "org.apache.hadoop.ozone.om.OzoneManagerStarter",
        started: "OzoneManager",
        skew_ms: -60,
    },
];

/// One record to write: on which node, thread, level, logger, source and message (which may hold newlines).
#[derive(Debug, Clone)]
pub struct Record {
    pub node: usize,
    /// Milliseconds since [`BASE_MS`] on the node's own clock.
    pub at: i64,
    pub thread: String,
    pub level: Level,
    pub logger: String,
    /// `File.java:line` (the test layout's `%F` and `%L`).
    pub source: Option<String>,
    pub message: String,
}

/// A generated log: its files (name, text) in `layout`.
#[derive(Debug, Clone)]
pub struct Generated {
    pub layout: GenLayout,
    pub files: Vec<(String, String)>,
}

/// At most this many records (a fuzz input longer than that is not read further).
pub const MAX_RECORDS: usize = 400;

/// The log that `data` decides (see the module docs).
pub fn generate(grammar: &Grammar, data: &[u8]) -> Generated {
    let mut c = Choices::new(data);
    let layout = GenLayout::ALL[c.below(3)];
    let records = records(grammar, &mut c, layout);
    Generated {
        layout,
        files: write(layout, &records),
    }
}

/// The records `c` decides, in the order they are written (per node, and across nodes in the test layout).
pub fn records(grammar: &Grammar, c: &mut Choices, layout: GenLayout) -> Vec<Record> {
    let mut out = Vec::new();
    // Per node: its clock, and whether its process is up (its banner printed and no SHUTDOWN_MSG since).
    let mut clock: Vec<i64> = NODES.iter().map(|n| n.skew_ms).collect();
    let mut up = [false; NODES.len()];
    // Per node, the startup lines still to come of its latest start.
    let mut startup: Vec<Vec<Record>> = vec![Vec::new(); NODES.len()];
    // A log may begin mid-run (no banner) or at each node's start.
    if !c.chance(64) {
        for (i, n) in NODES.iter().enumerate() {
            if banners_printed(layout, n) {
                start(&mut out, i, &mut clock, layout);
                up[i] = true;
            }
        }
    }
    let rules = &grammar.rules;
    // A focus: a few rules and nodes that most records come from, so that the lines of one protocol meet on
    // one node in many orders (a uniform choice among hundreds of rules and eight nodes rarely puts four
    // related lines on one SCM).
    // The rules of one to three grammar files (one protocol's lines, or the lifecycle's), or a few at random.
    let focus_rules: Vec<usize> = if c.chance(128) {
        // The grammar files one model's story is told in.
        // One bug's story: the grammar files its registry entry names.
        let bugs = &crate::bugs::BUGS;
        let files = bugs[c.below(bugs.len())].about.grammars;
        (0..rules.len())
            .filter(|&k| files.iter().any(|f| rules[k].origin.0.ends_with(f)))
            .collect()
    } else if c.chance(192) {
        let mut files: Vec<&str> = rules.iter().map(|r| r.origin.0.as_str()).collect();
        files.dedup();
        let chosen: Vec<&str> = (0..1 + c.below(3))
            .filter_map(|_| files.get(c.below(files.len())).copied())
            .collect();
        (0..rules.len())
            .filter(|&k| chosen.contains(&rules[k].origin.0.as_str()))
            .collect()
    } else {
        (0..1 + c.below(16)).map(|_| c.below(rules.len())).collect()
    };
    let focus_nodes: Vec<usize> = (0..1 + c.below(3)).map(|_| c.below(NODES.len())).collect();
    while !c.done() && out.len() < MAX_RECORDS {
        let i = if c.chance(192) {
            focus_nodes[c.below(focus_nodes.len())]
        } else {
            c.below(NODES.len())
        };
        // Time: mostly forward by up to ~2 s, sometimes a long gap, sometimes backwards.
        clock[i] += match c.below(16) {
            0 => -(c.below(5000) as i64),
            1 => 60_000 + c.below(256) as i64 * 1000,
            _ => c.below(2000) as i64,
        };
        // The next line of a start in progress, with other lines between (other threads, other nodes).
        if !startup[i].is_empty() && c.chance(24) {
            let mut r = startup[i].remove(0);
            clock[i] += 1;
            r.at = clock[i];
            out.push(r);
            continue;
        }
        match c.below(24) {
            0 => {
                // A start; without a stop before it, the previous process crashed. In MiniOzoneCluster output
                // an SCM restarts in the JVM: its startup lines, no banner.
                if banners_printed(layout, &NODES[i]) {
                    start(&mut out, i, &mut clock, layout);
                    up[i] = true;
                }
                startup[i] = startup_lines(i, layout, c);
            }
            1 if up[i] || c.chance(32) => {
                stop(&mut out, i, &mut clock);
                up[i] = false;
            }
            _ if !rules.is_empty() => {
                let k = if c.chance(192) {
                    focus_rules[c.below(focus_rules.len())]
                } else {
                    c.below(rules.len())
                };
                out.push(record_of(&rules[k], i, c, &mut clock));
            }
            _ => {}
        }
    }
    out
}

/// The lines an SCM's start prints on `main` after its banner, in order (`tests/fixtures/scenarios/scm-finalization/`):
/// the node id, the version manager built from the VERSION file, the Raft server; some may be missing.
fn startup_lines(i: usize, layout: GenLayout, c: &mut Choices) -> Vec<Record> {
    let n = &NODES[i];
    if n.component != Component::Scm {
        return Vec::new();
    }
    let (id, address) = match layout {
        GenLayout::Test => (
            n.test_prefix.to_string(),
            format!("127.0.0.1:150{}4", 2 * i + 2),
        ),
        _ => (n.host.to_string(), format!("{}:9894", n.host)),
    };
    let version = [
        "INITIAL_VERSION (0)",
        "STORAGE_SPACE_DISTRIBUTION (10)",
        "ZDU (100)",
    ][c.below(3)];
    let lines = [
        ("org.apache.hadoop.hdds.scm.ha.SCMHANodeDetails", "SCMHANodeDetails.java:259",
         format!("Found matching SCM address with SCMServiceId: scmservice, SCMNodeId: {id}, RPC Address: {address} and Ratis port: {}", address.rsplit(':').next().unwrap_or("9894"))),
        ("org.apache.hadoop.ozone.upgrade.ComponentVersionManager", "ComponentVersionManager.java:65",
         format!("Initializing version manager with apparent version {version} and software version ZDU (100)")),
        ("org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl", "SCMRatisServerImpl.java:104",
         format!("starting Raft server for scm:{}", n.peer)),
    ];
    lines
        .into_iter()
        .filter(|_| !c.chance(24))
        .map(|(logger, source, message)| Record {
            node: i,
            at: 0,
            thread: "main".into(),
            level: Level::Info,
            logger: logger.into(),
            source: Some(source.into()),
            message,
        })
        .collect()
}

/// Does this node print `STARTUP_MSG` banners in this layout? (In MiniOzoneCluster output only Recon does.)
fn banners_printed(layout: GenLayout, node: &Node) -> bool {
    layout != GenLayout::Test || node.component == Component::Recon
}

fn start(out: &mut Vec<Record>, i: usize, clock: &mut [i64], _layout: GenLayout) {
    let n = &NODES[i];
    let mut push = |message: String, level: Level, clock: &mut [i64]| {
        clock[i] += 2;
        out.push(Record {
            node: i,
            at: clock[i],
            thread: "main".into(),
            level,
            logger: n.starter.into(),
            source: Some("HddsServerUtil.java:794".into()),
            message,
        });
    };
    push(
        startup_banner(n.started, n.host, n.ip, "ozone.scm.names=scm1,scm2,scm3"),
        Level::Info,
        clock,
    );
    push(
        "registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]".into(),
        Level::Info,
        clock,
    );
}

fn stop(out: &mut Vec<Record>, i: usize, clock: &mut [i64]) {
    let n = &NODES[i];
    clock[i] += 2;
    out.push(Record {
        node: i,
        at: clock[i],
        thread: "SIGTERM handler".into(),
        level: Level::Error,
        logger: n.starter.into(),
        source: Some("SignalLogger.java:76".into()),
        message: "RECEIVED SIGNAL 15: SIGTERM".into(),
    });
    clock[i] += 9;
    out.push(Record {
        node: i,
        at: clock[i],
        thread: "shutdown-hook-0".into(),
        level: Level::Info,
        logger: n.starter.into(),
        source: Some("HddsServerUtil.java:806".into()),
        message: shutdown_banner(n.started, n.host, n.ip),
    });
}

/// One of `rule`'s samples on node `chosen` when it is of the rule's component, else on a node that is;
/// perhaps with one number in it changed.
fn record_of(rule: &Rule, chosen: usize, c: &mut Choices, clock: &mut [i64]) -> Record {
    let fits = |i: usize| rule.component == Component::Any || NODES[i].component == rule.component;
    let nodes: Vec<usize> = (0..NODES.len()).filter(|&i| fits(i)).collect();
    // A rule of a component the cluster lacks still gets written somewhere.
    let node = if fits(chosen) {
        chosen
    } else if nodes.is_empty() {
        c.below(NODES.len())
    } else {
        nodes[c.below(nodes.len())]
    };
    let n = &NODES[node];
    clock[node] += 1;
    let mut message = if rule.samples.is_empty() {
        rule.template.clone()
    } else {
        rule.samples[c.below(rule.samples.len())].clone()
    };
    if c.chance(48) {
        message = change_a_number(&message, c);
    }
    let level = if rule.levels.is_empty() {
        Level::Info
    } else {
        rule.levels[c.below(rule.levels.len())]
    };
    let logger = if rule.loggers.is_empty() {
        n.starter.to_string()
    } else {
        rule.loggers[c.below(rule.loggers.len())].clone()
    };
    Record {
        node,
        at: clock[node],
        thread: thread(n, c),
        level,
        logger,
        source: rule.source.clone(),
        message,
    }
}

/// A thread of a kind Ozone prints; mostly the node's own, now and then another node's (a Ratis member
/// thread names the peer whose line it is).
fn thread(n: &Node, c: &mut Choices) -> String {
    let n = if c.chance(16) {
        &NODES[c.below(NODES.len())]
    } else {
        n
    };
    match c.below(9) {
        0 | 1 => "main".into(),
        2 => format!("IPC Server handler {} on default port 9861", c.below(10)),
        3 => format!("IPC Server handler {} on 9861", c.below(10)),
        4 | 5 => format!(
            "{}@{}-{}",
            n.peer,
            n.group,
            [
                "StateMachineUpdater",
                "LeaderElection1",
                "SegmentedRaftLogWorker"
            ][c.below(3)]
        ),
        6 if n.component == Component::Datanode => {
            format!("{}-ContainerOp-{PIPELINE}-{}", n.peer, c.below(4))
        }
        6 | 7 => format!(
            "{}-{}",
            n.daemon_prefix,
            [
                "SCMInstallSnapshot-0",
                "SyncOM-0",
                "ReplicationMonitor",
                "EventQueue-0"
            ][c.below(4)]
        ),
        _ => [
            "shutdown-hook-0",
            "ReconTaskThread-1",
            "ReconEventProcessor-0",
            "Thread-7",
        ][c.below(4)]
        .into(),
    }
}

/// `text` with one run of digits replaced by a chosen number (0, 1, a small one, or a huge one).
fn change_a_number(text: &str, c: &mut Choices) -> String {
    let runs: Vec<(usize, usize)> = {
        let b = text.as_bytes();
        let mut runs = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                runs.push((s, i));
            } else {
                i += 1;
            }
        }
        runs
    };
    if runs.is_empty() {
        return text.to_string();
    }
    let (s, e) = runs[c.below(runs.len())];
    let number = match c.below(5) {
        0 => "0".to_string(),
        1 => "1".to_string(),
        2 => c.below(200).to_string(),
        3 => u64::MAX.to_string(),
        _ => "99999999999999999999999".to_string(),
    };
    format!("{}{number}{}", &text[..s], &text[e..])
}

/// The files of `records` in `layout`.
pub fn write(layout: GenLayout, records: &[Record]) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    for r in records {
        let n = &NODES[r.node];
        let name = match layout {
            GenLayout::Daemon => format!("ozone-hadoop-{}-{}.log", n.service, n.host),
            GenLayout::Console => format!("{}-console.log", n.host),
            GenLayout::Test => "org.apache.hadoop.ozone.TestGenerated-output.txt".to_string(),
        };
        let i = match files.iter().position(|(f, _)| *f == name) {
            Some(i) => i,
            None => {
                files.push((name, String::new()));
                files.len() - 1
            }
        };
        let text = &mut files[i].1;
        let time = ts_text(BASE_MS + r.at);
        let _ = match layout {
            GenLayout::Daemon => writeln!(
                text,
                "{time} [{}] {} {}: {}",
                r.thread, r.level, r.logger, r.message
            ),
            GenLayout::Console => writeln!(
                text,
                "{time} [{}] {} {}: {}",
                r.thread,
                r.level,
                short_logger(&r.logger),
                r.message
            ),
            GenLayout::Test => {
                let thread = test_thread(&r.thread, n);
                let (file, line) = match r.source.as_deref().and_then(|s| s.rsplit_once(':')) {
                    Some((f, l)) => (f.to_string(), l.to_string()),
                    None => (format!("{}.java", class_of(&r.logger)), "1".to_string()),
                };
                writeln!(
                    text,
                    "{time} [{thread}] {:<5} {} ({file}:{}({line})) - {}",
                    r.level.to_string(),
                    short_logger(&r.logger),
                    ["run", "<init>", "start", "lambda$start$0"][r.at.rem_euclid(4) as usize],
                    r.message
                )
            }
        };
    }
    files
}

/// `%c{2}`: the last two dot-separated parts of the logger.
pub fn short_logger(logger: &str) -> &str {
    match logger.rmatch_indices('.').nth(1) {
        Some((i, _)) => &logger[i + 1..],
        None => logger,
    }
}

fn class_of(logger: &str) -> &str {
    let last = logger.rsplit('.').next().unwrap_or(logger);
    last.split('$').next().unwrap_or(last)
}

/// In MiniOzoneCluster output the daemon's thread prefix (`scm1-`) is the test's (`scmNode-1-`).
fn test_thread(thread: &str, n: &Node) -> String {
    for m in &NODES {
        if let Some(rest) = thread.strip_prefix(m.daemon_prefix) {
            if rest.starts_with('-') && m.daemon_prefix != m.test_prefix {
                return format!("{}{rest}", m.test_prefix);
            }
        }
    }
    let _ = n;
    thread.to_string()
}

/// A daemon-layout file as the refinement renderers write it (`ozone-hadoop-<service>-<host>.log`,
/// `%d{ISO8601} [%t] %p %c: %m%n`), in `layout` (daemon or console; the test layout is left as daemon),
/// without the records stamped after `cut` (milliseconds since the epoch) and their continuation lines.
pub fn relayout(name: &str, text: &str, layout: GenLayout, cut: Option<i64>) -> (String, String) {
    let cut = cut.map(ts_text);
    let host = crate::node::from_file_name(name).map(|(host, _)| host);
    let name = match (layout, host) {
        (GenLayout::Console, Some(host)) => format!("{host}-console.log"),
        _ => name.to_string(),
    };
    let mut out = String::with_capacity(text.len());
    let mut keep = true;
    for line in text.split_inclusive('\n') {
        let header =
            line.len() > 25 && line.as_bytes()[23..25] == *b" [" && line.as_bytes()[4] == b'-';
        if header {
            keep = cut.as_deref().is_none_or(|cut| line[..23] <= *cut);
        }
        if !keep {
            continue;
        }
        match (header, layout) {
            (true, GenLayout::Console) => out.push_str(&console_header(line)),
            _ => out.push_str(line),
        }
    }
    (name, out)
}

/// `%c` → `%c{2}` in one daemon-layout line: `ts [thread] LEVEL logger: message`.
fn console_header(line: &str) -> String {
    let Some(close) = line.find("] ") else {
        return line.to_string();
    };
    let rest = &line[close + 2..];
    let Some((level, rest)) = rest.split_once(' ') else {
        return line.to_string();
    };
    let Some((logger, message)) = rest.split_once(": ") else {
        return line.to_string();
    };
    format!(
        "{} {level} {}: {message}",
        &line[..close + 1],
        short_logger(logger)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grammar() -> Grammar {
        Grammar::embedded().unwrap()
    }

    #[test]
    fn short_loggers_keep_two_parts() {
        assert_eq!(
            short_logger("org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl"),
            "ha.SCMHAManagerImpl"
        );
        assert_eq!(short_logger("a.B"), "a.B");
        assert_eq!(short_logger("B"), "B");
    }

    /// Bytes from a seed, for tests.
    fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut r = crate::refinement::Rng::new(seed);
        (0..n).map(|_| r.next_u64() as u8).collect()
    }

    #[test]
    fn every_rule_is_generated() {
        let g = grammar();
        let mut seen = vec![false; g.rules.len()];
        for seed in 0..64 {
            let data = bytes(seed, 6000);
            for r in records(
                &g,
                &mut Choices::new(&data),
                GenLayout::ALL[seed as usize % 3],
            ) {
                for (k, rule) in g.rules.iter().enumerate() {
                    seen[k] |= rule.samples.contains(&r.message);
                }
            }
        }
        let missing: Vec<&str> = g
            .rules
            .iter()
            .zip(&seen)
            .filter(|(r, s)| !**s && !r.samples.is_empty())
            .map(|(r, _)| r.id.as_str())
            .collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
    }

    #[test]
    fn generated_lines_read_back_in_their_layout() {
        let g = grammar();
        for layout in GenLayout::ALL {
            let data = bytes(layout as u64, 4000);
            let recs = records(&g, &mut Choices::new(&data), layout);
            assert!(recs.len() > 50);
            for (name, text) in write(layout, &recs) {
                let opts = crate::scan::ScanOptions::default();
                let (events, stats, unparsed) =
                    crate::contract::scan_text(&name, text.as_bytes(), &g, &opts);
                let want = match layout {
                    GenLayout::Daemon => "daemon",
                    GenLayout::Console => "console",
                    GenLayout::Test => "test",
                };
                assert_eq!(stats.layout.as_deref(), Some(want), "{name}");
                // A changed number may fail a field's validation (a rejected record); nothing else is lost.
                let lost: Vec<&String> = unparsed
                    .iter()
                    .filter(|u| !u.contains(": InvalidField: "))
                    .collect();
                assert!(lost.is_empty(), "{name}: {lost:?}");
                assert!(events > 0, "{name}");
            }
        }
    }
}
