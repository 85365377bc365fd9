//! The `random` spray policy of the reference model, draw by draw: SND-SPRAY-002 names the
//! generator (ChaCha8, seeded with `seed XOR (QPN × 0x9E3779B97F4A7C15)`) and how a draw
//! picks an EV (`next_u32() mod |pool|`, in profile order). A scenario recorded from the
//! model, or a testbench that links it, relies on that stream being the one written down.

mod script;

use openrdma_codec::host::WorkRequest;
use openrdma_codec::{Ev, Qpn};
use openrdma_sm::{NicConfig, Packet, SprayPolicy};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use script::*;

/// Packets of the one message each case sends.
const PACKETS: u32 = 24;

/// The EVs of the first `PACKETS` data packets a fresh NIC with `seed` sprays for QP `qpn`.
fn sprayed(seed: u64, qpn: u32, peer: u32) -> Vec<Ev> {
    let mut qp = qp_config(qpn, peer, 0, 0);
    qp.spray = SprayPolicy::Random;
    let mut s = Script::with_qp(NicConfig { seed, ..config() }, qp);
    s.post(WorkRequest { qpn: Qpn::new(qpn), ..wr(PACKETS * PMTU, 0, 1) });
    let evs: Vec<Ev> = s
        .take_tx()
        .into_iter()
        .filter(|t| matches!(t.packet, Packet::Write(_)))
        .map(|t| t.ev)
        .collect();
    assert_eq!(evs.len(), PACKETS as usize, "seed {seed:#x}, QP {qpn:#x}: the whole message");
    evs
}

/// What SND-SPRAY-002 says the reference model draws for `seed` and `qpn`, every EV of
/// the profile being usable.
fn drawn(seed: u64, qpn: u32) -> Vec<Ev> {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ u64::from(qpn).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..PACKETS).map(|_| EVS[rng.next_u32() as usize % EVS.len()]).collect()
}

/// SND-SPRAY-002: under `random`, each data packet takes the EV of the profile the QP's
/// own generator draws, seeded from the NIC's seed and the QP's number.
#[test]
fn snd_spray_002_random_draws_follow_the_written_generator() {
    for seed in [0, 1, 0x0123_4567_89AB_CDEF, u64::MAX] {
        for (qpn, peer) in [(LQP, PEER), (LQP_B, PEER_B)] {
            assert_eq!(
                sprayed(seed, qpn, peer),
                drawn(seed, qpn),
                "seed {seed:#x}, QP {qpn:#x}: the EVs sprayed"
            );
        }
    }
}
