//! The SCM lines both SCM renderers print (`scm-secret-keys` and `scm-finalization` walk the same daemon
//! through installs and stops), written once so the two cannot drift from each other or from the grammar.

use super::{shutdown_banner, Logs};

pub const HAM: &str = "org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl";
pub const STARTER: &str = "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter";

/// `ReplaceDb(s)`: the checkpoint installed over scm.db, on the state machine's updater thread.
pub fn replace_db(logs: &mut Logs, file: usize, thread: &str, scm_id: &str, term: u64, idx: u64) {
    logs.record(
        file,
        thread,
        "INFO",
        HAM,
        &format!("{scm_id}: Install checkpoint {term}#{idx}"),
    );
    logs.record(
        file,
        thread,
        "INFO",
        HAM,
        &format!("Replaced DB with checkpoint, term: {term}, index: {idx}"),
    );
}

/// The first lines of a graceful stop (`kill -15`): the signal, then the shutdown hook stopping SCM HA.
pub fn sigterm(logs: &mut Logs, file: usize) {
    logs.record(
        file,
        "SIGTERM handler",
        "ERROR",
        STARTER,
        "RECEIVED SIGNAL 15: SIGTERM",
    );
    logs.record(
        file,
        "shutdown-hook-0",
        "INFO",
        "org.apache.hadoop.hdds.scm.server.StorageContainerManager",
        "Stopping SCM HA services.",
    );
}

/// The SHUTDOWN_MSG banner that ends a graceful stop.
pub fn shutdown(logs: &mut Logs, file: usize, host: &str, ip: &str) {
    logs.record(
        file,
        "shutdown-hook-0",
        "INFO",
        STARTER,
        &shutdown_banner("StorageContainerManager", host, ip),
    );
}
