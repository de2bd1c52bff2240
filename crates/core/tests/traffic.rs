//! Realistic traffic and topologies: the background generator meets its load and mix, web and
//! FTP sources close their loops on acknowledgements, web object sizes have the configured
//! heavy tail, the parking lot penalises multi-hop flows, and the LAN ring routes to the LAN
//! opposite through two router hops.

mod support;
use ccarena_core::app::dist::Dist;
use ccarena_core::record::result::{Column, RunResult};
use ccarena_core::rng::{Rng, StreamKind};
use ccarena_core::scenario::{AppSpec, Scenario};
use support::run;

fn strs<'a>(t: &'a ccarena_core::record::result::Table, c: &str) -> &'a [String] {
    match t.get(c) {
        Some(Column::Str(v)) => v,
        _ => panic!("no string column {c}"),
    }
}

fn link_index(r: &RunResult, name: &str) -> usize {
    strs(&r.links, "link")
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no link {name}"))
}

/// Wire bytes emitted by the background flows of each class (the group's last `:` part).
fn background_bytes(r: &RunResult) -> (u64, Vec<(String, u64)>) {
    let (groups, roles, sent) =
        (strs(&r.flows, "group"), strs(&r.flows, "role"), r.flows.u64s("sent_bytes"));
    let mut by: Vec<(String, u64)> = Vec::new();
    for i in 0..groups.len() {
        if roles[i] != "background" {
            continue;
        }
        let class = groups[i].rsplit(':').next().unwrap().to_string();
        match by.iter_mut().find(|(c, _)| *c == class) {
            Some(e) => e.1 += sent[i],
            None => by.push((class, sent[i])),
        }
    }
    (by.iter().map(|(_, b)| b).sum(), by)
}

#[test]
fn background_offers_its_load_and_mix_over_300_s() {
    // Offered ≈ 100 Mbit/s in each run, so that each run samples thousands of web objects.
    for (load, rate_mbps) in [(0.2, 500.0), (0.5, 200.0), (0.8, 125.0)] {
        let r = run(&format!(
            r#"
            duration = "300s"
            sample_interval = "10s"
            seed = 1
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "{rate_mbps}Mbps"
            bottleneck_delay = "10ms"
            queue = {{ kind = "droptail", limit = "2500pkt" }}
            [[flows]]
            protocol = "udp"
            app = {{ kind = "cbr", rate = "10kbps", packet_size = "100B" }}
            [[background]]
            load = {load}
            rtt = "30ms"
            "#
        ));
        let (total, by) = background_bytes(&r);
        let offered = total as f64 * 8.0 / 300.0 / (rate_mbps * 1e6);
        assert!((offered / load - 1.0).abs() < 0.05, "load {load}: offered {offered:.4}");
        for (class, want) in [("udp", 0.20), ("ftp", 0.24), ("web", 0.56)] {
            let got = by.iter().find(|(c, _)| c == class).map_or(0, |e| e.1) as f64 / total as f64;
            assert!((got - want).abs() < 0.05, "load {load}: {class} share {got:.3}, want {want}");
        }
        // The main flow is reported apart and alone has a time series.
        let roles = strs(&r.flows, "role");
        assert_eq!(roles[0], "main");
        assert!(
            roles[1..].iter().all(|x| x == "background") && roles.len() > 100,
            "{} flows",
            roles.len()
        );
        assert!(r.flow_series.u64s("flow_id").iter().all(|&f| f == 0));
    }
}

