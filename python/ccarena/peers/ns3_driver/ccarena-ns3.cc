// ccarena-ns3 PLAN.json RAW.json: runs one ccarena peer plan (ccarena/peers/plan.py) on ns-3.37
// and writes the raw measurements of ccarena/peers/results.py. Nothing is printed on stdout; an
// error is one line on stderr and exit status 2. Python (ccarena/peers/ns3.py) has refused what
// this program cannot run, so the plan is taken as valid. Deterministic: RngSeedManager seed 1,
// run = the plan's seed, and every random variable on its own fixed stream.
#include "parts.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <queue>
#include <tuple>

using namespace ns3;
using namespace ccarena;
using json = nlohmann::json;

namespace
{
NodeContainer g_nodes;

// Node n's addresses are 10.0.0.0 + (n + 1) << 12 + k (k = 1.. per interface), mask /20: every
// interface of a node lies in the node's own prefix, so one network route per destination node
// and router is enough (the two ends of a channel need not share a subnet: a point-to-point
// device ignores the next-hop address).
Ipv4Address
NodePrefix(uint32_t n)
{
    return Ipv4Address((10u << 24) | ((n + 1) << 12));
}

const Ipv4Mask NODE_MASK("255.255.240.0");

// The simulator's routes (crates/core/src/net/routing.rs): a reverse Dijkstra from each
// destination with the cost (hops, propagation delay in ns, id of the first link), compared
// lexicographically; link ids are the plan's link order. Ipv4GlobalRoutingHelper would give the
// fewest hops by interface metric but breaks ties its own way, so the routes are computed here
// and installed as static routes (Ipv4StaticRouting::AddNetworkRouteTo) on every node.
void
InstallRoutes(const std::vector<uint32_t>& destinations)
{
    uint32_t n = g_nodes.GetN();
    std::vector<std::vector<uint32_t>> incoming(n);
    for (uint32_t i = 0; i < g_links.size(); i++)
    {
        incoming[g_links[i].dst].push_back(i);
    }
    using Cost = std::tuple<uint32_t, uint64_t, uint32_t>;
    Ipv4StaticRoutingHelper helper;
    for (uint32_t d : destinations)
    {
        std::vector<bool> have(n, false);
        std::vector<Cost> best(n);
        std::vector<int64_t> next(n, -1);
        std::priority_queue<std::pair<Cost, uint32_t>, std::vector<std::pair<Cost, uint32_t>>,
                            std::greater<>>
            heap;
        have[d] = true;
        best[d] = Cost(0, 0, 0);
        heap.push({best[d], d});
        while (!heap.empty())
        {
            auto [cost, node] = heap.top();
            heap.pop();
            if (best[node] != cost)
            {
                continue;
            }
            for (uint32_t li : incoming[node])
            {
                const Link& e = g_links[li];
                Cost cand(std::get<0>(cost) + 1,
                          std::get<1>(cost) + uint64_t(std::llround(e.delay_s * 1e9)),
                          li);
                if (!have[e.src] || cand < best[e.src])
                {
                    have[e.src] = true;
                    best[e.src] = cand;
                    next[e.src] = li;
                    heap.push({cand, e.src});
                }
            }
        }
        for (uint32_t u = 0; u < n; u++)
        {
            if (u != d && next[u] >= 0)
            {
                Ptr<Ipv4StaticRouting> r =
                    helper.GetStaticRouting(g_nodes.Get(u)->GetObject<Ipv4>());
                r->AddNetworkRouteTo(NodePrefix(d), NODE_MASK, g_links[next[u]].ifindex);
            }
        }
    }
}

uint32_t
AddInterface(Ptr<Node> node, uint32_t n, Ptr<NetDevice> dev)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    uint32_t i = ipv4->AddInterface(dev);
    ipv4->AddAddress(i, Ipv4InterfaceAddress(Ipv4Address(NodePrefix(n).Get() + i), NODE_MASK));
    ipv4->SetMetric(i, 1);
    ipv4->SetUp(i);
    return i;
}

Ptr<RandomVariableStream>
Exponential(double mean, int64_t stream)
{
    auto v = CreateObject<ExponentialRandomVariable>();
    v->SetAttribute("Mean", DoubleValue(mean));
    v->SetStream(stream);
    return v;
}

