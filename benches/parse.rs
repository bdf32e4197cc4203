//! Parser throughput: header matching alone, and the whole scan of an input (blocks, records, rules).
//! The end-to-end figures on a 1 GB log come from `benches/throughput.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ozone_conform::grammar::Grammar;
use ozone_conform::input::Source;
use ozone_conform::layout::builtin_by_name;
use ozone_conform::scan::{scan_input, ScanOptions};
use std::hint::black_box;
use std::io::Write;

/// A realistic SCM daemon log: mostly lines no rule wants, one in a few hundred from a rule logger.
fn synthetic_log(target: usize) -> Vec<u8> {
    let noise = [
        "[IPC Server handler 3 on 9861] INFO org.apache.hadoop.hdds.scm.node.SCMNodeManager: Processed heartbeat from datanode 1d3c5e7a-2b4c-4d6e-8f0a-1b2c3d4e5f60",
        "[scm1-ReplicationMonitor] INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 2 milliseconds for processing 120 containers.",
        "[2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-SegmentedRaftLogWorker] INFO org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker: created new log segment /data/ratis/log_inprogress_5120",
        "[BlockDeletingService#0] INFO org.apache.hadoop.hdds.scm.block.SCMBlockDeletingService: Totally added 0 blocks to be deleted for 0 datanodes / 3 totalHealthyNodes, task elapsed time: 1ms",
    ];
    let rule = "[2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-StateMachineUpdater] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 3, index: 5120";
    let mut out = Vec::with_capacity(target + 256);
    let mut i = 0usize;
    while out.len() < target {
        let body = if i % 500 == 0 {
            rule
        } else {
            noise[i % noise.len()]
        };
        let (s, ms) = (i / 1000 % 60, i % 1000);
        writeln!(out, "2026-08-23 10:15:{s:02},{ms:03} {body}").unwrap();
        i += 1;
    }
    out
}

/// An event-dense SCM log: every line a record a rule turns into an event (a checkpoint install, with its
/// term and index moving on), from a few threads: the scan's per-event work, not its line filter.
fn event_dense_log(target: usize) -> Vec<u8> {
    let threads = [
        "StateMachineUpdater",
        "SegmentedRaftLogWorker",
        "StateMachine",
    ];
    let mut out = Vec::with_capacity(target + 256);
    let mut i = 0usize;
    while out.len() < target {
        let (s, ms) = (i / 1000 % 60, i % 1000);
        let thread = threads[i % threads.len()];
        writeln!(
            out,
            "2026-08-23 10:15:{s:02},{ms:03} [2f3c9a10-8d7e-4b6a-9c5d-3e2f1a0b9c8d@group-9F3A1C2B4D5E-{thread}] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: {}, index: {}",
            3 + i / 1000,
            5120 + i
        )
        .unwrap();
        i += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let data = synthetic_log(64 << 20);
    let layout = builtin_by_name("daemon").unwrap();
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();

    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("header_match_64MiB", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|l| layout.match_header(black_box(l)).is_some())
                .count()
        })
    });

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ozone-hadoop-scm-scm1.log");
    std::fs::write(&path, &data).unwrap();
    let grammar = Grammar::embedded().unwrap();
    let source = Source::File(path);
    g.bench_function("scan_input_64MiB", |b| {
        b.iter(|| {
            let mut n = 0u64;
            let stats = scan_input(
                0,
                &source,
                &grammar,
                &ScanOptions::default(),
                |_| n += 1,
                |_| {},
            );
            assert_eq!(stats.unparsed, 0);
            n
        })
    });

    // Every line an event (issue 21: the per-event allocations of the scan).
    let dense = event_dense_log(64 << 20);
    let lines = dense.iter().filter(|&&b| b == b'\n').count() as u64;
    let path = dir.path().join("ozone-hadoop-scm-scm2.log");
    std::fs::write(&path, &dense).unwrap();
    g.throughput(Throughput::Bytes(dense.len() as u64));
    let source = Source::File(path);
    g.bench_function("scan_input_event_dense_64MiB", |b| {
        b.iter(|| {
            let mut n = 0u64;
            scan_input(
                0,
                &source,
                &grammar,
                &ScanOptions::default(),
                |_| n += 1,
                |_| {},
            );
            assert_eq!(n, lines, "every line is an event");
            n
        })
    });
    g.finish();
    bench_generator_mixes(c, &grammar);
}

