//! `openrdma`: the OpenRDMA command line. Each subcommand lives in `cmd/<name>.rs`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use openrdma::cmd;
use openrdma::error::finish;

/// OpenRDMA: multipath reliable RDMA (RoCEv2 + MRC), from the wire up.
#[derive(Debug, Parser)]
#[command(name = "openrdma", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode every frame of a pcap or pcapng capture, readable or as JSON Lines.
    Dissect(cmd::dissect::DissectArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    finish(match &cli.command {
        Command::Dissect(args) => cmd::dissect::run(args),
    })
}
