//! Runs one requester/responder transfer of 16 Ki × 256 KiB messages at 4 KiB PMTU
//! (about a million packets), for instruction counting: `valgrind --tool=callgrind` on
//! this example gives a repeatable per-packet cost on a noisy machine.

#[path = "../benches/support/transfer.rs"]
mod transfer;

fn main() {
    let (mut a, mut b) = transfer::pair(16 * 1024);
    let n = transfer::transfer(&mut a, &mut b);
    println!("{n} packets");
}
