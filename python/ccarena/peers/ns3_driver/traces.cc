// The trace sinks and applications of the ccarena ns-3 driver: what each counter of the raw JSON
// (ccarena/peers/results.py) is taken from. Built with ccarena-ns3.cc (declarations in parts.h).
#include "parts.h"

namespace ccarena
{

NS_OBJECT_ENSURE_REGISTERED(WaitingQueue);

std::vector<Flow> g_flows;
std::vector<Link> g_links;
std::map<uint16_t, int> g_by_port;

namespace
{

// A data packet of one of the plan's flows: what the counters need from a packet.
struct Hit
{
    int flow = -1;
    uint32_t wire = 0; // IP packet bytes
    uint32_t seq = 0, len = 0;
};

// `l4` starts at the TCP/UDP header. Data packets go to the flow's receiver port and carry
// payload; pure ACKs, SYN and FIN (no payload) are not data (results.py: sent_pkts are data).
Hit
Classify(const Ipv4Header& ip, Ptr<const Packet> l4)
{
    Hit hit;
    uint16_t port;
    uint32_t hdr;
    uint32_t seq = 0;
    if (ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TcpHeader th;
        l4->PeekHeader(th);
        port = th.GetDestinationPort();
        hdr = th.GetSerializedSize();
        seq = th.GetSequenceNumber().GetValue();
    }
    else if (ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER)
    {
        UdpHeader uh;
        l4->PeekHeader(uh);
        port = uh.GetDestinationPort();
        hdr = uh.GetSerializedSize();
    }
    else
    {
        return hit;
    }
    auto it = g_by_port.find(port);
    if (it == g_by_port.end() || l4->GetSize() <= hdr)
    {
        return hit;
    }
    hit.flow = it->second;
    hit.wire = l4->GetSize() + ip.GetSerializedSize();
    hit.seq = seq;
    hit.len = l4->GetSize() - hdr;
    return hit;
}

} // namespace

// Ipv4L3Protocol "SendOutgoing" on a sender: every data packet the host puts out.
void
OnSend(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    Hit h = Classify(ip, p);
    if (h.flow < 0)
    {
        return;
    }
    Flow& f = g_flows[h.flow];
    f.sent_pkts++;
    f.sent_bytes += h.wire;
    if (f.tcp)
    {
        // ns-3.37's TcpSocketBase has no retransmission trace: a segment starting below the
        // highest byte already sent is a retransmission (sequence space compared mod 2^32).
        if (f.any_sent && int32_t(h.seq - f.high_seq) < 0)
        {
            f.retx_pkts++;
        }
        uint32_t end = h.seq + h.len;
        if (!f.any_sent || int32_t(end - f.high_seq) > 0)
        {
            f.high_seq = end;
        }
        f.any_sent = true;
    }
}

// Ipv4L3Protocol "LocalDeliver" on a receiver: data packets that reached it, duplicates included.
void
OnDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    Hit h = Classify(ip, p);
    if (h.flow >= 0)
    {
        g_flows[h.flow].delivered_pkts++;
    }
}

static void
CountDrop(const Ipv4Header& ip, Ptr<const Packet> l4)
{
    Hit h = Classify(ip, l4);
    if (h.flow >= 0)
    {
        g_flows[h.flow].dropped_pkts++;
    }
}

// Device queue "Drop": the packet carries the PPP header, then the IP header.
void
OnDevDrop(Link* l, Ptr<const Packet> p)
{
    l->dropped_pkts++;
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    CountDrop(ip, c);
}

// Queue disc "Drop" (RED: early and forced drops): the IP header is kept beside the packet.
void
OnQdiscDrop(Link* l, Ptr<const QueueDiscItem> item)
{
    l->dropped_pkts++;
    auto ipItem = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ipItem)
    {
        CountDrop(ipItem->GetHeader(), ipItem->GetPacket());
    }
}

// PointToPointNetDevice "PhyTxEnd": a packet fully serialised (the simulator counts a link's tx
// when the transmission ends, crates/core/src/net/link.rs counters).
void
OnTxEnd(Link* l, Ptr<const Packet> p)
{
    l->tx_pkts++;
    l->tx_bytes += p->GetSize() - PPP;
}

void
OnDevQueueLen(Link* l, uint32_t, uint32_t now)
{
    l->Change(true, now);
}

void
OnQdiscLen(Link* l, uint32_t, uint32_t now)
{
    l->Change(false, now);
}

// TCP sender traces.
void
OnCwnd(Flow* f, uint32_t, uint32_t v)
{
    f->cwnd = v;
}

void
OnSsthresh(Flow* f, uint32_t, uint32_t v)
{
    f->ssthresh = v;
}

