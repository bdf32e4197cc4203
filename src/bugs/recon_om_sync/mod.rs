//! HDDS-16462: Recon's derived tasks after a full OM snapshot. The description (invariants, codes, advice, spec citation) is
//! [`monitor::ABOUT`]; the spec is `traces/recon-om-sync/ReconOmSync.tla`.

pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;

pub const BUG: Bug = Bug {
    about: &monitor::ABOUT,
    monitor: || Box::new(monitor::ReconOmSync::default()),
    mirror: &crate::spec::Mirrored::<mirror::ReconOmSync>::new(),
    refinement: crate::refinement::Refinement::of::<mirror::ReconOmSync, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ReconOmSync);
