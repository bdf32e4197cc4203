//! `check --report FILE.html`: the page's content, its size past a few thousand events, and the page in a
//! real browser (headless Chromium: no console message, a mark for every event, hostile log text shown as
//! text). The browser tests say SKIPPED and pass where no Chromium is installed (`.ci/run` installs it).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

use crate::common;

fn bin() -> Command {
    let mut c = common::bin();
    c.env("SOURCE_DATE_EPOCH", "1796347800");
    c
}

/// The per-node files of a scenario case (its `merged/` copy left out).
fn case_files(model: &str, case: &str) -> Vec<String> {
    let dir = Path::new("tests/fixtures/scenarios").join(model).join(case);
    let mut v: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(&dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| dir.join(p.file_name().unwrap()).display().to_string())
        .collect();
    v.sort();
    v
}

/// `check --report` into a fresh directory: the exit code and the page.
fn report(inputs: &[String], extra: &[&str]) -> (i32, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let out = bin()
        .arg("check")
        .args(["--format", "concise", "--report"])
        .arg(&page)
        .args(extra)
        .args(inputs)
        .output()
        .unwrap();
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| {
        panic!(
            "{e}: no page; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), html, dir)
}

/// How many events `ozone-conform events` reads from these inputs.
fn event_count(inputs: &[String]) -> usize {
    let out = bin().arg("events").args(inputs).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"event\""))
        .count()
}

