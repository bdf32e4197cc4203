//! Runs the generated-logs contract (`ozone_conform::contract::generated_logs`) on seeded inputs and says how
//! long each took, or writes one input's logs for a look:
//!
//!   cargo run --release --example generated_logs -- run FIRST COUNT [LEN]   # seeds FIRST..FIRST+COUNT
//!   cargo run --release --example generated_logs -- dump SEED DIR [LEN]     # the logs of one seed
//!   cargo run --release --example generated_logs -- file INPUT DIR           # the logs of a fuzz input
use ozone_conform::refinement::Rng;

fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| r.next_u64() as u8).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let grammar = ozone_conform::grammar::Grammar::embedded().expect("the embedded grammar");
    match arg(0, "run").as_str() {
        "run" => {
            let first: u64 = arg(1, "0").parse().expect("FIRST");
            let count: u64 = arg(2, "100").parse().expect("COUNT");
            let len: usize = arg(3, "6000").parse().expect("LEN");
            for seed in first..first + count {
                let data = bytes(seed, len);
                let t = std::time::Instant::now();
                // Each seed on its own: a failing one is listed and the run goes on.
                let ok =
                    std::panic::catch_unwind(|| ozone_conform::contract::generated_logs(&data));
                println!(
                    "seed {seed}: {:.3}s{}",
                    t.elapsed().as_secs_f64(),
                    if ok.is_err() { " FAILED" } else { "" }
                );
            }
        }
        what @ ("dump" | "file") => {
            let data = if what == "dump" {
                bytes(
                    arg(1, "0").parse().expect("SEED"),
                    arg(3, "6000").parse().expect("LEN"),
                )
            } else {
                std::fs::read(arg(1, "")).expect("INPUT")
            };
            let dir = std::path::PathBuf::from(arg(2, "generated"));
            std::fs::create_dir_all(&dir).expect("DIR");
            let g = ozone_conform::log_gen::generate(&grammar, &data);
            for (name, text) in &g.files {
                std::fs::write(dir.join(name), text).expect("write");
                println!("{}", dir.join(name).display());
            }
        }
        other => panic!("unknown command {other}"),
    }
}
