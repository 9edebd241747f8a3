//! greendcn-tdma-recv: logs every probe datagram with its kernel RX timestamp (SO_TIMESTAMPNS), or, with
//! --relay-to, strips the 4-byte GRE header and forwards the inner packet (the middle hop of A->B->C).
//!
//! It listens on one or more UDP ports (the index of the port in --listen is the destination the packet
//! actually reached), stops at --until-ns (CLOCK_REALTIME), writes fixed 48-byte records to --out and a
//! summary JSON object to stdout.
// A command-line tool: its one result, a JSON line, is meant for standard output.
#![allow(clippy::print_stdout)]

use std::io::Write;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use tdma_probe::args::{die, Args};
use tdma_probe::sys::{
    now_ns, pin_cpu, poll_readable, prepare_receiver, recv_timestamped, set_fifo,
};
use tdma_probe::wire::{is_gre, write_record, Header, GRE_LEN};

const KNOWN: &[&str] = &[
    "listen", "out", "until-ns", "cpu", "relay-to", "rcvbuf", "fifo",
];

fn main() {
    let a = Args::parse(std::env::args().skip(1), KNOWN).unwrap_or_else(|e| die(&e));
    let listen: Vec<SocketAddr> = a
        .required("listen")
        .unwrap_or_else(|e| die(&e))
        .split(',')
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| die(&format!("--listen: cannot read address {s:?}")))
        })
        .collect();
    let until = a.u64_or("until-ns", 0).unwrap_or_else(|e| die(&e));
    if until == 0 {
        die("--until-ns is required (CLOCK_REALTIME ns at which to stop)");
    }
    let cpu = a.i64_or("cpu", -1).unwrap_or_else(|e| die(&e));
    if cpu >= 0 {
        pin_cpu(cpu as usize).unwrap_or_else(|e| die(&format!("--cpu {cpu}: cannot pin: {e}")));
    }
    let fifo = a.u64_or("fifo", 0).unwrap_or_else(|e| die(&e)).min(99) as i32;
    if fifo > 0 {
        if let Err(e) = set_fifo(fifo) {
            // Kernel timestamps do not depend on it; only the risk of socket drops grows, and those are counted.
            eprintln!("warning: --fifo {fifo}: cannot switch to SCHED_FIFO ({e}); using ordinary scheduling");
        }
    }
    let relay: Option<SocketAddr> = a.str("relay-to").map(|s| {
        s.parse()
            .unwrap_or_else(|_| die(&format!("--relay-to: cannot read address {s:?}")))
    });
    let rcvbuf = a.u64_or("rcvbuf", 8 << 20).unwrap_or_else(|e| die(&e)) as i32;
    let socks: Vec<UdpSocket> = listen
        .iter()
        .map(|addr| {
            let s = UdpSocket::bind(addr)
                .unwrap_or_else(|e| die(&format!("cannot listen on {addr}: {e}")));
            prepare_receiver(s.as_raw_fd(), rcvbuf)
                .unwrap_or_else(|e| die(&format!("socket options: {e}")));
            s
        })
        .collect();
    let out_sock = relay.map(|_| {
        UdpSocket::bind("0.0.0.0:0").unwrap_or_else(|e| die(&format!("relay socket: {e}")))
    });
    let fds: Vec<_> = socks.iter().map(|s| s.as_raw_fd()).collect();
    // Announce readiness on stderr so the harness can start senders only once every port is bound.
    eprintln!("ready");
    let mut log = Vec::with_capacity(1 << 20);
    let (mut received, mut stray, mut relayed, mut relay_errors) = (0u64, 0u64, 0u64, 0u64);
    let mut drops = vec![0u32; socks.len()];
    let mut buf = vec![0u8; 65_536];
    while now_ns() < until {
        let left_ms = ((until - now_ns()) / 1_000_000).clamp(1, 20) as i32;
        poll_readable(&fds, left_ms).unwrap_or_else(|e| die(&format!("poll: {e}")));
        for (i, s) in socks.iter().enumerate() {
            while let Some(r) = recv_timestamped(s.as_raw_fd(), &mut buf)
                .unwrap_or_else(|e| die(&format!("recvmsg: {e}")))
            {
                if let Some(d) = r.drops {
                    drops[i] = d;
                }
                let gre = is_gre(&buf[..r.len]);
                let inner = if gre {
                    &buf[GRE_LEN..r.len]
                } else {
                    &buf[..r.len]
                };
                if let (Some(to), Some(os)) = (relay, out_sock.as_ref()) {
                    if !gre {
                        stray += 1;
                        continue;
                    }
                    match os.send_to(inner, to) {
                        Ok(_) => relayed += 1,
                        Err(_) => relay_errors += 1,
                    }
                    continue;
                }
                match Header::read(inner) {
                    Some(h) => {
                        received += 1;
                        write_record(&mut log, r.rx_ns, &h, i as u16, r.len as u32);
                    }
                    None => stray += 1,
                }
            }
        }
    }
    if let Some(path) = a.str("out") {
        let mut f =
            std::fs::File::create(path).unwrap_or_else(|e| die(&format!("--out {path}: {e}")));
        f.write_all(&log)
            .unwrap_or_else(|e| die(&format!("--out {path}: {e}")));
    }
    let total_drops: u64 = drops.iter().map(|&d| d as u64).sum();
    println!(
        "{{\"received\": {received}, \"stray\": {stray}, \"socket_drops\": {total_drops}, \"relayed\": {relayed}, \
         \"relay_errors\": {relay_errors}, \"ports\": {}}}",
        socks.len()
    );
}