fn marks(html: &str) -> Vec<usize> {
    html.match_indices("<a class=\"mark\" href=\"#")
        .map(|(at, _)| {
            let rest = &html[at..];
            let v = &rest[rest.find("data-event=\"").unwrap() + 12..];
            v[..v.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

#[test]
fn the_page_has_a_mark_for_every_event_and_draws_the_violation_across_its_chain() {
    let inputs = case_files("scm-finalization", "violating");
    let (code, html, _dir) = report(&inputs, &[]);
    assert_eq!(code, 1, "the check's exit code is unchanged by --report");
    let events = event_count(&inputs);
    let mut seen = marks(&html);
    assert_eq!(seen.len(), events, "one mark per event");
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..events).collect::<Vec<_>>());
    // Every mark links to its row, which holds its file:line.
    for i in 0..events {
        assert!(html.contains(&format!("<tr id=\"r0e{i}\">")), "row {i}");
    }
    // The top: verdicts, inputs, version, date.
    assert!(html.contains("<h1>A model was violated</h1>"), "{html}");
    assert!(html.contains("<div class=\"verdict\">violated</div>"));
    assert!(html.contains(&format!(
        "<dd>ozone-conform {} (git ",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(html.contains("<dd>2026-12-04 01:30 UTC</dd>"));
    assert!(html.contains("<code>tests/fixtures/scenarios/scm-finalization/violating/ozone-hadoop-scm-scm3.log</code>"));
    // The run's picture (the first), then each violation's close-up.
    let pictures: Vec<&str> = html.split("<div class=\"lanes\">").skip(1).collect();
    assert_eq!(pictures.len(), 2, "the run's and the violation's close-up");
    let (whole, close_up) = (pictures[0], pictures[1]);
    // One lane per node, SCMs first.
    let lanes: Vec<&str> = whole
        .match_indices("<div class=\"lanelabel")
        .map(|(at, _)| {
            let b = &whole[at..];
            let b = &b[b.find("<b>").unwrap() + 3..];
            &b[..b.find("</b>").unwrap()]
        })
        .collect();
    assert_eq!(lanes, ["scm1", "scm2", "scm3", "dn1", "dn2", "dn3"]);
    // The violation: its primary line, its chain drawn as arrows (one fewer than its steps), a crash.
    assert!(html.contains("<span class=\"code\">OZ-SCM-FIN-001</span>"));
    let steps = html
        .split("<ol class=\"chainlist\">")
        .nth(1)
        .unwrap()
        .split("</ol>")
        .next()
        .unwrap()
        .matches("<li")
        .count();
    assert!(steps >= 2, "{steps}");
    for picture in [whole, close_up] {
        assert_eq!(
            picture.matches("<path class=\"chain v0\"").count(),
            steps - 1
        );
        assert_eq!(picture.matches("<circle class=\"halo v0\"").count(), 1);
        assert!(
            picture.contains("<g class=\"crash\">"),
            "scm3's crash is drawn"
        );
    }
    // The close-up numbers the chain's steps as the list does, and has marks of its own.
    for n in 1..=steps {
        assert!(close_up.contains(&format!("\">{n}</text>")), "step {n}");
    }
    assert!(marks(close_up).is_empty() && close_up.contains("<a class=\"fmark\""));
    // The spec coverage as chips.
    assert!(html.contains("<span class=\"chip witnessed\""));
    assert!(html.contains("<span class=\"chip never\""));
}

#[test]
fn the_page_loads_nothing_and_can_run_nothing() {
    let (_, html, _dir) = report(&case_files("dn-finalize-block", "violating"), &[]);
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
    ));
    assert!(!html.contains("<script"), "no script");
    assert!(!html.contains(" src="), "nothing to fetch");
    assert!(!html.contains("href=\"http"), "no link out of the page");
    assert!(!html.contains("url(http"), "no style from elsewhere");
}

/// A log whose violating line's thread name holds markup, quotes and control characters.
fn hostile_case(dir: &Path) -> Vec<String> {
    let mut inputs = Vec::new();
    for f in case_files("dn-finalize-block", "violating") {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&f)).unwrap();
        let name = Path::new(&f).file_name().unwrap();
        let text = if name == "ozone-hadoop-datanode-dn2.log" {
            let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
            lines[33] = lines[33].replacen("-0] DEBUG", &format!("-0{HOSTILE}] DEBUG"), 1);
            // And a line whose message (a mark's tooltip, inside the <svg>) is all hostile.
            let at = lines.iter().rposition(|l| !l.is_empty()).unwrap() + 1;
            lines.insert(
                at,
                format!("2026-08-23 11:30:00,000 [main] ERROR org.apache.hadoop.ozone.HddsDatanodeService: Terminating with exit status 1: {HOSTILE}"),
            );
            lines.join("\n")
        } else {
            text
        };
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        inputs.push(path.display().to_string());
    }
    inputs
}

const HOSTILE: &str = "<script>document.title=\"pwned\"</script></svg><img src=x onerror=alert(1)>\"'\u{7}\u{1b}[31m\u{202e}";

#[test]
fn hostile_log_text_is_written_as_text() {
    let logs = tempfile::tempdir().unwrap();
    let inputs = hostile_case(logs.path());
    let (code, html, _dir) = report(&inputs, &[]);
    assert_eq!(code, 1, "the hostile line is still the violating PutBlock");
    assert!(
        !html.contains("<script") && !html.contains("<img"),
        "{html}"
    );
    assert_eq!(html.matches("</svg>").count(), html.matches("<svg").count());
    assert!(!html.contains('\u{1b}') && !html.contains('\u{7}') && !html.contains('\u{202e}'));
    let escaped = "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#39;\\u{7}\\u{1b}[31m\\u{202e}";
    // In the log-line table (both lines) and in the tooltip of the exit line's mark, inside the picture.
    assert_eq!(html.matches(escaped).count(), 3, "{html}");
    let picture = html.split("<svg class=\"timeline\"").nth(1).unwrap();
    assert!(picture[..picture.find("</svg>").unwrap()].contains(escaped));
}

/// Chromium, where one is installed: `OZONE_CONFORM_CHROMIUM`, else `chromium`, `chromium-browser` or
/// `google-chrome` on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("OZONE_CONFORM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Loads `page` in headless Chromium: the DOM as the browser built it, and the console messages it logged.
fn load(browser: &Path, page: &Path, screenshot: Option<&Path>) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
        "--hide-scrollbars",
        "--window-size=1400,1100",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    match screenshot {
        Some(png) => cmd.arg(format!("--screenshot={}", png.display())),
        None => cmd.arg("--dump-dom"),
    };
    let out = cmd
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Chromium logs every console message (errors, CSP violations) as `...:CONSOLE...] "message"`.
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// Where a test keeps what it shows a person: `target/tmp/html-report/`.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_page_loads_in_chromium_with_no_console_message_and_a_mark_for_every_event() {
    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: no chromium on the PATH (apt-get install chromium, or set OZONE_CONFORM_CHROMIUM)");
        return;
    };
    let inputs = case_files("scm-finalization", "violating");
    let (_, html, dir) = report(&inputs, &[]);
    let page = dir.path().join("report.html");
    let (dom, console) = load(&browser, &page, None);
    assert!(console.is_empty(), "console: {console:#?}");
    assert_eq!(marks(&dom).len(), event_count(&inputs), "marks in the DOM");
    assert_eq!(marks(&dom).len(), marks(&html).len());
    assert!(dom.contains("<title>ozone-conform: A model was violated</title>"));
    let png = artifacts().join("scm-finalization-violating.png");
    let (_, console) = load(&browser, &page, Some(&png));
    assert!(console.is_empty(), "console: {console:#?}");
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "{}",
        png.display()
    );
    std::fs::copy(&page, artifacts().join("scm-finalization-violating.html")).unwrap();
    eprintln!("screenshot: {}", png.display());
}