/// `events`' scan on `benches/gen_scm_log.py`'s two mixes: sparse (about 1 line in 2,000 from a rule logger)
/// and dense (over 45 % from rule loggers whose messages no rule turns into an event: the prefilter's case).
/// `benches/throughput.sh` times the whole command on 1 GB of each.
fn bench_generator_mixes(c: &mut Criterion, grammar: &Grammar) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("scan_mix");
    g.sample_size(10);
    for mix in ["sparse", "dense"] {
        let path = dir.path().join(format!("ozone-hadoop-scm-{mix}.log"));
        let generated = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/gen_scm_log.py"))
            .args(["--mix", mix, "--size", "64M", "--out"])
            .arg(&path)
            .status();
        if !generated.is_ok_and(|s| s.success()) {
            eprintln!("SKIPPED: scan_mix/{mix}: benches/gen_scm_log.py did not run (python3?)");
            continue;
        }
        g.throughput(Throughput::Bytes(std::fs::metadata(&path).unwrap().len()));
        let source = Source::File(path);
        g.bench_function(format!("scan_input_{mix}_64MiB"), |b| {
            b.iter(|| {
                let mut n = 0u64;
                let stats = scan_input(
                    0,
                    &source,
                    grammar,
                    &ScanOptions::default(),
                    |_| n += 1,
                    |_| {},
                );
                assert!(stats.errors.is_empty(), "{:?}", stats.errors);
                n
            })
        });
    }
    g.finish();
}

/// A synthetic event stream over three SCMs, three datanodes and a Recon: every model reads most events.
fn synthetic_timeline(n: usize) -> ozone_conform::timeline::Timeline {
    let stats = ozone_conform::scan::InputStats::default();
    ozone_conform::timeline::from_events(
        vec![stats],
        vec![synthetic_events(n)],
        vec![false],
        ozone_conform::bugs::merge_rules(1000),
    )
}

