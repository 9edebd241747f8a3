//! The probe's UDP payload (little-endian) and the receiver's fixed-size log record.
//!
//! Payload: magic u32 | flags u16 | vhost u16 | seq u64 | slot u64 | send_ns u64 | dst u32 | reserved u32,
//! zero-filled up to the requested size. An optional 4-byte GRE header (flags/version 0, protocol
//! `GRE_PROTO`) precedes it when the packet is meant for a relay.

pub const MAGIC: u32 = 0x4744_4e54; // "GDNT"
pub const HEADER_LEN: usize = 40;
pub const GRE_LEN: usize = 4;
/// Ethertype 0x88B5 is reserved for local experiments (IEEE 802), which is what the inner payload is.
pub const GRE_PROTO: u16 = 0x88b5;
pub const FLAG_PAD: u16 = 1;
pub const RECORD_LEN: usize = 48;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Header {
    pub flags: u16,
    pub vhost: u16,
    pub seq: u64,
    pub slot: u64,
    pub send_ns: u64,
    pub dst: u32,
}

impl Header {
    /// Write the header at the start of `buf` (which must hold HEADER_LEN bytes).
    pub fn write(&self, buf: &mut [u8]) {
        buf[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        buf[4..6].copy_from_slice(&self.flags.to_le_bytes());
        buf[6..8].copy_from_slice(&self.vhost.to_le_bytes());
        buf[8..16].copy_from_slice(&self.seq.to_le_bytes());
        buf[16..24].copy_from_slice(&self.slot.to_le_bytes());
        buf[24..32].copy_from_slice(&self.send_ns.to_le_bytes());
        buf[32..36].copy_from_slice(&self.dst.to_le_bytes());
        buf[36..40].copy_from_slice(&0u32.to_le_bytes());
    }

    /// Read a header; None when the buffer is short or the magic is wrong (a stray datagram).
    pub fn read(buf: &[u8]) -> Option<Header> {
        if buf.len() < HEADER_LEN || u32::from_le_bytes(buf[0..4].try_into().ok()?) != MAGIC {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().unwrap());
        Some(Header {
            flags: u16::from_le_bytes([buf[4], buf[5]]),
            vhost: u16::from_le_bytes([buf[6], buf[7]]),
            seq: u64_at(8),
            slot: u64_at(16),
            send_ns: u64_at(24),
            dst: u32::from_le_bytes(buf[32..36].try_into().unwrap()),
        })
    }
}

/// GRE base header (RFC 2784 without checksum): 2 bytes of zero flags/version, then the protocol type.
pub fn write_gre(buf: &mut [u8]) {
    buf[0] = 0;
    buf[1] = 0;
    buf[2..4].copy_from_slice(&GRE_PROTO.to_be_bytes());
}

/// True when `buf` starts with the GRE header this probe writes.
pub fn is_gre(buf: &[u8]) -> bool {
    buf.len() >= GRE_LEN && buf[0] == 0 && buf[1] == 0 && buf[2..4] == GRE_PROTO.to_be_bytes()
}

/// One received packet as logged: rx_ns, send_ns, seq, slot (u64) | vhost, flags, port index, payload dst
/// (u16) | length u32 | reserved u32. numpy reads it with one structured dtype.
pub fn write_record(out: &mut Vec<u8>, rx_ns: u64, h: &Header, port_index: u16, len: u32) {
    out.extend_from_slice(&rx_ns.to_le_bytes());
    out.extend_from_slice(&h.send_ns.to_le_bytes());
    out.extend_from_slice(&h.seq.to_le_bytes());
    out.extend_from_slice(&h.slot.to_le_bytes());
    out.extend_from_slice(&h.vhost.to_le_bytes());
    out.extend_from_slice(&h.flags.to_le_bytes());
    out.extend_from_slice(&port_index.to_le_bytes());
    out.extend_from_slice(&(h.dst as u16).to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let h = Header {
            flags: FLAG_PAD,
            vhost: 3,
            seq: 1 << 40,
            slot: 77,
            send_ns: 123_456_789,
            dst: 2,
        };
        let mut buf = [0u8; 64];
        h.write(&mut buf);
        assert_eq!(Header::read(&buf), Some(h));
        buf[0] ^= 1;
        assert_eq!(Header::read(&buf), None);
        assert_eq!(Header::read(&buf[..10]), None);
    }

    #[test]
    fn record_has_fixed_length() {
        let mut out = Vec::new();
        write_record(&mut out, 5, &Header::default(), 1, 1500);
        assert_eq!(out.len(), RECORD_LEN);
        assert_eq!(u64::from_le_bytes(out[0..8].try_into().unwrap()), 5);
    }

    #[test]
    fn gre_header_is_recognised() {
        let mut buf = [0u8; 8];
        write_gre(&mut buf);
        assert!(is_gre(&buf));
        buf[0] = 0x80; // checksum bit set: not what we write
        assert!(!is_gre(&buf));
    }
}
