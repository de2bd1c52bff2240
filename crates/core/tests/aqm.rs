//! Queues and explicit congestion signals at scenario level: RED keeps its average queue between
//! the thresholds, ECN replaces drops by marks, ICMP Source Quench travels back through the
//! network, and SQM-Response repairs losses before duplicate ACKs could, as in seed 004.

mod support;
use ccarena_core::record::result::{Column, RunResult};
use support::{mean_queue_pkts, run, utilisation};

fn strs<'a>(t: &'a ccarena_core::record::result::Table, col: &str) -> &'a [String] {
    match t.get(col) {
        Some(Column::Str(v)) => v,
        _ => panic!("no string column {col}"),
    }
}

fn link_u64(r: &RunResult, link: &str, col: &str) -> u64 {
    let i = strs(&r.links, "link")
        .iter()
        .position(|n| n == link)
        .unwrap_or_else(|| panic!("no link {link}"));
    r.links.u64s(col)[i]
}

/// Per-sample values of a link-series column after `after_s`.
fn link_series_after(r: &RunResult, link: &str, col: &str, after_s: f64) -> Vec<f64> {
    let names = strs(&r.link_series, "link");
    let t = r.link_series.f64s("t_s");
    let v = r.link_series.f64s(col);
    (0..names.len()).filter(|&i| names[i] == link && t[i] > after_s).map(|i| v[i]).collect()
}

/// Sample times of a flow-series column where it is positive.
fn flow_events(r: &RunResult, flow: u64, col: &str) -> Vec<f64> {
    let f = r.flow_series.u64s("flow_id");
    let t = r.flow_series.f64s("t_s");
    let v = r.flow_series.u64s(col);
    (0..f.len()).filter(|&i| f[i] == flow && v[i] > 0).map(|i| t[i]).collect()
}

const RED_DUMBBELL: &str = r#"
    duration = "40s"
    warmup = "10s"
    sample_interval = "1s"
    seed = 3
    [topology]
    kind = "dumbbell"
    bottleneck_rate = "10Mbps"
    bottleneck_delay = "10ms"
    queue = { kind = "red", limit = "300pkt", min_th = 5, max_th = 15, max_p = 0.1, wq = 0.002, gentle = true, ecn = ECN }
    [[flows]]
    count = COUNT
    stack = "rfc" # RED and ECN are the point: no SYN lost to early drops, no handshake
    cc = "reno"
    recovery = "sack"
    ecn = ECN
    rtt = { uniform = ["40ms", "80ms"] }
    start = { uniform = ["0s", "2s"] }
"#;

fn red_run(count: u32, ecn: bool) -> RunResult {
    run(&RED_DUMBBELL.replace("COUNT", &count.to_string()).replace("ECN", &ecn.to_string()))
}

#[test]
fn red_holds_the_average_queue_between_its_thresholds_under_steady_overload() {
    // Twelve Reno flows overload a 10 Mbit/s link whose buffer (300 packets) could hold seven
    // times the path's BDP: drop-tail would fill it. RED's early drops keep every one-second
    // average of the queue between min_th = 5 and max_th = 15 while the link stays busy.
    let r = red_run(12, false);
    let q = link_series_after(&r, "bottleneck", "queue_pkts", 10.0);
    assert_eq!(q.len(), 30);
    assert!(q.iter().all(|&x| (5.0..=15.0).contains(&x)), "per-second mean queue {q:?}");
    let mean = mean_queue_pkts(&r, "bottleneck");
    assert!((5.0..=15.0).contains(&mean), "mean queue {mean}");
    assert!(utilisation(&r, "bottleneck") > 0.95, "utilisation {}", utilisation(&r, "bottleneck"));
    // Every drop was an early one: the buffer never overflowed.
    let (early, all) = (
        link_u64(&r, "bottleneck", "early_dropped_pkts"),
        link_u64(&r, "bottleneck", "dropped_pkts"),
    );
    assert!(early > 500 && early == all, "early {early} of {all} drops");
    assert!(link_u64(&r, "bottleneck", "max_queue_pkts") < 300);
}

