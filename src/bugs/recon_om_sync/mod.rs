//! HDDS-16462: Recon's derived tasks after a full OM snapshot.
//! Its description (invariants, codes, advice, spec citation) is [`ABOUT`], which the monitor and the
//! witness both read; the spec is `traces/recon-om-sync/ReconOmSync.tla`.

pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;
use crate::model::{About, Invariant, Role, Spec};
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
    mirror: &crate::spec::Mirrored::<mirror::ReconOmSync>::new(),
    refinement: crate::refinement::Refinement::of::<mirror::ReconOmSync, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ReconOmSync);
