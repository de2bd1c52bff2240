//! A constant-delay line between two interfaces, for kernels without netem (see docs/testbed.md).
//!
//! Frames are read from each interface with an AF_PACKET socket, stamped with their due time
//! (when a serialiser of the path's rate has taken them in whole, counted from the kernel's
//! receive stamp, `arrival.rs` and `serialiser.rs`, plus the direction's delay) and written to
//! the other interface by a release thread once due. Due times only grow within a direction
//! and each direction has one FIFO, so frames leave in the order they came; the FIFO is
//! unbounded, so the line never drops. Each release records its lateness (release − due). On
//! SIGTERM or SIGINT the line stops and writes `{"a_to_b": {...}, "b_to_a": {...}}` to the
//! stats path.

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::args;
use crate::arrival;
use crate::lateness::Lateness;
use crate::serialiser::Serialiser;

static STOP: AtomicBool = AtomicBool::new(false);

/// How often blocked threads wake up to look at the stop flag.
const POLL: Duration = Duration::from_millis(100);
/// Largest frame read (veths with offloads off carry at most MTU + 14 bytes; leave room).
const FRAME_MAX: usize = 65536;
/// Socket receive buffer: holds ~4 MB of frames while the reader thread is descheduled.
const RCVBUF: libc::c_int = 4 << 20;
/// SOL_PACKET option (linux/if_packet.h): do not read back frames this host sends.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

struct PacketSocket {
    fd: libc::c_int,
}

impl PacketSocket {
    /// An AF_PACKET socket bound to `ifname`, promiscuous, not seeing its own output.
    fn open(ifname: &str) -> io::Result<PacketSocket> {
        let name =
            CString::new(ifname).map_err(|_| io::Error::other("interface name has a NUL byte"))?;
        let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::other(format!("no interface {ifname:?}")));
        }
        let proto = (libc::ETH_P_ALL as u16).to_be();
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, proto as libc::c_int) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let sock = PacketSocket { fd };
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = proto;
        addr.sll_ifindex = ifindex as libc::c_int;
        let rc = unsafe {
            libc::bind(
                fd,
                &addr as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut mreq: libc::packet_mreq = unsafe { std::mem::zeroed() };
        mreq.mr_ifindex = ifindex as libc::c_int;
        mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
        sock.setopt(libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)?;
        sock.setopt(libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, &(1 as libc::c_int))?;
        sock.setopt(libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &RCVBUF)
            .or_else(|_| sock.setopt(libc::SOL_SOCKET, libc::SO_RCVBUF, &RCVBUF))?;
        let tv = libc::timeval { tv_sec: 0, tv_usec: POLL.as_micros() as libc::suseconds_t };
        sock.setopt(libc::SOL_SOCKET, libc::SO_RCVTIMEO, &tv)?;
        sock.setopt(libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, &(1 as libc::c_int))?;
        Ok(sock)
    }

    fn setopt<T>(&self, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
        let rc = unsafe {
            libc::setsockopt(
                self.fd,
                level,
                name,
                value as *const T as *const libc::c_void,
                std::mem::size_of::<T>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// One frame, when it arrived and whether the kernel stamped it (`arrival.rs`; unstamped,
    /// the read's instant stands in), or `None` when the poll interval passed without a frame.
    fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, Instant, bool)>> {
        let mut iov =
            libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
        // Room for one SCM_TIMESTAMPNS message (a timespec) with its header, aligned.
        let mut control = [0u64; 8];
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&control);
        let n = unsafe { libc::recvmsg(self.fd, &mut msg, 0) };
        if n < 0 {
            let err = io::Error::last_os_error();
            return match err.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                _ => Err(err),
            };
        }
        let now = Instant::now();
        Ok(Some(
            match kernel_stamp_ns(&msg)
                .and_then(|stamp| arrival::arrival(now, realtime_ns(), stamp))
            {
                Some(arrived) => (n as usize, arrived, true),
                None => (n as usize, now, false),
            },
        ))
    }

    fn send(&self, frame: &[u8]) -> io::Result<()> {
        loop {
            let n = unsafe {
                libc::send(self.fd, frame.as_ptr() as *const libc::c_void, frame.len(), 0)
            };
            if n >= 0 {
                return Ok(());
            }
            let err = io::Error::last_os_error();
            // A full device queue is transient: retry rather than drop (the line never drops).
            match err.raw_os_error() {
                Some(libc::ENOBUFS) | Some(libc::EAGAIN) | Some(libc::EINTR) => thread::yield_now(),
                _ => return Err(err),
            }
        }
    }

    /// Frames the kernel dropped because this socket's buffer was full (PACKET_STATISTICS).
    fn drops(&self) -> u64 {
        let mut st: libc::tpacket_stats = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
        let rc = unsafe {
            libc::getsockopt(
                self.fd,
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                &mut st as *mut libc::tpacket_stats as *mut libc::c_void,
                &mut len,
            )
        };
        if rc == 0 {
            st.tp_drops as u64
        } else {
            0
        }
    }
}

