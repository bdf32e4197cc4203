//! The event kinds only `scm-secret-keys` reads (its grammar's lines; the kinds other parts read too are
//! [`crate::vocab::COMMON`]'s). They follow the kinds of the bugs before it in the registry.

use crate::vocab::{opt, FieldType as T};

crate::vocab::vocabulary! {
    KINDS from crate::bugs::first_kind::scm_secret_keys;

    /// `Failed to get secret keys from SCM leader L`.
    SecretKeysFetchFailed [opt("leader", T::Text)],
    /// `Getting secret keys from leader {}.` (security enabled only; before SecretKeysFetched).
    SecretKeysFetching [opt("leader", T::Text)],
    /// DEBUG `The latest key was created at: {} which does not pass the rotation duration`.
    SecretKeyRotationNotDue [opt("created", T::Word)],
    /// `Scheduling rotation checker with interval {}` (SecretKeyManagerService start; `PT10M`).
    SecretKeyRotationScheduled [opt("interval", T::Word)],
    /// DN/OM verifier: `Secret key fetched from SCM: {}`; no `key` when SCM answered `null` (key unknown to SCM).
    SecretKeyFetchedFromScm [opt("key", T::SecretKey)],
}
