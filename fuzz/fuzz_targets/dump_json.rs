//! A TLC `-dumpTrace json` file (the JSON trace reader, seeded with dumps).
//! The contract it asserts is `ozone_conform::contract::json_trace`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::json_trace(data));
