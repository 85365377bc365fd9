//! The hostile catalogue, part two: the simulator's options, on the command line and in a
//! `--config` file — values the arithmetic cannot hold, values out of range, malformed
//! values — and runs whose verdict must not say ok. See `hostile/mod.rs`.

mod hostile;

use hostile::{Row, row, run_catalogue};

/// A small workload, so that the runs that must pass are quick.
const SMALL: &[&str] = &["--qps", "1", "--messages", "2", "--message-bytes", "4096"];

/// `sim run ARGS`, on the small workload for what `args` does not give.
fn sim(name: &str, args: &[&str]) -> Row {
    let mut all = vec!["sim", "run"];
    for pair in SMALL.chunks(2) {
        if !args.contains(&pair[0]) {
            all.extend_from_slice(pair);
        }
    }
    all.extend_from_slice(args);
    row(name, &all)
}

/// `sim run --config c.toml` with `text` as the file (the small workload given in it).
fn config(name: &str, text: &str) -> Row {
    let mut text = text.to_string();
    for (key, value) in [("qps", "1"), ("messages", "2"), ("message-bytes", "4096")] {
        if !text.contains(&format!("{key} =")) {
            text.push_str(&format!("\n{key} = {value}\n"));
        }
    }
    row(name, &["sim", "run", "--config", "c.toml"]).file("c.toml", text)
}

