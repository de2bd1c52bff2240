"""The ns-2 program of a peer plan: one Tcl script for ns-2.35, and the refusal of what it cannot run.

Mapping (docs/peers.md has the table):

- every link direction is a `simplex-link` with the plan's rate and delay; its queue is `DropTail`
  or `RED` with `queue-limit` = the plan's limit (ns-2, like the simulator, does not count the
  packet being serialised); byte limits use `queue_in_bytes_` with `mean_pktsize_ 1`. Routes are
  the simulator's, installed with ns-2's manual routing (`rtproto Manual`).
- TCP with ccarena's `reno` is ns-2's one-way agent of the recovery flavour (`Agent/TCP`,
  `/Reno`, `/Newreno`, `/Sack1`) and the matching sink (`/DelAck` when ACKs are delayed). The
  Linux-derived algorithms are `Agent/TCP/Linux` with `select_ca` — the Linux 2.6.22 modules,
  so only the `@linux-2.6.22` presets (and the algorithms that did not change) run.
- Every agent variable the plan resolves is set explicitly (`packetSize_`, `windowInit_`,
  `minrto_`, `syn_`, `timestamps_`, `ecn_`, `window_`), and `delay_growth_` is off (ccarena's
  TCP has no first-RTT hold); the rest are ns-2's compiled-in defaults (`ns-default.tcl`:
  `tcpTick_ 0.01`, `rtxcur_init_ 3`, `maxrto_ 60`).
- DCCP CCID 2 and CCID 3 are `Agent/DCCP/TCPlike` and `Agent/DCCP/TFRC` at both ends, their
  variables set from the CCID's `cc_params` (what ns-2 has fixed must match or is refused).
- UDP CBR is `Application/Traffic/CBR` on `Agent/UDP` into an `Agent/LossMonitor`; exponential
  on/off is `Application/Traffic/Exponential`; bulk and file transfers are `Application/FTP`.
- Bernoulli loss is an `ErrorModel` (`unit_ pkt`, `rate_ p`) on the link direction; periodic
  loss is `ErrorModel/Periodic` (`period_`).

The script prints ``S`` sample lines every sample interval and ``F``/``L`` lines at the end; see
:mod:`ccarena.peers.ns2` for the reader.
"""

from __future__ import annotations

from typing import Any

from ccarena.errors import PeerError

#: ccarena recovery flavour → ns-2 one-way agent and sink classes.
STOCK_AGENTS = {"tahoe": ("Agent/TCP", "Agent/TCPSink"), "reno": ("Agent/TCP/Reno", "Agent/TCPSink"),
                "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"), "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1")}
#: ccarena algorithm (with the preset that is Linux 2.6.22's code) → TCP-Linux's `select_ca` name.
#: Each entry is a module of Linux 2.6.22 that ns-2.35's TCP-Linux carries.
TCP_LINUX = {"cubic@linux-2.6.22": "cubic", "scalable@linux-2.6.22": "scalable", "bic": "bic",
             "highspeed": "highspeed", "htcp": "htcp", "hybla": "hybla", "illinois@linux-2.6.22": "illinois",
             "vegas": "vegas", "veno": "veno", "westwood": "westwood", "yeah": "yeah", "lp": "lp"}
#: Agent variables the ns-2 one-way agents hold fixed, with the ccarena key that must agree.
#: (key, value ns-2 has, why)
STOCK_BEHAVIOUR = (
    ("rack_tlp", False, "ns-2's agents have no RACK-TLP"),
    ("prr", False, "ns-2's agents have no Proportional Rate Reduction"),
    ("quickack", False, "ns-2's sinks have no quick-ACK mode"),
    ("window_from_una", True, "ns-2's agents send new data only below SND.UNA + window"),
    ("rto", "rfc6298", "ns-2 computes the RTO as RFC 6298 does, in tcpTick_ units"),
)


def refuse(plan: dict[str, Any], valid: dict[str, Any]) -> None:
    """Raise a one-line :class:`PeerError` for the first thing of the plan ns-2 cannot run."""
    refuse_queues(plan)
    for flow in plan["flows"]:
        where, group = flow["where"], valid["flows"][int(flow["where"][6:-1])]
        proto = flow["protocol"]
        if proto == "dccp":
            _refuse_dccp(flow, where)
            continue
        if flow["app"]["kind"] not in ("bulk", "file", "cbr", "onoff"):
            raise PeerError(f"{where}.app.kind: {flow['app']['kind']!r} has no ns-2 model here (allowed: bulk, file, cbr, onoff)")
        if proto == "udp":
            if flow["app"]["kind"] not in ("cbr", "onoff"):
                raise PeerError(f"{where}.app.kind: UDP flows on ns-2 are 'cbr' or 'onoff', not {flow['app']['kind']!r}")
            continue
        _refuse_tcp(flow, group, where)