#[test]
fn with_ecn_the_flows_see_marks_instead_of_drops_and_never_retransmit_for_them() {
    // Moderate load: six ECN-capable flows, RED marking instead of dropping.
    let r = red_run(6, true);
    let f = &r.flows;
    for i in 0..f.rows() {
        let (marks, reductions) = (f.u64s("ce_marked_pkts")[i], f.u64s("ecn_reductions")[i]);
        assert!(marks > 50, "flow {i}: {marks} marks");
        assert_eq!(f.u64s("dropped_pkts")[i], 0, "flow {i}");
        assert_eq!(f.u64s("retransmitted_pkts")[i], 0, "flow {i}: a mark is not a loss");
        assert_eq!(f.u64s("timeouts")[i] + f.u64s("fast_recoveries")[i], 0, "flow {i}");
        // Once per window: marks that fall in an already reduced window cause no reduction.
        assert!(
            reductions > 20 && reductions < marks,
            "flow {i}: {reductions} reductions for {marks} marks"
        );
    }
    assert_eq!(link_u64(&r, "bottleneck", "dropped_pkts"), 0);
    assert_eq!(
        link_u64(&r, "bottleneck", "marked_pkts"),
        f.u64s("ce_marked_pkts").iter().sum::<u64>()
    );
    // The window still follows the marks: the queue stays near the thresholds, not at 300.
    let mean = mean_queue_pkts(&r, "bottleneck");
    assert!((4.0..=15.0).contains(&mean), "mean queue {mean}");
}

