//! The QPs a stream fault follows, as its inputs create them.
//!
//! Many streams need to know, for a frame the device receives, which of its QPs the frame
//! is for, and for a frame it sends, which of its QPs sent it (the frame names the peer's
//! QP). [`Qps`] learns that from the `create_qp` commands among the inputs, and
//! [`Qps::received`] walks a batch of inputs the way those streams do: learn each QP
//! created, decode each frame received for a QP created before it.

use std::collections::HashMap;

use openrdma_codec::frame::{DecodedFrame, decode};
use openrdma_device::{HostCommand, Input, QpConfig, TimedInput, Timestamp};

/// The QPs created so far: each device QP's configuration, and the device QP of each
/// wire QP (the peer QP its frames are sent to).
#[derive(Debug, Default)]
pub(crate) struct Qps {
    created: HashMap<u32, QpConfig>,
    local: HashMap<u32, u32>,
}

/// A frame received for a QP created before it.
pub(crate) struct Received<'a> {
    /// When it arrived.
    pub at: Timestamp,
    /// The configuration of the device QP it is for.
    pub qp: &'a QpConfig,
    /// The frame, decoded (it has a BTH; it may have a decode error after it).
    pub d: &'a DecodedFrame<'a>,
}

impl Qps {
    /// Learns the QP `input` creates, if it creates one, and gives its configuration.
    pub(crate) fn learn(&mut self, input: &Input) -> Option<&QpConfig> {
        let Input::Host { command: HostCommand::CreateQp(q) } = input else { return None };
        self.local.insert(q.peer_qpn.value(), q.qpn.value());
        self.created.insert(q.qpn.value(), q.clone());
        self.created.get(&q.qpn.value())
    }

    /// Learns every QP created among `inputs`.
    pub(crate) fn learn_all(&mut self, inputs: &[TimedInput]) {
        for i in inputs {
            self.learn(&i.input);
        }
    }

    /// The configuration of device QP `local`.
    pub(crate) fn get(&self, local: u32) -> Option<&QpConfig> {
        self.created.get(&local)
    }

    /// The wire QP device QP `local` sends to.
    pub(crate) fn peer(&self, local: u32) -> Option<u32> {
        self.get(local).map(|q| q.peer_qpn.value())
    }

    /// The retirement domain whose table device QP `local` uses: its domain when the NIC
    /// shares tables (`shared`), else its own.
    pub(crate) fn table(&self, local: u32, shared: bool) -> Option<u32> {
        let q = self.get(local)?;
        Some(if shared { q.domain.value() } else { local })
    }

    /// The device QP that sends to wire QP `peer`.
    pub(crate) fn local(&self, peer: u32) -> Option<u32> {
        self.local.get(&peer).copied()
    }

    /// Walks `inputs` in order: learns each QP created, and gives `frame` each frame
    /// received for a QP created before it, decoded.
    pub(crate) fn received(&mut self, inputs: &[TimedInput], mut frame: impl FnMut(Received<'_>)) {
        for i in inputs {
            match &i.input {
                Input::Host { .. } => {
                    self.learn(&i.input);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let Some(b) = d.bth else { continue };
                    let Some(qp) = self.created.get(&b.dest_qp.value()) else { continue };
                    frame(Received { at: i.at, qp, d: &d });
                }
                _ => {}
            }
        }
    }
}