/// [`synthetic_timeline`]'s events, in input order.
fn synthetic_events(n: usize) -> Vec<ozone_conform::event::Event> {
    use ozone_conform::event::{Event, Span};
    use ozone_conform::time::Timestamp;
    use ozone_conform::value::{SecretKeyInfo, Value};
    use ozone_conform::vocab::{Component, EventKind};
    use std::sync::Arc;
    let nodes: Vec<Arc<str>> = ["scm1", "scm2", "scm3", "dn1", "dn2", "dn3", "recon1"]
        .iter()
        .map(|s| Arc::from(*s))
        .collect();
    let thread: Arc<str> = Arc::from("t");
    let mut events = Vec::with_capacity(n);
    for i in 0..n {
        let t = Timestamp::from_parts(2026, 8, 23, 10, 0, 0, 0);
        let (kind, node, component, fields): (
            EventKind,
            usize,
            Component,
            Vec<(&'static str, Value)>,
        ) = match i % 8 {
            0 => (
                EventKind::BlockCommitted,
                3 + i % 3,
                Component::Datanode,
                vec![
                    (
                        "block",
                        Value::BlockId {
                            container: 1,
                            local: i as u64,
                            bcs_id: 1,
                            replica_index: None,
                        },
                    ),
                    ("bcs_id", Value::U64(1)),
                    ("chunks", Value::U64(1)),
                ],
            ),
            1 => (
                EventKind::BlockFinalized,
                3 + i % 3,
                Component::Datanode,
                vec![(
                    "block",
                    Value::BlockId {
                        container: 1,
                        local: i as u64,
                        bcs_id: 0,
                        replica_index: None,
                    },
                )],
            ),
            2 => (
                EventKind::SyncCompleted,
                6,
                Component::Recon,
                vec![("seq", Value::I64(i as i64))],
            ),
            3 => (
                EventKind::DeltaApplied,
                6,
                Component::Recon,
                vec![
                    ("from_seq", Value::I64(i as i64)),
                    ("db_seq", Value::I64(i as i64 + 1)),
                ],
            ),
            4 => (
                EventKind::SecretKeysUpdated,
                i % 3,
                Component::Scm,
                vec![(
                    "keys",
                    Value::SecretKeys(vec![SecretKeyInfo {
                        id: "k1".into(),
                        created: None,
                        expires: Some(Timestamp::from_parts(2026, 9, 1, 0, 0, 0, 0)),
                    }]),
                )],
            ),
            5 => (
                EventKind::VersionFinalized,
                i % 3,
                Component::Scm,
                vec![(
                    "version",
                    Value::Version {
                        name: "ZDU".into(),
                        number: 100,
                    },
                )],
            ),
            6 => (
                EventKind::CheckpointInstalled,
                i % 3,
                Component::Scm,
                vec![("term", Value::U64(1)), ("index", Value::U64(i as u64))],
            ),
            _ => (
                EventKind::TaskCompleted,
                6,
                Component::Recon,
                vec![("task", Value::Str("NSSummaryTask".into()))],
            ),
        };
        events.push(Event {
            kind,
            rule: 0,
            component,
            node: Some(nodes[node].clone()),
            node_key: u32::MAX,
            node_from: None,
            time: Some(Timestamp {
                millis: t.millis + i as i64,
                has_date: true,
            }),
            level: None,
            thread: thread.clone(),
            fields,
            span: Span {
                input: 0,
                line: i as u64 + 1,
                byte_offset: i as u64 * 100,
                byte_len: 99,
            },
            excerpt_hash: ozone_conform::excerpt::hash(&thread),
            excerpt: Some(thread.clone()),
            message_offset: 0,
        });
    }
    events
}

fn bench_replay(c: &mut Criterion) {
    let n = 1_000_000;
    let timeline = synthetic_timeline(n);
    let mut g = c.benchmark_group("replay");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    g.bench_function("four_models_1M_events", |b| {
        b.iter(|| {
            let reports = ozone_conform::check::replay(
                &timeline,
                ozone_conform::check::monitors(&[]),
                &Default::default(),
            )
            .reports;
            black_box(reports.len())
        })
    });
    g.finish();
}

/// The TLA+ side: reading TLC's output and replaying it through a mirror, and a mirror's own speed, as the
/// breadth-first search over the whole fixed-config state space of ScmSecretKeys (48,158 states, 226,988
/// successors generated) that its unit test compares with TLC.
fn bench_tla(c: &mut Criterion) {
    use ozone_conform::bugs::scm_secret_keys::mirror::ScmSecretKeys;
    use ozone_conform::mirror::Mirror;
    // This package is `benches/`; the traces are the tool's.
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let bug = std::fs::read_to_string(root.join("traces/scm-finalization/tlc/bug.out")).unwrap();
    let mut g = c.benchmark_group("tla");
    g.throughput(Throughput::Bytes(bug.len() as u64));
    g.bench_function("read_tlc_output_and_replay", |b| {
        let cfg = ozone_conform::tla::cfg::parse_cfg(
            "c",
            ozone_conform::bugs::BUGS[1].mirror.spec().configs[0].1,
        )
        .unwrap();
        b.iter(|| {
            let f = ozone_conform::tla::read::read_trace_str("bug.out", bug.clone()).unwrap();
            ozone_conform::mirror::replay::replay::<
                ozone_conform::bugs::scm_finalization::mirror::ScmFinalization,
            >(&cfg.constants, &f.traces[0])
            .unwrap()
        })
    });
    let fixed = ozone_conform::tla::cfg::parse_cfg(
        "f",
        ozone_conform::bugs::BUGS[0].mirror.spec().configs[1].1,
    )
    .unwrap();
    let mirror = ScmSecretKeys::new(&fixed.constants).unwrap();
    g.throughput(Throughput::Elements(226_988));
    g.sample_size(10);
    g.bench_function("mirror_bfs_scm_secret_keys_fixed", |b| {
        b.iter(|| {
            let mut seen = std::collections::HashSet::new();
            let mut queue: std::collections::VecDeque<_> = mirror.init().into();
            for s in &queue {
                seen.insert(s.clone());
            }
            let mut generated = queue.len();
            while let Some(s) = queue.pop_front() {
                for step in mirror.next(&s) {
                    generated += 1;
                    if seen.insert(step.next.clone()) {
                        queue.push_back(step.next);
                    }
                }
            }
            assert_eq!((seen.len(), generated), (48_158, 226_988));
        })
    });
    g.finish();
}

/// A pass over event heads in memory and on disk ([`ozone_conform::spill`]): what each of the merge's passes
/// costs per head past the memory budget, read forwards (`iter`) and by index (`get`, as the passes that
/// rewrite heads read them).
fn bench_spill(c: &mut Criterion) {
    use ozone_conform::event_store::InputEvents;
    use ozone_conform::head_run::HeadRun;
    let n = 1_000_000;
    let events = InputEvents::from_events(synthetic_events(n));
    let in_memory = &events.heads;
    let mut on_disk = HeadRun::spilling();
    for h in in_memory.iter() {
        on_disk.push(h);
    }
    let mut g = c.benchmark_group("spill");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    for (name, run) in [("memory", in_memory), ("disk", &on_disk)] {
        g.bench_function(format!("iter_1M_heads_{name}"), |b| {
            b.iter(|| black_box(run.iter().map(|h| h.span.line).sum::<u64>()))
        });
        g.bench_function(format!("get_1M_heads_{name}"), |b| {
            b.iter(|| black_box((0..n).map(|i| run.get(i).span.line).sum::<u64>()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, bench_replay, bench_tla, bench_spill);
criterion_main!(benches);