// TcpSocketState "CongState": entries into CA_RECOVERY are fast recoveries. Timeouts are counted
// from "RTO" instead: ReTxTimeout doubles m_rto on every expiry, also when already in CA_LOSS
// (where CongState does not change again); NewAck recomputes it as max(SRTT + max(G, 4 RTTVAR),
// MinRto), which is exactly twice the old value only by accident. At the 60 s ceiling of
// ReTxTimeout the value stops changing and further timeouts are not seen.
void
OnCongState(Flow* f, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        f->fast_recoveries++;
    }
}

void
OnRto(Flow* f, Time from, Time to)
{
    if (to == Min(from + from, Seconds(60)) && to > from)
    {
        f->timeouts++;
    }
}

// TcpSocketBase "HighestRxAck": a file is complete when its last byte is acknowledged. ns-3's
// initial sequence number is 0 and the SYN takes it, so data byte k (from 0) is sequence k + 1.
void
OnAck(Flow* f, SequenceNumber32, SequenceNumber32 ack)
{
    if (f->file_bytes && std::isnan(f->completion_s) && ack.GetValue() >= f->file_bytes + 1)
    {
        f->completion_s = Simulator::Now().GetSeconds() - f->start_s;
    }
}

// The sender application. BulkSendApplication (and OnOffApplication) create their socket inside
// their private StartApplication from the global attribute defaults, so two flows with different
// TCP settings starting at the same time could not be configured apart. This does what
// BulkSendApplication::SendData does with a socket configured per flow: keep the send buffer
// full (MaxBytes 0 for bulk, the file size for a file, then Close).
static void
Fill(Flow* f)
{
    if (!f->connected || f->closed)
    {
        return;
    }
    while (f->file_bytes == 0 || f->queued < f->file_bytes)
    {
        uint64_t room = f->socket->GetTxAvailable();
        uint64_t want = uint64_t(1) << 20;
        if (f->file_bytes)
        {
            want = std::min(want, f->file_bytes - f->queued);
        }
        uint32_t n = uint32_t(std::min(room, want));
        if (n == 0)
        {
            break;
        }
        int sent = f->socket->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            break;
        }
        f->queued += uint64_t(sent);
    }
    if (f->file_bytes && f->queued >= f->file_bytes)
    {
        f->socket->Close();
        f->closed = true;
    }
}

void
Connected(Flow* f, Ptr<Socket>)
{
    f->connected = true;
    Fill(f);
}

void
ConnectFailed(Flow* f, Ptr<Socket>)
{
    std::cerr << "ccarena-ns3: flow " << f->id << " could not connect" << std::endl;
}

void
CanSend(Flow* f, Ptr<Socket>, uint32_t)
{
    Fill(f);
}

void
StartFlow(Flow* f, Address remote)
{
    f->socket->Bind();
    f->socket->Connect(remote);
}

// The receiver: like PacketSink, counting the payload the socket hands to the application (in
// order, once): goodput_bytes.
void
Read(Flow* f, Ptr<Socket> s)
{
    while (Ptr<Packet> p = s->Recv())
    {
        if (p->GetSize() == 0)
        {
            break;
        }
        f->goodput_bytes += p->GetSize();
    }
}

void
Accepted(Flow* f, Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeBoundCallback(&Read, f));
}

void
OnSinkRx(Flow* f, Ptr<const Packet> p, const Address&)
{
    f->goodput_bytes += p->GetSize();
}

void
Sample()
{
    double now = Simulator::Now().GetSeconds();
    for (Flow& f : g_flows)
    {
        f.t.push_back(now);
        f.s_pkts.push_back(f.sent_pkts);
        f.s_bytes.push_back(f.sent_bytes);
        f.s_retx.push_back(f.retx_pkts);
        f.s_deliv.push_back(f.delivered_pkts);
        f.s_good.push_back(f.goodput_bytes);
        bool win = f.tcp; // the window exists from the socket's creation (InitialCwnd)
        f.s_cwnd.push_back(win ? double(f.cwnd) / f.mss : kNaN);
        // ns-3's initial ssthresh is UINT32_MAX ("unlimited"); reported as kNaN until a reduction.
        f.s_ssth.push_back(win && f.ssthresh < 0x7fffffff ? double(f.ssthresh) / f.mss : kNaN);
        f.s_srtt.push_back(win && f.rtt->GetNSamples() ? f.rtt->GetEstimate().GetSeconds() : kNaN);
    }
    for (Link& l : g_links)
    {
        l.Read();
        l.t.push_back(now);
        l.s_tx_pkts.push_back(l.tx_pkts);
        l.s_tx_bytes.push_back(l.tx_bytes);
        l.s_drop.push_back(l.dropped_pkts);
        l.s_qpkts.push_back(l.qpkts);
        l.s_qbytes.push_back(l.qbytes);
        l.s_qint.push_back(l.integral);
    }
    // The heartbeat the backend watches: simulated time that stops advancing is a loop inside
    // one ns-3 event, which no later event can end.
    std::cout << now << std::endl;
}

} // namespace ccarena
