//! greendcn-tdma-send: emits UDP bursts only inside the send windows of a TDMA schedule, on a pinned CPU.
//!
//! Every datagram carries its sequence number, intended slot, destination index and send time (see wire.rs),
//! so the receiver alone can tell when it left, where it was meant to go and how late it arrived. A summary
//! JSON object goes to stdout at the end.
// A command-line tool: its one result, a JSON line, is meant for standard output.
#![allow(clippy::print_stdout)]

use std::net::{SocketAddr, UdpSocket};
use tdma_probe::args::{die, Args};
use tdma_probe::schedule::{burst_interval_ns, Schedule};
use tdma_probe::sys::{now_ns, pin_cpu, set_fifo, wait_until};
use tdma_probe::wire::{write_gre, Header, FLAG_PAD, GRE_LEN, HEADER_LEN};

const KNOWN: &[&str] = &[
    "dest",
    "start-ns",
    "period-ns",
    "uptime-ns",
    "guard-ns",
    "prealloc-ns",
    "slots",
    "size",
    "burst",
    "rate-bps",
    "demand",
    "pad-size",
    "cpu",
    "vhost",
    "gre",
    "spin-ns",
    "fifo",
];

struct Config {
    dests: Vec<SocketAddr>,
    sched: Schedule,
    slots: u64,
    size: usize,
    burst: u64,
    rate_bps: u64,
    demand: u64,
    pad_size: usize,
    cpu: i64,
    fifo: i32,
    vhost: u16,
    gre: bool,
    spin_ns: u64,
}

