//! `OZONE_CONFORM_TIMINGS=1`: how long each phase of a check took, and the memory it left resident, on
//! stderr. Where a large check spends its time and memory, without a profiler; nothing is printed without
//! the variable.

/// With `OZONE_CONFORM_TIMINGS` set, writes how long `phase` took since `since` to stderr (and restarts
/// `since`), with the resident memory at its end and the peak so far (Linux).
pub fn phase(phase: &str, since: &mut std::time::Instant) {
    if on() {
        let memory = match (status_kib("VmRSS:"), status_kib("VmHWM:")) {
            (Some(rss), Some(peak)) => {
                format!(" (resident {} MiB, peak {} MiB)", rss / 1024, peak / 1024)
            }
            _ => String::new(),
        };
        eprintln!(
            "timing: {phase}: {:.3} s{memory}",
            since.elapsed().as_secs_f64()
        );
    }
    *since = std::time::Instant::now();
}

/// With `OZONE_CONFORM_TIMINGS` set, writes `what` to stderr (a fact of the run, e.g. what went to disk).
pub fn note(what: &str) {
    if on() {
        eprintln!("timing: {what}");
    }
}

fn on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("OZONE_CONFORM_TIMINGS").is_some())
}

/// A `/proc/self/status` line's value in KiB (`VmRSS:`, `VmHWM:`), where there is one.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
