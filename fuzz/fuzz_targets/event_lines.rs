//! The JSON lines `ozone-conform events` writes for a scanned log.
//! The contract it asserts is `ozone_conform::contract::event_lines`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::event_lines(data));
