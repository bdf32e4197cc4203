//! A log file read through a memory map rather than `read` calls: the scan reads the page cache in place,
//! and the kernel no longer copies every byte into a buffer first (a fifth of a scan's CPU time).
//!
//! A mapped file that shrinks while it is read (logrotate's `copytruncate`, an operator's `> file`) would
//! kill the process with SIGBUS at the first page past its new end. So a SIGBUS handler catches a fault inside
//! a map registered here, puts zero pages over the rest of that map and records the first page lost; the scan
//! then stops at the last whole line before the file's new end and reports the truncation
//! ([`MappedFile::shrunk_to`]). A fault anywhere else goes on to the handler that was there before (Rust's
//! own, which tells a stack overflow apart) or to the default action, as if this module did not exist.
//!
//! Only a regular file is mapped, whole, at the size it has when opened.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// How many files may be mapped at once; a file opened when all are taken is read with `read` instead.
const SLOTS: usize = 64;

/// A registered map, as the signal handler sees it: `start == 0` means the slot is free (or being filled).
struct Slot {
    taken: AtomicBool,
    start: AtomicUsize,
    len: AtomicUsize,
    /// Offset in the map of the first page lost to a truncation; `usize::MAX` while none is.
    lost_from: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)] // each array element is its own slot
const FREE: Slot = Slot {
    taken: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    lost_from: AtomicUsize::new(usize::MAX),
};

static MAPS: [Slot; SLOTS] = [FREE; SLOTS];
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);

/// The SIGBUS disposition found when ours was installed, to pass faults outside our maps on to.
struct Previous(libc::sigaction);
// SAFETY: a plain record of numbers and function addresses, written once before any read.
unsafe impl Sync for Previous {}
unsafe impl Send for Previous {}
static PREVIOUS: OnceLock<Option<Previous>> = OnceLock::new();

/// A whole regular file mapped read-only.
pub struct MappedFile {
    ptr: *const u8,
    len: usize,
    slot: usize,
    file: File,
}

