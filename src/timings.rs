//! `OZONE_CONFORM_TIMINGS=1`: how long each phase of a check took, on stderr. Where a large check spends
//! its time, without a profiler; nothing is printed without the variable.

/// With `OZONE_CONFORM_TIMINGS` set, writes how long `phase` took since `since` to stderr (and restarts
/// `since`): where a large check spends its time, without a profiler.
pub fn phase(phase: &str, since: &mut std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("OZONE_CONFORM_TIMINGS").is_some()) {
        eprintln!("timing: {phase}: {:.3} s", since.elapsed().as_secs_f64());
    }
    *since = std::time::Instant::now();
}
