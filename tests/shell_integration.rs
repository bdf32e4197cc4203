//! What a shell gets from `completions` and `man`: the bash script sourced in bash and asked what it
//! offers, the zsh and fish scripts syntax-checked by their shells, and the man page formatted by groff
//! with warnings on. A test whose shell or groff is missing says SKIPPED and passes.

use assert_cmd::Command;
use std::path::Path;

fn generated(args: &[&str]) -> String {
    let out = Command::cargo_bin("ozone-conform")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn has(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What the sourced bash completion offers for the words typed so far (the last one being completed).
fn bash_offers(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        r#"source '{}'
COMP_WORDS=({})
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
fn=$(complete -p ozone-conform | sed -E 's/.* -F ([^ ]+) .*/\1/')
"$fn" ozone-conform "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        script.display(),
        quoted.join(" ")
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn bash_completes_a_subcommands_options_and_their_values() {
    if !has("bash") {
        eprintln!("SKIPPED: no bash");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ozone-conform.bash");
    std::fs::write(&script, generated(&["completions", "bash"])).unwrap();
    let models = bash_offers(&script, &["ozone-conform", "check", "--model", ""]);
    assert_eq!(
        models,
        [
            "scm-secret-keys",
            "scm-finalization",
            "dn-finalize-block",
            "recon-om-sync"
        ]
    );
    assert_eq!(
        bash_offers(&script, &["ozone-conform", "check", "--form"]),
        ["--format"]
    );
    let formats = bash_offers(&script, &["ozone-conform", "check", "--format", "j"]);
    assert_eq!(formats, ["json", "json-lines", "junit"]);
    assert_eq!(
        bash_offers(&script, &["ozone-conform", "grammar", "audit", "--sour"]),
        ["--source"]
    );
    assert!(bash_offers(&script, &["ozone-conform", "ch"]).contains(&"check".to_string()));
}

#[test]
fn zsh_and_fish_scripts_parse() {
    for (shell, check) in [("zsh", &["-n"][..]), ("fish", &["--no-execute"][..])] {
        if !has(shell) {
            eprintln!("SKIPPED: no {shell}");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join(format!("ozone-conform.{shell}"));
        let text = generated(&["completions", shell]);
        assert!(
            text.contains("require-checks") && text.contains("report"),
            "{shell}"
        );
        std::fs::write(&script, text).unwrap();
        let out = std::process::Command::new(shell)
            .args(check)
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_man_page_has_every_command_its_formats_and_the_exit_codes() {
    let roff = generated(&["man"]);
    for needle in [
        ".SS \"ozone-conform check\"",
        ".SS \"ozone-conform grammar audit\"",
        "\\-\\-require\\-checks",
        "\\-\\-report",
        "json\\-lines",
        "junit",
        ".SH \"EXIT STATUS\"",
        ".B 3",
    ] {
        assert!(roff.contains(needle), "{needle} in {roff}");
    }
    assert!(
        !roff.contains("ozone\\-conform\\-check(1)") && !roff.contains("ozone-conform-check(1)"),
        "no page that is never generated is referred to"
    );
    if !has("groff") {
        eprintln!("SKIPPED: formatting the man page (no groff)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("ozone-conform.1");
    std::fs::write(&page, &roff).unwrap();
    let out = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
