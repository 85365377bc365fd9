//! Instances are independent and may move between threads: two scenarios run at once on
//! two threads give what each gives alone, an instance made on one thread is used on
//! another, and a constructor's error stays on its own thread. Driven through the C
//! functions, as a C program would.

mod common;

use std::ffi::{CStr, CString};
use std::ptr;

use openrdma::ffi::*;
use openrdma::{Model, Output, Status};
use openrdma_conformance::protocol::WireInput;
use openrdma_device::{Scenario, TimedOutput};

/// An instance handed to another thread.
struct Handle(*mut Model);

// SAFETY: the C contract lets an instance move between threads, one thread using it at a
// time; `Model` is `Send`, and the handle is used by one thread at a time.
unsafe impl Send for Handle {}

fn c(s: &str) -> CString {
    CString::new(s).expect("no NUL")
}

fn last_error(m: *const Model) -> String {
    // SAFETY: `m` is NULL or a live instance this thread uses.
    let p = unsafe { openrdma_last_error(m) };
    // SAFETY: the message is NUL-terminated and valid until the next call; read at once.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn create(s: &Scenario) -> Handle {
    let manifest = c(&serde_json::to_string(&s.manifest).expect("serializes"));
    let mut m = ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    let st = unsafe { openrdma_create(manifest.as_ptr(), &mut m) };
    assert_eq!(st, Status::Ok, "{}", last_error(ptr::null()));
    Handle(m)
}

/// Feeds a scenario's inputs in one batch of adapter JSON, runs to its end, and pops
/// everything.
fn run(h: &Handle, s: &Scenario) -> Vec<TimedOutput> {
    let inputs: Vec<WireInput> =
        s.injects().map(|r| WireInput::from_input(common::input_of(r), false)).collect();
    let json = c(&serde_json::to_string(&inputs).expect("serializes"));
    let mut applied = 0;
    // SAFETY: `h.0` is live and used by this thread only; valid string and out-pointer.
    let st = unsafe { openrdma_push_inputs_json(h.0, json.as_ptr(), &mut applied) };
    // A scenario may give a command the model refuses; the rest is applied one by one.
    let mut next = applied as usize;
    let mut st = st;
    while st == Status::Refused {
        let rest = c(&serde_json::to_string(&inputs[next + 1..]).expect("serializes"));
        // SAFETY: as above.
        st = unsafe { openrdma_push_inputs_json(h.0, rest.as_ptr(), &mut applied) };
        next += 1 + applied as usize;
    }
    assert_eq!(st, Status::Ok, "{}", last_error(h.0));
    let end = s.records.last().map_or(0, |r| r.at.0);
    // SAFETY: as above.
    assert_eq!(unsafe { openrdma_advance(h.0, end) }, Status::Ok, "{}", last_error(h.0));
    let mut all = Vec::new();
    let mut buf = [Output::default(); 16];
    loop {
        let mut n = 0;
        // SAFETY: `buf` holds 16 writable outputs; `n` is writable.
        let st = unsafe { openrdma_pop_outputs(h.0, buf.as_mut_ptr(), 16, &mut n) };
        assert_eq!(st, Status::Ok, "{}", last_error(h.0));
        if n == 0 {
            break;
        }
        all.extend(buf[..n as usize].iter().map(common::from_c));
    }
    all
}

fn destroy(h: Handle) {
    // SAFETY: `h.0` is live, used by no other thread, and not used again.
    unsafe { openrdma_destroy(h.0) };
}

#[test]
fn two_instances_on_two_threads() {
    let all = common::scenarios();
    let pick = |n: &str| all.iter().find(|(name, _)| name == n).expect("scenario").1.clone();
    let (a, b) = (pick("rcv-sack-coalesce"), pick("snd-ack-nak"));
    let alone = |s: &Scenario| {
        let h = create(s);
        let out = run(&h, s);
        destroy(h);
        out
    };
    let (want_a, want_b) = (alone(&a), alone(&b));
    common::check_replay("rcv-sack-coalesce", &want_a, &common::expected_outputs(&a));
    common::check_replay("snd-ack-nak", &want_b, &common::expected_outputs(&b));

    for _ in 0..3 {
        let (ta, tb) = (a.clone(), b.clone());
        let ja = std::thread::spawn(move || alone(&ta));
        let jb = std::thread::spawn(move || alone(&tb));
        assert_eq!(ja.join().expect("thread a"), want_a);
        assert_eq!(jb.join().expect("thread b"), want_b);
    }
}

#[test]
fn an_instance_moves_between_threads() {
    let all = common::scenarios();
    let s = all.iter().find(|(n, _)| n == "rcv-in-order-v4").expect("scenario").1.clone();
    let h = create(&s);
    let t = s.clone();
    let (h, out) = std::thread::spawn(move || {
        let out = run(&h, &t);
        (h, out)
    })
    .join()
    .expect("the other thread");
    common::check_replay("rcv-in-order-v4", &out, &common::expected_outputs(&s));
    destroy(h);
}

#[test]
fn constructor_errors_stay_on_their_thread() {
    let mut m = ptr::null_mut();
    let bad = c("{");
    // SAFETY: valid string and out-pointer.
    assert_eq!(unsafe { openrdma_create(bad.as_ptr(), &mut m) }, Status::InvalidJson);
    assert!(m.is_null());
    assert!(last_error(ptr::null()).contains("EOF while parsing"), "{}", last_error(ptr::null()));
    let other = std::thread::spawn(|| last_error(ptr::null())).join().expect("thread");
    assert_eq!(other, "", "another thread sees no error");
}
