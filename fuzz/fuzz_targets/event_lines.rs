//! The event stream `ozone-conform events` writes for a scanned log, read back as `check --events` reads it.
//! The contract it asserts is `ozone_conform::contract::event_lines`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::event_lines(data));
