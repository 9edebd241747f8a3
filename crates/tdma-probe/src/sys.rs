//! Thin, checked wrappers over the few Linux calls the probe needs: the realtime clock, absolute sleeps,
//! CPU pinning, socket options and recvmsg with kernel timestamps.

use std::io;
use std::os::fd::RawFd;

/// CLOCK_REALTIME in ns: the clock SO_TIMESTAMPNS stamps received packets with.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until `spin_margin_ns` before `t_ns`, then spin: a sleep alone wakes tens of us late on a busy VM.
pub fn wait_until(t_ns: u64, spin_margin_ns: u64) {
    let wake = t_ns.saturating_sub(spin_margin_ns);
    if now_ns() < wake {
        let ts = libc::timespec {
            tv_sec: (wake / 1_000_000_000) as _,
            tv_nsec: (wake % 1_000_000_000) as _,
        };
        // SAFETY: ts is valid; an early return (EINTR) is fine because we spin afterwards.
        unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_REALTIME,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
    }
    while now_ns() < t_ns {
        std::hint::spin_loop();
    }
}

/// Pin the calling thread to one CPU (sched_setaffinity).
pub fn pin_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: the set is zeroed then filled through the libc macros; pid 0 means this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Run the calling thread under SCHED_FIFO at `prio` (1-99): on a shared host, a CFS-scheduled sender is
/// routinely descheduled for milliseconds, which would measure the neighbours rather than the sender.
/// The kernel's RT throttling (sched_rt_runtime_us) still leaves other tasks a share of the CPU.
pub fn set_fifo(prio: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: param is a valid sched_param; pid 0 means this thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn setsockopt_int(fd: RawFd, level: i32, name: i32, value: i32) -> io::Result<()> {
    // SAFETY: value lives for the call and its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            &value as *const i32 as *const libc::c_void,
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Ask for kernel RX timestamps and socket-drop counters, and a large receive buffer (forced when root).
pub fn prepare_receiver(fd: RawFd, rcvbuf: i32) -> io::Result<()> {
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RXQ_OVFL, 1)?;
    if setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, rcvbuf).is_err() {
        setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, rcvbuf)?;
    }
    Ok(())
}

/// One datagram: its length, the kernel RX timestamp (ns, 0 if absent) and the socket's drop counter.
pub struct Received {
    pub len: usize,
    pub rx_ns: u64,
    pub drops: Option<u32>,
}

/// Non-blocking recvmsg that also reads SCM_TIMESTAMPNS and SO_RXQ_OVFL; Ok(None) when nothing is queued.
pub fn recv_timestamped(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<Received>> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    let mut control = [0u64; 16]; // 128 bytes, 8-aligned: room for a timespec and a u32 cmsg
                                  // SAFETY: msghdr is zeroed and then pointed at live buffers; the cmsg walk uses libc's own macros.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let n = libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT);
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock {
                Ok(None)
            } else {
                Err(e)
            };
        }
        let mut out = Received {
            len: n as usize,
            rx_ns: 0,
            drops: None,
        };
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                out.rx_ns = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
            } else if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_RXQ_OVFL {
                out.drops = Some(std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const u32));
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
        Ok(Some(out))
    }
}

/// Wait up to `timeout_ms` for any of `fds` to become readable.
pub fn poll_readable(fds: &[RawFd], timeout_ms: i32) -> io::Result<()> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: pfds is a live array of the stated length.
    let rc = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_moves_forward_and_wait_reaches_target() {
        let t = now_ns() + 200_000;
        wait_until(t, 50_000);
        assert!(now_ns() >= t);
    }

    #[test]
    fn receives_its_own_datagram_with_a_timestamp() {
        use std::os::fd::AsRawFd;
        let rx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        prepare_receiver(rx.as_raw_fd(), 1 << 20).unwrap();
        let tx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let before = now_ns();
        tx.send_to(b"hello", rx.local_addr().unwrap()).unwrap();
        poll_readable(&[rx.as_raw_fd()], 2000).unwrap();
        let mut buf = [0u8; 64];
        let got = recv_timestamped(rx.as_raw_fd(), &mut buf)
            .unwrap()
            .expect("a datagram");
        assert_eq!(got.len, 5);
        assert!(
            got.rx_ns >= before,
            "kernel stamp {} before send {}",
            got.rx_ns,
            before
        );
    }
}