void
BuildLink(const json& spec, const std::map<std::string, uint32_t>& index, int64_t stream)
{
    Link& l = g_links.emplace_back();
    l.name = spec["name"];
    l.src = index.at(spec["src"]);
    l.dst = index.at(spec["dst"]);
    l.delay_s = spec["delay_s"];
    const json& q = spec["queue"];
    bool bytes = q["unit"] == "B";
    uint64_t limit = q["limit"];
    if (!spec["loss"].is_null())
    {
        const json& loss = spec["loss"];
        if (loss["kind"] == "bernoulli")
        {
            l.loss.kind = 1;
            l.loss.p = loss["p"];
            l.loss.rng = CreateObject<UniformRandomVariable>();
            l.loss.rng->SetStream(stream);
        }
        else
        {
            l.loss.kind = 2;
            l.loss.every = loss["every"];
        }
    }
    // One channel per direction: the plan's two directions of a pair may differ in rate or
    // delay, and a PointToPointChannel has one Delay. The far device only receives.
    Ptr<Node> a = g_nodes.Get(l.src);
    Ptr<Node> b = g_nodes.Get(l.dst);
    auto channel = CreateObject<PointToPointChannel>();
    channel->SetAttribute("Delay", TimeValue(NanoSeconds(std::llround(l.delay_s * 1e9))));
    l.dev = CreateObject<PointToPointNetDevice>();
    auto far = CreateObject<PointToPointNetDevice>();
    for (auto dev : {l.dev, far})
    {
        dev->SetAddress(Mac48Address::Allocate());
        dev->SetAttribute("Mtu", UintegerValue(65000)); // no IP fragmentation for any mss
    }
    l.dev->SetAttribute("DataRate", DataRateValue(DataRate(uint64_t(double(spec["rate_bps"])))));
    a->AddDevice(l.dev);
    b->AddDevice(far);
    far->SetQueue(CreateObject<DropTailQueue<Packet>>());
    if (q["kind"] == "droptail")
    {
        auto wq = CreateObject<WaitingQueue>();
        const json& mark = q["ecn_threshold"];
        if (mark.is_null())
        {
            wq->Configure(bytes, limit, l.loss.kind ? &l.loss : nullptr);
        }
        else
        {
            wq->Configure(bytes, limit, l.loss.kind ? &l.loss : nullptr, mark["limit"],
                          mark["unit"] == "B");
            l.marking = wq;
        }
        l.devq = wq;
    }
    else
    {
        // RED is a queue disc (RedQueueDisc), which needs a NetDeviceQueueInterface to hold the
        // backlog: the device queue (1 packet) is stopped while it holds a packet, and the queue
        // disc keeps the rest. Then one packet waits in the device queue whenever the link is
        // busy and backlogged, so the queue disc holds (packets waiting - 1): MaxSize is limit - 1
        // and MinTh / MaxTh are one less than the plan's, which makes RED's average, taken over
        // the queue disc's length (RedQueueDisc::DoEnqueue, nQueued), the simulator's average of
        // the packets waiting less one (exact in the linear region: p_b depends on avg - min_th
        // over max_th - min_th; Python lists the residual differences in facts).
        auto dq = CreateObject<DropTailQueue<Packet>>();
        dq->SetMaxSize(QueueSize("1p"));
        l.devq = dq;
        auto ndqi = CreateObject<NetDeviceQueueInterface>();
        ndqi->GetTxQueue(0)->ConnectQueueTraces(dq);
        l.dev->AggregateObject(ndqi);
    }
    l.dev->SetQueue(l.devq);
    l.dev->Attach(channel);
    far->Attach(channel);
    l.ifindex = AddInterface(a, l.src, l.dev);
    AddInterface(b, l.dst, far);
    if (q["kind"] == "red")
    {
        double rate = spec["rate_bps"];
        std::string unit = bytes ? "B" : "p";
        TrafficControlHelper tch;
        tch.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize", QueueSizeValue(QueueSize(std::to_string(limit - 1) + unit)),
            "MinTh", DoubleValue(std::max(0.0, double(q["min_th"]) - 1)),
            "MaxTh", DoubleValue(std::max(0.0, double(q["max_th"]) - 1)),
            "LInterm", DoubleValue(1.0 / double(q["max_p"])), // max_p = 1 / LInterm
            "QW", DoubleValue(q["wq"]),
            "Gentle", BooleanValue(q["gentle"]),
            // variant = "ns2" (the only one mapped): ns-2's wait_ spacing (RedQueueDisc::ModifyP)
            "Wait", BooleanValue(true),
            "UseEcn", BooleanValue(q["ecn"]),
            // the simulator marks ECT packets in every early-action region (docs/queues.md)
            "UseHardDrop", BooleanValue(false),
            "MeanPktSize", UintegerValue(uint32_t(q.value("mean_pktsize", 1000))),
            "LinkBandwidth", DataRateValue(DataRate(uint64_t(rate))),
            "LinkDelay", TimeValue(NanoSeconds(std::llround(l.delay_s * 1e9))));
        l.qdisc = tch.Install(l.dev).Get(0);
    }
    else if (q["kind"] == "pie")
    {
        // PIE as RED above: the queue disc holds the packets waiting less the one in the device
        // queue. RFC 8033's timestamps for the delay (no dequeue-rate estimator), its cap on the
        // drop adjustment, no derandomisation: what the simulator's PIE does.
        TrafficControlHelper tch;
        tch.SetRootQueueDisc(
            "ns3::PieQueueDisc",
            "MaxSize", QueueSizeValue(QueueSize(std::to_string(limit - 1) + "p")),
            "QueueDelayReference", TimeValue(Seconds(double(q["target_s"]))),
            "Tupdate", TimeValue(Seconds(double(q["tupdate_s"]))),
            "A", DoubleValue(q["alpha"]),
            "B", DoubleValue(q["beta"]),
            "MaxBurstAllowance", TimeValue(Seconds(double(q["max_burst_s"]))),
            "UseEcn", BooleanValue(q["ecn"]),
            "MarkEcnThreshold", DoubleValue(q["mark_ecn_th"]),
            "MeanPktSize", UintegerValue(uint32_t(q["mean_pktsize"])),
            "UseDequeueRateEstimator", BooleanValue(false),
            "UseCapDropAdjustment", BooleanValue(true),
            "UseDerandomization", BooleanValue(false));
        l.qdisc = tch.Install(l.dev).Get(0);
    }
    if (l.qdisc)
    {
        l.qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&OnQdiscLen, &l));
        l.qdisc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnQdiscDrop, &l));
    }
    l.devq->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&OnDevQueueLen, &l));
    l.devq->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDevDrop, &l));
    l.dev->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&OnTxEnd, &l));
}

