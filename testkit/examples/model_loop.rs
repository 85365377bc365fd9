//! Runs one requester/responder transfer of 16 Ki × 256 KiB messages at 4 KiB PMTU
//! (about a million packets; `openrdma_testkit::loopback`), for instruction counting:
//! `valgrind --tool=callgrind` on this example gives a repeatable per-packet cost on a noisy
//! machine. It also prints the wall-clock rate of the transfer, which is only as steady as
//! the machine is quiet.
//!
//! With `requester` or `responder` as its argument it records the transfer, then replays
//! only that endpoint's half (`loopback::Script`): callgrind's total for that run, less the
//! recording, is the half's cost. With `frames` it runs the transfer through frames with
//! their ICRC (`Loopback::run_frames`). A second argument sets the number of messages.

use std::time::Instant;

use openrdma_testkit::loopback::Loopback;

const MESSAGES: u32 = 16 * 1024;

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let messages = match std::env::args().nth(2).map(|m| m.parse::<u32>()) {
        None => MESSAGES,
        Some(Ok(m)) if m > 0 => m,
        Some(_) => {
            eprintln!("the second argument is the number of messages, at least 1");
            std::process::exit(2);
        }
    };
    let mut l = Loopback::new(messages);
    let (label, start, n) = match what.as_str() {
        "requester" | "responder" => {
            let (n, [req, resp]) = l.run_recorded();
            let mut fresh = Loopback::new(messages);
            let start = Instant::now();
            if what == "requester" {
                req.replay(fresh.requester());
            } else {
                resp.replay(fresh.responder());
            }
            (what.as_str(), start, n)
        }
        "frames" => {
            let start = Instant::now();
            let (n, bad) = l.run_frames();
            assert_eq!(bad, 0, "frames that failed to build or decode");
            ("frames", start, n)
        }
        "" | "pair" => {
            let start = Instant::now();
            ("pair", start, l.run())
        }
        other => {
            eprintln!("unknown argument `{other}`: requester, responder, frames or pair");
            std::process::exit(2);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    println!("{label}: {n} packets in {secs:.3} s: {:.2} M packets/s", n as f64 / secs / 1e6);
}
