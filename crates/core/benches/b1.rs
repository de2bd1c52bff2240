//! `cargo bench -p ccarena-core`: runs benchmark case B1 (scenarios/bench/b1.toml) and prints
//! wall time, simulated events per second and packet hops per second. See BENCHMARKS.md.

use ccarena_core::scenario::Scenario;
use ccarena_core::sim::run_quiet;
use std::path::Path;

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bench/b1.toml");
    let text = std::fs::read_to_string(&path).expect("read scenarios/bench/b1.toml");
    let scenario = Scenario::from_toml(&text).expect("valid benchmark scenario");
    let r = run_quiet(&scenario).expect("benchmark run");
    let e = r.engine;
    println!("case: {}", r.name);
    println!("wall: {:.2} s for {} s simulated", e.wall_s, r.duration_s);
    println!("events: {} ({:.2} M/s)", e.events, e.events as f64 / e.wall_s / 1e6);
    println!("packet hops: {} ({:.2} M/s)", e.packets_forwarded, e.packets_forwarded as f64 / e.wall_s / 1e6);
    println!("peak packets stored: {}", e.peak_packets);
}