// TcpSocketBase / TcpSocket attributes common to the sender and the receiver of a flow.
void
ConfigureTcp(Ptr<Socket> s, const json& tcp, const json& opts)
{
    s->SetAttribute("SegmentSize", UintegerValue(tcp["mss"]));
    s->SetAttribute("Timestamp", BooleanValue(tcp["timestamps"]));
    s->SetAttribute("Sack", BooleanValue(tcp["sack"]));
    s->SetAttribute("WindowScaling", BooleanValue(true));
    s->SetAttribute("UseEcn", EnumValue(bool(tcp["ecn"]) ? TcpSocketState::On : TcpSocketState::Off));
    // receiver: DelAckCount 2 with delayed ACKs, else 1 (every segment acknowledged at once)
    s->SetAttribute("DelAckCount", UintegerValue(bool(tcp["delayed_ack"]) ? 2 : 1));
    s->SetAttribute("DelAckTimeout", TimeValue(Seconds(double(tcp["delack_timeout_s"]))));
    s->SetAttribute("RcvBufSize", UintegerValue(uint32_t(opts["rcv_buf_bytes"])));
    s->SetAttribute("SndBufSize", UintegerValue(uint32_t(opts["snd_buf_bytes"])));
    // sender
    s->SetAttribute("InitialCwnd", UintegerValue(uint32_t(double(tcp["initial_cwnd"]))));
    s->SetAttribute("MinRto", TimeValue(Seconds(double(tcp["min_rto_s"]))));
    s->SetAttribute("ConnTimeout", TimeValue(Seconds(double(opts["syn_rto_s"]))));
    // the simulator never gives up on a connection (TcpSocket default: 6 tries, then close)
    s->SetAttribute("DataRetries", UintegerValue(1000000));
    s->SetAttribute("ConnCount", UintegerValue(1000000));
    if (opts.value("pacing", false))
    {
        // TcpBbr paces its sending (ns-3's BBR documentation: "ns3::TcpSocketState::EnablePacing")
        DynamicCast<TcpSocketBase>(s)->SetPacingStatus(true);
    }
}

