//! `check --coverage` and `--coverage-report`: the table after the report and the Markdown report (insta
//! snapshots) on the surefire fixtures and on a scenario, the `coverage` object of `--format json` (counts the
//! fixtures' lines must give, `never` actions the fixtures truly lack), the HTML report as XML, the existing
//! output left byte for byte as it was, and usage errors.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

use crate::common;

fn bin() -> Command {
    common::bin_cols(100)
}

const SUREFIRE: &str = "tests/fixtures/surefire";
const SCENARIO: &str = "tests/fixtures/scenarios/scm-finalization/violating";

fn check(args: &[&str]) -> (i32, String, String) {
    let out = bin().arg("check").args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The scenario's daemon files (its `merged/` copy left out, as the formats tests do).
fn scenario_files() -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| format!("{SCENARIO}/{}", p.file_name().unwrap().to_string_lossy()))
            .collect();
    v.sort();
    v
}

/// Splits a `--coverage` stdout into the report and the coverage table after it.
fn split_table(stdout: &str) -> (&str, &str) {
    let at = stdout
        .find("\nspec coverage")
        .unwrap_or_else(|| panic!("no coverage table in:\n{stdout}"));
    (&stdout[..at], &stdout[at..])
}

#[test]
fn the_table_follows_the_report_on_the_surefire_fixtures_and_leaves_the_report_unchanged() {
    let (plain_code, plain, _) = check(&["--per-file", "--format", "concise", SUREFIRE]);
    let (code, stdout, stderr) =
        check(&["--per-file", "--format", "concise", "--coverage", SUREFIRE]);
    assert_eq!((code, plain_code), (1, 1), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let (report, table) = split_table(&stdout);
    assert_eq!(
        report, plain,
        "the report before the table is the report without --coverage"
    );
    insta::assert_snapshot!("table_surefire", table);
}

#[test]
fn the_table_of_one_run_has_no_per_run_columns() {
    let mut args = vec!["--format", "full", "--coverage"];
    let files = scenario_files();
    args.extend(files.iter().map(String::as_str));
    let (code, stdout, stderr) = check(&args);
    assert_eq!(code, 1, "{stderr}");
    let (_, table) = split_table(&stdout);
    assert!(!table.contains("witnessed in") && !table.contains("\nruns:"));
    insta::assert_snapshot!("table_scenario", table);
}

#[test]
fn the_markdown_report_on_the_surefire_fixtures_and_on_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("coverage.md");
    let (code, stdout, stderr) = check(&[
        "--per-file",
        "--format",
        "concise",
        "--coverage-report",
        md.to_str().unwrap(),
        SUREFIRE,
    ]);
    assert_eq!(code, 1, "{stderr}");
    // The report file alone leaves stdout as it is.
    let (_, plain, _) = check(&["--per-file", "--format", "concise", SUREFIRE]);
    assert_eq!(stdout, plain);
    insta::assert_snapshot!("markdown_surefire", std::fs::read_to_string(&md).unwrap());

    let scenario_md = dir.path().join("scenario.md");
    let mut args = vec!["--format", "json", "--coverage-report"];
    args.push(scenario_md.to_str().unwrap());
    let files = scenario_files();
    args.extend(files.iter().map(String::as_str));
    let (code, stdout, stderr) = check(&args);
    assert_eq!(code, 1, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        doc.get("coverage").is_none(),
        "only --coverage puts coverage into the JSON"
    );
    insta::assert_snapshot!(
        "markdown_scenario",
        std::fs::read_to_string(&scenario_md).unwrap()
    );
}

/// The coverage of `model` in the per-file JSON document of the run whose file ends in `class-output.txt`.
fn model_coverage<'a>(docs: &'a Value, class: &str, model: &str) -> &'a Value {
    let doc = docs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["run"]
                .as_str()
                .unwrap()
                .ends_with(&format!("{class}-output.txt"))
        })
        .unwrap_or_else(|| panic!("no run of {class}"));
    doc["coverage"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == model)
        .unwrap_or_else(|| panic!("no {model} in {class}"))
}

