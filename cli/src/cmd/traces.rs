//! `openrdma traces`: the scenario corpus on disk.

use std::fs;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use openrdma_conformance::file;
use openrdma_corpus as corpus;

use crate::error::{CliError, Outcome};

/// Arguments of `openrdma traces`.
#[derive(Debug, Args)]
pub struct TracesArgs {
    #[command(subcommand)]
    command: TracesCommand,
}

#[derive(Debug, Subcommand)]
enum TracesCommand {
    /// Record every scenario from the reference model and write it as `NAME.pcapng` and
    /// `NAME.toml`. The output is byte for byte reproducible.
    Regenerate {
        /// Where to write the scenarios.
        #[arg(long, default_value = "traces/scenarios", value_name = "DIR")]
        out: PathBuf,
    },
    /// List the scenarios of the corpus with their descriptions.
    List,
}

/// Runs `openrdma traces`.
pub fn run(args: &TracesArgs) -> Result<Outcome, CliError> {
    match &args.command {
        TracesCommand::Regenerate { out } => {
            fs::create_dir_all(out)
                .map_err(|e| CliError::Write { path: out.clone(), source: e })?;
            let mut n = 0;
            for (name, build) in corpus::all() {
                let s = build();
                file::save(&s, out.join(name)).map_err(|e| CliError::Usage(e.to_string()))?;
                n += 1;
            }
            println!("wrote {n} scenarios to {}", out.display());
        }
        TracesCommand::List => {
            for (name, build) in corpus::all() {
                let s = build();
                println!(
                    "{name}\n    {}\n    checks: {}",
                    s.manifest.description,
                    s.manifest.requirements.join(" ")
                );
            }
        }
    }
    Ok(Outcome::Clean)
}
