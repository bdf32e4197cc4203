//! `models`: the registry's bugs, in report order, as text or JSON (scripts read the model names from it).

use super::{out_err, StatsFormat, EXIT_OK};
use miette::Report;
use std::io::Write;

/// `models`: one line per registered bug, or a JSON array (scripts read the model names from it).
pub fn cmd_models(format: StatsFormat) -> Result<i32, Report> {
    let mut out = crate::cli::out::stdout();
    match format {
        StatsFormat::Text => {
            for b in &crate::bugs::BUGS {
                let invariants: Vec<&str> = b.about.invariants.iter().map(|i| i.name).collect();
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}",
                    b.name(),
                    b.about.spec.issue,
                    b.about.spec.path,
                    invariants.join(",")
                )
                .map_err(out_err)?;
            }
        }
        StatsFormat::Json => {
            let models: Vec<serde_json::Value> = crate::bugs::BUGS
                .iter()
                .map(|b| {
                    serde_json::json!({
                        "model": b.name(),
                        "issue": b.about.spec.issue,
                        "module": b.about.spec.module,
                        "spec": b.about.spec.path,
                        "invariants": b.about.invariants.iter().map(|i| {
                            serde_json::json!({"name": i.name, "code": i.code})
                        }).collect::<Vec<_>>(),
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::Value::Array(models)).map_err(out_err)?;
        }
    }
    Ok(EXIT_OK)
}