fn config() -> Result<Config, String> {
    let a = Args::parse(std::env::args().skip(1), KNOWN)?;
    let dests = a
        .required("dest")?
        .split(',')
        .map(|d| {
            d.parse::<SocketAddr>()
                .map_err(|_| format!("--dest: cannot read address {d:?}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let gre = a.u64_or("gre", 0)? != 0;
    let min = HEADER_LEN + if gre { GRE_LEN } else { 0 };
    let size = a.u64_or("size", 1472)? as usize;
    if size < min || size > 65_000 {
        return Err(format!(
            "--size must be between {min} and 65000 bytes, got {size}"
        ));
    }
    let pad_size = a.u64_or("pad-size", 0)? as usize;
    if pad_size != 0 && (pad_size < min || pad_size > 65_000) {
        return Err(format!(
            "--pad-size must be 0 or between {min} and 65000 bytes, got {pad_size}"
        ));
    }
    let burst = a.u64_or("burst", 8)?;
    if burst == 0 {
        return Err("--burst must be at least 1".into());
    }
    let vhost = a.u64_or("vhost", 0)?;
    let sched = Schedule {
        start_ns: a.u64_or("start-ns", 0)?,
        period_ns: a.u64_or("period-ns", 1_000_000)?,
        uptime_ns: a.u64_or("uptime-ns", 500_000)?,
        guard_ns: a.u64_or("guard-ns", 0)?,
        prealloc_ns: a.u64_or("prealloc-ns", 0)?,
    };
    let mut cfg = Config {
        dests,
        sched,
        slots: a.u64_or("slots", 100)?,
        size,
        burst,
        rate_bps: a.u64_or("rate-bps", 0)?,
        demand: a.u64_or("demand", 0)?,
        pad_size,
        cpu: a.i64_or("cpu", -1)?,
        fifo: i32::try_from(a.u64_or("fifo", 0)?.min(99)).unwrap_or(0),
        vhost: u16::try_from(vhost).map_err(|_| "--vhost must fit in 16 bits".to_string())?,
        gre,
        spin_ns: a.u64_or("spin-ns", 200_000)?,
    };
    if cfg.sched.start_ns == 0 {
        // No start given: begin 20 ms from now, aligned to the period, so short runs need no coordination.
        let t = now_ns() + 20_000_000 + cfg.sched.prealloc_ns;
        cfg.sched.start_ns = t.div_ceil(cfg.sched.period_ns) * cfg.sched.period_ns;
    }
    cfg.sched.validate()?;
    Ok(cfg)
}

#[derive(Default)]
struct Counts {
    data: u64,
    pad: u64,
    bursts: u64,
    errors: u64,
    late_open_max_ns: u64,
    last_errno: i32,
}

fn main() {
    let mut cfg = config().unwrap_or_else(|e| die(&e));
    if cfg.cpu >= 0 {
        if let Err(e) = pin_cpu(cfg.cpu as usize) {
            die(&format!("--cpu {}: cannot pin: {e}", cfg.cpu));
        }
    }
    if cfg.fifo > 0 {
        // Without CAP_SYS_NICE the run still works, only noisier; the summary's "fifo": 0 says so.
        if let Err(e) = set_fifo(cfg.fifo) {
            eprintln!(
                "warning: --fifo {}: cannot switch to SCHED_FIFO ({e}); using ordinary scheduling",
                cfg.fifo
            );
            cfg.fifo = 0;
        }
    }
    let bind = if cfg.dests[0].is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    };
    let sock =
        UdpSocket::bind(bind).unwrap_or_else(|e| die(&format!("cannot open a UDP socket: {e}")));
    let mut buf = vec![0u8; cfg.size.max(cfg.pad_size)];
    let off = if cfg.gre { GRE_LEN } else { 0 };
    if cfg.gre {
        write_gre(&mut buf);
    }
    let gap = burst_interval_ns(cfg.burst, cfg.size as u64, cfg.rate_bps);
    let mut c = Counts::default();
    let mut seq = 0u64;
    let mut next_burst = 0u64;
    for k in 0..cfg.slots {
        let (open, close) = cfg.sched.window(k);
        let d = (k % cfg.dests.len() as u64) as usize;
        wait_until(open, cfg.spin_ns);
        c.late_open_max_ns = c.late_open_max_ns.max(now_ns() - open);
        // Pacing carries over from one window to the next, so back-to-back windows (duty 1) are paced as one
        // stream rather than restarting with an extra burst at every boundary.
        next_burst = next_burst.max(open);
        let mut in_slot = 0u64;
        'slot: loop {
            let mut now = now_ns();
            while gap > 0 && now < next_burst && now < close {
                std::hint::spin_loop();
                now = now_ns();
            }
            // The window check happens once per burst: a burst started just before `close` still goes out
            // whole, which is exactly the batch effect the guard must absorb.
            if now >= close {
                break;
            }
            c.bursts += 1;
            for _ in 0..cfg.burst {
                let is_data = cfg.demand == 0 || in_slot < cfg.demand;
                if !is_data && cfg.pad_size == 0 {
                    break 'slot;
                }
                let len = if is_data { cfg.size } else { cfg.pad_size };
                let h = Header {
                    flags: if is_data { 0 } else { FLAG_PAD },
                    vhost: cfg.vhost,
                    seq,
                    slot: k,
                    send_ns: now_ns(),
                    dst: d as u32,
                };
                h.write(&mut buf[off..]);
                match sock.send_to(&buf[..len], cfg.dests[d]) {
                    Ok(_) => {
                        if is_data {
                            c.data += 1
                        } else {
                            c.pad += 1
                        }
                    }
                    Err(e) => {
                        c.errors += 1;
                        c.last_errno = e.raw_os_error().unwrap_or(0);
                    }
                }
                seq += 1;
                if is_data {
                    in_slot += 1;
                }
            }
            // Finite demand: once the slot's data is out (and the last burst padded), stay silent.
            if cfg.demand > 0 && in_slot >= cfg.demand {
                break;
            }
            // After a stall, catch up by at most one burst rather than emitting a long back-to-back train.
            next_burst = (next_burst + gap).max(now.saturating_sub(gap));
        }
    }
    println!(
        "{{\"start_ns\": {}, \"slots\": {}, \"data_sent\": {}, \"pad_sent\": {}, \"bursts\": {}, \
         \"send_errors\": {}, \"last_errno\": {}, \"late_open_max_ns\": {}, \"cpu\": {}, \"fifo\": {}, \"vhost\": {}}}",
        cfg.sched.start_ns, cfg.slots, c.data, c.pad, c.bursts, c.errors, c.last_errno, c.late_open_max_ns,
        cfg.cpu, cfg.fifo, cfg.vhost
    );
}