void
BuildFlow(const json& spec, uint32_t i, int64_t stream)
{
    Flow& f = g_flows[i];
    f.id = spec["id"];
    f.tcp = spec["protocol"] == "tcp";
    f.start_s = spec["start_s"];
    f.port = uint16_t(1024 + i);
    g_by_port[f.port] = int(i);
    const json& app = spec["app"];
    const json& ns3 = spec["ns3"]; // what Python resolved for ns-3 (ns3.py _ns3_options)
    Ptr<Node> src = g_nodes.Get(f.src);
    Ptr<Node> dst = g_nodes.Get(f.dst);
    Address remote = InetSocketAddress(Ipv4Address(NodePrefix(f.dst).Get() + 1), f.port);
    if (f.tcp)
    {
        const json& tcp = spec["tcp"];
        f.mss = tcp["mss"];
        if (app["kind"] == "file")
        {
            f.file_bytes = app["size_bytes"];
        }
        // Where ns-3's defaults are not the algorithm's (ns3.py CONGESTION_ATTRIBUTES): every
        // flow of an algorithm has the same, so a default set before the socket is made serves.
        for (const auto& [name, value] : ns3["congestion_attributes"].items())
        {
            Config::SetDefault(name, StringValue(value.get<std::string>()));
        }
        TypeId cc = TypeId::LookupByName(ns3["congestion_ops"]);
        TypeId recovery = TypeId::LookupByName(ns3["recovery"]);
        auto sink = dst->GetObject<TcpL4Protocol>()->CreateSocket(cc, recovery);
        ConfigureTcp(sink, tcp, ns3);
        sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), f.port));
        sink->Listen();
        sink->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeBoundCallback(&Accepted, &f));
        f.socket = src->GetObject<TcpL4Protocol>()->CreateSocket(cc, recovery);
        ConfigureTcp(f.socket, tcp, ns3);
        // TcpSocketBase::SetRtt: an RttMeanDeviation (RFC 6298 alpha 1/8, beta 1/4, as the one
        // TcpL4Protocol gives) kept here so that srtt_s can be read (the "RTT" trace is the last
        // sample, and a TracedValue does not fire for an equal sample).
        f.rtt = CreateObject<RttMeanDeviation>();
        DynamicCast<TcpSocketBase>(f.socket)->SetRtt(f.rtt);
        f.cwnd = f.mss * uint32_t(double(tcp["initial_cwnd"]));
        f.socket->SetConnectCallback(MakeBoundCallback(&Connected, &f),
                                     MakeBoundCallback(&ConnectFailed, &f));
        f.socket->SetSendCallback(MakeBoundCallback(&CanSend, &f));
        f.socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, &f));
        f.socket->TraceConnectWithoutContext("SlowStartThreshold",
                                             MakeBoundCallback(&OnSsthresh, &f));
        f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, &f));
        f.socket->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, &f));
        f.socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, &f));
        Simulator::Schedule(Seconds(f.start_s), &StartFlow, &f, remote);
        return;
    }
    // UDP: PacketSink and OnOffApplication, whose sockets need no per-flow setting. cbr is an
    // on/off source that is always on; its PacketSize is the datagram payload, as the simulator's.
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), f.port));
    ApplicationContainer sinkApp = sinkHelper.Install(dst);
    sinkApp.Start(Seconds(0));
    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, &f));
    OnOffHelper onoff("ns3::UdpSocketFactory", remote);
    onoff.SetAttribute("DataRate", DataRateValue(DataRate(uint64_t(double(app["rate_bps"])))));
    onoff.SetAttribute("PacketSize", UintegerValue(uint32_t(app["packet_size"])));
    if (app["kind"] == "onoff")
    {
        onoff.SetAttribute("OnTime", PointerValue(Exponential(app["on_mean_s"], stream)));
        onoff.SetAttribute("OffTime", PointerValue(Exponential(app["off_mean_s"], stream + 1)));
    }
    else
    {
        onoff.SetConstantRate(DataRate(uint64_t(double(app["rate_bps"]))),
                              uint32_t(app["packet_size"]));
    }
    ApplicationContainer srcApp = onoff.Install(src);
    srcApp.Start(Seconds(f.start_s));
    if (!spec["stop_s"].is_null())
    {
        srcApp.Stop(Seconds(double(spec["stop_s"])));
    }
}

json
Series(const std::vector<std::pair<const char*, const std::vector<double>*>>& cols)
{
    json out = json::object();
    for (auto& [name, v] : cols)
    {
        json arr = json::array();
        for (double x : *v)
        {
            arr.push_back(std::isnan(x) ? json(nullptr) : json(x));
        }
        out[name] = arr;
    }
    return out;
}

json
Num(double x)
{
    return std::isnan(x) ? json(nullptr) : json(x);
}

} // namespace

