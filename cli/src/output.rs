//! Where commands write: standard output, standard error and report files, written so that
//! no output error panics, hides a failure or changes a verdict.
//!
//! * [`Stdout`] buffers standard output and keeps the first error instead of panicking.
//!   A closed pipe (the reader went away, `EPIPE`) stops the writing quietly, as Unix tools
//!   do; any other error (a full disk) is reported. [`Stdout::finish`] turns the command's
//!   outcome and what happened to its output into the result (see [`settle`]).
//! * [`warn`] writes a line on standard error and ignores errors: a full or closed standard
//!   error never stops a command.
//! * [`ReportPlan`] checks every report path before the work starts (a directory that
//!   exists, a file that can be written, not a directory, not one of the command's inputs,
//!   not another report of the same run), and writes the reports afterwards, each apart:
//!   one that cannot be written does not stop the others.
//!
//! The exit code that results:
//!
//! | the command found | its output | exit code |
//! |---|---|---|
//! | nothing wrong | all written, or standard output closed by its reader | 0 |
//! | nothing wrong | a report or standard output could not be written | 2 |
//! | problems (a failing scenario, a bad frame) | whatever happened to it | 1 |

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{CliError, Outcome};

/// Writes one line on standard error, ignoring errors.
pub fn warn(line: impl std::fmt::Display) {
    let mut e = io::stderr().lock();
    let _ = writeln!(e, "{line}");
}

/// Makes sure file descriptors 0, 1 and 2 are open, on `/dev/null` when they were closed,
/// so that no file the command opens takes the place of a standard stream (a report written
/// where the table goes, a pipe to a child read as standard input).
pub fn guard_standard_streams() {
    use std::os::fd::{AsRawFd, IntoRawFd};
    for _ in 0..3 {
        let Ok(f) = OpenOptions::new().read(true).write(true).open("/dev/null") else { return };
        if f.as_raw_fd() > 2 {
            return;
        }
        // It took the place of a closed standard stream: keep it open there.
        let _ = f.into_raw_fd();
    }
}

/// Standard output, buffered, that never panics: the first error is kept, and every write
/// after it is dropped. See the module documentation.
#[derive(Debug)]
pub struct Stdout {
    inner: BufWriter<StdoutLock<'static>>,
    error: Option<io::Error>,
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout::new()
    }
}

impl Stdout {
    /// Standard output, locked for the command.
    pub fn new() -> Stdout {
        Stdout { inner: BufWriter::with_capacity(64 << 10, io::stdout().lock()), error: None }
    }

    /// Whether writing failed (the reader went away, or the disk is full): a command that
    /// only produces output may stop.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn keep(&mut self, e: io::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Flushes, and returns the first error, if any.
    pub fn close(mut self) -> Option<io::Error> {
        if self.error.is_none() {
            if let Err(e) = self.inner.flush() {
                self.keep(e);
            }
        }
        self.error.take()
    }

    /// Flushes and settles the command's result: see [`settle`].
    pub fn finish(self, outcome: Outcome) -> Result<Outcome, CliError> {
        let error = self.close();
        settle(outcome, error.map(Failure::Stdout))
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(buf.len());
        }
        match self.inner.write_all(buf) {
            Ok(()) => Ok(buf.len()),
            Err(e) => {
                self.keep(e);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.error.is_none() {
            if let Err(e) = self.inner.flush() {
                self.keep(e);
            }
        }
        Ok(())
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if self.error.is_none() {
            let _ = self.inner.flush();
        }
    }
}

/// What went wrong with a command's output.
#[derive(Debug)]
pub enum Failure {
    /// Writing standard output failed.
    Stdout(io::Error),
    /// A report could not be written; the error was already shown.
    Report,
}

/// The result of a command that ran to the end with `outcome` and whose output met
/// `failures`:
///
/// * a closed standard output (`EPIPE`) changes nothing and says nothing;
/// * any other error writing standard output is said on standard error;
/// * a failing verdict stays a failure (exit code 1);
/// * a clean verdict whose output could not all be written is not a success: exit code 2.
pub fn settle(
    outcome: Outcome,
    failures: impl IntoIterator<Item = Failure>,
) -> Result<Outcome, CliError> {
    let mut failed = false;
    for f in failures {
        match f {
            Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
            Failure::Stdout(e) => {
                warn(format_args!("error: cannot write standard output: {e}"));
                failed = true;
            }
            Failure::Report => failed = true,
        }
    }
    match outcome {
        Outcome::Clean if failed => Err(CliError::Reported),
        _ => Ok(outcome),
    }
}

/// Where a path leads: the file it names, by device and inode when it exists, and its
/// canonical path (the parent's, and the name, when it does not).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    inode: Option<(u64, u64)>,
    canonical: Option<PathBuf>,
}

fn identity(p: &Path) -> Identity {
    let inode = fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let canonical = fs::canonicalize(p).ok().or_else(|| {
        let name = p.file_name()?;
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(fs::canonicalize(parent).ok()?.join(name))
    });
    Identity { inode, canonical }
}

impl Identity {
    fn same(&self, other: &Identity) -> bool {
        matches!((self.inode, other.inode), (Some(a), Some(b)) if a == b)
            || matches!((&self.canonical, &other.canonical), (Some(a), Some(b)) if a == b)
    }
}

/// A report file to write once the work is done, checked before it starts.
#[derive(Debug)]
struct Planned {
    /// The option that names it, for messages (`--json`).
    flag: String,
    path: PathBuf,
}

