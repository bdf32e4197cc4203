//! An event stream as `check --events` reads it (header, event lines, end object).
//! The contract it asserts is `ozone_conform::contract::event_stream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::event_stream(data));