#[test]
fn hostile_log_text_runs_nothing_in_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: no chromium on the PATH (apt-get install chromium, or set OZONE_CONFORM_CHROMIUM)");
        return;
    };
    let logs = tempfile::tempdir().unwrap();
    let inputs = hostile_case(logs.path());
    let (_, _, dir) = report(&inputs, &[]);
    let (dom, console) = load(&browser, &dir.path().join("report.html"), None);
    assert!(console.is_empty(), "console: {console:#?}");
    assert!(!dom.contains("pwned</title>") && !dom.contains("<script") && !dom.contains("<img"));
    assert!(dom.contains("&lt;script&gt;document.title=\"pwned\"&lt;/script&gt;&lt;/svg&gt;"));
    // The line did not break out of the picture: every event still has its mark inside the one <svg>.
    assert_eq!(marks(&dom).len(), event_count(&inputs));
    let picture = dom.split("<svg class=\"timeline\"").nth(1).unwrap();
    let picture = &picture[..picture.find("</svg>").unwrap()];
    assert_eq!(marks(picture).len(), event_count(&inputs));
}

#[test]
fn past_a_few_thousand_events_the_picture_is_thinned_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ozone-hadoop-datanode-dn1.log");
    let mut text = String::new();
    for n in 0..8000u64 {
        text.push_str(&format!(
            "2026-08-23 11:{:02}:{:02},{:03} [ContainerOp-0] DEBUG org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl: \
             Block conID: 1 locID: {} bcsId: {n} replicaIndex: null successfully committed with bcsId {n} chunk size 1\n",
            n / 6000 % 60,
            n / 100 % 60,
            n % 100 * 10,
            113750153625600001u64 + n
        ));
    }
    std::fs::write(&log, text).unwrap();
    let inputs = [log.display().to_string()];
    assert_eq!(event_count(&inputs), 8000);
    let (_, html, _d) = report(&inputs, &[]);
    let shown = marks(&html).len();
    assert!(
        (2500..=3000).contains(&shown),
        "{shown} marks of 8000 events"
    );
    assert!(
        html.contains(&format!("The picture shows {shown} of 8000 events")),
        "the note"
    );
    assert!(html.len() < 2_500_000, "{} bytes", html.len());
}

#[test]
fn a_report_in_a_missing_directory_fails_at_once_and_says_which() {
    let out = bin()
        .args(["check", "--report", "/nonexistent-dir/report.html"])
        .args(case_files("dn-finalize-block", "violating"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write the HTML report /nonexistent-dir/report.html"),
        "{err}"
    );
    assert!(
        !err.contains(".ozone-conform-"),
        "no temporary file named: {err}"
    );
}

#[test]
fn a_report_needs_the_whole_input() {
    let out = bin()
        .args(["check", "--follow", "--report", "x.html"])
        .args(case_files("dn-finalize-block", "violating"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--report draws the whole input"));
}

#[test]
fn the_coverage_counts_inferred_steps_only_when_asked() {
    // --report alone: witnessed actions (the cheap half), and a note that says what is left out.
    let inputs = case_files("scm-secret-keys", "violating");
    let (_, html, _dir) = report(&inputs, &[]);
    assert!(html.contains("Only witnessed actions here: inferred steps not counted here (<code>check --coverage</code> counts them"));
    assert!(
        !html.contains("<span class=\"chip inferred\" title"),
        "{html}"
    );
    // With --coverage-report (or --coverage) the inferred steps are counted and drawn.
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("c.md");
    let (_, html, _dir) = report(&inputs, &["--coverage-report", md.to_str().unwrap()]);
    assert!(!html.contains("Only witnessed actions here"));
    assert!(
        html.contains("<span class=\"chip inferred\" title"),
        "{html}"
    );
}
