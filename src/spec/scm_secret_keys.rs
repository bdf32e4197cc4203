//! Placeholder: the mirror is being written.