#[test]
fn both_directions_load_each_way_and_the_reverse_carries_the_same() {
    let r = run(r#"
        duration = "120s"
        sample_interval = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "50Mbps"
        bottleneck_delay = "5ms"
        queue = { kind = "droptail", limit = "1000pkt" }
        [[flows]]
        protocol = "udp"
        app = { kind = "cbr", rate = "10kbps", packet_size = "100B" }
        [[background]]
        load = 0.4
        mix = { udp = 0.5, ftp = 0.0, web = 0.5 }
        direction = "both"
        "#);
    let tx = r.links.u64s("tx_bytes");
    let (fwd, rev) =
        (tx[link_index(&r, "bottleneck")] as f64, tx[link_index(&r, "bottleneck_rev")] as f64);
    let cap = 50e6 * 120.0 / 8.0;
    // Each direction carries its own 40 % plus the other direction's ACKs (~2 %).
    for (name, bytes) in [("forward", fwd), ("reverse", rev)] {
        let u = bytes / cap;
        assert!((0.38..0.46).contains(&u), "{name} utilisation {u:.3}");
    }
    let groups = strs(&r.flows, "group");
    assert!(
        groups.iter().any(|g| g == "background:rev:web")
            && groups.iter().any(|g| g == "background:web")
    );
}

#[test]
fn web_object_sizes_have_the_configured_heavy_tail() {
    // Hill's estimator (Hill 1975) of the tail index from the k largest of n draws.
    fn hill(mut x: Vec<f64>, k: usize) -> f64 {
        x.sort_by(|a, b| b.total_cmp(a));
        k as f64 / x[..k].iter().map(|v| (v / x[k]).ln()).sum::<f64>()
    }
    for shape in [1.1, 1.3, 1.7] {
        let s = Scenario::from_toml(&format!(
            r#"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "10Mbps"
            bottleneck_delay = "10ms"
            [[flows]]
            app = {{ kind = "web", tail_shape = {shape}, max_size = "none" }}
            "#
        ))
        .unwrap();
        let AppSpec::Web(p) = &s.flows[0].app else { panic!("not a web app") };
        let m = p.model();
        let mut rng = Rng::stream(9, StreamKind::App, 0);
        let sizes: Vec<f64> = (0..300_000).map(|_| m.object_size(&mut rng) as f64).collect();
        // ~3.2 % of 300 000 are in the Pareto tail; the top 3000 are well inside it.
        let a = hill(sizes.clone(), 3000);
        assert!((a - shape).abs() < 0.1 * shape, "configured α = {shape}, Hill estimate {a:.3}");
        // And the body is SURGE's lognormal: median e^9.357 = 11 572 B.
        let mut sorted = sizes;
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        assert!((median / 11_572.0 - 1.0).abs() < 0.02, "median {median}");
    }
}

/// A dumbbell with 100 ms of base RTT and one closed-loop TCP flow of `app`.
fn closed_loop(app: &str, duration: &str) -> RunResult {
    run(&format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "100Mbps"
        bottleneck_delay = "20ms"
        [[flows]]
        stack = "rfc" # whole segments of 1460 B and no handshake round trip: the timing below
        rtt = "100ms"
        app = {app}
        "#
    ))
}

#[test]
fn web_pages_follow_the_acknowledgements_then_the_think_time() {
    // Objects of exactly 14 600 B (10 segments: one initial window, one round trip); think 1 s.
    let page = |objects: u32| {
        format!(
            r#"{{ kind = "web", body_mu = {}, body_sigma = 1e-12, tail_fraction = 0.0, objects = {objects}, think = "1s" }}"#,
            14_599.5f64.ln()
        )
    };
    // One object: a page costs one RTT (+ serialisation) then 1 s of thought: pages start at
    // k · 1.1 s, so 10 are delivered by 10.5 s and the 11th starts after it.
    let r = closed_loop(&page(1), "10.5s");
    assert_eq!(r.flows.u64s("goodput_bytes")[0], 10 * 14_600);
    // Two objects: the embedded one is requested when the main one is acknowledged, so a page
    // takes two RTTs: pages start at k · 1.2 s, 9 by 10.5 s.
    let r = closed_loop(&page(2), "10.5s");
    assert_eq!(r.flows.u64s("goodput_bytes")[0], 9 * 2 * 14_600);
    assert_eq!(strs(&r.flows, "app")[0], "web");
}

