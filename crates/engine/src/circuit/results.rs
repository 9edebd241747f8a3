//! The output of a circuit-fabric run (docs/circuit-engine.md): per-flow, per-uplink and (with hosts) per-host
//! counters, a summary whose packet counts balance (created = delivered + control received + no-circuit drops
//! + no-path drops + host-link drops + in flight), and per-endpoint (and per-host) series when windows are on.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitFlowResult {
    pub id: u64,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start_ps: u64,
    pub completed: bool,
    pub finish_ps: Option<u64>,
    pub fct_ps: Option<u64>,
    /// Payload bytes the source handed out (a dropped packet's bytes are not sent again).
    pub bytes_sent: u64,
    pub data_packets_sent: u64,
    /// Distinct payload bytes that reached the destination.
    pub bytes_received: u64,
    pub packets_received: u64,
    /// Packets that arrived ahead of a gap and waited in the receiver's reorder buffer.
    pub ooo_packets: u64,
    /// "tcp" (Opera's low-latency class with TCP) or "datagram".
    pub transport: &'static str,
    pub retransmits: u64,
    pub timeouts: u64,
    /// The columns both engines share (docs/engine-spec.md, "Per-flow columns"): counted by the same
    /// sender and receiver code; a circuit run has no ECN marking or trimming, so those are 0.
    pub fast_retransmits: u64,
    pub spurious_retransmits: u64,
    pub acks_sent: u64,
    pub ecn_marks: u64,
    pub trims: u64,
    /// When the sender learnt that every byte arrived, and that time less `start_ps` (docs/engine-spec.md,
    /// "Per-flow columns"); None for datagram flows and senders that never learnt it.
    pub acked_ps: Option<u64>,
    pub fct_ack_ps: Option<u64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitPortResult {
    pub endpoint: u32,
    pub switch: u32,
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub busy_ps: u64,
    pub no_circuit_drops: u64,
}

/// One host's link to its ToR (runs with hosts): its NIC's counters (sent), what reached it (received) and
/// the ToR's port down to it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitHostResult {
    pub host: u32,
    pub endpoint: u32,
    /// Wire bytes and packets the host's NIC put on its link, and its busy time.
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub busy_ps: u64,
    pub nic_drops: u64,
    pub peak_nic_queue_packets: u64,
    /// Wire bytes and packets (data and ACKs) delivered to the host; data payload bytes among them (a TCP
    /// segment delivered twice counts twice).
    pub bytes_received: u64,
    pub packets_received: u64,
    pub payload_bytes_received: u64,
    /// Busy time of the ToR's port down to the host, and its drops.
    pub rx_busy_ps: u64,
    pub tor_drops: u64,
    /// NDP data trimmed to its header there (a full data queue, `ndp.queue`).
    pub tor_trims: u64,
    pub peak_tor_queue_packets: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitSummary {
    pub sim_time_ps: u64,
    pub events: u64,
    /// Packets put on an uplink (a circuit switch adds no hop of its own: it has no queue).
    pub packet_hops: u64,
    pub wall_s: f64,
    pub packets_created: u64,
    /// Data packets that reached their final destination.
    pub packets_delivered: u64,
    /// Control messages (RotorLB offers and accepts) and TCP ACKs that reached their destination.
    pub control_packets_received: u64,
    /// Data packets stored at an intermediate endpoint on their way (RotorLB or selector multi-hop).
    pub relayed_packets: u64,
    /// Packets that met no circuit (a gap, the wrong peer, or a slot's end before they were sent).
    pub no_circuit_drops: u64,
    /// Opera: low-latency packets dropped because the slice had no path to their destination.
    pub no_path_drops: u64,
    /// Opera: low-latency packets moved to another path because the slice changed under them.
    pub low_latency_reroutes: u64,
    /// Packets alive at the end: queued, stored at a relay, or on a fibre.
    pub packets_in_flight: u64,
    pub payload_bytes_delivered: u64,
    /// Longest time from a relayed packet's hand-over at its source to its delivery.
    pub max_relay_delay_ps: u64,
    pub flows_completed: u64,
    pub stopped_by: &'static str,
    pub peak_packets_alive: u64,
    /// Runs with hosts: packets dropped on host links (NIC queues and the ToRs' ports down to hosts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_link_drops: Option<u64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitSeries {
    pub window_ps: u64,
    /// Per endpoint and window: payload bytes delivered to it (as final destination).
    pub endpoint_payload_bytes_received: Vec<Vec<u64>>,
    /// Per endpoint and window: bytes it put on the wire (all uplinks, control included).
    pub endpoint_wire_bytes_sent: Vec<Vec<u64>>,
    /// Runs with hosts, per host and window (as the packet engine's series): packets and wire bytes the host
    /// sent (counted when its NIC takes them) and received (counted on delivery to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_packets_sent: Option<Vec<Vec<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_bytes_sent: Option<Vec<Vec<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_packets_received: Option<Vec<Vec<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_bytes_received: Option<Vec<Vec<u64>>>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CircuitResults {
    pub summary: CircuitSummary,
    pub flows: Vec<CircuitFlowResult>,
    pub ports: Vec<CircuitPortResult>,
    /// Runs with hosts: one row per host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<CircuitHostResult>>,
    pub series: Option<CircuitSeries>,
}