fn action<'a>(m: &'a Value, name: &str) -> &'a Value {
    m["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"] == name)
        .unwrap_or_else(|| panic!("no action {name}"))
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

fn fixture(class: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(SUREFIRE);
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.to_string_lossy()
                .ends_with(&format!(".{class}-output.txt"))
        })
        .unwrap();
    std::fs::read_to_string(file).unwrap()
}

#[test]
fn json_coverage_counts_what_the_fixtures_show_and_never_lists_what_they_lack() {
    let (code, stdout, stderr) = check(&["--per-file", "--format", "json", "--coverage", SUREFIRE]);
    assert_eq!(code, 1, "{stderr}");
    let docs: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(docs.as_array().unwrap().len(), 5);
    for doc in docs.as_array().unwrap() {
        let models = doc["coverage"]["models"].as_array().unwrap();
        assert_eq!(models.len(), 4, "every model in every run");
        for m in models {
            // Every action is in exactly one of the three lists, and its status says which.
            let all = m["actions"].as_array().unwrap();
            let listed = names(&m["witnessed"]).len()
                + names(&m["inferred"]).len()
                + names(&m["never"]).len();
            assert_eq!(listed, all.len(), "{m}");
            for a in all {
                let status = a["status"].as_str().unwrap();
                assert!(
                    names(&m[status]).contains(&a["action"].as_str().unwrap()),
                    "{a}"
                );
            }
        }
    }

    // dn-finalize-block, the hsync test (DEBUG on): three datanodes apply the finalize, six PutBlocks are
    // applied; the unlogged append and finalize are inferred.
    let hsync = fixture("TestBugMC4HsyncAckedBeyondRecoveredLength");
    let dn = model_coverage(
        &docs,
        "TestBugMC4HsyncAckedBeyondRecoveredLength",
        "dn-finalize-block",
    );
    assert_eq!(
        action(dn, "ApplyFinalizeBlock")["witnessed"],
        hsync.matches("Block has been finalized").count()
    );
    assert!(action(dn, "ApplyPutBlock")["witnessed"].as_u64().unwrap() > 0);
    assert!(action(dn, "AppendPutBlock")["inferred"].as_u64().unwrap() > 0);
    assert_eq!(action(dn, "AppendPutBlock")["inferable"], true);
    // Never: no PutBlock was rejected (no BLOCK_ALREADY_FINALIZED line), no stream write.
    let never = names(&dn["never"]);
    assert!(never.contains(&"RejectPutBlock"), "{never:?}");
    assert!(!hsync.contains("BLOCK_ALREADY_FINALIZED"));
    assert!(never.contains(&"StreamPutBlock"), "{never:?}");
    assert!(!hsync.contains("getStreamDataChannel"));
    assert_eq!(dn["note"], Value::Null);

    // scm-finalization, the HA finalization test: the leader force-finalizes once, nine registrations; no
    // datanode was fenced (no `higher than SCM apparent version` line).
    let ha = fixture("TestScmHAFinalization");
    let fin = model_coverage(&docs, "TestScmHAFinalization", "scm-finalization");
    assert_eq!(action(fin, "Finalize")["witnessed"], 1);
    // At most one witness per registration line (the lines of SCM threads the timeline cannot tie to an SCM
    // witness nothing).
    let registered = action(fin, "Register")["witnessed"].as_u64().unwrap();
    assert!(registered > 0 && registered as usize <= ha.matches("Registered datanode").count());
    assert!(names(&fin["never"]).contains(&"FenceDatanode"));
    assert!(!ha.contains("higher than SCM apparent version"));
    // The same file as scm-secret-keys sees it: an install the spec does not allow there; what the lines
    // show is counted, the inferred steps are not, and the note says where.
    let keys = model_coverage(&docs, "TestScmHAFinalization", "scm-secret-keys");
    assert!(keys["note"]
        .as_str()
        .unwrap()
        .contains("TestScmHAFinalization-output.txt:"));
    assert!(action(keys, "NotifyInstall")["witnessed"].as_u64().unwrap() > 0);

    // recon-om-sync, the Recon test: every action but one witnessed; the crash is inferred, nothing never.
    let recon = model_coverage(&docs, "TestReconWithOzoneManager", "recon-om-sync");
    assert!(action(recon, "FullSnapshot")["witnessed"].as_u64().unwrap() > 0);
    assert_eq!(names(&recon["inferred"]), ["Crash"]);
    assert!(names(&recon["never"]).is_empty());

    // A model with no line in a run: every action never.
    let none = model_coverage(&docs, "TestReconWithOzoneManager", "dn-finalize-block");
    assert_eq!(
        names(&none["never"]).len(),
        none["actions"].as_array().unwrap().len()
    );
    assert!(!fixture("TestReconWithOzoneManager").contains("Block has been finalized"));
}