#[test]
fn ftp_files_follow_the_acknowledgements_then_the_idle_gap() {
    let r = closed_loop(r#"{ kind = "ftp", size = "14600B", idle = "1s" }"#, "10.5s");
    assert_eq!(r.flows.u64s("goodput_bytes")[0], 10 * 14_600);
    // With exponential gaps of mean 1 s the rate is size / (E[idle] + transfer time).
    let r = closed_loop(
        r#"{ kind = "ftp", size = "14600B", idle = { kind = "exponential", mean = "1s" } }"#,
        "1000s",
    );
    let files = r.flows.u64s("goodput_bytes")[0] as f64 / 14_600.0;
    let expected = 1000.0 / 1.1;
    // The count's deviation is about 3 %: a wrong mean gap (e.g. 2 s) lands far outside.
    assert!((files / expected - 1.0).abs() < 0.08, "{files} files, expected about {expected:.0}");
}

const PARKING: &str = r#"
    duration = "60s"
    warmup = "10s"
    sample_interval = "1s"
    [topology]
    kind = "parking_lot"
    hops = 3
    hop_rate = "10Mbps"
    hop_delay = "10ms"
    queue = { kind = "droptail", limit = "100pkt" }
    [[flows]]
    name = "long"
    path = "all"
    rtt = "100ms"
    [[flows]]
    name = "cross1"
    path = "hop:1"
    rtt = "100ms"
    [[flows]]
    name = "cross2"
    path = "hop:2"
    rtt = "100ms"
    [[flows]]
    name = "cross3"
    path = "hop:3"
    rtt = "100ms"
"#;

#[test]
fn parking_lot_long_flow_gets_less_than_one_hop_flows_of_the_same_rtt() {
    let r = run(PARKING);
    let g = support::goodputs_bps(&r);
    let rtt = r.flows.f64s("rtt_base_s");
    for (i, x) in rtt.iter().enumerate() {
        assert!((x - 0.1).abs() < 1e-9, "flow {i} base RTT {x}");
    }
    let cross = (g[1] + g[2] + g[3]) / 3.0;
    assert!(
        g[0] < 0.7 * cross,
        "long flow {:.2} Mbit/s vs one-hop flows {:.2} Mbit/s",
        g[0] / 1e6,
        cross / 1e6
    );
    // Every hop is busy: the long flow plus that hop's cross flow fill it.
    for h in 1..=3 {
        let u = support::utilisation(&r, &format!("hop{h}"));
        assert!(u > 0.9, "hop{h} utilisation {u:.3}");
    }
}

#[test]
fn parking_lot_background_crosses_each_hop_by_default() {
    let r = run(&format!(
        "{PARKING}\n[[background]]\nload = 0.3\nmix = {{ udp = 1.0 }}\nrtt = \"30ms\"\n"
    )
    .replace("duration = \"60s\"", "duration = \"20s\""));
    let (groups, src, dst) =
        (strs(&r.flows, "group"), strs(&r.flows, "src"), strs(&r.flows, "dst"));
    for h in 1..=3 {
        let label = format!("background:hop{h}:udp");
        let i =
            groups.iter().position(|g| *g == label).unwrap_or_else(|| panic!("no group {label}"));
        assert_eq!(
            (src[i].as_str(), dst[i].as_str()),
            (format!("bg0_hop{h}_a").as_str(), format!("bg0_hop{h}_b").as_str())
        );
        // 2 · (2 · access + 10 ms) = 30 ms.
        assert!((r.flows.f64s("rtt_base_s")[i] - 0.03).abs() < 1e-9);
    }
}

#[test]
fn lan_ring_flows_reach_the_opposite_lan_through_two_router_hops() {
    let r = run(r#"
        duration = "10s"
        sample_interval = "1s"
        [topology]
        kind = "lan_ring"
        ring_delay = "25ms"
        [[flows]]
        count = 4
        protocol = "udp"
        app = { kind = "cbr", rate = "100kbps", packet_size = "500B" }
        "#);
    // Round-robin: flow i sits in LAN i+1 and talks to LAN (i+2) mod 4 + 1.
    let lanr = |i: usize| format!("R{}", i % 4 + 1);
    let tx = r.links.u64s("tx_bytes");
    for i in 0..4 {
        assert!(
            tx[link_index(&r, &format!("src{i}->{}", lanr(i)))] > 0,
            "flow {i} leaves from LAN {}",
            i + 1
        );
        assert!(
            tx[link_index(&r, &format!("{}->dst{i}", lanr(i + 2)))] > 0,
            "flow {i} arrives in the LAN opposite"
        );
        // LAN link + two ring links + LAN link, both ways: 2 · (1 + 25 + 25 + 1) ms.
        assert!((r.flows.f64s("rtt_base_s")[i] - 0.104).abs() < 1e-9, "flow {i}");
    }
    // Ties go clockwise: each clockwise ring link carries two LANs' traffic, the others none.
    for i in 0..4 {
        let cw = tx[link_index(&r, &format!("{}->{}", lanr(i), lanr(i + 1)))];
        let ccw = tx[link_index(&r, &format!("{}->{}", lanr(i + 1), lanr(i)))];
        let one_flow = r.flows.u64s("sent_bytes")[0];
        assert!(
            cw.abs_diff(2 * one_flow) < 2 * 528,
            "ring link {} carried {cw} bytes, two flows send {}",
            i + 1,
            2 * one_flow
        );
        assert_eq!(ccw, 0);
    }
}

fn err(toml: &str) -> String {
    Scenario::from_toml(toml).unwrap_err().to_string()
}

const DUMBBELL: &str = r#"
    duration = "10s"
    [topology]
    kind = "dumbbell"
    bottleneck_rate = "10Mbps"
    bottleneck_delay = "10ms"
    [[flows]]
"#;

#[test]
fn bad_traffic_and_topology_keys_name_their_field() {
    let cases = [
        (format!("{DUMBBELL}[[background]]\nload = 1.5\n"), "background[0].load: 1.5 is out of range"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\nmix = {{ udp = 0.5, web = 0.6 }}\n"), "background[0].mix:"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\npath = \"all\"\n"), "background[0].path: is only for parking_lot"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\nrtt = \"5ms\"\n"), "background[0].rtt: 5ms is shorter than twice"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\nweb = {{ think = {{ kind = \"pareto\", scale = \"1s\", shape = 0.9 }} }}\n"), "background[0].web: object sizes or think times have an infinite mean"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\nbursty = true\n"), "background[0].bursty: unknown field"),
        (format!("{DUMBBELL}[[background]]\nload = 0.5\ndelay_quantiles = \"yes\"\n"), "background[0].delay_quantiles: \"yes\" is the wrong type: expected true or false"),
        (format!("{DUMBBELL}path = \"hop:1\"\n"), "flows[0].path: is only for parking_lot"),
        (format!("{DUMBBELL}app = {{ kind = \"web\", think = \"-1s\" }}\n"), "flows[0].app.think:"),
        (format!("{DUMBBELL}protocol = \"udp\"\napp = {{ kind = \"ftp\" }}\n"), "flows[0].app: udp flows need"),
        (PARKING.replace("path = \"hop:3\"", "path = \"hop:4\""), "flows[3].path: \"hop:4\" is not a path"),
        (PARKING.replace("hop_rate = \"10Mbps\"", "hop_rate = [\"10Mbps\", \"5Mbps\"]"), "topology.hop_rate: has 2 values for 3 hops"),
        (PARKING.replace("hop_rate = \"10Mbps\"", "hop_rate = [\"10Mbps\", \"5Mbs\", \"10Mbps\"]"), "topology.hop_rate[1]: \"5Mbs\" has an unknown unit"),
        (PARKING.replace("hop_delay = \"10ms\"", "hop_delay = 10"), "topology.hop_delay: invalid type: integer `10`, expected a duration with a unit"),
        (PARKING.replace("[[flows]]", "[[background]]\nload = 0.2\npath = \"hops:2-1\"\n[[flows]]"), "background[0].path: \"hops:2-1\" is not a path"),
        ("duration = \"1s\"\n[topology]\nkind = \"lan_ring\"\nring_delay = \"25ms\"\nlans = 5\n[[flows]]\n".into(), "topology.lans: 5 is not allowed"),
        ("duration = \"1s\"\n[topology]\nkind = \"lan_ring\"\nring_delay = \"25ms\"\n[[flows]]\nlan = 7\n".into(), "flows[0].lan: LAN 7 does not exist: expected 1..4"),
        ("duration = \"1s\"\n[topology]\nkind = \"lan_ring\"\n[[flows]]\n".into(), "topology: missing field `ring_delay`"),
        ("duration = \"1s\"\n[topology]\nkind = \"lan_ring\"\nring_delay = \"25ms\"\n[[flows]]\n[[background]]\nload = 0.3\nsrc = \"R1\"\n".into(), "background[0].dst: is required"),
    ];
    for (toml, want) in &cases {
        let e = err(toml);
        assert!(e.starts_with(want), "got {e:?}, want it to start with {want:?}");
    }
}

#[test]
fn normalised_scenarios_with_the_new_keys_parse_back_unchanged() {
    let text = format!(
        "{PARKING}\n[[background]]\nload = 0.3\ndirection = \"both\"\nftp = {{ size = {{ kind = \"lognormal\", mean = \"1MB\", sigma = 0.5 }} }}\n[[flows]]\napp = {{ kind = \"web\", max_size = \"none\" }}\n"
    );
    let s = Scenario::from_toml(&text).unwrap();
    let again = Scenario::from_value(&s.normalised()).unwrap();
    assert_eq!(s, again);
    let n = s.normalised();
    assert_eq!(n["background"][0]["mix"]["web"], 0.56);
    assert_eq!(n["flows"][4]["app"]["think"]["kind"], "pareto");
    assert_eq!(n["topology"]["hop_delay"], serde_json::json!(["10ms", "10ms", "10ms"]));
    let ring = Scenario::from_toml(
        "duration = \"1s\"\n[topology]\nkind = \"lan_ring\"\nring_delay = \"50ms\"\n[[flows]]\n",
    )
    .unwrap();
    assert_eq!(ring, Scenario::from_value(&ring.normalised()).unwrap());
    assert_eq!(ring.normalised()["topology"]["queue"]["limit"], "300pkt");
}

#[test]
fn background_draws_leave_the_main_flows_alone_and_repeat_exactly() {
    let base = format!("{DUMBBELL}count = 3\nstart = {{ uniform = [\"0s\", \"2s\"] }}\n");
    let with_bg = format!("{base}[[background]]\nload = 0.3\n");
    let a = Scenario::from_toml(&base).unwrap().build().unwrap();
    let b = Scenario::from_toml(&with_bg).unwrap().build().unwrap();
    for i in 0..3 {
        assert_eq!(a.flows[i].start, b.flows[i].start, "flow {i}");
    }
    assert!(b.flows.len() > 3);
    let x = run(&with_bg).deterministic_json().to_string();
    let y = run(&with_bg).deterministic_json().to_string();
    assert_eq!(x, y);
}

#[test]
fn background_sources_keep_delay_percentiles_only_when_asked() {
    let base = format!("{DUMBBELL}[[background]]\nload = 0.3\nmix = {{ udp = 0.5, web = 0.5 }}\n");
    let (plain, asked) = (run(&base), run(&format!("{base}delay_quantiles = true\n")));
    let roles = strs(&plain.flows, "role");
    let measured = |r: &RunResult| -> Vec<usize> {
        (0..roles.len()).filter(|&i| r.flows.u64s("delay_count")[i] > 0).collect()
    };
    let (main, bg): (Vec<usize>, Vec<usize>) =
        measured(&plain).into_iter().partition(|&i| roles[i] == "main");
    assert!(!main.is_empty() && bg.len() > 3, "main {main:?}, background {bg:?}");
    for (r, bg_percentiles) in [(&plain, false), (&asked, true)] {
        let (p50, mean, min, max) = (
            r.flows.f64s("delay_p50_s"),
            r.flows.f64s("delay_mean_s"),
            r.flows.f64s("delay_min_s"),
            r.flows.f64s("delay_max_s"),
        );
        for &i in main.iter().chain(&bg) {
            assert!(
                min[i] > 0.0 && min[i] <= mean[i] && mean[i] <= max[i],
                "flow {i}: moments {} {} {}",
                min[i],
                mean[i],
                max[i]
            );
            let has_p50 = roles[i] == "main" || bg_percentiles;
            assert_eq!(p50[i].is_finite(), has_p50, "flow {i} ({}): p50 {}", roles[i], p50[i]);
        }
    }
    // Only the percentiles differ: the histograms change nothing else.
    for col in ["delay_count", "delivered_pkts", "sent_bytes"] {
        assert_eq!(plain.flows.u64s(col), asked.flows.u64s(col), "{col}");
    }
    assert_eq!(
        plain.flows.f64s("delay_mean_s").iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        asked.flows.f64s("delay_mean_s").iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn residual_life_starts_sources_in_a_stationary_phase() {
    // A source whose think time is Pareto(1 s, 1.5) started at a random instant waits
    // E[X²]/(2E[X]) = ∞ on average, but its median wait is the equilibrium law's:
    // P(R > x) = (1/α)(k/x)^(α−1) for x ≥ k → median = k (2/α)^(1/(α−1)) = 1.78 s.
    let d = Dist::Pareto { scale: 1.0, shape: 1.5, max: None };
    let mut rng = Rng::stream(5, StreamKind::FlowSetup, 0);
    let mut w: Vec<f64> = (0..100_000).map(|_| d.sample_residual(&mut rng).unwrap()).collect();
    w.sort_by(f64::total_cmp);
    let median = w[w.len() / 2];
    assert!((median / (2.0f64 / 1.5).powi(2) - 1.0).abs() < 0.03, "median residual {median}");
}
