//! Logs built from the grammar's own rule samples (`ozone_conform::log_gen`), the bytes choosing every
//! decision, through the whole check under 1 and 8 rayon threads.
//! The contract it asserts is `ozone_conform::contract::generated_logs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::generated_logs(data));
