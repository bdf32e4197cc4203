//! `ozone-conform grammar audit` over the hand-written Java tree in tests/fixtures/audit/, and the pinned index
//! in grammars/ against the embedded grammar (no sources, no network).

use serde_json::Value;

use crate::common;
use common::bin;

const RULES: &str = "tests/fixtures/audit/fixture.rules";
const JAVA: &str = "fixture=tests/fixtures/audit/java";

fn audit(args: &[&str]) -> (i32, String, String) {
    let out = bin()
        .args(["grammar", "audit"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = audit(&[args, &["--format", "json"]].concat());
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}")),
    )
}

fn rule<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == id)
        .unwrap_or_else(|| panic!("no rule {id}"))
}

#[test]
fn the_text_report_lists_what_needs_attention_and_exits_1() {
    let (code, out, _) = audit(&["--rules", RULES, "--source", JAVA]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn json_gives_every_rule_its_status_and_location() {
    let (code, r) = json(&["--rules", RULES, "--source", JAVA]);
    assert_eq!(code, 1);
    assert_eq!(r["trees"], serde_json::json!(["fixture"]));
    let summary = &r["summary"];
    for (status, n) in [
        ("found", 4),
        ("moved", 1),
        ("level-changed", 1),
        ("changed", 1),
        ("missing", 1),
    ] {
        assert_eq!(summary[status], n, "{status}: {summary}");
    }
    let status = |id: &str| rule(&r, id)["status"].as_str().unwrap().to_string();
    assert_eq!(status("CheckpointInstalled"), "found");
    assert_eq!(status("ScmBecameLeader"), "missing");

    let moved = rule(&r, "ScmStateReloaded");
    assert_eq!(moved["status"], "moved");
    assert_eq!(moved["at"]["file"], "org/example/ha/HaManager.java");
    assert_eq!(moved["at"]["line"], 20);

    let level = rule(&r, "SecretKeysFetching");
    assert_eq!(level["status"], "level-changed");
    assert_eq!(level["at"]["level"], "DEBUG");
    assert_eq!(level["levels"], serde_json::json!(["INFO"]));

    let changed = rule(&r, "CheckpointInstallStarted");
    assert_eq!(changed["status"], "changed");
    assert_eq!(changed["at"]["line"], 14);
    assert_eq!(
        changed["at"]["template"],
        "{}: Installing checkpoint {} from leader"
    );
    assert_eq!(
        changed["diff"],
        "{}: [-Install-] {+Installing+} checkpoint {} {+from leader+}"
    );

    // String.format, a nested class's logger with a concatenation, a logger handed to a helper.
    let format = rule(&r, "SignalReceived");
    assert_eq!(
        (format["status"].as_str(), format["at"]["line"].as_u64()),
        (Some("found"), Some(15))
    );
    assert_eq!(format["at"]["template"], "RECEIVED SIGNAL {}: {}");
    let nested = rule(&r, "StateMachineReinitializing");
    assert_eq!(nested["status"], "found");
    assert_eq!(
        nested["at"]["template"],
        "{}: SCMStateMachine is reinitializing. newTermIndex = {}"
    );
    let helper = rule(&r, "TerminatingWithStatus");
    assert_eq!(helper["status"], "found");
    assert_eq!(helper["at"]["file"], "org/example/ha/ExitHelper.java");
    assert_eq!(
        helper["at"]["template"],
        "Terminating with exit status {}: {}"
    );
}

#[test]
fn uncovered_lists_the_statements_no_rule_matches() {
    let (code, out, _) = audit(&[
        "--rules",
        RULES,
        "--source",
        JAVA,
        "--uncovered",
        "HaManager",
        "org.example.ha.StateMachine",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "org/example/ha/HaManager.java:14\tINFO\torg.example.ha.HaManager\t{}: Installing checkpoint {} from leader\n\
         org/example/ha/HaManager.java:28\tWARN\torg.example.ha.HaManager\tSecret keys from leader {} are stale\n\
         org/example/ha/StateMachine.java:11\tINFO\torg.example.ha.StateMachine\tLeadership moved to {}\n\
         3 statements no rule matches\n"
    );
}

#[test]
fn write_updates_the_citations_of_moved_rules_only() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("fixture.rules");
    let original = std::fs::read_to_string(RULES).unwrap();
    std::fs::write(&rules, &original).unwrap();
    let (code, _, err) = audit(&[
        "--rules",
        rules.to_str().unwrap(),
        "--source",
        JAVA,
        "--write",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("updated 1 source citations: ScmStateReloaded"),
        "{err}"
    );
    let written = std::fs::read_to_string(&rules).unwrap();
    assert_eq!(
        written,
        original.replace("source  HaManager.java:17", "source  HaManager.java:20")
    );
    let (_, r) = json(&["--rules", rules.to_str().unwrap(), "--source", JAVA]);
    assert_eq!(rule(&r, "ScmStateReloaded")["status"], "found");
}

#[test]
fn an_index_written_from_the_sources_audits_like_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index.tsv");
    let (_, from_sources) = json(&[
        "--rules",
        RULES,
        "--source",
        JAVA,
        "--write-index",
        index.to_str().unwrap(),
    ]);
    let (code, from_index) = json(&["--rules", RULES, "--index", index.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(from_index["rules"], from_sources["rules"]);
}

/// The pinned index (extracted from the pinned Ozone and Ratis revisions) still holds every rule's statement
/// at the line the rule cites, at the rule's level.
#[test]
fn the_pinned_index_agrees_with_the_embedded_grammar() {
    let (code, r) = json(&["--index", "grammars/pinned-templates.tsv"]);
    assert_eq!(code, 0, "{r:#}");
    for rule in r["rules"].as_array().unwrap() {
        let status = rule["status"].as_str().unwrap();
        let id = rule["rule"].as_str().unwrap();
        match status {
            "found" => {}
            // Templates built at run time (banners, StringBuilder, a helper's message parameter).
            "unresolved" => assert!(rule["at"]["template"]
                .as_str()
                .unwrap()
                .starts_with("<built at run time")),
            // Hadoop's ExitUtil is not in the Ozone or Ratis trees the index is built from.
            "not-audited" => assert_eq!(id, "ExitingWithStatus"),
            other => panic!("{id}: {other}: {rule:#}"),
        }
    }
    let found = r["summary"]["found"].as_u64().unwrap();
    assert!(found >= 180, "{found} rules found");
    // The index is data, not rules: the grammar loader does not read it.
    let listed = bin()
        .args(["grammar", "--grammar", "grammars"])
        .output()
        .unwrap();
    assert!(listed.status.success());
}

#[test]
fn bad_input_is_a_clear_error() {
    let (code, _, err) = audit(&[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("grammar audit needs --source DIR or --index FILE"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("bad.tsv");
    std::fs::write(&index, "tree\tt\nfile\tf\n12\t12\tINFO\tl\n").unwrap();
    let (code, _, err) = audit(&["--index", index.to_str().unwrap()]);
    assert_eq!(code, 2);
    // miette wraps long messages: the location with the expectation, and the count.
    assert!(err.contains("bad.tsv:3: expected `tree NAME`"), "{err}");
    assert!(err.contains("six tab-separated columns, got"), "{err}");
    let (code, _, err) = audit(&["--source", "no/such/dir"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--source no/such/dir: not a directory"),
        "{err}"
    );
}

/// Copies the fixture's Java tree under `dir`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_tree_is_named_by_its_commit_only_at_the_top_of_its_checkout() {
    let git = |dir: &std::path::Path, args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let checkout = tempfile::tempdir().unwrap();
    if !git(checkout.path(), &["init", "-q"]) {
        eprintln!("SKIPPED: no git");
        return;
    }
    let java = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/java");
    copy_tree(&java, checkout.path());
    assert!(git(checkout.path(), &["add", "-A"]));
    assert!(git(checkout.path(), &["commit", "-qm", "sources"]));
    // A tree extracted inside the checkout (a tarball unpacked into a project's directory).
    let extracted = checkout.path().join("downloads").join("ozone-src");
    copy_tree(&java, &extracted);
    let name_of = |dir: &std::path::Path| {
        let (_, r) = json(&["--rules", RULES, "--source", dir.to_str().unwrap()]);
        r["trees"][0].as_str().unwrap().to_string()
    };
    let top = name_of(checkout.path());
    assert!(
        top.starts_with(&format!("{}@", checkout.path().display())) && top.len() > 40,
        "{top}"
    );
    assert_eq!(name_of(&extracted), extracted.display().to_string());
}
