// Pieces of the ccarena ns-3 driver (ccarena-ns3.cc): the link buffer, the link loss models and
// the per-flow / per-link counters that the raw JSON of ccarena/peers/results.py is made of.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ccarena
{
using namespace ns3;

// The 2-byte PppHeader that PointToPointNetDevice::Send adds (AddHeader) before the device queue.
// The simulator's and ns-2's link bytes are IP packet bytes, so every byte count taken at the
// device (queue "BytesInQueue", PhyTxEnd, the buffer's byte limit) subtracts it. ns-3 does
// serialise those 2 bytes (DataRate::CalculateBytesTxTime of the framed packet): a 1500-B packet
// takes 1502 B of time, 0.13 % of the link, which is not compensated (Python reports it in facts).
constexpr uint32_t PPP = 2;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A link loss model, applied as the simulator does (crates/core/src/net/loss.rs): to every packet
// entering the link direction, before the buffer; a lost packet counts as a drop of that link.
struct Loss
{
    int kind = 0; // 0 none, 1 bernoulli, 2 periodic
    double p = 0;
    uint64_t every = 0;
    uint64_t seen = 0;
    Ptr<UniformRandomVariable> rng;

    bool Drops()
    {
        if (kind == 1)
        {
            return rng->GetValue() < p;
        }
        if (kind == 2)
        {
            return ++seen % every == 0; // the every-th, 2·every-th, ... packet (loss.rs Periodic)
        }
        return false;
    }
};

// The device queue of a drop-tail link direction. PointToPointNetDevice dequeues a packet when its
// transmission starts (TransmitStart from Send or TransmitComplete), so this queue holds only the
// packets waiting, never the one being serialised: exactly what the simulator's and ns-2's
// `limit` counts (docs/queues.md, "the packet being transmitted does not count"). It is
// ns3::DropTailQueue with two changes: a byte limit counts IP bytes (the device's packets carry
// the PPP header, DropTailQueue's MaxSize would count 2 B more per packet), and the link's loss
// model acts before admission. No NetDeviceQueueInterface is aggregated on such a device, so no
// queue disc is installed and the traffic-control layer hands every packet to the device: a full
// buffer drops here (trace "Drop"), not in TrafficControlLayer.
class WaitingQueue : public Queue<Packet>
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ccarena::WaitingQueue")
                                .SetParent<Queue<Packet>>()
                                .SetGroupName("Network")
                                .AddConstructor<WaitingQueue>();
        return tid;
    }

    // `mark`: the step-marking threshold K (ecn_threshold; 0 = none), counted in bytes if
    // `markBytes`.
    void Configure(bool bytes, uint64_t limit, Loss* loss, uint64_t mark = 0, bool markBytes = false)
    {
        m_bytes = bytes;
        m_limit = limit;
        m_loss = loss;
        m_mark = mark;
        m_markBytes = markBytes;
        SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
    }

    bool Enqueue(Ptr<Packet> p) override
    {
        if (m_loss && m_loss->Drops())
        {
            DropBeforeEnqueue(p);
            return false;
        }
        bool full = m_bytes ? (GetNBytes() - PPP * GetNPackets()) + (p->GetSize() - PPP) > m_limit
                            : GetNPackets() >= m_limit;
        if (full)
        {
            DropBeforeEnqueue(p);
            return false;
        }
        if (m_mark && (m_markBytes ? GetNBytes() - PPP * GetNPackets() : GetNPackets()) >= m_mark)
        {
            MarkCe(p);
        }
        return DoEnqueue(GetContainer().end(), p);
    }

    Ptr<Packet> Dequeue() override
    {
        return DoDequeue(GetContainer().begin());
    }

    Ptr<Packet> Remove() override
    {
        return DoRemove(GetContainer().begin());
    }

    Ptr<const Packet> Peek() const override
    {
        return DoPeek(GetContainer().begin());
    }

    // ECN marks set by the step threshold.
    uint64_t marked = 0;

  private:
    // The simulator's step marking (crates/core/src/net/queue/droptail.rs): an ECN-capable
    // packet finding at least K waiting gets CE. The IP header lies under the PPP header.
    void MarkCe(Ptr<Packet> p)
    {
        PppHeader ppp;
        p->RemoveHeader(ppp);
        Ipv4Header ip;
        p->RemoveHeader(ip);
        if (ip.GetEcn() == Ipv4Header::ECN_ECT0 || ip.GetEcn() == Ipv4Header::ECN_ECT1)
        {
            ip.SetEcn(Ipv4Header::ECN_CE);
            marked++;
        }
        p->AddHeader(ip);
        p->AddHeader(ppp);
    }

    bool m_bytes = false;
    uint64_t m_limit = 0;
    Loss* m_loss = nullptr;
    uint64_t m_mark = 0;
    bool m_markBytes = false;
};

