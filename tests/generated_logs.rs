//! No monitor panics on any sequence of events (issue 19, item 1): logs built from the grammar's own rule
//! samples (`ozone_conform::log_gen`), in random order, on random nodes, threads and times, with crashes and
//! banners, in the daemon, console and MiniOzoneCluster layouts, go through scan, merge, replay and every
//! output format without a panic and with the same report under 1 and 8 rayon threads; healthy behaviours of
//! the mirrors, rendered by the refinement renderers, get no violation.
//!
//! `GENERATED_LOGS_CASES` sets the number of cases of each property (default 24 and 16, under a minute in a
//! debug build on two cores); the fuzz targets `generated_logs` and `healthy_behaviour` run the same contracts.

use ozone_conform::contract;
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("GENERATED_LOGS_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn generated_logs_never_panic_and_report_the_same_at_any_thread_count(
        data in prop::collection::vec(any::<u8>(), 0..6000)
    ) {
        contract::generated_logs(&data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(16), ..ProptestConfig::default() })]

    #[test]
    fn healthy_behaviours_of_the_mirrors_get_no_violation(
        data in prop::collection::vec(any::<u8>(), 16..24)
    ) {
        contract::healthy_behaviour(&data);
    }
}

/// The user's report that started issue 19's item 1, as generated logs: one SCM's checkpoint install with a
/// higher version, then a new banner (a crash), the version manager on main and a fence on an IPC handler
/// before `starting Raft server`. `check` exited 101 (`expect("armed")`) until 4e2ba2c.
#[test]
fn a_fence_during_a_crashed_restarts_startup_does_not_panic() {
    let scm1 = "ozone-hadoop-scm-scm1.log";
    let banner = |at: &str| {
        format!(
            "{at} [main] INFO org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter: {}\n",
            ozone_conform::refinement::startup_banner(
                "StorageContainerManager",
                "scm1",
                "172.18.0.4",
                "ozone.scm.names=scm1,scm2,scm3"
            )
        )
    };
    let updater = "5f1b7e2a-3c4d-4e8f-9a0b-1c2d3e4f5a61@group-9F3A1C2B4D5E-StateMachineUpdater";
    let text = [
        banner("2026-08-23 11:00:00,000"),
        format!("2026-08-23 11:00:01,000 [{updater}] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202\n"),
        format!("2026-08-23 11:00:01,010 [{updater}] INFO org.apache.hadoop.ozone.upgrade.RatisBasedVersionManager: New snapshot received with higher apparent version ZDU (100). Attempting to finalize to that version.\n"),
        banner("2026-08-23 11:00:05,000"),
        "2026-08-23 11:00:05,100 [main] INFO org.apache.hadoop.ozone.upgrade.ComponentVersionManager: Initializing version manager with apparent version INITIAL_VERSION (0) and software version ZDU (100)\n".to_string(),
        "2026-08-23 11:00:05,200 [IPC Server handler 6 on 9861] ERROR org.apache.hadoop.hdds.scm.node.SCMNodeManager: Datanode 0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(dn1/172.18.0.7) has apparent version ZDU (100) which is higher than SCM apparent version INITIAL_VERSION (0). SCM must finalize before datanodes.\n".to_string(),
        "2026-08-23 11:00:05,300 [main] INFO org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl: starting Raft server for scm:5f1b7e2a-3c4d-4e8f-9a0b-1c2d3e4f5a61\n".to_string(),
    ]
    .concat();
    contract::check_files(&[(scm1.to_string(), text)]);
}

/// The same bug found by the generator: seed 20743 of `cargo run --example generated_logs -- run` (6000 bytes
/// from `Rng::new(20743)`), console layout, panicked with `expect("armed")` on the code before 4e2ba2c. SCM
/// scm2 replaces its DB with a checkpoint, logs the higher version, crashes (a new banner), reads a VERSION
/// file at INITIAL_VERSION (0) and fences a datanode before its Raft server starts, then stops: the stop
/// settled a restart whose DB-ahead state the fence had already cleared. Now: VersionFileCoversDb and
/// NoFinalizedDatanodeFenced, no panic.
#[test]
fn generated_seed_20743_a_fence_inside_a_crashed_restart_then_a_stop_does_not_panic() {
    let mut rng = ozone_conform::refinement::Rng::new(20743);
    let data: Vec<u8> = (0..6000).map(|_| rng.next_u64() as u8).collect();
    let g = ozone_conform::log_gen::generate(
        &ozone_conform::grammar::Grammar::embedded().unwrap(),
        &data,
    );
    assert_eq!(g.layout, ozone_conform::log_gen::GenLayout::Console);
    let checked = contract::check_files(&g.files);
    let (_, verdict, first) = checked
        .iter()
        .find(|(model, _, _)| *model == "scm-finalization")
        .unwrap();
    assert_eq!(*verdict, ozone_conform::monitor::Verdict::Violated);
    assert!(first.ends_with("VersionFileCoversDb"), "{first}");
}
