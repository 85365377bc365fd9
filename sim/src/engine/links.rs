//! The simulator's fabric: the hosts' ports and the paths' switches, as an
//! `openrdma_sm::Fabric` whose time is in picoseconds.
//!
//! A packet's fate is decided in two steps. When its NIC hands it over
//! ([`Fabric::fate`]) it waits for the port of its path, which is busy until the packets
//! before it are serialized (back-pressure: the port's transmit buffer holds
//! [`NicTiming::tx_queue_depth`](crate::NicTiming) packets, and [`Fabric::room`] says
//! when the NIC may hand over another); it is serialized, and reaches the path's switch
//! ([`Fate::Hop`]). There ([`Fabric::hop`]) the outage windows, the aimed drops, the
//! path's loss process and the output queue's byte limit may drop it; otherwise it waits
//! for the switch's output towards its destination, is serialized again, propagates, and
//! crosses the receive pipeline ([`Fate::Deliver`]).

use std::collections::VecDeque;

use openrdma_codec::Msn;
use openrdma_sm::{Fabric, Fate, Packet, Transmit};
use rustc_hash::FxHashMap;

use super::qp_number;
use crate::config::SimConfig;
use crate::path::{LossProcess, ecmp_path};
use crate::report::{Drops, PathReport};
use crate::wire::wire_bytes;

/// Simulated time, picoseconds.
pub(crate) type Ps = u64;

/// One host's ports, one per path.
#[derive(Debug)]
pub(super) struct Ports {
    /// Per port: serialization end times of the packets handed to it and not yet sent.
    txq: Vec<VecDeque<Ps>>,
    /// Per port: when it is free.
    tx_busy: Vec<Ps>,
    queued: u32,
}

/// One path: its switch and its link.
#[derive(Debug)]
pub(super) struct PathRt {
    pub(super) loss: LossProcess,
    pub(super) ps_per_byte: f64,
    pub(super) prop_ps: Ps,
    pub(super) queue_bytes: u64,
    pub(super) down: Vec<(Ps, Ps)>,
    /// Per destination host: when the switch's output queue is empty.
    pub(super) sw_busy: Vec<Ps>,
    pub(super) report: PathReport,
    /// The last two (bytes, picoseconds) of [`PathRt::ser_ps`]; zero bytes for none.
    pub(super) ser_cache: [(u32, Ps); 2],
}

impl PathRt {
    /// Picoseconds a frame of `bytes` byte times occupies the link. Almost every frame has
    /// one of two sizes (a full data packet or an acknowledgement), so the last two answers
    /// are kept rather than rounded again.
    #[inline]
    fn ser_ps(&mut self, bytes: u32) -> Ps {
        if let Some(&(_, ps)) = self.ser_cache.iter().find(|(b, _)| *b == bytes) {
            return ps;
        }
        let ps = (f64::from(bytes) * self.ps_per_byte).round() as u64;
        self.ser_cache = [(bytes, ps), self.ser_cache[0]];
        ps
    }
}

#[derive(Debug, Clone, Copy)]
enum DropReason {
    Loss,
    Aimed,
    Outage,
    Queue,
}

impl DropReason {
    fn count(self, d: &mut Drops) {
        match self {
            DropReason::Loss => d.loss += 1,
            DropReason::Aimed => d.aimed += 1,
            DropReason::Outage => d.outage += 1,
            DropReason::Queue => d.queue += 1,
        }
    }
}

/// A packet to drop on its first transmission.
#[derive(Debug, Clone, Copy)]
struct Aimed {
    src: u16,
    qpn: u32,
    psn: u32,
    done: bool,
}

/// The hosts' ports and the paths. See the module documentation.
#[derive(Debug)]
pub(super) struct Links {
    pub(super) paths: Vec<PathRt>,
    ports: Vec<Ports>,
    /// Per flow: its two hosts.
    flows: Vec<(u16, u16)>,
    aimed: Vec<Aimed>,
    /// When each message lost a packet to an aimed drop: (host, QP, MSN).
    pub(super) drop_marks: FxHashMap<(u16, u32, Msn), Ps>,
    pub(super) drops: Drops,
    tx_pipe_ps: Ps,
    rx_pipe_ps: Ps,
    /// Packets each host's ports may hold.
    budget: u32,
    ipv6: bool,
}

impl Links {
    /// The ports of `cfg.hosts` hosts and the `paths` of `cfg`, which is valid.
    pub(super) fn new(cfg: &SimConfig, paths: Vec<PathRt>) -> Links {
        let n = paths.len();
        let timing = &cfg.timing;
        let ports = (0..cfg.hosts)
            .map(|_| Ports { txq: vec![VecDeque::new(); n], tx_busy: vec![0; n], queued: 0 })
            .collect();
        let aimed = cfg
            .aimed_drops
            .iter()
            .map(|d| Aimed {
                src: cfg.flows[d.flow].src as u16,
                qpn: qp_number(d.flow, d.qp).value(),
                psn: d.psn.value(),
                done: false,
            })
            .collect();
        Links {
            paths,
            ports,
            flows: cfg.flows.iter().map(|f| (f.src as u16, f.dst as u16)).collect(),
            aimed,
            drop_marks: FxHashMap::default(),
            drops: Drops::default(),
            tx_pipe_ps: timing.cycles_ps(timing.tx_pipeline_cycles),
            rx_pipe_ps: timing.cycles_ps(timing.rx_pipeline_cycles),
            budget: timing.tx_queue_depth.saturating_mul(n as u32),
            ipv6: cfg.ipv6,
        }
    }

