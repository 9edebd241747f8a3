//! Shared parts of the TDMA probe: wire format, schedule arithmetic, clock, CPU pinning and argument parsing.
//!
//! Sender and receiver run on one host and read the same CLOCK_REALTIME (the clock SO_TIMESTAMPNS uses), so
//! "receive time minus send time" is a lag on one clock, with no PTP in between.

pub mod args;
pub mod schedule;
pub mod sys;
pub mod wire;
