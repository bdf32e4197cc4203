//! The long run of the refinement test (`src/refinement`): random behaviours of each mirror, rendered as
//! Ozone logs and checked; prints the agreement table and every disagreement's seed.
//!
//! `cargo run --release --example refinement -- --behaviours 100000 [--model M] [--layout L] [--bug|--fixed] [--seed BASE]`
//! `cargo run --release --example refinement -- --model M --dump SEED [--fixed] [--layout L] DIR` writes one behaviour's logs.

use ozone_conform::refinement::{Config, Layout, Table};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 100_000usize;
    let mut models: Vec<String> = Vec::new();
    let mut base = 0u64;
    let mut dump: Option<u64> = None;
    let mut fixed = false;
    let mut bug_only = false;
    let mut layouts: Vec<Layout> = Vec::new();
    let mut dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .unwrap_or_else(|| panic!("{a} needs a value"))
        };
        match a.as_str() {
            "--behaviours" => n = val().parse().expect("--behaviours N"),
            "--model" => models.push(val()),
            "--seed" => base = val().parse().expect("--seed N"),
            "--dump" => dump = Some(val().parse().expect("--dump SEED")),
            "--fixed" => fixed = true,
            "--bug" => bug_only = true,
            "--layout" => {
                let name = val();
                let l = Layout::ALL
                    .into_iter()
                    .find(|l| l.name() == name)
                    .unwrap_or_else(|| panic!("--layout daemon|console|one-jvm, not {name}"));
                layouts.push(l);
            }
            d => dir = Some(d.to_string()),
        }
    }
    if models.is_empty() {
        models = ozone_conform::bugs::BUGS
            .iter()
            .map(|b| b.name().to_string())
            .collect();
    }
    if let Some(seed) = dump {
        let config = if fixed { Config::Fixed } else { Config::Bug };
        let dir = dir.expect("--dump SEED DIR");
        let layout = layouts.first().copied().unwrap_or(Layout::Daemon);
        for m in &models {
            let out = bug(m)
                .refinement
                .dump(config, layout, seed, std::path::Path::new(&dir));
            println!("{out}");
        }
        return;
    }
    if layouts.is_empty() {
        layouts = Layout::ALL.to_vec();
    }
    println!("{}", Table::header());
    let mut failed = false;
    for m in &models {
        let configs = match (bug_only, fixed) {
            (true, false) => vec![Config::Bug],
            (false, true) => vec![Config::Fixed],
            _ => vec![Config::Bug, Config::Fixed],
        };
        for &config in &configs {
            for &layout in &layouts {
                let start = std::time::Instant::now();
                let t = bug(m).refinement.run(config, layout, n, base);
                println!("{} ({:.1} s)", t.row(), start.elapsed().as_secs_f64());
                for (seed, d) in &t.disagreements {
                    failed = true;
                    eprintln!("{m} {config:?} {} seed {seed}: {d}", layout.name());
                }
            }
        }
    }
    std::process::exit(i32::from(failed));
}

fn bug(name: &str) -> &'static ozone_conform::bugs::Bug {
    ozone_conform::bugs::by_name(name).unwrap_or_else(|| {
        eprintln!(
            "unknown model `{name}`; the models are {}",
            ozone_conform::bugs::names()
        );
        std::process::exit(2)
    })
}
