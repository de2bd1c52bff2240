//! An on/off source over TCP whose talkspurts come far faster than the path carries them keeps
//! its memory bounded (a fuzzing finding: its schedule grew by ~190 MB a simulated second until
//! the process aborted). Heap use is counted by this binary's own allocator — a count of bytes,
//! the same on every run — and the peak over a 4 s run must be that of a 1 s run.

use ccarena_core::scenario::Scenario;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak heap bytes above the starting level while `duration` of the scenario runs.
fn peak_while_running(duration: &str) -> usize {
    let text = format!(
        r#"
name = "onoff-over-tcp"
duration = "{duration}"
seed = 3
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
access_rate = "100Mbps"
[[flows]]
name = "voip"
protocol = "tcp"
cc = "cubic"
rtt = "20ms"
app = {{ kind = "onoff", on_mean = "1ns", off_mean = "1us", rate = "10Gbps", packet_size = "160B" }}
"#
    );
    let s = Scenario::from_toml(&text).expect("valid scenario");
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = ccarena_core::sim::run_quiet(&s).expect("runs");
    let peak = PEAK.load(Relaxed) - base;
    assert!(r.flows.u64s("sent_bytes")[0] > 0);
    peak
}

#[test]
fn onoff_over_tcp_faster_than_the_path_keeps_memory_bounded() {
    let short = peak_while_running("1s");
    let long = peak_while_running("4s");
    // The source makes ~890,000 talkspurts a simulated second: a record kept for each would add
    // over 60 MB between the two runs. What the runs keep per sample or per event is far less.
    assert!(
        long < short + short / 2 + (1 << 20),
        "peak heap {short} B over 1 s, {long} B over 4 s"
    );
}
