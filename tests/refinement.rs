//! The refinement test through the real binary: a few rendered behaviours of each model (see
//! `src/refinement`), checked by `ozone-conform check --format json`, must get the verdict and primary lines
//! the in-process check gave them, and agree with the mirror.

use crate::common;
use ozone_conform::monitor::Verdict;
use ozone_conform::refinement::{Class, Config};
use std::path::Path;

fn check(model: &str, files: &[std::path::PathBuf]) -> (i32, serde_json::Value) {
    common::check_json(&["--model", model], files)
}

#[test]
fn the_binary_agrees_with_the_in_process_check_on_rendered_behaviours() {
    let root = tempfile::tempdir().unwrap();
    for bug in &ozone_conform::bugs::BUGS {
        let model = &bug.name();
        // The first two violating behaviours and the first healthy one of the bug config, and one of the
        // fixed config.
        let mut want = [
            (Config::Bug, Class::BothViolated, 2),
            (Config::Bug, Class::Healthy, 1),
            (Config::Fixed, Class::Healthy, 1),
        ];
        for seed in 0..400u64 {
            if want.iter().all(|w| w.2 == 0) {
                break;
            }
            for w in want.iter_mut().filter(|w| w.2 > 0) {
                let dir = root.path().join(format!("{model}-{:?}-{seed}", w.0));
                let (files, j) = bug.refinement.keep(w.0, seed, &dir).unwrap();
                assert!(j.why.is_none(), "{model} seed {seed}: {:?}", j.why);
                if j.class != w.1 {
                    continue;
                }
                w.2 -= 1;
                let (code, report) = check(model, &files);
                let m = &report["models"][0];
                assert_eq!(m["model"], *model);
                let verdict = match j.said.verdict {
                    Verdict::Violated => "violated",
                    Verdict::Conforms => "conforms",
                    Verdict::Inconclusive => "inconclusive",
                };
                assert_eq!(m["verdict"], verdict, "{model} seed {seed}: {m}");
                assert_eq!(
                    code,
                    i32::from(j.said.verdict == Verdict::Violated),
                    "{model} seed {seed}"
                );
                if let Some(said) = j.said.violations.first() {
                    let v = &m["violations"][0];
                    assert_eq!(v["invariant"], said.invariant);
                    assert_eq!(v["message"], said.message.as_str());
                    let path = v["primary"]["path"].as_str().unwrap();
                    let file = Path::new(path).file_name().unwrap().to_string_lossy();
                    assert_eq!(
                        format!("{file}:{}", v["primary"]["line"]),
                        said.at,
                        "{model} seed {seed}"
                    );
                }
            }
        }
        assert!(
            want.iter().all(|w| w.2 == 0),
            "{model}: no behaviour of each kind in 400 seeds: {want:?}"
        );
    }
}
