//! `check --format ...`: every renderer on a violating and a healthy fixture (insta snapshots), the SARIF
//! output against the SARIF 2.1.0 types (serde-sarif), JUnit as XML, `--per-file` over a surefire reports
//! directory, GitHub's annotation cap, the `auto` default, and hostile log text through every format.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

use crate::common;

fn bin() -> Command {
    common::bin_cols(100)
}

const FORMATS: &[&str] = &[
    "full",
    "concise",
    "json",
    "json-lines",
    "sarif",
    "github",
    "junit",
];

const VIOLATING: &str = "tests/fixtures/scenarios/dn-finalize-block/violating";
const HEALTHY: &str = "tests/fixtures/scenarios/dn-finalize-block/healthy";
const SUREFIRE: &str = "tests/fixtures/surefire";

fn files(dir: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    v.sort();
    v
}

fn check(args: &[&str], inputs: &[String]) -> (i32, String, String) {
    let out = bin().arg("check").args(args).args(inputs).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn every_format_on_a_violating_and_a_healthy_run() {
    // JUnit's `time` is measured: the snapshot keeps its place, not its value.
    let measured = regex::Regex::new(r#" time="[0-9]+\.[0-9]{3}""#).unwrap();
    for (case, dir, code) in [("violating", VIOLATING, 1), ("healthy", HEALTHY, 0)] {
        for format in FORMATS {
            let (got, stdout, stderr) = check(
                &["--format", format, "--model", "dn-finalize-block"],
                &files(dir),
            );
            assert_eq!(got, code, "{format} {case}: {stderr}");
            assert!(stderr.is_empty(), "{format} {case}: {stderr}");
            let stdout = measured.replace_all(&stdout, r#" time="S.SSS""#);
            insta::assert_snapshot!(format!("{format}_{case}"), stdout);
        }
    }
}

#[test]
fn the_default_format_is_concise_when_stderr_is_not_a_terminal() {
    let (code, stdout, stderr) = check(&["--model", "dn-finalize-block"], &files(VIOLATING));
    assert_eq!(code, 1);
    let (_, concise, _) = check(
        &["--format", "concise", "--model", "dn-finalize-block"],
        &files(VIOLATING),
    );
    assert_eq!(stdout, concise);
    assert!(stdout.starts_with(
        "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn2.log:34:1: error[OZ-DN-BLOCK-001]: "
    ));
    // No progress bar outside a terminal.
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn sarif_is_valid_sarif_2_1_0_with_rules_locations_fingerprints_and_code_flows() {
    let (code, stdout, _) = check(&["--format", "sarif", "--all"], &files(VIOLATING));
    assert_eq!(code, 1);
    let typed: serde_sarif::sarif::Sarif =
        serde_json::from_str(&stdout).expect("deserializes as SARIF 2.1.0");
    assert_eq!(typed.runs.len(), 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(
        v["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ozone-conform");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 6, "every invariant of the four models");
    for r in rules {
        // SARIF2012: every rule links to its documentation (the upstream issue of its spec).
        assert!(
            r["helpUri"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://issues.apache.org/jira/browse/HDDS-")),
            "{r}"
        );
        assert!(r["id"].as_str().unwrap().starts_with("OZ-"));
        assert!(!r["shortDescription"]["text"].as_str().unwrap().is_empty());
        assert!(r["help"]["text"].as_str().unwrap().contains(".tla:"));
        assert!(r["properties"]["spec"]["line"].as_u64().unwrap() > 0);
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "one per datanode");
    let mut prints = std::collections::HashSet::new();
    for res in results {
        let rule = &rules[res["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], res["ruleId"]);
        assert_eq!(res["level"], "error");
        assert!(!res["message"]["text"].as_str().unwrap().is_empty());
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(loc["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .starts_with(
                "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn"
            ));
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert_eq!(loc["region"]["startColumn"], 1);
        let print = res["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .unwrap();
        assert_eq!(print.len(), 16);
        assert!(prints.insert(print.to_string()), "fingerprints differ");
        // The causal chain ends at the violating line.
        let flow = res["codeFlows"][0]["threadFlows"][0]["locations"]
            .as_array()
            .unwrap();
        assert!(flow.len() >= 2);
        assert_eq!(flow.last().unwrap()["location"]["physicalLocation"], *loc);
        assert!(!res["relatedLocations"].as_array().unwrap().is_empty());
    }
    // Verdicts, inconclusive ones too, are notifications and run properties.
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 4);
    assert!(notes.iter().any(|n| n["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("recon-om-sync: inconclusive: ")));
    assert_eq!(run["properties"]["verdicts"].as_array().unwrap().len(), 4);
    // Fingerprints hash no line number: the same violations a few lines further down keep them.
    let dir = tempfile::tempdir().unwrap();
    for f in files(VIOLATING) {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&f)).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        let shifted = format!("{first}\n{}{rest}", format!("{first}\n").repeat(5));
        std::fs::write(dir.path().join(Path::new(&f).file_name().unwrap()), shifted).unwrap();
    }
    let (_, moved, _) = check(
        &["--format", "sarif", "--all"],
        &[dir.path().to_string_lossy().into_owned()],
    );
    let moved: Value = serde_json::from_str(&moved).unwrap();
    let moved_prints: std::collections::HashSet<String> = moved["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_ne!(
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
                results[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
            );
            r["partialFingerprints"]["primaryLocationLineHash"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(moved_prints, prints);
}

#[test]
fn per_file_checks_each_test_output_as_its_own_run() {
    // JSON: one v1 document per test output file, with the file as `run`.
    let (code, stdout, stderr) =
        check(&["--per-file", "--format", "json"], &[SUREFIRE.to_string()]);
    assert_eq!(code, 1, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let runs = v.as_array().unwrap();
    assert_eq!(runs.len(), 5, "the summary .txt is not a log");
    let verdict = |file: &str, model: &str| -> String {
        let run = runs
            .iter()
            .find(|r| r["run"].as_str().unwrap().ends_with(file))
            .unwrap_or_else(|| panic!("no run {file}"));
        assert_eq!(run["version"], 1);
        assert_eq!(run["inputs"].as_array().unwrap().len(), 1);
        run["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["model"] == model)
            .unwrap()["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        verdict(
            "TestBugMC3SecretKeyFileLagsInstalledDb-output.txt",
            "scm-secret-keys"
        ),
        "violated"
    );
    assert_eq!(
        verdict("TestScmHAFinalization-output.txt", "scm-finalization"),
        "conforms"
    );
    assert_eq!(
        verdict(
            "TestBugMC4HsyncAckedBeyondRecoveredLength-output.txt",
            "dn-finalize-block"
        ),
        "violated"
    );
    assert_eq!(
        verdict(
            "TestLeaseRecoveryDefaultLogLevel-output.txt",
            "dn-finalize-block"
        ),
        "inconclusive"
    );
    assert_eq!(
        verdict("TestReconWithOzoneManager-output.txt", "recon-om-sync"),
        "conforms"
    );

    // JUnit: one testsuite per test class, one testcase per model.
    let (_, xml, _) = check(
        &["--per-file", "--format", "junit"],
        &[SUREFIRE.to_string()],
    );
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("20"));
    assert_eq!(root.attribute("failures"), Some("2"));
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 5);
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s.attribute("name").unwrap())
        .collect();
    assert!(
        names.contains(&"org.apache.hadoop.hdds.scm.TestBugMC3SecretKeyFileLagsInstalledDb"),
        "{names:?}"
    );
    for s in &suites {
        let cases: Vec<_> = s
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 4);
        assert!(s.attribute("file").unwrap().ends_with("-output.txt"));
    }
    let lease = suites
        .iter()
        .find(|s| {
            s.attribute("name")
                == Some("org.apache.hadoop.fs.ozone.TestLeaseRecoveryDefaultLogLevel")
        })
        .unwrap();
    let dn = lease
        .children()
        .find(|c| c.attribute("name") == Some("dn-finalize-block"))
        .unwrap();
    let skipped = dn.children().find(|c| c.has_tag_name("skipped")).unwrap();
    assert!(skipped
        .attribute("message")
        .unwrap()
        .contains("BlockManagerImpl=DEBUG"));

    // Concise names the file on every line, verdicts too.
    let (_, concise, _) = check(
        &["--per-file", "--format", "concise"],
        &[SUREFIRE.to_string()],
    );
    // Then one line that counts the files.
    assert_eq!(concise.lines().count(), 2 + 5 * 4 + 1);
    let (last, lines) = concise
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, r)| (*l, r.to_vec()))
        .unwrap();
    assert!(lines
        .iter()
        .all(|l| l.starts_with("tests/fixtures/surefire/")));
    assert!(last.starts_with("ozone-conform: 5 files: "), "{last}");

    // Without --per-file the same files are one run: a single JSON document.
    let (_, one, _) = check(&["--format", "json"], &[SUREFIRE.to_string()]);
    let one: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["inputs"].as_array().unwrap().len(), 5);
}

#[test]
fn github_annotates_at_most_ten_errors_and_summarises_the_rest() {
    // Four copies of a test output with three violations each: twelve violations.
    let dir = tempfile::tempdir().unwrap();
    let src =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(SUREFIRE).join(
            "org.apache.hadoop.fs.ozone.TestBugMC4HsyncAckedBeyondRecoveredLength-output.txt",
        ))
        .unwrap();
    for k in 0..4 {
        std::fs::write(dir.path().join(format!("TestCopy{k}-output.txt")), &src).unwrap();
    }
    let (code, stdout, _) = check(
        &[
            "--per-file",
            "--all",
            "--format",
            "github",
            "--model",
            "dn-finalize-block",
        ],
        &[dir.path().to_string_lossy().into_owned()],
    );
    assert_eq!(code, 1);
    let errors = stdout.lines().filter(|l| l.starts_with("::error ")).count();
    assert_eq!(errors, 10);
    let plain: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("ozone-conform: ") && l.contains("error[OZ-DN-BLOCK-001]"))
        .collect();
    assert_eq!(plain.len(), 2, "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("::warning title=ozone-conform::2 more violation(s)"),
        "{last}"
    );
    // Every line is a command or a plain line no log text can turn into one.
    for l in stdout.lines() {
        assert!(
            l.starts_with("::") || l.starts_with("ozone-conform: "),
            "{l}"
        );
    }
}

/// A log whose file name, and so its node name, carries terminal escapes, a bell, a right-to-left override,
/// a percent-encoded newline, a workflow command, CDATA markers and a real newline.
#[test]
fn hostile_log_text_is_neutralised_in_every_format() {
    let payload = "\x1b[31m\x07\u{202e}%0A::error::<![CDATA[]]>\nX";
    let dir = tempfile::tempdir().unwrap();
    let name = format!("ozone-hadoop-datanode-dn1{payload}.log");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(VIOLATING)
            .join("ozone-hadoop-datanode-dn1.log"),
        dir.path().join(&name),
    )
    .unwrap();
    let input = dir.path().to_string_lossy().into_owned();
    let path = format!("{input}/{name}");
    for format in FORMATS {
        let (code, out, stderr) = check(
            &["--format", format, "--model", "dn-finalize-block"],
            std::slice::from_ref(&input),
        );
        assert_eq!(code, 1, "{format}: {stderr}");
        for bad in ['\x1b', '\x07', '\u{202e}'] {
            // JSON keeps the exact text (U+202E is a legal JSON string character) but escapes controls.
            if bad == '\u{202e}' && matches!(*format, "json" | "json-lines" | "sarif") {
                continue;
            }
            assert!(!out.contains(bad), "{format}: raw {bad:?} in\n{out}");
        }
        match *format {
            "full" | "concise" => {
                assert!(
                    out.contains("\\u{1b}[31m\\u{7}\\u{202e}%0A::error::<![CDATA[]]>\\nX"),
                    "{format}:\n{out}"
                );
            }
            "github" => {
                for l in out.lines() {
                    assert!(
                        l.starts_with("::") || l.starts_with("ozone-conform: "),
                        "{l}"
                    );
                }
                let ann = out.lines().find(|l| l.starts_with("::error ")).unwrap();
                let props = &ann[2..2 + ann[2..].find("::").unwrap()];
                assert!(
                    !props.contains("error::") && props.contains("%250A%3A%3Aerror%3A%3A"),
                    "{props}"
                );
                assert!(
                    ann.contains("\\u{1b}[31m\\u{7}\\u{202e}%250A::error::<![CDATA[]]>%0AX"),
                    "{ann}"
                );
            }
            "junit" => {
                let doc = roxmltree::Document::parse(&out).expect("well-formed XML");
                let failure = doc
                    .descendants()
                    .find(|n| n.has_tag_name("failure"))
                    .unwrap();
                assert!(failure
                    .attribute("message")
                    .unwrap()
                    .contains("<![CDATA[]]>"));
                assert!(!out.contains("<![CDATA[") && !out.contains("]]>"));
            }
            "json" => {
                let v: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(v["inputs"][0]["path"], path.as_str(), "exact text, escaped");
            }
            "json-lines" => {
                let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
                assert_eq!(v["primary"]["path"], path.as_str());
            }
            "sarif" => {
                let v: Value = serde_json::from_str(&out).unwrap();
                let uri = v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                    ["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap();
                assert!(
                    uri.ends_with(
                        "dn1%1B%5B31m%07%E2%80%AE%250A::error::%3C!%5BCDATA%5B%5D%5D%3E%0AX.log"
                    ),
                    "{uri}"
                );
            }
            _ => unreachable!(),
        }
    }
}

/// `--format junit` against Jenkins' `junit-10.xsd` with `xmllint --schema`: the copy in `tests/schemas/`
/// (MIT licence, Gregory Boissinot; its source is in `tests/schemas/README.md`), or the file `JUNIT_XSD` names.
/// Without xmllint the test says SKIPPED.
#[test]
fn junit_validates_against_jenkins_junit_10_xsd() {
    let xsd = std::env::var_os("JUNIT_XSD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/junit-10.xsd")
        });
    assert!(xsd.is_file(), "{} is missing", xsd.display());
    if std::process::Command::new("xmllint")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("SKIPPED: no xmllint (Debian libxml2-utils)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runs: [(&str, &[&str], Vec<String>, i32); 3] = [
        ("violating", &["--format", "junit"], files(VIOLATING), 1),
        ("healthy", &["--format", "junit"], files(HEALTHY), 0),
        (
            "per-file",
            &["--per-file", "--format", "junit"],
            vec![SUREFIRE.to_string()],
            1,
        ),
    ];
    for (case, args, inputs, code) in runs {
        let (got, xml, stderr) = check(args, &inputs);
        assert_eq!(got, code, "{case}: {stderr}");
        assert!(xml.contains(" time=\""), "{case}: {xml}");
        let path = dir.path().join(format!("{case}.xml"));
        std::fs::write(&path, &xml).unwrap();
        let out = std::process::Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(&xsd)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