// One flow's counters: totals, and the cumulative series sampled every sample_interval.
struct Flow
{
    int id = 0;
    bool tcp = true;
    uint32_t mss = 0;
    uint16_t port = 0;     // the receiver's port: data packets go to it, ACKs come from it
    double start_s = 0;
    uint64_t file_bytes = 0; // 0: bulk
    uint32_t src = 0, dst = 0;
    Ptr<Socket> socket; // the TCP sender
    Ptr<RttMeanDeviation> rtt;
    bool connected = false, closed = false;
    uint64_t queued = 0; // bytes handed to the TCP socket

    uint64_t sent_pkts = 0, sent_bytes = 0, retx_pkts = 0, delivered_pkts = 0, goodput_bytes = 0;
    uint64_t dropped_pkts = 0, timeouts = 0, fast_recoveries = 0;
    bool any_sent = false;
    uint32_t high_seq = 0; // one past the highest data byte sent (SequenceNumber32 value)
    double completion_s = kNaN;
    uint32_t cwnd = 0, ssthresh = std::numeric_limits<uint32_t>::max();

    std::vector<double> t, s_pkts, s_bytes, s_retx, s_deliv, s_good, s_cwnd, s_ssth, s_srtt;
};

// One link direction: its device (and queue disc for RED) and counters.
struct Link
{
    std::string name;
    uint32_t src = 0, dst = 0;
    double delay_s = 0;
    Ptr<PointToPointNetDevice> dev; // the transmitting device (on src)
    Ptr<Queue<Packet>> devq;
    Ptr<QueueDisc> qdisc; // RED or PIE
    Ptr<WaitingQueue> marking; // a drop-tail buffer that marks (ecn_threshold) only
    Loss loss;
    uint32_t ifindex = 0; // the src node's Ipv4 interface of dev

    uint64_t tx_pkts = 0, tx_bytes = 0, dropped_pkts = 0;
    double integral = 0, last = 0;
    uint32_t qpkts = 0;
    uint64_t qbytes = 0;

    std::vector<double> t, s_tx_pkts, s_tx_bytes, s_drop, s_qpkts, s_qbytes, s_qint;

    uint32_t dev_pkts = 0, qdisc_pkts = 0;

    // Integrates the waiting packets up to now with the value held since the last change, then
    // takes the new one. Called from the device queue's and the queue disc's "PacketsInQueue"
    // with the new value: TracedValue::Set calls its callbacks before it stores the value, so
    // GetNPackets() still gives the old one there. queue_pkt_s is so the exact integral.
    void Change(bool dev, uint32_t now_pkts)
    {
        double now = Simulator::Now().GetSeconds();
        integral += (dev_pkts + qdisc_pkts) * (now - last);
        last = now;
        (dev ? dev_pkts : qdisc_pkts) = now_pkts;
    }

    // The state between events (at a sample, at the end): read from the queues themselves.
    void Read()
    {
        Change(true, devq->GetNPackets());
        qpkts = devq->GetNPackets();
        qbytes = devq->GetNBytes() - PPP * devq->GetNPackets();
        if (qdisc)
        {
            Change(false, qdisc->GetNPackets());
            qpkts += qdisc->GetNPackets();
            qbytes += qdisc->GetNBytes(); // Ipv4QueueDiscItem::GetSize: IP bytes, no PPP
        }
    }
};

// traces.cc: the run's flows and link directions (addresses stable: sized before any callback
// is bound), the receiver port of each flow, and the trace sinks and applications.
extern std::vector<Flow> g_flows;
extern std::vector<Link> g_links;
extern std::map<uint16_t, int> g_by_port;

void OnSend(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t);
void OnDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t);
void OnDevDrop(Link* l, Ptr<const Packet> p);
void OnQdiscDrop(Link* l, Ptr<const QueueDiscItem> item);
void OnTxEnd(Link* l, Ptr<const Packet> p);
void OnDevQueueLen(Link* l, uint32_t, uint32_t now);
void OnQdiscLen(Link* l, uint32_t, uint32_t now);
void OnCwnd(Flow* f, uint32_t, uint32_t v);
void OnSsthresh(Flow* f, uint32_t, uint32_t v);
void OnCongState(Flow* f, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to);
void OnRto(Flow* f, Time from, Time to);
void OnAck(Flow* f, SequenceNumber32, SequenceNumber32 ack);
void Connected(Flow* f, Ptr<Socket>);
void ConnectFailed(Flow* f, Ptr<Socket>);
void CanSend(Flow* f, Ptr<Socket>, uint32_t);
void StartFlow(Flow* f, Address remote);
void Accepted(Flow* f, Ptr<Socket> s, const Address&);
void OnSinkRx(Flow* f, Ptr<const Packet> p, const Address&);
void Sample();

} // namespace ccarena
