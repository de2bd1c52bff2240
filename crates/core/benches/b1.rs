//! `cargo bench -p ccarena-core`: runs benchmark case B1 (scenarios/bench/b1.toml) and prints
//! wall time, simulated events per second and packet hops per second. See BENCHMARKS.md.
//! A scenario file given as an argument is run instead (`cargo bench -p ccarena-core --
//! scenarios/bench/b2.toml`), so that B2 and B3 can be profiled without Python.

use ccarena_core::scenario::Scenario;
use ccarena_core::sim::run_quiet;
use std::path::Path;

fn main() {
    // cargo passes `--bench`; the first other argument, if any, is the scenario file.
    let path = match std::env::args().skip(1).find(|a| !a.starts_with("--")) {
        Some(p) => Path::new(&p).to_path_buf(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bench/b1.toml"),
    };
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let scenario = Scenario::from_toml(&text).expect("valid benchmark scenario");
    let r = run_quiet(&scenario).expect("benchmark run");
    let e = r.engine;
    println!("case: {}", r.name);
    println!("wall: {:.2} s for {} s simulated", e.wall_s, r.duration_s);
    println!("events: {} ({:.2} M/s)", e.events, e.events as f64 / e.wall_s / 1e6);
    println!(
        "packet hops: {} ({:.2} M/s)",
        e.packets_forwarded,
        e.packets_forwarded as f64 / e.wall_s / 1e6
    );
    println!("peak packets stored: {}", e.peak_packets);
}
