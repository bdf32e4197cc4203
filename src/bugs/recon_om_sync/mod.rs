//! HDDS-16462: Recon's derived tasks after a full OM snapshot.
//! Its description (invariants, codes, advice, spec citation) is [`ABOUT`], which the monitor and the
//! witness both read; the spec is `traces/recon-om-sync/ReconOmSync.tla`.
//!
//! **One reading, two kinds of state.** The monitor (`monitor.rs`) and the witness (`witness.rs`) read the
//! same lines through the same predicates ([`ABOUT`]'s role, the lifecycle, `witness::seq` and
//! `witness::task`) and the mirror's typed actions. Their state differs because their jobs do: the monitor
//! steps event by event with partial knowledge (per Recon, the highest sequence number processed, a rebuild
//! due, what a lost line left unknown) and says *inconclusive* where a line it needs is missing; the witness
//! rebuilds the mirror's actions for `export` from the whole timeline at once (`Model::witnessed`), because
//! its abstraction of sequence numbers into small integers per OM lineage needs every number the logs show.

pub mod events;
#[cfg(any(test, feature = "testing"))]
pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;
use crate::monitor::{About, Invariant, Role, Spec};
use crate::vocab::Component;

const INVARIANTS: &[Invariant] = &[Invariant {
    name: "DerivedTasksMatchOmLineage",
    code: "OZ-RECON-001",
    summary: "Recon serves derived tables built from an earlier OM lineage",
    advice: "Recon's container-key, namespace and file-size views show rows the current OM does not have, and will not heal by themselves. Trigger a full reprocess (restart Recon after deleting its task status rows, or `POST /api/v1/triggerdbsync/om`) and check the views afterwards.",
    signature: &[],
}];

pub(crate) const ABOUT: About = About {
    name: "recon-om-sync",
    spec: Spec {
            module: "ReconOmSync",
            path: "traces/recon-om-sync/ReconOmSync.tla",
            issue: "HDDS-16462",
        },
    invariants: INVARIANTS,
    role: Role::or_unknown(Component::Recon),
    nothing_checked: "no full snapshot with an earlier sequence number in view (`Sequence number after sync` before and after `Successfully updated Recon OM DB with new snapshot.`)",
    grammars: &["recon-om-sync.rules", "lifecycle.rules", "common.rules"],
};

pub const BUG: Bug = Bug {
    about: &ABOUT,
    causal: &[],
    monitor: || Box::new(monitor::ReconOmSync::default()),
    mirror: &crate::mirror::Mirrored::<mirror::ReconOmSync>::new(),
    #[cfg(any(test, feature = "testing"))]
    refinement: crate::refinement::Refinement::of::<mirror::ReconOmSync, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ReconOmSync);