int
main(int argc, char** argv)
{
    try
    {
        if (argc != 3)
        {
            throw std::runtime_error("usage: ccarena-ns3 PLAN.json RAW.json");
        }
        std::ifstream in(argv[1]);
        if (!in)
        {
            throw std::runtime_error(std::string("cannot read ") + argv[1]);
        }
        json plan = json::parse(in);
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(uint64_t(plan["seed"]) + 1);

        std::map<std::string, uint32_t> index;
        for (const auto& name : plan["nodes"])
        {
            index[name] = uint32_t(index.size());
        }
        g_nodes.Create(index.size());
        InternetStackHelper stack;
        Ipv4StaticRoutingHelper staticRouting;
        stack.SetRoutingHelper(staticRouting);
        stack.Install(g_nodes);

        g_links.reserve(plan["links"].size()); // Link* are bound into callbacks
        int64_t stream = 100;
        for (const auto& spec : plan["links"])
        {
            BuildLink(spec, index, stream++);
        }
        std::vector<uint32_t> endpoints;
        g_flows.resize(plan["flows"].size());
        for (uint32_t i = 0; i < g_flows.size(); i++)
        {
            g_flows[i].src = index.at(plan["flows"][i]["src"]);
            g_flows[i].dst = index.at(plan["flows"][i]["dst"]);
            endpoints.push_back(g_flows[i].src);
            endpoints.push_back(g_flows[i].dst);
        }
        std::sort(endpoints.begin(), endpoints.end());
        endpoints.erase(std::unique(endpoints.begin(), endpoints.end()), endpoints.end());
        InstallRoutes(endpoints);
        for (uint32_t i = 0; i < g_flows.size(); i++)
        {
            BuildFlow(plan["flows"][i], i, 1000 + 2 * int64_t(i));
        }
        for (uint32_t n : endpoints)
        {
            Ptr<Ipv4L3Protocol> ip = g_nodes.Get(n)->GetObject<Ipv4L3Protocol>();
            ip->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&OnSend));
            ip->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&OnDeliver));
        }

        double duration = plan["duration_s"];
        double interval = plan["sample_interval_s"];
        uint64_t samples = uint64_t(std::floor(duration / interval + 1e-9));
        for (uint64_t k = 1; k <= samples; k++)
        {
            Simulator::Schedule(NanoSeconds(std::llround(k * interval * 1e9)), &Sample);
        }
        Simulator::Stop(NanoSeconds(std::llround(duration * 1e9)));
        auto t0 = std::chrono::steady_clock::now();
        Simulator::Run();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        json raw = {{"wall_s", wall}, {"flows", json::array()}, {"links", json::array()}};
        for (Flow& f : g_flows)
        {
            json final = {
                {"sent_pkts", f.sent_pkts}, {"sent_bytes", f.sent_bytes},
                {"retransmitted_pkts", f.retx_pkts}, {"delivered_pkts", f.delivered_pkts},
                {"goodput_bytes", f.goodput_bytes}, {"dropped_pkts", f.dropped_pkts},
                {"timeouts", f.tcp ? json(f.timeouts) : json(nullptr)},
                {"fast_recoveries", f.tcp ? json(f.fast_recoveries) : json(nullptr)},
                {"completion_s", Num(f.completion_s)}};
            json series = Series({{"t_s", &f.t}, {"sent_pkts", &f.s_pkts}, {"sent_bytes", &f.s_bytes},
                                  {"retransmitted_pkts", &f.s_retx}, {"delivered_pkts", &f.s_deliv},
                                  {"goodput_bytes", &f.s_good}, {"cwnd_pkts", &f.s_cwnd},
                                  {"ssthresh_pkts", &f.s_ssth}, {"srtt_s", &f.s_srtt}});
            raw["flows"].push_back({{"id", f.id}, {"final", final}, {"series", series}});
        }
        for (Link& l : g_links)
        {
            l.Read();
            json final = {{"tx_pkts", l.tx_pkts}, {"tx_bytes", l.tx_bytes},
                          {"dropped_pkts", l.dropped_pkts}};
            if (l.marking)
            {
                final["marked_pkts"] = l.marking->marked;
            }
            json series = Series({{"t_s", &l.t}, {"tx_pkts", &l.s_tx_pkts}, {"tx_bytes", &l.s_tx_bytes},
                                  {"dropped_pkts", &l.s_drop}, {"queue_pkts", &l.s_qpkts},
                                  {"queue_bytes", &l.s_qbytes}, {"queue_pkt_s", &l.s_qint}});
            raw["links"].push_back({{"name", l.name}, {"final", final}, {"series", series}});
        }
        std::ofstream out(argv[2]);
        out << raw.dump() << "\n";
        if (!out)
        {
            throw std::runtime_error(std::string("cannot write ") + argv[2]);
        }
        Simulator::Destroy();
    }
    catch (const std::exception& e)
    {
        std::cerr << "ccarena-ns3: " << e.what() << std::endl;
        return 2;
    }
    return 0;
}
