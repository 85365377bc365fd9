//! `openrdma traces`: the scenario corpus on disk.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use openrdma_conformance::file;
use openrdma_corpus as corpus;

use crate::error::{CliError, Outcome};
use crate::output::{Stdout, check_output_dir, sibling};

/// Arguments of `openrdma traces`.
#[derive(Debug, Args)]
pub struct TracesArgs {
    #[command(subcommand)]
    command: TracesCommand,
}

#[derive(Debug, Subcommand)]
enum TracesCommand {
    /// Record every scenario from the reference model and write it as `NAME.pcapng` and
    /// `NAME.toml`. The output is byte for byte reproducible. Everything is written in a
    /// directory beside the target first, and moved into it only when all of it was
    /// written; a symbolic link in the target is replaced, never written through.
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
        TracesCommand::Regenerate { out } => regenerate(out),
        TracesCommand::List => {
            let mut w = Stdout::new();
            for (name, build) in corpus::all() {
                if w.failed() {
                    break;
                }
                let s = build();
                writeln!(
                    w,
                    "{name}\n    {}\n    checks: {}",
                    s.manifest.description,
                    s.manifest.requirements.join(" ")
                )?;
            }
            w.finish(Outcome::Clean)
        }
    }
}

/// Writes every scenario into a new directory beside `out`, and only when all of them are
/// written moves each file into `out`: a failure leaves `out` as it was. A file of `out`
/// that is a symbolic link is replaced by the new file, never written through. Files with
/// the same contents are left as they are; every file replaced is named.
fn regenerate(out: &Path) -> Result<Outcome, CliError> {
    check_output_dir("--out", out)?;
    let existing = fs::symlink_metadata(out);
    if existing.as_ref().is_ok_and(|m| !m.is_dir() && !m.file_type().is_symlink()) {
        return Err(CliError::Usage(format!("--out {}: is not a directory", out.display())));
    }
    let parent = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent)
        .map_err(|e| CliError::Usage(format!("--out {}: {e}", parent.display())))?;
    // Beside where the files land, on the same file system, so that they move by renaming.
    let real = fs::canonicalize(out).unwrap_or_else(|_| {
        let name = out.file_name().unwrap_or(out.as_os_str());
        fs::canonicalize(&parent).unwrap_or(parent.clone()).join(name)
    });
    let staging = sibling(&real, "regenerate");
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir(&staging).map_err(|e| {
        CliError::Usage(format!("--out {}: cannot make {}: {e}", out.display(), staging.display()))
    })?;
    let result = regenerate_into(out, &staging);
    let _ = fs::remove_dir_all(&staging);
    result
}

fn regenerate_into(out: &Path, staging: &Path) -> Result<Outcome, CliError> {
    let mut names = Vec::new();
    for (name, build) in corpus::all() {
        let s = build();
        file::save(&s, staging.join(name)).map_err(|e| {
            CliError::Usage(format!("{e}; nothing was written to {}", out.display()))
        })?;
        let (pcapng, toml) = file::paths(Path::new(name));
        names.push(pcapng);
        names.push(toml);
    }
    let n = names.len() / 2;
    fs::create_dir_all(out)
        .map_err(|e| CliError::Usage(format!("--out {}: {e}", out.display())))?;
    let mut w = Stdout::new();
    let (mut new, mut replaced, mut same) = (0, 0, 0);
    for f in &names {
        let (from, to) = (staging.join(f), out.join(f));
        let before = fs::symlink_metadata(&to).ok();
        let link = before.as_ref().is_some_and(|m| m.file_type().is_symlink());
        if before.as_ref().is_some_and(|m| m.is_file())
            && fs::read(&to).ok() == fs::read(&from).ok()
        {
            same += 1;
            continue;
        }
        if before.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(CliError::Usage(format!(
                "{}: is a directory, not a scenario file; the files before it were written",
                to.display()
            )));
        }
        fs::rename(&from, &to).map_err(|e| {
            CliError::Usage(format!(
                "{}: cannot put the new file in place: {e}; the files before it were written",
                to.display()
            ))
        })?;
        match before {
            None => new += 1,
            Some(_) => {
                replaced += 1;
                if link {
                    writeln!(
                        w,
                        "replaced {} (a symbolic link; its target was left as it was)",
                        to.display()
                    )?;
                } else {
                    writeln!(w, "replaced {}", to.display())?;
                }
            }
        }
    }
    writeln!(
        w,
        "wrote {n} scenarios to {}: {new} new files, {replaced} replaced, {same} unchanged",
        out.display()
    )?;
    w.finish(Outcome::Clean)
}
