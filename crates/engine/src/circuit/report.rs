//! The circuit simulator's results: per flow, per uplink, the summary and the per-window series at the end of
//! a run (the record types are `circuit::results`).

use super::CircuitSim;
use crate::circuit::results::{
    CircuitFlowResult, CircuitPortResult, CircuitResults, CircuitSeries, CircuitSummary,
};

impl CircuitSim<'_> {
    pub(super) fn results(self, wall_s: f64, stopped_by: &'static str) -> CircuitResults {
        let flows = self
            .spec
            .flows
            .iter()
            .zip(self.flows.iter().zip(&self.hot))
            .map(|(f, (s, h))| {
                (
                    f,
                    s,
                    h,
                    s.sender
                        .as_ref()
                        .map(|t| &t.stats)
                        .or(s.ndp.as_ref().map(|n| &n.stats)),
                )
            })
            .map(|(f, s, h, stats)| CircuitFlowResult {
                id: f.id,
                src: f.src,
                dst: f.dst,
                size_bytes: f.size_bytes,
                start_ps: f.start_ps,
                completed: s.receiver.finish.is_some(),
                finish_ps: s.receiver.finish,
                fct_ps: s.receiver.finish.map(|t| t - f.start_ps),
                bytes_sent: h.sent,
                data_packets_sent: h.packets_sent,
                bytes_received: s.receiver.bytes_received(),
                packets_received: s.receiver.stats.packets_received,
                ooo_packets: s.receiver.stats.ooo_packets,
                transport: match (&s.sender, &s.ndp) {
                    (Some(t), _) if t.dctcp.is_some() => "dctcp",
                    (Some(_), _) => "tcp",
                    (None, Some(_)) => "ndp",
                    (None, None) => "datagram",
                },
                retransmits: stats.map_or(0, |t| t.retransmits),
                timeouts: stats.map_or(0, |t| t.timeouts),
                fast_retransmits: stats.map_or(0, |t| t.fast_retransmits),
                spurious_retransmits: s.receiver.stats.spurious_retransmits,
                acks_sent: s.receiver.stats.acks_sent,
                ecn_marks: s.receiver.stats.ecn_marks,
                trims: s.trims,
                acked_ps: s.acked,
                fct_ack_ps: s.acked.map(|t| t - f.start_ps),
            })
            .collect::<Vec<_>>();
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| CircuitPortResult {
                endpoint: i as u32 / self.s,
                switch: i as u32 % self.s,
                bytes_sent: p.bytes_sent,
                packets_sent: p.packets_sent,
                busy_ps: p.busy_ps,
                no_circuit_drops: p.no_circuit_drops,
            })
            .collect();
        let series = (self.window_ps > 0).then(|| {
            let width = self
                .win_rx
                .iter()
                .chain(&self.win_tx)
                .map(|r| r.len())
                .max()
                .unwrap_or(0);
            let width = width.max(self.hosts.as_ref().map_or(0, |h| h.width()));
            let [hps, hbs, hpr, hbr] = match &self.hosts {
                Some(h) => h.series(width).map(Some),
                None => [None, None, None, None],
            };
            let pad = |rows: &Vec<Vec<u64>>| {
                rows.iter()
                    .map(|r| {
                        let mut v = r.clone();
                        v.resize(width, 0);
                        v
                    })
                    .collect()
            };
            CircuitSeries {
                window_ps: self.window_ps,
                endpoint_payload_bytes_received: pad(&self.win_rx),
                endpoint_wire_bytes_sent: pad(&self.win_tx),
                host_packets_sent: hps,
                host_bytes_sent: hbs,
                host_packets_received: hpr,
                host_bytes_received: hbr,
            }
        });
        let flows_completed = flows.iter().filter(|f| f.completed).count() as u64;
        CircuitResults {
            summary: CircuitSummary {
                sim_time_ps: self.now,
                events: self.events_done,
                packet_hops: self.hops,
                wall_s,
                packets_created: self.created,
                packets_delivered: self.delivered,
                control_packets_received: self.control_received,
                relayed_packets: self.relayed,
                no_circuit_drops: self.no_circuit,
                no_path_drops: self.no_path,
                low_latency_reroutes: self.reroutes,
                packets_in_flight: self.live,
                payload_bytes_delivered: self.payload_delivered,
                max_relay_delay_ps: self.max_relay_delay,
                flows_completed,
                stopped_by,
                peak_packets_alive: self.peak_live,
                host_link_drops: self.hosts.as_ref().map(|h| h.drops()),
            },
            flows,
            ports,
            hosts: self.hosts.as_ref().map(|h| h.results()),
            series,
        }
    }
}