#[test]
fn a_source_quench_reaches_the_sender_one_reverse_path_delay_after_the_drop() {
    // 2 Mbit/s of UDP into a 1 Mbit/s last hop: R2 drops about every other packet and quenches
    // the source. Nothing else travels the reverse path, so each quench takes exactly the
    // propagation plus the 56-byte serialisation of the two hops back: R2→R1 (7 ms, 100 Mbit/s)
    // and R1→S (3 ms, 10 Mbit/s).
    let r = run(r#"
        duration = "5s"
        [topology]
        kind = "graph"
        nodes = ["S", "R1", "R2", "D"]
        queue = { kind = "droptail", limit = "100pkt" }
        links = [
          { a = "S", b = "R1", rate = "10Mbps", delay = "3ms" },
          { a = "R1", b = "R2", rate = "100Mbps", delay = "7ms" },
          { a = "R2", b = "D", rate = "1Mbps", delay = "2ms", queue = { kind = "droptail", limit = "10pkt", source_quench = true } },
        ]
        [[flows]]
        protocol = "udp"
        src = "S"
        dst = "D"
        app = { kind = "cbr", rate = "2Mbps", packet_size = "972B" }
    "#);
    let f = &r.flows;
    let (dropped, sent, received) =
        (f.u64s("dropped_pkts")[0], f.u64s("sq_sent_pkts")[0], f.u64s("sq_received_pkts")[0]);
    assert!(dropped > 500, "{dropped} drops");
    assert_eq!(sent, dropped, "one quench per drop");
    assert_eq!(link_u64(&r, "R2->D", "sq_sent_pkts"), sent);
    assert_eq!(f.u64s("sq_bytes")[0], 56 * sent);
    // The quenches of the last few milliseconds are still on their way.
    assert!(received <= sent && received + 2 >= sent, "{received} of {sent} arrived");
    let expected = 0.007 + 56.0 * 8.0 / 100e6 + 0.003 + 56.0 * 8.0 / 10e6;
    let mean = f.f64s("sq_delay_mean_s")[0];
    assert!((mean - expected).abs() < 1e-9, "mean quench delay {mean} s, expected {expected} s");
    // The reverse path carried nothing but the quenches (one may still be propagating).
    let back = link_u64(&r, "R1->S", "tx_bytes");
    assert!(
        back.is_multiple_of(56) && (56 * received..=56 * sent).contains(&back),
        "{back} bytes back"
    );
}

/// One 300-segment NewReno transfer S → R → D whose 41st data packet is lost at R, where the
/// queue quenches: S–R is 1 ms, R–D 20 ms, so duplicate ACKs need at least 41 ms after the drop
/// to come back, a quench 1 ms.
fn one_drop(source_quench: bool) -> RunResult {
    run(&r#"
        duration = "3s"
        sample_interval = "1ms"
        [topology]
        kind = "graph"
        nodes = ["S", "R", "D"]
        queue = { kind = "droptail", limit = "100pkt", source_quench = true }
        links = [
          { a = "S", b = "R", rate = "100Mbps", delay = "1ms" },
          { a = "R", b = "D", rate = "10Mbps", delay = "20ms", loss = { kind = "drop_list", flow = 0, packets = [41] } },
        ]
        [[flows]]
        src = "S"
        dst = "D"
        cc = "newreno"
        source_quench = SQ
        app = { kind = "file", size = "438000B" }
    "#
    .replace("SQ", &source_quench.to_string()))
}

#[test]
fn with_sqm_response_the_sender_resends_a_dropped_segment_before_duplicate_acks_could_arrive() {
    let (sqm, plain) = (one_drop(true), one_drop(false));
    for r in [&sqm, &plain] {
        assert_eq!(r.flows.u64s("dropped_pkts")[0], 1);
        assert_eq!(r.flows.u64s("retransmitted_pkts")[0], 1);
        assert_eq!(r.flows.u64s("timeouts")[0], 0);
    }
    let gap = |r: &RunResult| {
        flow_events(r, 0, "retransmitted_pkts")[0] - flow_events(r, 0, "dropped_pkts")[0]
    };
    // The quench takes 1 ms (plus 4.5 µs of serialisation); samples are 1 ms apart.
    let g = gap(&sqm);
    assert!((0.0..=0.0021).contains(&g), "SQM-Response resent {g} s after the drop");
    assert_eq!(
        sqm.flows.u64s("fast_recoveries")[0],
        0,
        "the quench, not three duplicate ACKs, triggered it"
    );
    assert_eq!((sqm.flows.u64s("sq_received_pkts")[0], sqm.flows.u64s("sq_reductions")[0]), (1, 1));
    // Plain NewReno needs three duplicate ACKs: at least 41 ms.
    let g = gap(&plain);
    assert!(g >= 0.041, "NewReno resent {g} s after the drop");
    assert_eq!(plain.flows.u64s("fast_recoveries")[0], 1);
}

const SEED004: &str = include_str!("../../../scenarios/seed004-six-routers.toml");

#[test]
fn seed004_quench_messages_are_counted_per_flow_and_per_link() {
    // Seed 004's network over ten seeds (the competing flows' starts differ), with ns-2's TCP of
    // the seed's era (min RTO 1 s, RFC 2988 rule, NewReno's timer reset only by the first
    // partial ACK). The seed reports 58 s with SQM-Response against 77 s without (24 % sooner);
    // here about 47 s against 57 s on average (17 % sooner), and only the plain NewReno times out.
    let without_sq = SEED004.replace("source_quench = true", "source_quench = false");
    let (mut with_s, mut without_s) = (0.0, 0.0);
    for seed in 1..=10 {
        let s = format!("seed = {seed}");
        let a = run(&SEED004.replace("seed = 1", &s));
        let b = run(&without_sq.replace("seed = 1", &s));
        let (fa, fb) = (&a.flows, &b.flows);
        assert_eq!(strs(fa, "group")[0], "ftp-5MB");
        assert!(
            fa.f64s("completion_s")[0].is_finite() && fb.f64s("completion_s")[0].is_finite(),
            "seed {seed}: the transfer completes"
        );
        // Every quench a router sent is counted for the flow it was about, 56 bytes each.
        let sent: u64 = fa.u64s("sq_sent_pkts").iter().sum();
        let by_links: u64 = a.links.u64s("sq_sent_pkts").iter().sum();
        assert!(
            sent > 0 && sent == by_links,
            "seed {seed}: {sent} quenches by flow, {by_links} by link"
        );
        assert_eq!(fa.u64s("sq_bytes").iter().sum::<u64>(), 56 * sent);
        let fate: u64 = fa.u64s("sq_received_pkts").iter().sum::<u64>()
            + fa.u64s("sq_dropped_pkts").iter().sum::<u64>();
        assert!(
            fate <= sent && fate + 16 >= sent,
            "seed {seed}: {fate} of {sent} quenches accounted"
        );
        assert_eq!(fb.u64s("sq_bytes").iter().sum::<u64>(), 0);
        with_s += fa.f64s("completion_s")[0];
        without_s += fb.f64s("completion_s")[0];
    }
    // SQM-Response repairs a drop about 51 ms after it happens; plain NewReno waits for three
    // duplicate ACKs and, with several drops in a window, for its timer.
    assert!(
        with_s < 0.9 * without_s,
        "mean completion {:.2} s with SQM-Response, {:.2} s without",
        with_s / 10.0,
        without_s / 10.0
    );
}
