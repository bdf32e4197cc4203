//! HDDS-16923: secret keys an SCM installs with a Raft snapshot. The description (invariants, codes, advice, spec citation) is
//! [`monitor::ABOUT`]; the spec is `traces/scm-secret-keys/ScmSecretKeys.tla`.

pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;

pub const BUG: Bug = Bug {
    about: &monitor::ABOUT,
    monitor: || Box::new(monitor::ScmSecretKeys::default()),
    mirror: &crate::spec::Mirrored::<mirror::ScmSecretKeys>::new(),
    refinement: crate::refinement::Refinement::of::<mirror::ScmSecretKeys, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ScmSecretKeys);
