//! BBR on a 100 Mbit/s, 40 ms dumbbell (BDP 333 packets of 1500 B): a full link with a small
//! queue, PROBE_RTT every 10 s, fair sharing between BBR flows, and the two faces of BBR v1
//! against CUBIC — starved in a deep buffer, dominant in a shallow one.

mod support;
use support::{flow_series, goodputs_bps, jain, mean_queue_pkts, run, utilisation};

/// Bandwidth-delay product of the bottleneck, packets.
const BDP: u32 = 333;

/// `groups` of (algorithm, flow count) on the dumbbell, starting within the first second.
fn dumbbell(groups: &[(&str, usize)], limit: u32, duration: u32, warmup: u32) -> String {
    let mut s = format!(
        r#"
        duration = "{duration}s"
        warmup = "{warmup}s"
        sample_interval = "50ms"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "100Mbps"
        bottleneck_delay = "10ms"
        queue = {{ kind = "droptail", limit = "{limit}pkt" }}
        "#
    );
    for (cc, count) in groups {
        s += &format!("[[flows]]\ncount = {count}\ncc = \"{cc}\"\nrtt = \"40ms\"\nstart = {{ uniform = [\"0s\", \"1s\"] }}\n");
    }
    s
}

#[test]
fn bbr_alone_fills_the_link_with_a_small_queue() {
    // Measured: utilisation 0.994, mean queue 11.9 packets (3.6 % of the buffer); CUBIC, whose
    // losses are its only signal, keeps 242 packets queued in the same buffer.
    let r = run(&dumbbell(&[("bbr", 1)], BDP, 30, 5));
    let util = utilisation(&r, "bottleneck");
    let queue = mean_queue_pkts(&r, "bottleneck");
    assert!(util >= 0.95, "utilisation {util:.4}");
    assert!(queue < 0.1 * f64::from(BDP), "mean queue {queue:.1} packets");
    let cubic_queue = mean_queue_pkts(&run(&dumbbell(&[("cubic", 1)], BDP, 30, 5)), "bottleneck");
    assert!(cubic_queue > 4.0 * queue, "CUBIC {cubic_queue:.1} vs BBR {queue:.1} packets");
}

/// Start times (s) of the runs of at least four samples (200 ms) with cwnd at PROBE_RTT's
/// 4 segments, after startup, and the length of each run in samples. Shorter dips are loss
/// recovery (packet conservation after a burst loss).
fn probe_rtt_episodes(series: &[(f64, f64)]) -> Vec<(f64, usize)> {
    let mut episodes: Vec<(f64, usize)> = Vec::new();
    let mut prev_low = false;
    for &(t, cwnd) in series.iter().filter(|(t, _)| *t > 5.0) {
        let low = cwnd <= 4.0;
        match (low, prev_low) {
            (true, false) => episodes.push((t, 1)),
            (true, true) => episodes.last_mut().expect("an open episode").1 += 1,
            _ => {}
        }
        prev_low = low;
    }
    episodes.retain(|&(_, n)| n >= 4);
    episodes
}

#[test]
fn two_bbr_flows_share_fairly_and_probe_rtt_every_ten_seconds() {
    // Two flows keep a standing queue (each caps its flight at 2 BDP), so neither sees its
    // RTprop again and PROBE_RTT comes 10 s after the last refresh (a lone flow drains the
    // queue in its 0.75 phases and refreshes RTprop without it). A flow's PROBE_RTT drains the
    // shared queue, so the other refreshes its RTprop then too and they probe together, as
    // Cardwell et al. (2016) describe. Measured: Jain 1.000; both flows in PROBE_RTT at 13.15,
    // 23.45, 33.75 and 44.05-44.1 s, 250-300 ms each.
    let r = run(&dumbbell(&[("bbr", 2)], BDP, 45, 10));
    let fairness = jain(&goodputs_bps(&r));
    assert!(fairness >= 0.9, "Jain {fairness:.3}");
    assert!(utilisation(&r, "bottleneck") >= 0.95);
    for flow in 0..2 {
        let episodes = probe_rtt_episodes(&flow_series(&r, flow, "cwnd_pkts"));
        assert!((3..=4).contains(&episodes.len()), "flow {flow}: {episodes:?}");
        for w in episodes.windows(2) {
            let gap = w[1].0 - w[0].0;
            assert!(
                (10.0..11.5).contains(&gap),
                "flow {flow}: PROBE_RTT {gap:.2} s apart: {episodes:?}"
            );
        }
    }
}

/// BBR's share of the two flows' goodput against CUBIC with a buffer of `limit` packets.
fn bbr_share_against_cubic(limit: u32) -> f64 {
    let r = run(&dumbbell(&[("bbr", 1), ("cubic", 1)], limit, 45, 10));
    let g = goodputs_bps(&r);
    g[0] / (g[0] + g[1])
}

#[test]
fn against_cubic_bbr_loses_in_a_deep_buffer() {
    // 10 BDP of buffer: CUBIC fills it; BBR's flight, capped at twice its BtlBw × RTprop
    // estimate, holds only a small part of the queue. Measured share 0.25.
    let share = bbr_share_against_cubic(10 * BDP);
    assert!(share < 0.4, "BBR share {share:.3}");
}

#[test]
fn against_cubic_bbr_wins_in_a_shallow_buffer() {
    // 0.1 BDP of buffer: CUBIC halves on the frequent losses, BBR does not react to them.
    // Measured share 0.98.
    let share = bbr_share_against_cubic(BDP / 10);
    assert!(share > 0.8, "BBR share {share:.3}");
}