def refuse_queues(plan: dict[str, Any]) -> None:
    """ns-2's RED is its own variant (`red.cc`): the paper's is refused, naming the link; ns-2.35
    has no PIE."""
    for link in plan["links"]:
        q = link["queue"]
        if q["kind"] == "red" and q["variant"] != "ns2":
            raise PeerError(
                f"link {link['name']}: ns-2's RED acts early only when more than one packet waits and spaces its drops "
                "(wait_); set the queue's variant = \"ns2\" to compare like with like"
            )
        if q["kind"] == "red" and q["unit"] == "B":
            raise PeerError(f"link {link['name']}: RED with a byte limit is not mapped to ns-2; give the limit in packets")
        if q.get("ecn_threshold"):
            raise PeerError(f"link {link['name']}: ecn_threshold (step marking) is not mapped to ns-2, whose DropTail "
                            "never marks; remove it")
        if q["kind"] == "pie":
            raise PeerError(f"link {link['name']}: ns-2.35 has no PIE queue; compare PIE with ns-3")


def _refuse_tcp(flow: dict[str, Any], group: dict[str, Any], where: str) -> None:
    from ccarena.peers.plan import default_cc_params

    cc = flow["cc"]
    if cc != "reno" and cc not in TCP_LINUX:
        have = ", ".join(["reno", *TCP_LINUX])
        hint = f"; use cc = \"{flow['cc_base']}@linux-2.6.22\"" if f"{flow['cc_base']}@linux-2.6.22" in TCP_LINUX else ""
        raise PeerError(f"{where}.cc: {cc!r} is not in ns-2.35 (its stock agents and TCP-Linux's Linux 2.6.22 modules: {have}){hint}")
    if flow["cc_params"] != default_cc_params(cc, flow["stack"]):
        raise PeerError(f"{where}.cc_params: ns-2 runs {cc} with its own constants; remove cc_params to compare like with like")
    if cc != "reno" and flow["recovery"] not in ("sack", "newreno"):
        raise PeerError(f"{where}.recovery: TCP-Linux recovers with SACK or, without it, NewReno; not {flow['recovery']!r}")
    for key, value, why in STOCK_BEHAVIOUR:
        if group.get(key) != value:
            raise PeerError(f"{where}.{key}: {why}; set {key} = {_toml(value)} (or stack = \"ns2\") to compare like with like")
    if group.get("head_retransmit_rearms_rto") and flow["recovery"] in ("newreno", "sack"):
        raise PeerError(
            f"{where}.head_retransmit_rearms_rto: ns-2 restarts the timer only at the fast retransmit and the first partial ACK "
            "(newreno_changes1_); set head_retransmit_rearms_rto = false (or stack = \"ns2\")"
        )
    if flow["tcp"]["rcv_buf_bytes"] is not None:
        raise PeerError(f"{where}.rcv_buf: ns-2 has no receive buffer; remove it (or use rwnd) to compare like with like")
    if group.get("slow_start_after_idle") and flow["app"]["kind"] in ("cbr", "onoff"):
        # Only an application that pauses lets the window go idle (bulk and file flows never do).
        raise PeerError(
            f"{where}.slow_start_after_idle: ns-2 restarts an idle window at one segment when its timer fires "
            "(slow_start_restart_), where ccarena halves it once per idle RTO; set slow_start_after_idle = false"
        )


#: ccarena CCID → ns-2's DCCP agent (the module of Nils-Erik Mattsson, ns-2.35 `dccp/`).
DCCP_AGENTS = {"ccid2": "Agent/DCCP/TCPlike", "ccid3": "Agent/DCCP/TFRC"}
#: CCID parameters ns-2's agents have fixed: (ccid, parameter, the only value ns-2 has, why).
DCCP_FIXED = (
    ("ccid2", "beta", 0.5, "ns-2's CCID 2 halves its window"),
    ("ccid2", "ack_ratio_dynamic", True, "ns-2's CCID 2 always adapts its Ack Ratio (RFC 4341 §6.1.2)"),
    ("ccid2", "cwnd_validation", False, "ns-2's CCID 2 does not validate an application-limited window (RFC 2861)"),
    ("ccid3", "profile", "rfc3448", "ns-2's CCID 3 follows RFC 3448 (2003)"),
    ("ccid3", "loss_history", 8, "ns-2's CCID 3 keeps 8 loss intervals"),
)