    /// The host at the other end of `qpn`'s flow from `from`.
    #[inline]
    fn peer(&self, from: usize, qpn: u32) -> usize {
        let f = ((qpn >> 16) - 1) as usize;
        let (src, dst) = self.flows[f];
        usize::from(if usize::from(src) == from { dst } else { src })
    }

    fn aimed_hit(&mut self, now: Ps, src: usize, t: &Transmit) -> bool {
        if self.aimed.is_empty() {
            return false;
        }
        let Packet::Write(w) = &t.packet else { return false };
        if w.bth.rtx {
            return false;
        }
        let (qpn, psn) = (t.qpn.value(), w.bth.psn.value());
        let hit = self
            .aimed
            .iter_mut()
            .find(|a| !a.done && usize::from(a.src) == src && a.qpn == qpn && a.psn == psn);
        match hit {
            Some(a) => {
                a.done = true;
                self.drop_marks.entry((src as u16, qpn, w.meth.msn)).or_insert(now);
                true
            }
            None => false,
        }
    }
}

/// What [`Fate::Hop`] carries to the switch: the path, the destination and the byte times.
#[inline]
fn hop_of(path: usize, dst: usize, bytes: u32) -> u64 {
    (path as u64) | ((dst as u64) << 16) | (u64::from(bytes) << 32)
}

impl Fabric<Ps> for Links {
    /// Waits for the port of the packet's path, then serialization: the packet reaches the
    /// path's switch. The caller checked that `t` belongs to a flow.
    #[inline]
    fn fate(&mut self, now: Ps, from: usize, t: &Transmit) -> Fate<Ps> {
        let dst = self.peer(from, t.qpn.value());
        let p = ecmp_path(t.ev, self.paths.len());
        let bytes = wire_bytes(&t.packet, self.ipv6);
        let path = &mut self.paths[p];
        path.report.wire_bytes += u64::from(bytes);
        match &t.packet {
            Packet::Write(_) => path.report.data_packets += 1,
            _ => path.report.control_packets += 1,
        }
        let ser = path.ser_ps(bytes);
        let port = &mut self.ports[from];
        let start = (now + self.tx_pipe_ps).max(port.tx_busy[p]);
        let end = start + ser;
        port.tx_busy[p] = end;
        port.txq[p].push_back(end);
        port.queued += 1;
        Fate::Hop { at: end, hop: hop_of(p, dst, bytes) }
    }

    /// The switch: outage, aimed drop, loss, tail drop; or the output queue, the link and
    /// the receive pipeline.
    #[inline]
    fn hop(&mut self, now: Ps, from: usize, hop: u64, t: &Transmit) -> Fate<Ps> {
        let p = (hop & 0xFFFF) as usize;
        let dst = ((hop >> 16) & 0xFFFF) as usize;
        let bytes = (hop >> 32) as u32;
        // The loss process steps for every packet, whatever else befalls it.
        let lost = self.paths[p].loss.lose();
        let path = &self.paths[p];
        let down = path.down.iter().any(|&(s, e)| now >= s && now < e);
        let drop = if down {
            Some(DropReason::Outage)
        } else if self.aimed_hit(now, from, t) {
            Some(DropReason::Aimed)
        } else if lost {
            Some(DropReason::Loss)
        } else {
            let path = &self.paths[p];
            let busy = path.sw_busy[dst];
            let backlog =
                if busy > now { ((busy - now) as f64 / path.ps_per_byte) as u64 } else { 0 };
            (backlog.saturating_add(u64::from(bytes)) > path.queue_bytes)
                .then_some(DropReason::Queue)
        };
        if let Some(reason) = drop {
            reason.count(&mut self.drops);
            reason.count(&mut self.paths[p].report.drops);
            return Fate::Drop;
        }
        let path = &mut self.paths[p];
        let start = now.max(path.sw_busy[dst]);
        let end = start + path.ser_ps(bytes);
        path.sw_busy[dst] = end;
        Fate::Deliver { at: end + path.prop_ps + self.rx_pipe_ps, ev: t.ev }
    }

    /// Whether host `from`'s ports hold fewer packets than they may: packets serialized by
    /// `now` have left them.
    #[inline]
    fn room(&mut self, now: Ps, from: usize) -> bool {
        let port = &mut self.ports[from];
        if port.queued >= self.budget {
            for q in port.txq.iter_mut() {
                while q.front().is_some_and(|&t| t <= now) {
                    q.pop_front();
                    port.queued -= 1;
                }
            }
        }
        port.queued < self.budget
    }

    /// When host `from`'s ports, full, free a place.
    fn wake(&self, from: usize) -> Option<Ps> {
        let port = &self.ports[from];
        if port.queued < self.budget {
            return None;
        }
        port.txq.iter().filter_map(|q| q.front().copied()).min()
    }
}
