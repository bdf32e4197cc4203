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
        // Chunks read back from disk and written to it during the phase (the runs of `crate::spill`).
        let (reads, writes) = crate::spill::disk_chunks();
        let (last_reads, last_writes) = std::mem::replace(
            &mut *LAST_DISK.lock().unwrap_or_else(|p| p.into_inner()),
            (reads, writes),
        );
        let disk = match (reads - last_reads, writes - last_writes) {
            (0, 0) => String::new(),
            (r, w) => format!(", disk chunks read {r}, written {w}"),
        };
        eprintln!(
            "timing: {phase}: {:.3} s{memory}{disk}",
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

/// The spill counters (chunks read, written) at the end of the last phase printed.
static LAST_DISK: std::sync::Mutex<(usize, usize)> = std::sync::Mutex::new((0, 0));

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