/// The report files of a command: checked when planned, written at the end. See the
/// module documentation.
#[derive(Debug, Default)]
pub struct ReportPlan {
    reports: Vec<Planned>,
}

/// Why `path` cannot take a report, if it cannot.
fn unwritable(path: &Path) -> Option<String> {
    let text = path.as_os_str();
    if text.is_empty() {
        return Some("an empty path".into());
    }
    if text.as_encoded_bytes().ends_with(b"/") {
        return Some("names a directory (it ends with `/`)".into());
    }
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => return Some("is a directory".into()),
        Ok(_) => {
            // Opened for writing without truncating: the file is left as it is.
            return match OpenOptions::new().write(true).open(path) {
                Ok(_) => None,
                Err(e) => Some(format!("cannot be written: {e}")),
            };
        }
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Some(format!("cannot be reached: {e}"));
        }
        Err(_) => {}
    }
    if fs::symlink_metadata(path).is_ok() {
        return Some("is a symbolic link to nowhere".into());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Some(format!("{} is not a directory", dir.display())),
        Err(e) => return Some(format!("its directory {} cannot be used: {e}", dir.display())),
    }
    // Whether a file can be made there: make one and remove it.
    let probe = sibling(path, "probe");
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
            None
        }
        Err(e) => Some(format!("cannot be created in {}: {e}", dir.display())),
    }
}

/// A hidden name beside `path`, unique to this process: `.NAME.openrdma-WHAT-PID`.
pub fn sibling(path: &Path, what: &str) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or(path.as_os_str()));
    name.push(format!(".openrdma-{what}-{}", std::process::id()));
    path.with_file_name(name)
}

impl ReportPlan {
    /// Checks the report paths `reports` (option, path) against each other and against the
    /// command's `inputs` (what, path): every problem is named, and any problem refuses the
    /// whole command (exit code 2) before it does any work.
    pub fn new(
        reports: &[(&str, Option<&Path>)],
        inputs: &[(&str, &Path)],
    ) -> Result<ReportPlan, CliError> {
        let mut problems = Vec::new();
        let mut planned: Vec<(Planned, Identity)> = Vec::new();
        let inputs: Vec<(&str, &Path, Identity)> =
            inputs.iter().map(|(what, p)| (*what, *p, identity(p))).collect();
        for (flag, path) in reports {
            let Some(path) = path else { continue };
            let id = identity(path);
            let mut bad = unwritable(path);
            if bad.is_none() {
                if let Some((what, p, _)) = inputs.iter().find(|(_, _, i)| i.same(&id)) {
                    bad = Some(format!(
                        "is {what} {} of this command; a report does not replace its input",
                        p.display()
                    ));
                }
            }
            if bad.is_none() {
                if let Some((other, _)) = planned.iter().find(|(_, i)| i.same(&id)) {
                    bad = Some(format!(
                        "is also the file of {}; give each report its own",
                        other.flag
                    ));
                }
            }
            match bad {
                Some(why) => problems.push(format!("{flag} {}: {why}", path.display())),
                None => {
                    planned.push((Planned { flag: flag.to_string(), path: path.to_path_buf() }, id))
                }
            }
        }
        if !problems.is_empty() {
            return Err(CliError::Many(problems));
        }
        Ok(ReportPlan { reports: planned.into_iter().map(|(p, _)| p).collect() })
    }

    /// Writes the report of `flag`, if one was asked for, with the bytes `contents` makes.
    /// A failure is shown on standard error and returned as [`Failure::Report`]; the other
    /// reports are still written.
    pub fn write(&self, flag: &str, contents: impl FnOnce() -> Vec<u8>) -> Option<Failure> {
        let p = self.reports.iter().find(|r| r.flag == flag)?;
        match write_file(&p.path, &contents()) {
            Ok(()) => None,
            Err(e) => {
                warn(format_args!(
                    "error: {} {}: cannot write the report: {e}",
                    p.flag,
                    p.path.display()
                ));
                Some(Failure::Report)
            }
        }
    }
}

/// Writes `bytes` to `path` whole or not at all: into a new file beside it, renamed over
/// it. A path that leads to something other than a regular file (a device such as
/// `/dev/null`, a pipe) is written in place; a symbolic link is followed, and its target
/// replaced.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    match fs::metadata(&target) {
        Ok(m) if !m.is_file() => {
            let mut f = OpenOptions::new().write(true).truncate(true).open(&target)?;
            f.write_all(bytes)?;
            return f.flush();
        }
        _ => {}
    }
    let tmp = sibling(&target, "tmp");
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Checks that `dir` can take output files (it exists as a directory that can be written,
/// or can be made): used for directories of plots and of regenerated scenarios.
pub fn check_output_dir(flag: &str, dir: &Path) -> Result<(), CliError> {
    let bad = |why: String| CliError::Usage(format!("{flag} {}: {why}", dir.display()));
    if dir.as_os_str().is_empty() {
        return Err(bad("an empty path".into()));
    }
    // The deepest part of the path that exists must be a directory.
    let mut existing = dir;
    loop {
        match fs::metadata(existing) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => return Err(bad(format!("{} is not a directory", existing.display()))),
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(bad(format!("{} cannot be used: {e}", existing.display())));
            }
            Err(_) => {}
        }
        if fs::symlink_metadata(existing).is_ok() {
            return Err(bad(format!("{} is a symbolic link to nowhere", existing.display())));
        }
        existing = match existing.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
    }
    let probe = sibling(&existing.join("x"), "probe");
    match File::create_new(&probe) {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(bad(format!("files cannot be made in {}: {e}", existing.display()))),
    }
}
