//! Writes a large TLC output for the trace memory bench (`benches/trace_memory.sh`): a seeded random walk of
//! the ScmSecretKeys mirror under its fixed config, printed state by state in TLC's plain text format (TLC's
//! banner, `State N: <Action line L, col C to line L2, col C2 of module M>` headers,
//! `/\ var = value` conjuncts with functions, sets and sequences as TLC prints them). Every state is one the
//! mirror reaches, so `trace` replays the whole file and conforms (no invariant is violated: fixed config).
//!
//! `cargo run --release --example gen_tlc_output -- --size 100M --out /tmp/tlc-100m.out [--seed N]`

use ozone_conform::bugs::scm_secret_keys::mirror::ScmSecretKeys;
use ozone_conform::mirror::Mirror;
use std::io::Write;

fn parse_size(s: &str) -> u64 {
    let (num, mul) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("--size N[K|M|G]") * mul
}

fn main() {
    let mut size = 100u64 << 20;
    let mut out = None;
    let mut seed = 1u64;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .unwrap_or_else(|| panic!("{a} needs a value"))
        };
        match a.as_str() {
            "--size" => size = parse_size(&val()),
            "--out" => out = Some(val()),
            "--seed" => seed = val().parse().expect("--seed N"),
            other => panic!("unknown argument {other}"),
        }
    }
    let out = out.expect("--out FILE");
    let (_, cfg) = ScmSecretKeys::SPEC.configs[1];
    let constants = ozone_conform::tla::cfg::parse_cfg("fixed.cfg", cfg)
        .expect("the shipped fixed config")
        .constants;
    let mirror = ScmSecretKeys::new(&constants).expect("the fixed config builds the mirror");
    let file = std::fs::File::create(&out).expect("create --out");
    let mut w = std::io::BufWriter::new(file);
    let mut written = 0u64;
    let mut put = |w: &mut std::io::BufWriter<std::fs::File>, text: &str| {
        w.write_all(text.as_bytes()).expect("write");
        written += text.len() as u64;
        written
    };
    put(&mut w, "TLC2 Version 2.18 of 20 March 2023 (rev: 3ea3222)\nRunning Random Simulation with seed 1 with 1 worker on 2 cores.\nParsing file ScmSecretKeys.tla\nStarting... (2026-12-03 11:00:00)\nThe behavior up to this point is:\n");
    let mut state = mirror.init().remove(0);
    let mut label = "<Initial predicate>".to_string();
    let mut rng = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for n in 1u64.. {
        let mut text = format!("State {n}: {label}\n");
        for (name, v) in ScmSecretKeys::VARIABLES.iter().zip(mirror.to_tla(&state)) {
            text.push_str(&format!("/\\ {name} = {v}\n"));
        }
        text.push('\n');
        if put(&mut w, &text) >= size {
            break;
        }
        let next = mirror.next(&state);
        assert!(!next.is_empty(), "the fixed config has no deadlock");
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let step = next[((rng >> 33) as usize) % next.len()].clone();
        label = format!(
            "<{} line 146, col 5 to line 162, col 54 of module ScmSecretKeys>",
            step.action
        );
        state = step.next;
    }
    w.flush().expect("flush");
}