fn rows() -> Vec<Row> {
    // (option, value, fragment of the message): refused on the command line with exit code 2.
    let refused: &[(&str, &str, &str)] = &[
        ("--delay-ns", "100000000000000000", "--delay-ns 100000000000000000: at most 10^15 ns"),
        ("--delay-ns", "1000000000000000001", "at most 10^15 ns"),
        ("--delay-ns", "18446744073709551615", "at most 10^15 ns"),
        ("--delay-ns", "18446744073709551616", "invalid value"),
        ("--delay-ns", "-1", "unexpected argument"),
        ("--delay-ns", "1e9", "invalid value"),
        ("--skew-ns", "100000000000000000", "--skew-ns"),
        ("--skew-ns", "18446744073709551615", "at most 10^15 ns"),
        ("--rate-gbps", "1e-12", "--rate-gbps 0.000000000001: a rate from 0.001"),
        ("--rate-gbps", "0", "a rate from 0.001"),
        ("--rate-gbps=-5", "--seed=1", "a rate from 0.001"),
        ("--rate-gbps", "0.0009", "a rate from 0.001"),
        ("--rate-gbps", "100001", "a rate from 0.001 to 100000"),
        ("--rate-gbps", "NaN", "--rate-gbps NaN"),
        ("--rate-gbps", "inf", "--rate-gbps inf"),
        ("--rate-gbps", "fast", "invalid value"),
        ("--loss", "1", "--loss"),
        ("--loss", "1.5", "--loss"),
        ("--loss=-0.1", "--seed=1", "--loss -0.1"),
        ("--loss", "NaN", "--loss"),
        ("--burst-len", "0.5", "--burst-len"),
        ("--burst-len", "inf", "a finite number of packets"),
        ("--burst-len", "NaN", "--burst-len"),
        (
            "--horizon-ms",
            "18446744073709551615",
            "--horizon-ms 18446744073709551615: at most 10^9 ms",
        ),
        ("--horizon-ms", "1000000001", "at most 10^9 ms"),
        ("--post-interval-ns", "1000000000000001", "--post-interval-ns"),
        ("--tail-probe-ns", "18446744073709551615", "--tail-probe-ns"),
        ("--queue-bytes", "0", "--queue-bytes 0: at least one jumbo frame"),
        ("--queue-bytes", "9215", "at least one jumbo frame"),
        ("--mtu", "1000", "one of 256"),
        ("--mtu", "0", "one of 256"),
        ("--mtu", "8192", "one of 256"),
        ("--paths", "0", "invalid value"),
        ("--paths", "1025", "invalid value"),
        ("--paths", "65536", "invalid value"),
        ("--qps", "0", "invalid value"),
        ("--qps", "65537", "invalid value"),
        ("--qps", "4294967296", "invalid value"),
        ("--messages", "0", "--messages 0: at least 1 message"),
        ("--messages", "4294967296", "invalid value"),
        ("--messages", "-1", "unexpected argument"),
        ("--message-bytes", "0", "invalid value"),
        ("--message-bytes", "2147483649", "invalid value"),
        ("--mpr", "0", "invalid value"),
        ("--mpr", "65", "invalid value"),
        ("--mpr", "256", "invalid value"),
        ("--evs-per-qp", "0", "invalid value"),
        ("--evs-per-qp", "257", "invalid value"),
        ("--retry-limit", "0", "invalid value"),
        ("--retry-limit", "1001", "invalid value"),
        ("--seed", "-1", "unexpected argument"),
        ("--seed", "18446744073709551616", "invalid value"),
        ("--spray", "sideways", "invalid value"),
        ("--retirement", "never", "invalid value"),
        ("--loss-model", "cosmic", "invalid value"),
        ("--drop", "3", "expected QP:PSN"),
        ("--drop", "a:b", "QP `a`"),
        ("--drop", "5:0", "aimed drop 0: no such QP"),
        ("--drop", "0:16777216", "a PSN is 24-bit"),
        ("--drop", "0:99999999999", "PSN `99999999999`"),
        ("--fail", "0:5", "expected PATH:FROM_NS:TO_NS"),
        ("--fail", "0:5:3", "--fail 0:5:3: an outage ends after it starts"),
        ("--fail", "9:0:10", "there are 4 paths"),
        ("--fail", "0:0:18446744073709551615", "outages within the first 10^15 ns"),
        ("--fail", "0:1:2:3", "expected PATH:FROM_NS:TO_NS"),
        ("--config", "no-such.toml", "cannot read"),
        ("--config", ".", "cannot read"),
    ];
    let mut rows = Vec::new();
    for (opt, value, words) in refused {
        rows.push(
            sim(&format!("sim run {opt} {value}"), &[opt, value])
                .code(2)
                .err(words)
                .not_err("panicked"),
        );
    }
    // The workload's bytes must fit the counters.
    rows.push(
        row(
            "sim run, more bytes than the counters hold",
            &[
                "sim",
                "run",
                "--qps",
                "65536",
                "--messages",
                "4294967295",
                "--message-bytes",
                "2147483648",
            ],
        )
        .code(2)
        .err("more bytes than the counters hold"),
    );
    rows.push(
        row(
            "sim run, the last post beyond the longest time",
            &["sim", "run", "--messages", "2000000", "--post-interval-ns", "1000000000000"],
        )
        .code(2)
        .err("the last message would be posted after 10^15 ns"),
    );
    // The same in a --config file: refused with the file, the line and the reason.
    let file: &[(&str, &str)] = &[
        ("delay-ns = 100000000000000000\n", "line 1"),
        ("\nskew-ns = 18446744073709551615\n", "line 2"),
        ("rate-gbps = 1e-12\n", "a rate from 0.001"),
        ("rate-gbps = 0\n", "a rate from 0.001"),
        ("rate-gbps = nan\n", "a rate from 0.001"),
        ("rate-gbps = inf\n", "a rate from 0.001"),
        ("loss = 1.0\n", "probability"),
        ("burst-len = inf\n", "finite"),
        ("horizon-ms = 18446744073709551615\n", "10^9 ms"),
        ("post-interval-ns = 1000000000000001\n", "10^15"),
        ("tail-probe-ns = 18446744073709551615\n", "10^15"),
        ("messages = 0\n", "at least 1"),
        ("qps = 0\n", "between 1 and 65536"),
        ("qps = 65537\n", "between 1 and 65536"),
        ("qps = -1\n", "invalid value"),
        ("qps = 4294967296\n", "invalid value"),
        ("mtu = 1000\n", "one of 256"),
        ("paths = 0\n", "between 1 and 1024"),
        ("message-bytes = 0\n", "between 1 and 2^31"),
        ("mpr = 65\n", "between 1 and 64"),
        ("evs-per-qp = 300\n", "between 1 and 256"),
        ("retry-limit = 0\n", "between 1 and 1000"),
        ("qpz = 2\n", "unknown field"),
        ("qps = \"eight\"\n", "invalid type"),
        ("drop = [\"3\"]\n", "QP:PSN"),
        ("qps = 2\ndrop = [\"0:1\", \"9:0\"]\n", "there are 2 QPs"),
        ("fail = [\"7:0:10\"]\n", "there are 4 paths"),
        ("fail = [\"0:9:3\"]\n", "an outage ends after it starts"),
        ("paths = [4\n", "c.toml"),
        ("\u{0}\u{1}garbage = 1", "c.toml"),
        ("spray = \"sideways\"\n", "sideways"),
        ("queue-bytes = 100\n", "jumbo frame"),
    ];
    for (text, words) in file {
        rows.push(
            config(&format!("sim run --config {text:?}"), text).code(2).err("c.toml").err(words),
        );
    }
    // What the file says the option overrides, and what holds.
    rows.extend([
        config(
            "config: an option fixes a bad file value? no: the file is read first",
            "delay-ns = 100000000000000000\n",
        )
        .code(2),
        row("config: a good file", &["sim", "run", "--config", "c.toml"])
            .file("c.toml", "qps = 1\nmessages = 2\n")
            .code(0)
            .out("verdict           ok"),
        row(
            "config: an empty file is the defaults",
            &["sim", "run", "--config", "c.toml", "--messages", "1", "--qps", "1"],
        )
        .file("c.toml", "")
        .code(0),
        row(
            "config: /dev/null",
            &["sim", "run", "--config", "/dev/null", "--messages", "1", "--qps", "1"],
        )
        .code(0),
        row(
            "config: the option wins over a bad file value? no, the file is checked",
            &["sim", "run", "--config", "c.toml", "--rate-gbps", "100"],
        )
        .file("c.toml", "rate-gbps = 1e-12\nqps = 1\nmessages = 1\n")
        .code(2)
        .err("c.toml: line 1"),
        row(
            "config: the option wins over the file",
            &["sim", "run", "--config", "c.toml", "--qps", "1"],
        )
        .file("c.toml", "qps = 3\nmessages = 1\n")
        .code(0)
        .out("1 QPs"),
        row(
            "config: a bad file beside good options",
            &["sim", "run", "--config", "c.toml", "--qps", "1"],
        )
        .file("c.toml", "qps = 0\n")
        .code(2),
    ]);
    // Boundaries that work, and verdicts that must not say ok.
    rows.extend([
        sim(
            "the slowest rate runs",
            &["--rate-gbps", "0.001", "--message-bytes", "1", "--messages", "1"],
        )
        .code(0),
        sim("the fastest rate runs", &["--rate-gbps", "100000"])
            .code(0)
            .out("verdict           ok"),
        sim(
            "the longest delay ends at the horizon, not in a wrapped time",
            &["--delay-ns", "1000000000000000", "--horizon-ms", "1000000000"],
        )
        .code(1)
        .out("stopped at the horizon")
        .out("FAILED"),
        sim("the longest skew", &["--skew-ns", "1000000000000000", "--horizon-ms", "1"])
            .code(1)
            .out("FAILED"),
        sim(
            "the longest post interval",
            &["--post-interval-ns", "1000000000000000", "--horizon-ms", "1"],
        )
        .code(1),
        sim(
            "every path down: nothing delivered",
            &["--fail", "0:0:1000000000", "--paths", "1", "--horizon-ms", "2"],
        )
        .code(1)
        .out("FAILED"),
        sim(
            "QPs that fail their messages fail the verdict",
            &[
                "--paths",
                "1",
                "--fail",
                "0:3000:1000000000",
                "--retry-limit",
                "1",
                "--messages",
                "50",
                "--horizon-ms",
                "100",
            ],
        )
        .code(1)
        .out("completed successfully"),
        sim("a lossy run within the retry limit is ok", &["--loss", "0.05", "--seed", "3"])
            .code(0)
            .out("verdict           ok"),
        sim(
            "--json of a failing run exits 1",
            &["--fail", "0:0:1000000000", "--paths", "1", "--horizon-ms", "2", "--json"],
        )
        .code(1)
        .out("\"hit_horizon\": true"),
        row(
            "a shared domain of 40000 messages",
            &["sim", "run", "--qps", "8", "--messages", "5000", "--message-bytes", "1"],
        )
        .code(0)
        .out("verdict           ok"),
        row(
            "more one-byte messages on one QP than are posted at once",
            &["sim", "run", "--qps", "1", "--messages", "30000", "--message-bytes", "1"],
        )
        .code(0)
        .out("delivered         30000 of 30000"),
        sim("a drop on the last QP", &["--drop", "0:1"]).code(0),
        row("sim paper --seed max", &["sim", "paper", "--quick", "--seed", "18446744073709551615"])
            .code(0),
        row("sim paper --seed negative", &["sim", "paper", "--seed", "-1"]).code(2),
    ]);
    rows
}

#[test]
fn catalogue() {
    run_catalogue("sim", &rows(), false);
}

#[test]
#[ignore = "runs the rows that need an external tool; .ci/run installs them"]
fn catalogue_with_tools() {
    run_catalogue("sim-tools", &rows(), true);
}
