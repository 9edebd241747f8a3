//! The engine's output: per-flow, per-link-direction and per-node counters and a run summary.
//! Field names and units are the contract of docs/engine-spec.md.

use serde::Serialize;

use crate::spec::FlowSpec;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowResult {
    pub id: u64,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start_ps: u64,
    pub transport: &'static str,
    pub completed: bool,
    pub finish_ps: Option<u64>,
    pub fct_ps: Option<u64>,
    pub bytes_received: u64,
    pub packets_received: u64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub spurious_retransmits: u64,
    pub ooo_packets: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_sent: u64,
    /// Data packets that arrived marked Congestion Experienced (DCTCP flows; 0 for others).
    pub ecn_marks: u64,
    /// Data packets trimmed to their header by a switch (NDP flows; 0 for others).
    pub trims: u64,
    /// When the sender learnt that every byte arrived: the ACK covering the last byte (TCP, DCTCP) or the first
    /// ACK the receiver sent once it held every byte (NDP) reached the sender. `None` for datagram flows (no
    /// ACKs) and flows whose sender never learnt it.
    pub acked_ps: Option<u64>,
    /// `acked_ps - start_ps`: the flow completion time as a sender sees it.
    pub fct_ack_ps: Option<u64>,
}

/// A flow's result row without what its spec says (id, hosts, size, start, transport): all the engine keeps of a
/// finished flow (112 bytes; docs/engine-spec.md, "Memory per flow"), and what every flow becomes when the run
/// ends. `FlowRow::result` joins it with the spec into a `FlowResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRow {
    /// When the receiver held every byte; `u64::MAX`: never.
    pub finish_ps: u64,
    pub bytes_received: u64,
    pub packets_received: u64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub spurious_retransmits: u64,
    pub ooo_packets: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_sent: u64,
    pub ecn_marks: u64,
    pub trims: u64,
    /// The highest sequence number the receiver saw (0 before any): a late first transmission below it still
    /// counts as out of order after the flow is folded into its row.
    pub highest_seq: u64,
    /// When the sender learnt that every byte arrived (`FlowResult::acked_ps`); `u64::MAX`: never, or a
    /// datagram flow.
    pub acked_ps: u64,
}

impl FlowRow {
    pub fn finish(&self) -> Option<u64> {
        (self.finish_ps != u64::MAX).then_some(self.finish_ps)
    }

    pub fn acked(&self) -> Option<u64> {
        (self.acked_ps != u64::MAX).then_some(self.acked_ps)
    }

    /// The flow's record of the results (docs/engine-spec.md).
    pub fn result(&self, f: &FlowSpec) -> FlowResult {
        let finish = self.finish();
        FlowResult {
            id: f.id,
            src: f.src,
            dst: f.dst,
            size_bytes: f.size_bytes,
            start_ps: f.start_ps,
            transport: f.transport.name(),
            completed: finish.is_some(),
            finish_ps: finish,
            fct_ps: finish.map(|t| t - f.start_ps),
            bytes_received: self.bytes_received,
            packets_received: self.packets_received,
            data_packets_sent: self.data_packets_sent,
            retransmits: self.retransmits,
            spurious_retransmits: self.spurious_retransmits,
            ooo_packets: self.ooo_packets,
            fast_retransmits: self.fast_retransmits,
            timeouts: self.timeouts,
            acks_sent: self.acks_sent,
            ecn_marks: self.ecn_marks,
            trims: self.trims,
            acked_ps: self.acked(),
            fct_ack_ps: self.acked().map(|t| t - f.start_ps),
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkDirResult {
    pub link: u32,
    pub dir: u32,
    pub from: u32,
    pub to: u32,
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub busy_ps: u64,
    pub drops: u64,
    pub drop_bytes: u64,
    pub peak_queue_packets: u64,
    pub peak_queue_bytes: u64,
    /// Time in EEE's low-power states (only for ports with EEE on): sleep_ps, lpi_ps, wake_ps, sleeps.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub eee: Option<crate::eee::EeeCounters>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeResult {
    pub name: String,
    pub kind: &'static str,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub packets_forwarded: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub sim_time_ps: u64,
    pub events: u64,
    pub packet_hops: u64,
    pub wall_s: f64,
    pub drops: u64,
    pub packets_created: u64,
    pub packets_delivered: u64,
    pub packets_in_flight: u64,
    pub flows_completed: u64,
    pub stopped_by: &'static str,
    /// Most packets alive at once (the packet pool's size).
    pub peak_packets_alive: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Series {
    pub window_ps: u64,
    /// Bytes whose transmission started in each window, per link direction.
    pub link_bytes: Vec<Vec<u64>>,
    /// Per host (in node order of the hosts) and window: packets and bytes (on the wire) the host sent, counted
    /// when they leave it, and received, counted when they are delivered to it. What a host power model needs.
    pub host_packets_sent: Vec<Vec<u64>>,
    pub host_bytes_sent: Vec<Vec<u64>>,
    pub host_packets_received: Vec<Vec<u64>>,
    pub host_bytes_received: Vec<Vec<u64>>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimResults {
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkDirResult>,
    pub nodes: Vec<NodeResult>,
    pub summary: Summary,
    pub series: Option<Series>,
    /// With a link schedule: when each link that turned off had drained (crate::linkstate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<crate::linkstate::ScheduleResult>,
}