#[test]
fn json_without_coverage_has_no_coverage_object() {
    let (_, stdout, _) = check(&["--per-file", "--format", "json", SUREFIRE]);
    let docs: Value = serde_json::from_str(&stdout).unwrap();
    assert!(docs
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d.get("coverage").is_none()));
}

#[test]
fn the_html_report_is_one_well_formed_page_with_a_row_per_action() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("coverage.html");
    let (code, _, stderr) = check(&[
        "--per-file",
        "--format",
        "concise",
        "--coverage-report",
        html.to_str().unwrap(),
        SUREFIRE,
    ]);
    assert_eq!(code, 1, "{stderr}");
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>"));
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options)
        .unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let tables: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("table"))
        .collect();
    // One table per model, then the runs.
    assert_eq!(tables.len(), 5);
    let rows = |t: &roxmltree::Node| t.children().filter(|c| c.has_tag_name("tr")).count();
    // Header plus ScmSecretKeys' 13 actions; the runs table: header plus 5 runs.
    assert_eq!(rows(&tables[0]), 1 + 13);
    assert_eq!(rows(&tables[4]), 1 + 5);
}

#[test]
fn coverage_where_it_has_no_place_is_a_usage_error() {
    let (code, stdout, stderr) = check(&["--format", "sarif", "--coverage", SUREFIRE]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("--coverage-report FILE.md"), "{stderr}");
    // A report file goes with any format. (On a scenario's daemon logs: the surefire files checked as one
    // run leave each SCM model's export stuck, which costs seconds of searching and adds nothing here.)
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("c.md");
    let mut args = vec![
        "--format".to_string(),
        "sarif".into(),
        "--coverage-report".into(),
        md.to_str().unwrap().into(),
    ];
    args.extend(scenario_files());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, stderr) = check(&args);
    assert_eq!(code, 1, "{stderr}");
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .starts_with("# Spec coverage"));
    // A live stdin has no end to count to.
    let out = bin()
        .args(["check", "--format", "concise", "--coverage", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("whole input"));
}

#[test]
fn a_report_file_that_cannot_be_written_is_an_error_naming_it() {
    let (code, _, stderr) = check(&[
        "--format",
        "concise",
        "--coverage-report",
        "/nonexistent-dir/coverage.md",
        SUREFIRE,
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent-dir/coverage.md"), "{stderr}");
}

#[test]
fn the_html_report_folds_models_that_saw_nothing_and_has_no_literal_backticks() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("coverage.html");
    let (code, _, stderr) = check(&[
        "--format",
        "concise",
        "--coverage-report",
        html.to_str().unwrap(),
        "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn1.log",
        "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn2.log",
        "tests/fixtures/scenarios/dn-finalize-block/violating/ozone-hadoop-datanode-dn3.log",
    ]);
    assert_eq!(code, 1, "{stderr}");
    let text = std::fs::read_to_string(&html).unwrap();
    // The one model that saw its actions has its table; the three others are one line.
    assert_eq!(text.matches("<table>").count(), 1, "{text}");
    assert!(text.contains("No action witnessed or inferred in these logs: <code>scm-secret-keys</code> (ScmSecretKeys), <code>scm-finalization</code> (ScmFinalization), <code>recon-om-sync</code> (ReconOmSync)."), "{text}");
    assert!(!text.contains('`'), "{text}");
    assert!(text.contains(&format!(
        "ozone-conform {} (git ",
        env!("CARGO_PKG_VERSION")
    )));
}
