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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
