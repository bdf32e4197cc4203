//! Files `check` writes (`-o`, `--report`, `--coverage-report`): created as any file is, 0666 less the umask
//! (like `convert -o` and `export -o`), and a directory that does not exist is said before the check
//! starts, naming the file asked for.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const LOGS: &str =
    "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn2.log";

/// `check ARGS` under `umask`.
fn check_with_umask(umask: &str, args: &[&str]) -> std::process::Output {
    let mut command = format!(
        "umask {umask}; exec '{}' check",
        env!("CARGO_BIN_EXE_ozone-conform")
    );
    for a in args {
        command.push_str(&format!(" '{a}'"));
    }
    std::process::Command::new("sh")
        .args(["-c", &command])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn written_files_honour_the_umask() {
    for (umask, want) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let dir = tempfile::tempdir().unwrap();
        let (out, page, coverage) = (
            dir.path().join("report.txt"),
            dir.path().join("report.html"),
            dir.path().join("coverage.md"),
        );
        let run = check_with_umask(
            umask,
            &[
                "-o",
                out.to_str().unwrap(),
                "--report",
                page.to_str().unwrap(),
                "--coverage-report",
                coverage.to_str().unwrap(),
                LOGS,
            ],
        );
        assert_eq!(run.status.code(), Some(1), "{run:?}");
        for f in [&out, &page, &coverage] {
            assert_eq!(mode(f), want, "umask {umask}: {}", f.display());
        }
    }
}

#[test]
fn a_missing_directory_is_said_before_the_check_naming_the_file() {
    // Relative (to the repository, where no such directory is), so that the message is not wrapped.
    let missing = Path::new("no-such-dir").join("report.txt");
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("no-such-dir")
        .exists());
    let run = check_with_umask("022", &["-o", missing.to_str().unwrap(), LOGS]);
    assert_eq!(run.status.code(), Some(2));
    // The diagnostic is wrapped to the terminal's width.
    let err = String::from_utf8_lossy(&run.stderr)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        err.contains(&format!(
            "{}: the directory {} does not exist",
            missing.display(),
            missing.parent().unwrap().display()
        )),
        "{err}"
    );
    assert!(
        !err.contains(".ozone-conform-"),
        "no temporary file named: {err}"
    );
    assert!(run.stdout.is_empty(), "nothing checked first");
}

/// `-o /dev/null`, `--report /dev/stdout` or a FIFO: a file that is not a regular file is written in place.
/// Renaming a finished temporary file over it (as for a regular file) would replace the device or pipe with
/// a plain file; as root, over `/dev/null`, that breaks every later program that reads it.
#[test]
fn a_fifo_asked_for_stays_a_fifo_and_gets_the_report() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifos: Vec<_> = ["report.txt", "report.html", "coverage.md"]
        .iter()
        .map(|name| {
            let p = dir.path().join(name);
            let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path; mkfifo only reads it.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
            p
        })
        .collect();
    // Each reader blocks in open until `check` opens its FIFO for writing.
    let readers: Vec<_> = fifos
        .iter()
        .cloned()
        .map(|p| std::thread::spawn(move || std::fs::read_to_string(p).unwrap()))
        .collect();
    let run = check_with_umask(
        "022",
        &[
            "-o",
            fifos[0].to_str().unwrap(),
            "--report",
            fifos[1].to_str().unwrap(),
            "--coverage-report",
            fifos[2].to_str().unwrap(),
            LOGS,
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    // Asserted before joining: a FIFO renamed away leaves its reader blocked for good.
    for f in &fifos {
        let kind = std::fs::symlink_metadata(f).unwrap().file_type();
        assert!(kind.is_fifo(), "{} is no longer a FIFO", f.display());
    }
    let [text, page, coverage] = readers
        .into_iter()
        .map(|r| r.join().unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    assert!(text.contains("NoPutBlockAfterFinalize"), "{text}");
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(!coverage.is_empty());
}
