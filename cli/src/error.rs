//! How commands end: an [`Outcome`] when they ran to the end, a [`CliError`] when they could
//! not, and the exit code of each.
//!
//! | exit code | meaning |
//! |---|---|
//! | 0 | the command ran and found nothing wrong |
//! | 1 | the command ran and reports problems in its input (a frame that does not decode, a bad ICRC) |
//! | 2 | the command could not do its job (a file that cannot be read, a bad argument, an output that cannot be written) |
//!
//! A command that found problems exits with 1 whatever happened to its output; one that
//! found nothing exits with 0 only when its output was written (or its reader closed the
//! pipe it reads, as `head` does). See [`crate::output`].

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::capture::CaptureError;

/// How a command that ran to the end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing wrong: exit code 0.
    Clean,
    /// The input has problems that the command reported: exit code 1.
    Findings,
}

impl Outcome {
    /// The process exit code.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Clean => ExitCode::SUCCESS,
            Outcome::Findings => ExitCode::from(1),
        }
    }
}

/// Why a command could not do its job. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A capture file cannot be read (or read to its end).
    #[error("{}: {source}", path.display())]
    Capture {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: CaptureError,
    },
    /// Writing the output failed.
    #[error("cannot write the output: {0}")]
    Output(#[from] io::Error),
    /// Writing a report file failed.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A bad argument or combination of arguments.
    #[error("{0}")]
    Usage(String),
    /// Several problems, each on its own line.
    #[error("{}", .0.join("\nerror: "))]
    Many(Vec<String>),
    /// The command could not do all of its job, and has said why on standard error.
    #[error("")]
    Reported,
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(2)
    }
}

/// Turns a command's result into the process exit code, printing the error, if any, on
/// standard error as `error: ...`. A closed standard output (the reader of a pipe went
/// away) ends the program quietly.
pub fn finish(result: Result<Outcome, CliError>) -> ExitCode {
    match result {
        Ok(outcome) => outcome.exit_code(),
        Err(CliError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e @ CliError::Reported) => e.exit_code(),
        Err(e) => {
            crate::output::warn(format_args!("error: {e}"));
            e.exit_code()
        }
    }
}
