// ns3_network: runs greendcn's network and flows in ns-3, for the cross-check of `make validate`.
//
// Input (written by validate/run.py from greendcn's own topology and workload):
//   NETWORK  "node NAME host|switch" lines, then "link A B RATE_BPS DELAY_PS QUEUE_PACKETS" lines, in
//            greendcn's order, so each node's interfaces are numbered as greendcn numbers its ports;
//   FLOWS    CSV "id,src,dst,size_bytes,start_s" with node names.
// Output: CSV "id,fct_s,bytes_received,retransmits,ooo_arrivals" on stdout (fct_s empty when the flow did not
// finish). retransmits: data segments the source sent beyond one per distinct sequence number; ooo_arrivals:
// data segments reaching the destination below the highest sequence number seen there (ns-3 does not mark
// retransmissions, so they are included; greendcn counts first transmissions only, docs/out-of-order.md).
// Settings that greendcn has and ns-3 is given: NewReno, MSS, initial window, receive buffer (window cap),
// delayed ACKs, minimum RTO, duplicate-ACK threshold, 1000-packet drop-tail device queues (no queue disc),
// global routing: the first equal-cost route ("single") or a random one per packet ("rps").
// What cannot be made equal: ns-3 opens each connection with a SYN handshake and closes it with FINs; its
// timestamps, RTT estimator and delayed-ACK timer are its own (validate/README.md lists them).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
struct FlowSpec
{
    uint32_t id;
    std::string src, dst;
    uint64_t size;
    double start;
};

struct FlowState
{
    uint64_t size = 0;
    uint64_t received = 0;
    double start = 0;
    double fct = -1;
    uint64_t sent = 0;
    std::set<uint32_t> seqs;
    bool seen = false;
    uint32_t maxSeq = 0;
    uint64_t ooo = 0;
};

std::vector<FlowState> g_flows;
constexpr uint16_t kFirstPort = 10000;

// The flow a data segment belongs to, by its destination port; -1 for ACKs and other traffic.
int
FlowOf(Ptr<const Packet> packet, TcpHeader& tcp)
{
    Ptr<Packet> copy = packet->Copy();
    if (copy->RemoveHeader(tcp) == 0 || copy->GetSize() == 0)
    {
        return -1;
    }
    int flow = int(tcp.GetDestinationPort()) - kFirstPort;
    return (flow >= 0 && flow < int(g_flows.size())) ? flow : -1;
}

void
OnSend(const Ipv4Header& ip, Ptr<const Packet> packet, uint32_t)
{
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    TcpHeader tcp;
    int f = FlowOf(packet, tcp);
    if (f >= 0)
    {
        g_flows[f].sent++;
        g_flows[f].seqs.insert(tcp.GetSequenceNumber().GetValue());
    }
}

void
OnDeliver(const Ipv4Header& ip, Ptr<const Packet> packet, uint32_t)
{
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    TcpHeader tcp;
    int f = FlowOf(packet, tcp);
    if (f < 0)
    {
        return;
    }
    uint32_t seq = tcp.GetSequenceNumber().GetValue();
    FlowState& s = g_flows[f];
    if (s.seen && seq < s.maxSeq)
    {
        s.ooo++;
    }
    if (!s.seen || seq > s.maxSeq)
    {
        s.maxSeq = seq;
    }
    s.seen = true;
}


void
OnRx(uint32_t flow, Ptr<const Packet> packet, const Address&)
{
    FlowState& f = g_flows[flow];
    f.received += packet->GetSize();
    if (f.fct < 0 && f.received >= f.size)
    {
        f.fct = Simulator::Now().GetSeconds() - f.start;
    }
}