def _refuse_dccp(flow: dict[str, Any], where: str) -> None:
    cc = flow["cc_base"]
    if cc not in DCCP_AGENTS:
        raise PeerError(f"{where}.cc: {cc!r} is not in ns-2.35's DCCP (it has ccid2 and ccid3)")
    for ccid, key, value, why in DCCP_FIXED:
        if ccid == cc and flow["cc_params"].get(key) != value:
            raise PeerError(f"{where}.cc_params.{key}: {why}; set cc_params.{key} = {_toml(value)} to compare like with like")
    if flow["app"]["kind"] not in ("bulk", "cbr", "onoff"):
        raise PeerError(f"{where}.app.kind: DCCP flows on ns-2 are 'bulk', 'cbr' or 'onoff', not {flow['app']['kind']!r}")


def _toml(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else f"\"{value}\""


def _queue(link: dict[str, Any]) -> tuple[str, list[str]]:
    """The ns-2 queue class of a link direction and the lines that configure it (`$q` is the queue)."""
    q = link["queue"]
    if q["kind"] == "droptail":
        lines = ["$q set queue_in_bytes_ true", "$q set mean_pktsize_ 1"] if q["unit"] == "B" else []
        return "DropTail", lines
    lines = []
    lines += [
        "$q set bytes_ false", "$q set queue_in_bytes_ " + ("true" if q["unit"] == "B" else "false"),
        f"$q set mean_pktsize_ {q['mean_pktsize']}", "$q set wait_ true",
        f"$q set thresh_ {q['min_th']!r}", f"$q set maxthresh_ {q['max_th']!r}", f"$q set q_weight_ {q['wq']!r}",
        f"$q set linterm_ {1.0 / q['max_p']!r}", f"$q set gentle_ {'true' if q['gentle'] else 'false'}",
        f"$q set setbit_ {'true' if q['ecn'] else 'false'}",
    ]
    return "RED", lines


def _loss(link: dict[str, Any]) -> list[str]:
    loss = link["loss"]
    if loss is None:
        return []
    if loss["kind"] == "bernoulli":
        lines = ["set em [new ErrorModel]", "$em unit pkt", f"$em set rate_ {loss['p']!r}", "$em ranvar [new RandomVariable/Uniform]"]
    else:
        lines = ["set em [new ErrorModel/Periodic]", "$em unit pkt", f"$em set period_ {loss['every']}", "$em set offset_ 0"]
    # The error model sits at the link's exit, after the queue, as the simulator's link losses do.
    return [*lines, "$em drop-target [new Agent/Null]", f"$ns lossmodel $em $node({link['src']}) $node({link['dst']})"]


def segment_size(flow: dict[str, Any]) -> int:
    """A TCP flow's segment payload: the message size of a `cbr` or `onoff` application (the
    simulator sends each message as one segment), else the MSS. ns-2's agent rounds every
    message up to whole `packetSize_` segments, so it is set to this."""
    app = flow["app"]
    return int(app["packet_size"]) if app["kind"] in ("cbr", "onoff") else int(flow["tcp"]["mss"])


def _tcp_agent(flow: dict[str, Any]) -> list[str]:
    tcp = flow["tcp"]
    cc, i = flow["cc"], flow["id"]
    if cc in TCP_LINUX:
        agent = "Agent/TCP/Linux"
        sink = "Agent/TCPSink/Sack1" if tcp["sack"] else "Agent/TCPSink"
    else:
        agent, sink = STOCK_AGENTS[flow["recovery"]]
    if tcp["delayed_ack"]:
        sink += "/DelAck"
    window = tcp["rwnd_bytes"] // segment_size(flow) if tcp["rwnd_bytes"] else 1 << 20
    lines = [
        f"set src({i}) [new {agent}]",
        f"$src({i}) set packetSize_ {segment_size(flow)}",
        f"$src({i}) set tcpip_base_hdr_size_ 40",
        f"$src({i}) set window_ {window}",
        f"$src({i}) set windowInit_ {tcp['initial_cwnd']:g}",
        f"$src({i}) set minrto_ {tcp['min_rto_s']!r}",
        f"$src({i}) set syn_ {'true' if tcp['handshake'] else 'false'}",
        # ns-2.35's default `delay_growth_ true` holds cwnd for the first RTT (2 → 3 → 6 → 12);
        # ccarena's TCP grows from the first ACK, as the scenario describes.
        f"$src({i}) set delay_growth_ false",
        f"$src({i}) set timestamps_ {'true' if tcp['timestamps'] else 'false'}",
        f"$src({i}) set ts_option_size_ 12",
        f"$src({i}) set ecn_ {1 if tcp['ecn'] else 0}",
        # On, it is refused for applications that pause (`refuse`); off, neither restarts an idle window.
        f"$src({i}) set slow_start_restart_ {'true' if tcp['slow_start_after_idle'] else 'false'}",
        f"$src({i}) set fid_ {2 * i}",
        f"set dst({i}) [new {sink}]",
        f"$dst({i}) set fid_ {2 * i + 1}",
    ]
    if tcp["delayed_ack"]:
        lines.append(f"$dst({i}) set interval_ {tcp['delack_timeout_s']!r}")
    if tcp["timestamps"]:
        lines.append(f"$dst({i}) set ts_echo_rfc1323_ true")
    if cc in TCP_LINUX:
        lines.append(f"$src({i}) select_ca {TCP_LINUX[cc]}")
    return lines


def _dccp_agent(flow: dict[str, Any]) -> list[str]:
    """Both ends of a DCCP connection (ns-2's agents are symmetric; the receiver listens) and a
    byte counter on the receiving end (DCCPAgent::recv hands each packet's data to it)."""
    i, params = flow["id"], flow["cc_params"]
    agent = DCCP_AGENTS[flow["cc_base"]]
    size = _dccp_payload(flow)
    lines = [f"set src({i}) [new {agent}]", f"set dst({i}) [new {agent}]"]
    for end in ("src", "dst"):
        # ns-2's DCCP agents offer ECN by default; ccarena's DCCP does not use it.
        lines += [f"${end}({i}) set use_ecn_local_ 0", f"${end}({i}) set use_ecn_remote_ 0"]
    lines += [f"$src({i}) set packetSize_ {size + IP_HEADER}", f"$src({i}) set fid_ {2 * i}", f"$dst({i}) set fid_ {2 * i + 1}"]
    if flow["cc_base"] == "ccid2":
        initial = params.get("initial_cwnd") or min(4, max(2, 4380 // size))  # RFC 4341 §5 via RFC 3390
        for end in ("src", "dst"):
            lines += [f"${end}({i}) set ack_ratio_local_ {params['ack_ratio']}", f"${end}({i}) set ack_ratio_remote_ {params['ack_ratio']}"]
        lines += [f"$src({i}) set initial_cwnd_ {initial:g}", f"$src({i}) set min_rto_ {params['min_rto_s']!r}",
                  f"$src({i}) set num_dup_acks_ {params['numdupack']}", f"$dst({i}) set dack_delay_ {params['max_ack_delay_s']!r}"]
    else:
        # TFRC's s: the packet's payload, or the fixed size of `equation_size` (ns-2's own is 500 B).
        s_eq = params.get("equation_size") or size
        lines += [f"$src({i}) set s_s_ {s_eq}", f"$dst({i}) set r_s_ {s_eq}", f"$src({i}) set s_initial_x_ {float(s_eq)!r}",
                  f"$src({i}) set s_initial_rto_ {params['initial_nofeedback_s']!r}",
                  f"$src({i}) set s_t_mbi_ {params['t_mbi_s']!r}", f"$src({i}) set s_rtt_q_ {params['rtt_filter_q']!r}",
                  f"$dst({i}) set num_dup_acks_ {params['ndupack']}",
                  # ccarena's TFRC has no oscillation reduction (RFC 3448 §4.5, optional).
                  f"$src({i}) set s_use_osc_prev_ 0"]
    lines += [f"set rcv({i}) [new Application/ByteCounter]", f"$rcv({i}) attach-agent $dst({i})",
              f"$ns at 0.0 \"$dst({i}) listen; $rcv({i}) start\""]
    return lines


#: The IPv4 header ns-2's DCCP packets lack (their size is data + DCCP header + options): the
#: backend sends it as data so that packets on the wire have the simulator's size; goodput
#: counts the scenario's payload.
IP_HEADER = 20


def _dccp_payload(flow: dict[str, Any]) -> int:
    app = flow["app"]
    return int(app["packet_size"]) if app["kind"] in ("cbr", "onoff") else int(flow["dccp"]["packet_size"])


def _udp_agent(flow: dict[str, Any]) -> list[str]:
    i = flow["id"]
    # The agent splits a message larger than its packetSize_ into several packets: make it the
    # datagram's IP size, so one application message is one packet as in the simulator.
    size = flow["app"]["packet_size"] + 28
    return [f"set src({i}) [new Agent/UDP]", f"$src({i}) set packetSize_ {size}", f"$src({i}) set fid_ {2 * i}",
            f"set dst({i}) [new Agent/LossMonitor]"]


def _app(flow: dict[str, Any]) -> list[str]:
    i, app = flow["id"], flow["app"]
    # A UDP datagram's size in ns-2 is its IP packet (payload + 28 B of IPv4 and UDP headers); on
    # TCP the agent adds its own headers to the message.
    headers = {"udp": 28, "dccp": IP_HEADER}.get(flow["protocol"], 0)
    start, stop = flow["start_s"], flow["stop_s"]
    if app["kind"] in ("bulk", "file"):
        lines = [f"set app({i}) [new Application/FTP]", f"$app({i}) attach-agent $src({i})"]
        go = f"$app({i}) start" if app["kind"] == "bulk" else f"$app({i}) send {app['size_bytes']}"
    elif app["kind"] == "cbr":
        lines = [f"set app({i}) [new Application/Traffic/CBR]", f"$app({i}) set packetSize_ {app['packet_size'] + headers}",
                 f"$app({i}) set rate_ {app['rate_bps'] * (app['packet_size'] + headers) / app['packet_size']!r}",
                 f"$app({i}) set random_ 0", f"$app({i}) attach-agent $src({i})"]
        go = f"$app({i}) start"
    else:
        lines = [f"set app({i}) [new Application/Traffic/Exponential]", f"$app({i}) set packetSize_ {app['packet_size'] + headers}",
                 f"$app({i}) set burst_time_ {app['on_mean_s']!r}", f"$app({i}) set idle_time_ {app['off_mean_s']!r}",
                 f"$app({i}) set rate_ {app['rate_bps'] * (app['packet_size'] + headers) / app['packet_size']!r}",
                 f"$app({i}) attach-agent $src({i})"]
        go = f"$app({i}) start"
    lines.append(f"$ns at {start!r} \"{go}\"")
    if stop is not None:
        lines.append(f"$ns at {stop!r} \"$app({i}) stop\"")
    return lines


def script(plan: dict[str, Any]) -> str:
    """The Tcl program that runs ``plan`` on ns-2.35 and prints its measurements."""
    out = [
        "# ccarena: generated for ns-2.35 from the scenario " + repr(plan["name"]),
        "set ns [new Simulator]",
        # Routes are the simulator's (installed below), not ns-2's own shortest paths, which
        # break ties between equal paths otherwise (e.g. both ways round a ring).
        "$ns rtproto Manual",
        # Error models and exponential sources draw from ns-2's default generator, seeded by the
        # scenario's seed (ns-2 takes 1..2^31-2; 0 would mean "from the clock").
        f"$defaultRNG seed {plan['seed'] % 2147483646 + 1}",
        # Counts what a DCCP receiver delivers to its application.
        "Class Application/ByteCounter -superclass Application",
        "Application/ByteCounter instproc init {} { $self next; $self instvar bytes_ msgs_; set bytes_ 0; set msgs_ 0 }",
        "Application/ByteCounter instproc recv {n} { $self instvar bytes_ msgs_; incr bytes_ $n; incr msgs_ }",
    ]
    out += [f"set node({n}) [$ns node]" for n in plan["nodes"]]
    for k, link in enumerate(plan["links"]):
        kind, qlines = _queue(link)
        out.append(f"$ns simplex-link $node({link['src']}) $node({link['dst']}) {link['rate_bps']!r} {link['delay_s']!r} {kind}")
        out.append(f"$ns queue-limit $node({link['src']}) $node({link['dst']}) {link['queue']['limit']}")
        out.append(f"set q [[$ns link $node({link['src']}) $node({link['dst']})] queue]")
        out += qlines
        out += _loss(link)
        out += [f"set mon({k}) [$ns makeflowmon Fid]", f"set int({k}) [new Integrator]", f"$mon({k}) set-pkts-integrator $int({k})",
                f"$ns attach-fmon [$ns link $node({link['src']}) $node({link['dst']})] $mon({k})"]
    for flow in plan["flows"]:
        i = flow["id"]
        out += {"tcp": _tcp_agent, "udp": _udp_agent, "dccp": _dccp_agent}[flow["protocol"]](flow)
        out += [f"$ns attach-agent $node({flow['src']}) $src({i})", f"$ns attach-agent $node({flow['dst']}) $dst({i})",
                f"$ns connect $src({i}) $dst({i})"]
        out += _app(flow)
    from ccarena.peers.plan import next_hops

    out.append("proc route {at dst via} { global ns node; [$node($at) get-module Manual] add-route [$node($dst) set address_] "
               "[[$ns link $node($at) $node($via)] head] }")
    out += [f"route {at} {dst} {plan['links'][k]['dst']}" for (at, dst), k in sorted(next_hops(plan).items())]
    out += _measurement(plan)
    return "\n".join(out) + "\n"


def _measurement(plan: dict[str, Any]) -> list[str]:
    """Procedures that sample the agents and the links, the completion hook, and the run's end."""
    flows = plan["flows"]
    tcp = [f["id"] for f in flows if f["protocol"] == "tcp"]
    udp = [f["id"] for f in flows if f["protocol"] == "udp"]
    ccid2 = [f["id"] for f in flows if f["protocol"] == "dccp" and f["cc_base"] == "ccid2"]
    ccid3 = [f["id"] for f in flows if f["protocol"] == "dccp" and f["cc_base"] == "ccid3"]
    n = round(plan["duration_s"] / plan["sample_interval_s"])
    return [
        f"set tcp_flows {{{' '.join(map(str, tcp))}}}",
        f"set udp_flows {{{' '.join(map(str, udp))}}}",
        f"set ccid2_flows {{{' '.join(map(str, ccid2))}}}",
        f"set ccid3_flows {{{' '.join(map(str, ccid3))}}}",
        f"set nlinks {len(plan['links'])}",
        # A file transfer is complete when its last byte is acknowledged (TcpAgent::finish).
        "Agent/TCP instproc done {} { global ns; $self instvar fid_; puts \"C [expr $fid_ / 2] [$ns now]\" }",
        "proc sample {} {",
        "  global ns src dst rcv mon int tcp_flows udp_flows ccid2_flows ccid3_flows nlinks",
        "  set t [$ns now]",
        "  foreach i $tcp_flows {",
        "    set s $src($i)",
        "    puts \"T $t $i [$dst($i) set bytes_] [$s set ndatapack_] [$s set ndatabytes_] [$s set nrexmitpack_] "
        "[$s set cwnd_] [$s set ssthresh_] [expr [$s set srtt_] * [$s set tcpTick_] / 8.0] [$s set nrexmit_] [$s set ncwndcuts_]\"",
        "  }",
        "  foreach i $udp_flows { puts \"U $t $i [$dst($i) set npkts_] [$dst($i) set bytes_] [$dst($i) set nlost_]\" }",
        "  foreach i $ccid2_flows { puts \"K $t $i [$rcv($i) set msgs_] [$rcv($i) set bytes_] "
        "[expr [$src($i) set num_data_pkt_] + [$src($i) set num_dataack_pkt_]] [$src($i) set cwnd_] [$src($i) set ssthresh_] 0\" }",
        "  foreach i $ccid3_flows { puts \"K $t $i [$rcv($i) set msgs_] [$rcv($i) set bytes_] "
        "[expr [$src($i) set num_data_pkt_] + [$src($i) set num_dataack_pkt_]] nan nan [$src($i) set s_x_]\" }",
        "  for {set k 0} {$k < $nlinks} {incr k} {",
        "    $int($k) newpoint $t [$mon($k) set pkts_]",
        "    puts \"L $t $k [$mon($k) set pdepartures_] [$mon($k) set bdepartures_] [$mon($k) set pdrops_] "
        "[$mon($k) set pkts_] [$mon($k) set size_] [$int($k) set sum_]\"",
        "  }",
        "}",
        "proc drops {} {",
        "  global mon nlinks",
        "  for {set k 0} {$k < $nlinks} {incr k} {",
        "    foreach f [$mon($k) flows] { puts \"D $k [$f set flowid_] [$f set parrivals_] [$f set barrivals_] [$f set pdrops_]\" }",
        "  }",
        "}",
        f"for {{set k 1}} {{$k <= {n}}} {{incr k}} {{ $ns at [expr $k * {plan['sample_interval_s']!r}] sample }}",
        f"$ns at {plan['duration_s']!r} \"drops; exit 0\"",
        "$ns run",
    ]
