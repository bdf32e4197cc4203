//! Healthy behaviours of the mirrors rendered as logs (bug, config, seed, layout and cut from the bytes):
//! no violation, no panic, the same report under 1 and 8 rayon threads.
//! The contract it asserts is `ozone_conform::contract::healthy_behaviour`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::healthy_behaviour(data));
