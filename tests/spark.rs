//! The Spark job (`integrations/spark`): `events` on the executors, `check --events` on the driver, in
//! `local[2]` mode, gives the report a single `check` of the same files gives, byte for byte. Runs where
//! `OZONE_CONFORM_SPARK_SUBMIT` names a spark-submit (`.ci/run` installs PySpark into a virtual environment);
//! ignored, and saying so, elsewhere. The cases run in one spark-submit (`tests/spark_cases.py`), each a run
//! of the job with its own arguments and SparkSession.

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

/// The Spark job on each case (its files and extra arguments): the exit code and JSON report of each run.
/// One spark-submit runs them all (`tests/spark_cases.py`): each run is the job's `__main__` with its own
/// arguments and its own SparkSession, as a spark-submit of it alone would be; the cases share the driver's
/// JVM and Python, most of a spark-submit's time.
fn spark_checks(spark_submit: &str, cases: &[(Vec<PathBuf>, Vec<&str>)]) -> Vec<(i32, String)> {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reports: Vec<PathBuf> = (0..cases.len())
        .map(|i| tmp.path().join(format!("report-{i}.json")))
        .collect();
    let argvs: Vec<Vec<String>> = cases
        .iter()
        .zip(&reports)
        .map(|((logs, extra), report)| {
            let mut argv: Vec<String> = ["--format", "json", "-o"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            argv.push(report.to_string_lossy().into_owned());
            argv.extend(extra.iter().map(|s| s.to_string()));
            argv.extend(logs.iter().map(|p| p.to_string_lossy().into_owned()));
            argv
        })
        .collect();
    let cases_file = tmp.path().join("cases.json");
    let codes_file = tmp.path().join("codes.json");
    std::fs::write(&cases_file, serde_json::to_string(&argvs).unwrap()).unwrap();
    let bin = env!("CARGO_BIN_EXE_ozone-conform");
    let mut c = Command::new(spark_submit);
    c.args(["--master", "local[2]", "--files", bin])
        .arg(root.join("tests/spark_cases.py"))
        .arg(root.join("integrations/spark/ozone_conform_spark.py"))
        .arg(&cases_file)
        .arg(&codes_file);
    // spark-submit finds its home from the python next to it.
    if let Some(bin_dir) = Path::new(spark_submit).parent() {
        let path = std::env::var("PATH").unwrap_or_default();
        c.env("PATH", format!("{}:{path}", bin_dir.display()));
    }
    let out = c.output().unwrap();
    let failed = |what: String| {
        format!(
            "{what}, spark-submit exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let codes: Vec<i32> = serde_json::from_str(
        &std::fs::read_to_string(&codes_file)
            .unwrap_or_else(|e| panic!("{}", failed(format!("no exit codes ({e})")))),
    )
    .unwrap();
    assert_eq!(codes.len(), cases.len());
    codes
        .into_iter()
        .zip(&reports)
        .map(|(code, report)| {
            let text = std::fs::read_to_string(report).unwrap_or_else(|e| {
                panic!(
                    "{}",
                    failed(format!("no report {} ({e}), exit {code}", report.display()))
                )
            });
            (code, text)
        })
        .collect()
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
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("scm-secret-keys/violating", vec![]),
        ("dn-finalize-block/violating", vec!["--via", "binary"]),
        ("recon-om-sync/healthy", vec!["--via", "binary"]),
    ];
    let runs: Vec<(Vec<PathBuf>, Vec<&str>)> = cases
        .iter()
        .map(|(dir, extra)| (scenario(dir), extra.clone()))
        .collect();
    let got = spark_checks(&spark, &runs);
    for (((dir, extra), (logs, _)), (code, got)) in cases.iter().zip(&runs).zip(got) {
        let (want_code, want) = local_check(logs);
        assert_eq!(code, want_code, "{dir}");
        assert_eq!(got, want, "{dir} {extra:?}");
    }
}
