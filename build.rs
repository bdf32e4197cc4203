//! Embeds every `grammars/*.rules` file into the binary, so the shipped grammar needs no files at run time.
use std::{env, fs, path::Path};

fn main() {
    // Tests that read `../shared/corpus` are ignored (so libtest and nextest say so) where it is absent.
    println!("cargo::rustc-check-cfg=cfg(shared_corpus_absent)");
    let corpus = Path::new("../shared/corpus");
    if corpus.is_dir() {
        println!("cargo:rerun-if-changed=../shared/corpus");
    } else {
        println!("cargo:rustc-cfg=shared_corpus_absent");
    }
    // The Spark job's test runs where `.ci/run` (or you) installed PySpark and named its spark-submit.
    println!("cargo::rustc-check-cfg=cfg(spark_absent)");
    println!("cargo:rerun-if-env-changed=OZONE_CONFORM_SPARK_SUBMIT");
    if env::var_os("OZONE_CONFORM_SPARK_SUBMIT").is_none() {
        println!("cargo:rustc-cfg=spark_absent");
    }
    // `--version` names the commit it was built from.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let rev = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=OZONE_CONFORM_GIT_REV={rev}");
    if let Some(log) = git(&["rev-parse", "--git-path", "logs/HEAD"]) {
        println!("cargo:rerun-if-changed={log}");
    }
    let dir = Path::new("grammars");
    println!("cargo:rerun-if-changed=grammars");
    let mut files: Vec<_> = fs::read_dir(dir)
        .expect("grammars/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    files.sort();
    let mut out = String::from("pub const EMBEDDED_GRAMMARS: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let abs = fs::canonicalize(f).expect("grammar path");
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            format!("grammars/{}", f.file_name().unwrap().to_string_lossy()),
            abs.display().to_string()
        ));
    }
    out.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("embedded_grammars.rs"),
        out,
    )
    .unwrap();
}