// SAFETY: the map is read-only and lives until drop; the slot's atomics are the only shared state.
unsafe impl Send for MappedFile {}
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps `file` whole, or `None` when it cannot be (not a regular file, empty, no free slot, no handler,
    /// `mmap` refused): the caller reads it instead.
    pub fn map(file: File) -> Option<MappedFile> {
        let meta = file.metadata().ok()?;
        let len = usize::try_from(meta.len()).ok()?;
        if !meta.is_file() || len == 0 || !handler_installed() {
            return None;
        }
        let slot = MAPS.iter().position(|s| {
            s.taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        // SAFETY: a fresh shared read-only map of a descriptor we hold; the kernel chooses the address.
        let ptr = unsafe {
            use std::os::fd::AsRawFd;
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            MAPS[slot].taken.store(false, Ordering::Release);
            return None;
        }
        // SAFETY: advice on the map just made; a refusal changes nothing.
        unsafe { libc::madvise(ptr, len, libc::MADV_SEQUENTIAL) };
        let s = &MAPS[slot];
        s.len.store(len, Ordering::Release);
        s.lost_from.store(usize::MAX, Ordering::Release);
        s.start.store(ptr as usize, Ordering::Release);
        Some(MappedFile {
            ptr: ptr as *const u8,
            len,
            slot,
            file,
        })
    }

    /// The file's bytes as they were when mapped; past a truncation, zeros (see [`MappedFile::shrunk_to`]).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr+len` stays mapped read-only until drop; a page the file lost is replaced by a
        // zero page, never unmapped. Another process may still write the file under us, as with any map of a
        // shared file: the bytes are then whatever the page cache holds, like a `read` racing a writer.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// How long the file is now, if it shrank below the mapped size while it was read; the bytes of the map
    /// at and past that offset are not the file's. A file that grew is read to its size when mapped.
    pub fn shrunk_to(&self) -> Option<u64> {
        let lost = MAPS[self.slot].lost_from.load(Ordering::Acquire);
        let now = self.file.metadata().map_or(lost as u64, |m| m.len());
        let end = now.min(lost as u64);
        (end < self.len as u64).then_some(end)
    }

    /// Maps the pages of `start..end` ahead of their reader, in one call rather than a fault per few pages.
    pub fn populate(&self, start: usize, end: usize) {
        // `MADV_POPULATE_READ` is Linux's (5.14 on); elsewhere the reader faults the pages in.
        #[cfg(target_os = "linux")]
        {
            let from = start & !(PAGE_SIZE.load(Ordering::Relaxed) - 1);
            // SAFETY: advice on a range inside our map; a refusal (an older kernel, pages past a
            // truncation) changes nothing.
            unsafe {
                libc::madvise(
                    self.ptr.add(from) as *mut libc::c_void,
                    end.min(self.len) - from,
                    libc::MADV_POPULATE_READ,
                )
            };
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (start, end);
    }

    /// Takes the pages of the block `start..end` out of this process's memory once it has been read: the
    /// file's pages stay in the page cache, but no longer count in the process's resident memory, which stays
    /// that of the blocks in flight rather than growing to the file's size. A block gives back the pages
    /// from the one its first byte is on to the one before its end's (that one is the next block's first),
    /// so each page is given back once; one still read by the block before is faulted in again.
    pub fn release(&self, start: usize, end: usize) {
        let page = PAGE_SIZE.load(Ordering::Relaxed);
        let from = start & !(page - 1);
        let to = if end >= self.len {
            self.len
        } else {
            end & !(page - 1)
        };
        if from < to {
            // SAFETY: a range inside our read-only shared map; its bytes are the file's, so dropping them
            // loses nothing (a later read faults them in from the page cache).
            unsafe {
                libc::madvise(
                    self.ptr.add(from) as *mut libc::c_void,
                    to - from,
                    libc::MADV_DONTNEED,
                )
            };
        }
    }

    /// Has a fault past the file's end put zero pages in the map? (One atomic load: asked per block.)
    pub fn lost_pages(&self) -> bool {
        MAPS[self.slot].lost_from.load(Ordering::Acquire) != usize::MAX
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        let s = &MAPS[self.slot];
        s.start.store(0, Ordering::Release);
        // SAFETY: the map made in `map`, unmapped once; zero pages put over part of it go with it.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
        s.taken.store(false, Ordering::Release);
    }
}

/// Installs the SIGBUS handler once per process; false if the system refused it.
fn handler_installed() -> bool {
    PREVIOUS
        .get_or_init(|| {
            // SAFETY: sysconf, then sigaction with a handler that only touches atomics and calls mmap.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE_SIZE.store(page as usize, Ordering::Relaxed);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                (libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0)
                    .then_some(Previous(previous))
            }
        })
        .is_some()
}

/// The SIGBUS handler. Async-signal-safe: atomics, `mmap` and `sigaction` only.
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = addr & !(PAGE_SIZE.load(Ordering::Relaxed) - 1);
    for s in &MAPS {
        let start = s.start.load(Ordering::Acquire);
        let len = s.len.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= start + len {
            continue;
        }
        // SAFETY: replaces pages of our own read-only map, from the faulting one to its end, with zero pages;
        // the faulting read then runs again and reads zeros.
        let zeros = unsafe {
            libc::mmap(
                page as *mut libc::c_void,
                start + len - page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            s.lost_from.fetch_min(page - start, Ordering::AcqRel);
            return;
        }
        break;
    }
    pass_on(sig, info, context);
}

/// A fault that is not ours: to the handler before ours, or to the default action (the faulting access runs
/// again with it in place and ends the process as it would have).
fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let previous = PREVIOUS.get().and_then(|p| p.as_ref()).map(|p| p.0);
    match previous {
        Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
            // SAFETY: the address and flags are the disposition the system gave us for SIGBUS.
            unsafe {
                if p.sa_flags & libc::SA_SIGINFO != 0 {
                    let handler: extern "C" fn(
                        libc::c_int,
                        *mut libc::siginfo_t,
                        *mut libc::c_void,
                    ) = std::mem::transmute(p.sa_sigaction);
                    handler(sig, info, context);
                } else {
                    let handler: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
                    handler(sig);
                }
            }
        }
        _ => {
            // SAFETY: restores the default disposition of SIGBUS.
            unsafe {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &default, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        let opened = File::open(f.path()).unwrap();
        (f, opened)
    }

    #[test]
    fn a_mapped_file_reads_as_its_bytes_and_frees_its_slot_when_dropped() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let (_keep, file) = file_of(&data);
        let map = MappedFile::map(file).expect("a regular file maps");
        assert_eq!(map.bytes(), &data[..]);
        assert_eq!(map.shrunk_to(), None);
        assert!(!map.lost_pages());
        let slot = map.slot;
        drop(map);
        assert!(!MAPS[slot].taken.load(Ordering::Acquire));
        assert_eq!(MAPS[slot].start.load(Ordering::Acquire), 0);
    }

    #[test]
    fn an_empty_file_is_not_mapped() {
        let (_keep, file) = file_of(b"");
        assert!(MappedFile::map(file).is_none());
    }

    #[test]
    fn a_file_truncated_under_its_map_reads_zeros_past_its_end_and_says_how_long_it_is_now() {
        let page = PAGE_SIZE.load(Ordering::Relaxed).max(4096);
        let data = vec![b'x'; page * 8];
        let (keep, file) = file_of(&data);
        let map = MappedFile::map(file).unwrap();
        let new_len = page * 2 + 100;
        std::fs::OpenOptions::new()
            .write(true)
            .open(keep.path())
            .unwrap()
            .set_len(new_len as u64)
            .unwrap();
        // Without the handler this read would end the test process with SIGBUS.
        let bytes = map.bytes();
        let past_end: usize = bytes[page * 3..].iter().map(|&b| b as usize).sum();
        assert_eq!(past_end, 0, "the pages past the file's end read as zeros");
        assert!(bytes[..new_len].iter().all(|&b| b == b'x'));
        assert!(map.lost_pages());
        assert_eq!(map.shrunk_to(), Some(new_len as u64));
    }
}
