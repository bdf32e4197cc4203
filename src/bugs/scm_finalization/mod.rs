//! HDDS-17089: SCM upgrade finalization across a snapshot install. The description (invariants, codes, advice, spec citation) is
//! [`monitor::ABOUT`]; the spec is `traces/scm-finalization/ScmFinalization.tla`.

pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;

pub const BUG: Bug = Bug {
    about: &monitor::ABOUT,
    monitor: || Box::new(monitor::ScmFinalization::default()),
    mirror: &crate::spec::Mirrored::<mirror::ScmFinalization>::new(),
    refinement: crate::refinement::Refinement::of::<mirror::ScmFinalization, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ScmFinalization);
