//! Packet captures: one classic pcap file (LINKTYPE_IPV4, nanosecond timestamps) per chosen
//! link direction, written as packets arrive at the far end of the link, as `tcpdump` on the
//! receiving interface would see them. Timestamps are simulated time. The file format is
//! written by the `pcap-file` crate; the headers are ours (`headers.rs`).
//!
//! A capture costs nothing when off: the engine checks one `Option` per packet arrival. When
//! on, each captured packet is encoded into one reused buffer; by default only its headers are
//! stored (the original length is recorded, so tools show the full size), or the first
//! `snaplen` bytes with the zero payload.

mod headers;

use crate::net::packet::{LinkId, Packet};
use crate::time::SimTime;
pub use headers::FlowWire;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to capture (the `--pcap` options).
#[derive(Clone, Debug, PartialEq)]
pub struct PcapOptions {
    /// Directory the files go to (created if missing).
    pub dir: PathBuf,
    /// Link directions by name; `None`: every link named `bottleneck…`, or all links if none is.
    pub links: Option<Vec<String>>,
    /// Bytes stored per packet; `None`: its headers.
    pub snaplen: Option<u32>,
}

struct Capture {
    writer: PcapWriter<BufWriter<File>>,
    path: PathBuf,
    /// The IP identification of the file's last packet: the file's packets are numbered in
    /// their order in it, whatever the order in which the engine reaches the links (a link's
    /// packets may be captured ahead of the clock, each with its own instant).
    ip_id: u16,
}

/// The open captures of a run, indexed by link.
pub struct PcapTap {
    captures: Vec<Option<Capture>>,
    flows: Vec<FlowWire>,
    /// A flow's first data packet was seen (its segment size is known).
    seen: Vec<bool>,
    snaplen: Option<u32>,
    buf: Vec<u8>,
    error: Option<String>,
}

/// A file name for a link name: letters, digits, `-`, `_` and `.` kept, anything else `_`.
fn file_name(link: &str) -> String {
    let safe: String = link
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect();
    format!("{safe}.pcap")
}

impl PcapTap {
    /// Opens one file per chosen link. `links` are the run's link names by `LinkId`; `flows`
    /// each flow's ends. Errors name the option and the bad value.
    pub fn open(
        opts: &PcapOptions,
        links: &[String],
        flows: Vec<FlowWire>,
    ) -> Result<PcapTap, String> {
        let chosen: Vec<usize> = match &opts.links {
            Some(names) => names
                .iter()
                .map(|n| {
                    links.iter().position(|l| l == n).ok_or_else(|| {
                        let mut known: Vec<&str> = links.iter().map(String::as_str).collect();
                        known.sort_unstable();
                        known.dedup();
                        format!(
                            "pcap_links: no link named {n:?} in this scenario: expected one of {}",
                            known.join(", ")
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            None => {
                let bottlenecks: Vec<usize> =
                    (0..links.len()).filter(|&i| links[i].starts_with("bottleneck")).collect();
                if bottlenecks.is_empty() {
                    (0..links.len()).collect()
                } else {
                    bottlenecks
                }
            }
        };
        if opts.snaplen == Some(0) {
            return Err("pcap_snaplen: 0 bytes would store nothing: expected at least 1 (or leave it out for headers only)".into());
        }
        std::fs::create_dir_all(&opts.dir)
            .map_err(|e| format!("pcap: cannot create {}: {e}", opts.dir.display()))?;
        let mut captures: Vec<Option<Capture>> = (0..links.len()).map(|_| None).collect();
        for i in chosen {
            if captures[i].is_some() {
                continue;
            }
            let path = opts.dir.join(file_name(&links[i]));
            captures[i] = Some(Self::create(&path, opts.snaplen)?);
        }
        Ok(PcapTap {
            seen: vec![false; flows.len()],
            captures,
            flows,
            snaplen: opts.snaplen,
            buf: Vec::with_capacity(128),
            error: None,
        })
    }

    fn create(path: &Path, snaplen: Option<u32>) -> Result<Capture, String> {
        let file = File::create(path)
            .map_err(|e| format!("pcap: cannot write {}: {e}", path.display()))?;
        let header = PcapHeader {
            datalink: DataLink::IPV4,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            snaplen: snaplen.unwrap_or(65_535),
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(BufWriter::new(file), header)
            .map_err(|e| format!("pcap: {}: {e}", path.display()))?;
        Ok(Capture { writer, path: path.to_path_buf(), ip_id: 0 })
    }

    /// True if packets arriving over `link` are captured.
    pub fn captures(&self, link: LinkId) -> bool {
        self.captures[link.0 as usize].is_some()
    }

    /// A packet arrives at the far end of `link` at `now` (for each link, in order of time).
    pub fn capture(&mut self, link: LinkId, now: SimTime, pkt: &Packet) {
        let Some(cap) = self.captures[link.0 as usize].as_mut() else { return };
        let f = pkt.flow.0 as usize;
        let flow = &mut self.flows[f];
        if !self.seen[f] && pkt.header.is_data() {
            self.seen[f] = true;
            flow.seg = pkt.header.payload();
        }
        cap.ip_id = cap.ip_id.wrapping_add(1);
        let total = headers::encode(pkt, flow, cap.ip_id, &mut self.buf);
        let stored = match self.snaplen {
            None => self.buf.len(),
            Some(n) => (n as usize).min(total),
        };
        self.buf.resize(stored, 0); // cut to the snap length, or zero payload up to it
        let record = PcapPacket::new(Duration::from_nanos(now.as_nanos()), total as u32, &self.buf);
        if let Err(e) = cap.writer.write_packet(&record) {
            self.error.get_or_insert_with(|| format!("pcap: writing {}: {e}", cap.path.display()));
        }
    }

    /// Flushes every file; the first write error, if any.
    pub fn finish(self) -> Result<Vec<PathBuf>, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut paths = Vec::new();
        for cap in self.captures.into_iter().flatten() {
            let mut w = cap.writer.into_writer();
            std::io::Write::flush(&mut w)
                .map_err(|e| format!("pcap: writing {}: {e}", cap.path.display()))?;
            paths.push(cap.path);
        }
        Ok(paths)
    }
}