/// The kernel's receive stamp of a frame (`SCM_TIMESTAMPNS`), in real-time nanoseconds.
fn kernel_stamp_ns(msg: &libc::msghdr) -> Option<i128> {
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(msg) };
    while !cmsg.is_null() {
        let hdr = unsafe { &*cmsg };
        if hdr.cmsg_level == libc::SOL_SOCKET && hdr.cmsg_type == libc::SCM_TIMESTAMPNS {
            let ts =
                unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const libc::timespec) };
            return Some(nanos(ts));
        }
        cmsg = unsafe { libc::CMSG_NXTHDR(msg, cmsg) };
    }
    None
}

/// `CLOCK_REALTIME` now, in nanoseconds: the clock the kernel stamps frames with.
fn realtime_ns() -> i128 {
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    nanos(ts)
}

fn nanos(ts: libc::timespec) -> i128 {
    ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        unsafe { libc::close(self.fd) };
    }
}

/// Read frames from `input` and queue them with their due time: serialised, then delayed.
/// Returns how many frames had no usable kernel stamp and were timed by their read instead.
fn reader(
    input: Arc<PacketSocket>,
    delay: Duration,
    mut line: Serialiser,
    queue: Sender<(Instant, Vec<u8>)>,
) -> io::Result<u64> {
    let mut buf = vec![0u8; FRAME_MAX];
    let mut unstamped = 0;
    while !STOP.load(Ordering::Relaxed) {
        if let Some((n, arrived, stamped)) = input.recv(&mut buf)? {
            unstamped += u64::from(!stamped);
            let due = line.done(arrived, n) + delay;
            if queue.send((due, buf[..n].to_vec())).is_err() {
                break;
            }
        }
    }
    Ok(unstamped)
}

/// Release queued frames on `output` at their due time; return their lateness.
fn releaser(
    output: Arc<PacketSocket>,
    queue: Receiver<(Instant, Vec<u8>)>,
) -> io::Result<Lateness> {
    let mut lateness = Lateness::default();
    loop {
        let (due, frame) = match queue.recv_timeout(POLL) {
            Ok(item) => item,
            Err(RecvTimeoutError::Timeout) if !STOP.load(Ordering::Relaxed) => continue,
            Err(_) => break,
        };
        let now = Instant::now();
        if due > now {
            thread::sleep(due - now);
        }
        output.send(&frame)?;
        lateness.record(Instant::now().saturating_duration_since(due).as_nanos() as u64);
    }
    Ok(lateness)
}

/// Best effort: real-time priority and a 1 ns timer slack make sleeps end close to the due time.
fn tighten_timing() {
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        let param = libc::sched_param { sched_priority: 50 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &param);
    }
}

type Direction = (thread::JoinHandle<io::Result<u64>>, thread::JoinHandle<io::Result<Lateness>>);

fn direction(
    input: &Arc<PacketSocket>,
    output: &Arc<PacketSocket>,
    delay: Duration,
    ps_per_byte: u64,
) -> Direction {
    let (tx, rx) = mpsc::channel();
    let input = Arc::clone(input);
    let output = Arc::clone(output);
    let read = thread::spawn(move || {
        tighten_timing();
        reader(input, delay, Serialiser::new(ps_per_byte), tx)
    });
    let release = thread::spawn(move || {
        tighten_timing();
        releaser(output, rx)
    });
    (read, release)
}

/// The direction's lateness and its count of unstamped frames.
fn finish(dir: Direction) -> io::Result<(Lateness, u64)> {
    let (read, release) = dir;
    let read_result = read.join().map_err(|_| io::Error::other("reader thread panicked"))?;
    let lateness = release.join().map_err(|_| io::Error::other("release thread panicked"))??;
    Ok((lateness, read_result?))
}

fn run(a: args::Args) -> io::Result<()> {
    let sock_a = Arc::new(PacketSocket::open(&a.if_a)?);
    let sock_b = Arc::new(PacketSocket::open(&a.if_b)?);
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
    let ab = direction(&sock_a, &sock_b, a.delay_ab, a.ps_per_byte_ab);
    let ba = direction(&sock_b, &sock_a, a.delay_ba, a.ps_per_byte_ba);
    // Tell the parent the line is up (it waits for this line before starting traffic).
    println!("ready");
    while !STOP.load(Ordering::Relaxed) {
        thread::sleep(POLL / 4);
    }
    let (late_ab, unstamped_ab) = finish(ab)?;
    let (late_ba, unstamped_ba) = finish(ba)?;
    let json = format!(
        "{{\"a_to_b\": {}, \"b_to_a\": {}}}\n",
        late_ab.summary().to_json(sock_a.drops(), unstamped_ab),
        late_ba.summary().to_json(sock_b.drops(), unstamped_ba)
    );
    std::fs::write(&a.stats_path, json)
}

/// Runs the line with `argv` (without the program name) until SIGTERM or SIGINT; returns the
/// process exit status: 0, 1 for a failure of the sockets or threads, 2 for bad arguments.
pub fn main_with(argv: &[String]) -> i32 {
    let parsed = match args::parse(argv) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("ccarena-delayline: {msg}");
            return 2;
        }
    };
    match run(parsed) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("ccarena-delayline: {e}");
            1
        }
    }
}
