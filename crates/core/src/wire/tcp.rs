//! TCP's header as ccarena carries it: sizes of the fixed headers and options on the wire, and
//! SACK blocks (RFC 2018) held inline.

/// Bytes of IPv4 (20) + TCP (20) headers without options.
pub const TCP_IP_HEADER: u32 = 40;
/// Bytes of the TCP timestamp option on the wire: kind, length, TSval, TSecr and two NOPs for
/// alignment (RFC 7323 §3, Appendix A's layout, as Linux sends it).
pub const TCP_TS_OPTION: u32 = 12;
/// Bytes of a SYN or SYN-ACK as Linux sends it: IPv4 (20) + TCP (20) + options MSS (4),
/// SACK-permitted (2), timestamps (10), NOP (1), window scale (3).
pub const TCP_SYN_SIZE: u32 = 60;

/// Most SACK blocks an ACK carries: 3 fit beside the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A SACK block: segments `start..end` (end exclusive) received out of order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// A pure TCP acknowledgement's fields, in the order written (`repr(C)`): those every ACK's
/// delivery reads, then the SACK blocks' count, then the blocks, so that an ACK without blocks is
/// read in its packet's first cache line (`net::packet::Packet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct TcpAck {
    /// Next segment expected (cumulative).
    pub ack: u64,
    /// TSecr of the timestamp option (RFC 7323 §4.3: TS.Recent); `None` without timestamps.
    pub tsecr: Option<u32>,
    /// Receive window: segments the receiver accepts from `ack` on (`u32::MAX`: no limit).
    pub wnd: u32,
    /// ECN-Echo (RFC 3168).
    pub ece: bool,
    /// The ACK reports a duplicate segment (the one bit of RFC 2883's D-SACK the sender uses).
    pub dsack: bool,
    pub sack: SackBlocks,
}

/// Up to [`MAX_SACK_BLOCKS`] blocks, most recently changed first (RFC 2018 §4); the count first
/// (`repr(C)`), read on every ACK, the blocks only when there are some.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SackBlocks {
    len: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn push(&mut self, b: SackBlock) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes of the SACK option on the wire: kind + length + 8 per block, padded to 4 (RFC 2018).
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).div_ceil(4) * 4
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_size_follows_rfc2018() {
        let mut s = SackBlocks::default();
        assert_eq!(s.option_bytes(), 0);
        s.push(SackBlock { start: 1, end: 2 });
        assert_eq!(s.option_bytes(), 12); // 10 padded to 12
        s.push(SackBlock { start: 3, end: 4 });
        s.push(SackBlock { start: 5, end: 6 });
        s.push(SackBlock { start: 7, end: 8 }); // ignored: at most three
        assert_eq!(s.as_slice().len(), 3);
        assert_eq!(s.option_bytes(), 28); // 26 padded to 28
    }
}
