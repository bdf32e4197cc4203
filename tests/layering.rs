//! The crate's modules form layers: no import cycle between top-level modules (`crate::a` uses `crate::b` and
//! `b` uses `a`), nor between the files of one directory module (`tla/itf.rs` ↔ `tla/trace.rs`). Test code
//! (`#[cfg(test)] mod ...` at the end of a file) is left out: a test may reach across layers. Nested directory
//! modules count as directories too (`bugs/scm_finalization/monitor.rs` ↔ `witness.rs`).

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use regex::Regex;
use std::path::{Path, PathBuf};

/// The `.rs` files under `dir` that are production code: a file declared `#[cfg(test)] mod name;` by its
/// parent (a test kit) is test code.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let test_only = Regex::new(r"#\[cfg\(test\)\]\s*(pub(\(crate\))? )?mod ([a-z_]+);").unwrap();
    let mut skip = Vec::new();
    for parent in ["mod.rs", "lib.rs"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(parent)) {
            skip.extend(
                test_only
                    .captures_iter(&text)
                    .map(|c| format!("{}.rs", &c[3])),
            );
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs")
            && !skip
                .iter()
                .any(|s| p.file_name().is_some_and(|n| n == s.as_str()))
        {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The file's code before its test module, without comments.
fn production_code(text: &str) -> String {
    let test_mod = Regex::new(r"\n#\[cfg\(test\)\]\s*\n\s*(pub(\(crate\))? )?mod ").unwrap();
    let cut = test_mod.find(text).map_or(text.len(), |m| m.start());
    let comment = Regex::new(r"//[^\n]*").unwrap();
    comment.replace_all(&text[..cut], "").into_owned()
}

/// The cycles of a dependency graph, each as its sorted members.
fn cycles(edges: &[(String, String)]) -> Vec<Vec<String>> {
    let mut g: DiGraphMap<&str, ()> = DiGraphMap::new();
    for (a, b) in edges {
        g.add_edge(a.as_str(), b.as_str(), ());
    }
    tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(String::from).collect();
            c.sort();
            c
        })
        .collect()
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let uses = Regex::new(r"crate::([a-z_]+)").unwrap();
    let mut edges = Vec::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        let module = match rel.components().count() {
            1 => rel.file_stem().unwrap().to_string_lossy().into_owned(),
            _ => rel.iter().next().unwrap().to_string_lossy().into_owned(),
        };
        let code = production_code(&std::fs::read_to_string(&file).unwrap());
        for c in uses.captures_iter(&code) {
            let to = c[1].to_string();
            // Exported macros live at the crate root; they are not modules.
            let is_module = src.join(format!("{to}.rs")).exists() || src.join(&to).is_dir();
            if to != module && is_module {
                edges.push((module.clone(), to));
            }
        }
    }
    assert!(edges.len() > 20, "the scan found the crate's imports");
    assert_eq!(cycles(&edges), Vec::<Vec<String>>::new());
}

/// Every directory module under `dir`, nested ones too (`src/bugs/scm_finalization`).
fn directory_modules(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(directory_modules(&p));
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn files_of_a_directory_module_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sibling = Regex::new(r"super::([a-z_]+)").unwrap();
    let dirs = directory_modules(&src);
    assert!(
        dirs.iter().any(|d| d.ends_with("bugs/scm_finalization")),
        "nested directory modules are checked too"
    );
    for dir in dirs {
        let mut edges = Vec::new();
        let module_path: Vec<String> = dir
            .strip_prefix(&src)
            .unwrap()
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let crate_path =
            Regex::new(&format!(r"crate::{}::([a-z_]+)", module_path.join("::"))).unwrap();
        for file in rust_files(&dir) {
            if file.parent() != Some(dir.as_path()) {
                continue;
            }
            let me = file.file_stem().unwrap().to_string_lossy().into_owned();
            if me == "mod" {
                continue; // the parent: its children may use what it declares
            }
            let code = production_code(&std::fs::read_to_string(&file).unwrap());
            for c in sibling
                .captures_iter(&code)
                .chain(crate_path.captures_iter(&code))
            {
                let to = c[1].to_string();
                if to != me && dir.join(format!("{to}.rs")).exists() {
                    edges.push((me.clone(), to));
                }
            }
        }
        assert_eq!(
            cycles(&edges),
            Vec::<Vec<String>>::new(),
            "in {}",
            dir.display()
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let e = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        cycles(&[e("a", "b"), e("b", "c"), e("c", "a"), e("c", "d")]),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    assert!(cycles(&[e("a", "b"), e("b", "c")]).is_empty());
}

/// A bug's own event kinds (its `events.rs`) are read in its folder only: a kind another part reads is
/// common (`src/vocab.rs`), so a new bug's kinds never reach past its folder and the registry.
#[test]
fn each_bugs_own_event_kinds_are_read_only_in_its_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let kind = Regex::new(r"(?m)^\s*([A-Z][A-Za-z]+) \[").unwrap();
    let files: Vec<(PathBuf, String)> = rust_files(&src)
        .into_iter()
        .map(|f| {
            let code = production_code(&std::fs::read_to_string(&f).unwrap());
            (f, code)
        })
        .collect();
    let mut checked = 0;
    for events in files.iter().filter(|(f, _)| f.ends_with("events.rs")) {
        let folder = events.0.parent().unwrap();
        for k in kind.captures_iter(&events.1) {
            let named = Regex::new(&format!(r"EventKind::{}\b", &k[1])).unwrap();
            let outside: Vec<_> = files
                .iter()
                .filter(|(f, code)| !f.starts_with(folder) && named.is_match(code))
                .map(|(f, _)| f.strip_prefix(&src).unwrap().display().to_string())
                .collect();
            assert!(
                outside.is_empty(),
                "{} is {}'s own kind, yet {outside:?} read it",
                &k[1],
                folder.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 80,
        "every bug's own kinds were found ({checked})"
    );
}
