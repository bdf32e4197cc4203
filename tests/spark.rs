//! The Spark job (`integrations/spark`): `events` on the executors, `check --events` on the driver, in
//! `local[2]` mode, gives the report a single `check` of the same files gives, byte for byte. Runs where
//! `OZONE_CONFORM_SPARK_SUBMIT` names a spark-submit (`.ci/run` installs PySpark into a virtual environment);
//! ignored, and saying so, elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scenario(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios")
        .join(dir);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    assert!(!logs.is_empty(), "{}", root.display());
    logs
}

/// The JSON report and exit code of the Spark job on these files.
fn spark_check(spark_submit: &str, logs: &[PathBuf], extra: &[&str]) -> (i32, String) {
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("report.json");
    let bin = env!("CARGO_BIN_EXE_ozone-conform");
    let mut c = Command::new(spark_submit);
    c.args(["--master", "local[2]", "--files", bin])
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/spark/ozone_conform_spark.py"),
        )
        .args(["--format", "json", "-o"])
        .arg(&report)
        .args(extra)
        .args(logs);
    // spark-submit finds its home from the python next to it.
    if let Some(bin_dir) = Path::new(spark_submit).parent() {
        let path = std::env::var("PATH").unwrap_or_default();
        c.env("PATH", format!("{}:{path}", bin_dir.display()));
    }
    let out = c.output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no report ({e}), exit {code}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, text)
}

fn local_check(logs: &[PathBuf]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ozone-conform"))
        .args(["check", "--format", "json"])
        .args(logs)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn spark_submit() -> Option<String> {
    let s = std::env::var("OZONE_CONFORM_SPARK_SUBMIT").ok();
    if s.is_none() {
        eprintln!("SKIPPED: OZONE_CONFORM_SPARK_SUBMIT is not set (no PySpark)");
    }
    s
}

#[test]
#[cfg_attr(
    spark_absent,
    ignore = "OZONE_CONFORM_SPARK_SUBMIT not set at build time"
)]
fn the_spark_job_gives_the_report_check_gives() {
    let Some(spark) = spark_submit() else { return };
    // Local files read by the binary where they lie; and every file through binaryFiles (as remote file
    // systems are read), on another bug's logs.
    for (dir, extra) in [
        ("scm-secret-keys/violating", vec![]),
        ("dn-finalize-block/violating", vec!["--via", "binary"]),
        ("recon-om-sync/healthy", vec!["--via", "binary"]),
    ] {
        let logs = scenario(dir);
        let (want_code, want) = local_check(&logs);
        let (code, got) = spark_check(&spark, &logs, &extra);
        assert_eq!(code, want_code, "{dir}");
        assert_eq!(got, want, "{dir} {extra:?}");
    }
}