std::vector<std::string>
Split(const std::string& line, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string item;
    while (std::getline(ss, item, sep))
    {
        out.push_back(item);
    }
    return out;
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string networkFile, flowsFile, routing = "single";
    uint32_t mss = 1448, initialWindow = 10, windowBytes = 131072, dupacks = 3, seed = 1;
    double minRto = 1.0, stopS = 30.0;
    bool delayedAck = true;
    CommandLine cmd;
    cmd.AddValue("network", "network file", networkFile);
    cmd.AddValue("flows", "flows CSV", flowsFile);
    cmd.AddValue("routing", "single or rps", routing);
    cmd.AddValue("mss", "segment size", mss);
    cmd.AddValue("iw", "initial window (segments)", initialWindow);
    cmd.AddValue("window", "receive buffer (bytes)", windowBytes);
    cmd.AddValue("dupacks", "duplicate-ACK threshold", dupacks);
    cmd.AddValue("minrto", "minimum RTO (s)", minRto);
    cmd.AddValue("delack", "delayed ACKs", delayedAck);
    cmd.AddValue("seed", "run number of the random streams", seed);
    cmd.AddValue("stop", "simulated seconds at most", stopS);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialWindow));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(windowBytes));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delayedAck ? 2 : 1));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(dupacks));
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(routing == "rps"));

    std::map<std::string, uint32_t> index;
    NodeContainer nodes;
    std::vector<bool> isHost;
    std::ifstream net(networkFile);
    std::string line;
    std::vector<std::vector<std::string>> links;
    while (std::getline(net, line))
    {
        auto f = Split(line, ' ');
        if (f.size() >= 3 && f[0] == "node")
        {
            index[f[1]] = nodes.GetN();
            nodes.Create(1);
            isHost.push_back(f[2] == "host");
        }
        else if (f.size() >= 6 && f[0] == "link")
        {
            links.push_back(f);
        }
    }
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(nodes.GetN());
    TrafficControlHelper tch;
    for (const auto& l : links)
    {
        uint32_t a = std::stoul(l[1]), b = std::stoul(l[2]);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(std::stoull(l[3]))));
        p2p.SetChannelAttribute("Delay", TimeValue(PicoSeconds(std::stoll(l[4]))));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(l[5] + "p")));
        NetDeviceContainer devs = p2p.Install(nodes.Get(a), nodes.Get(b));
        Ipv4InterfaceContainer ifs = address.Assign(devs);
        tch.Uninstall(devs); // pure drop-tail at the device, as greendcn's ports
        address.NewNetwork();
        if (isHost[a])
        {
            hostAddress[a] = ifs.GetAddress(0);
        }
        if (isHost[b])
        {
            hostAddress[b] = ifs.GetAddress(1);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::ifstream fl(flowsFile);
    std::getline(fl, line); // header
    std::vector<FlowSpec> specs;
    while (std::getline(fl, line))
    {
        auto f = Split(line, ',');
        if (f.size() < 5)
        {
            continue;
        }
        specs.push_back({(uint32_t)std::stoul(f[0]), f[1], f[2], std::stoull(f[3]), std::stod(f[4])});
    }
    g_flows.resize(specs.size());
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        if (isHost[n])
        {
            Ptr<Ipv4L3Protocol> ip = nodes.Get(n)->GetObject<Ipv4L3Protocol>();
            ip->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&OnSend));
            ip->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&OnDeliver));
        }
    }
    uint16_t port = kFirstPort;
    for (size_t i = 0; i < specs.size(); ++i)
    {
        const FlowSpec& s = specs[i];
        g_flows[i].size = s.size;
        g_flows[i].start = s.start;
        uint32_t dst = index.at(s.dst), src = index.at(s.src);
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sink.Install(nodes.Get(dst));
        sinkApp.Start(Seconds(0));
        sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, (uint32_t)i));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(hostAddress[dst], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(s.size));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer app = bulk.Install(nodes.Get(src));
        app.Start(Seconds(s.start));
        ++port;
    }
    Simulator::Stop(Seconds(stopS));
    Simulator::Run();
    std::cout << "id,fct_s,bytes_received,retransmits,ooo_arrivals\n";
    for (size_t i = 0; i < specs.size(); ++i)
    {
        std::cout << specs[i].id << ",";
        if (g_flows[i].fct >= 0)
        {
            std::cout.precision(12);
            std::cout << g_flows[i].fct;
        }
        std::cout << "," << g_flows[i].received << "," << g_flows[i].sent - g_flows[i].seqs.size() << ","
                  << g_flows[i].ooo << "\n";
    }
    Simulator::Destroy();
    return 0;
}
