//! Path selection and the paths' loss processes.

use openrdma_codec::Ev;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::config::LossModel;

/// The path an ECMP fabric gives a packet with entropy value `ev`, out of `paths`: a
/// multiplicative hash of the EV (its high bits mixed down), modulo the number of paths.
pub fn ecmp_path(ev: Ev, paths: usize) -> usize {
    let h = (ev.value().wrapping_mul(0x9E37_79B1) >> 16) as usize;
    let n = paths.max(1);
    // The same value; a mask instead of a division for the usual powers of two.
    if n.is_power_of_two() { h & (n - 1) } else { h % n }
}

/// SplitMix64: derives independent seeds from one.
pub(crate) fn mix(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One path's loss process, with its own random stream.
#[derive(Debug)]
pub(crate) struct LossProcess {
    model: LossModel,
    rng: ChaCha8Rng,
    bad: bool,
}

impl LossProcess {
    pub(crate) fn new(model: LossModel, seed: u64, path: usize) -> LossProcess {
        LossProcess {
            model,
            rng: ChaCha8Rng::seed_from_u64(mix(seed, 0x10_0000 + path as u64)),
            bad: false,
        }
    }

    fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Whether the next packet on the path is lost. Steps the process once per packet,
    /// whatever else happens to the packet, so that the loss pattern of a path does not
    /// depend on other impairments.
    pub(crate) fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Random { p } => self.uniform() < p,
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let r = self.uniform();
                self.bad = if self.bad { r >= p_bad_to_good } else { r < p_good_to_bad };
                let p = if self.bad { loss_bad } else { loss_good };
                self.uniform() < p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecmp_spreads_consecutive_evs() {
        let mut seen = [0u32; 4];
        for ev in 0..4096u32 {
            seen[ecmp_path(Ev::new(ev << 16), 4)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }

    #[test]
    fn loss_rates_match_the_models() {
        let n = 200_000;
        let mut r = LossProcess::new(LossModel::Random { p: 0.1 }, 1, 0);
        let lost = (0..n).filter(|_| r.lose()).count() as f64 / f64::from(n);
        assert!((lost - 0.1).abs() < 0.005, "{lost}");
        let mut b = LossProcess::new(LossModel::bursty(0.1, 4.0), 1, 0);
        let mut runs = 0u32;
        let mut lost = 0u32;
        let mut prev = false;
        for _ in 0..n {
            let l = b.lose();
            lost += u32::from(l);
            runs += u32::from(l && !prev);
            prev = l;
        }
        let rate = f64::from(lost) / f64::from(n);
        let burst = f64::from(lost) / f64::from(runs);
        assert!((rate - 0.1).abs() < 0.01, "{rate}");
        assert!((burst - 4.0).abs() < 0.3, "mean burst {burst}");
        assert!(!LossProcess::new(LossModel::None, 0, 0).lose());
    }
}
