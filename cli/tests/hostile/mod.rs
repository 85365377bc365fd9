//! The hostile catalogue: the `openrdma` binary used as a careless or hostile user would,
//! one row per case. A row gives the exact arguments, the files it makes, where standard
//! input comes from and standard output goes, and what it expects: the exit code, and
//! fragments of standard output and standard error. Rows run one after the other in a
//! scratch directory of their own; every row that fails is reported, not only the first.
//!
//! Adding a row: `row("name", &["cmd", "--opt", "{dir}/file"])`, then the files it needs
//! (`.file("x.toml", "...")`), its input and output (`.stdin(...)`, `.stdout(Sink::Full)`),
//! what it expects (`.code(2).err("is a directory")`) and, if the row needs a tool that
//! not every machine has, `.needs("tshark")`: such rows run only in the ignored test of
//! their file, which `.ci/run` runs with the tool installed. `{dir}` in an argument or a
//! file's text is the row's scratch directory; `{bin}` the `openrdma` binary.

#![allow(dead_code, unreachable_pub)] // each catalogue uses a different subset

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a row's standard output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// A pipe, read to the end.
    Capture,
    /// A pipe whose reader has already gone: every write fails with `EPIPE`.
    ClosedPipe,
    /// `/dev/full`: every write fails with `ENOSPC`.
    Full,
}

/// What a row feeds on standard input.
#[derive(Debug, Clone)]
pub enum Source {
    /// Nothing (`/dev/null`).
    Null,
    /// These bytes, then the end.
    Bytes(Vec<u8>),
}

/// A check of the scratch directory after the row ran.
pub type After = fn(&Path) -> Result<(), String>;

/// One case of the catalogue.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub args: Vec<String>,
    pub files: Vec<(String, Vec<u8>)>,
    pub links: Vec<(String, String)>,
    pub dirs: Vec<String>,
    pub stdin: Source,
    pub stdout: Sink,
    pub stderr_full: bool,
    pub code: Option<i32>,
    pub out: Vec<String>,
    pub err: Vec<String>,
    pub not_err: Vec<String>,
    pub not_out: Vec<String>,
    pub after: Option<After>,
    pub needs: Option<&'static str>,
    /// Send this signal after this long, then expect the process to die of it.
    pub signal: Option<(&'static str, Duration)>,
    /// The process must die of this signal.
    pub dies: Option<i32>,
    pub limit: Duration,
}

/// A row running `openrdma ARGS`.
pub fn row(name: &str, args: &[&str]) -> Row {
    Row {
        name: name.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        files: Vec::new(),
        links: Vec::new(),
        dirs: Vec::new(),
        stdin: Source::Null,
        stdout: Sink::Capture,
        stderr_full: false,
        code: None,
        out: Vec::new(),
        err: Vec::new(),
        not_err: Vec::new(),
        not_out: Vec::new(),
        after: None,
        needs: None,
        signal: None,
        dies: None,
        limit: Duration::from_secs(60),
    }
}

impl Row {
    /// A file to make in the scratch directory before the row runs.
    pub fn file(mut self, name: &str, contents: impl AsRef<[u8]>) -> Row {
        self.files.push((name.to_string(), contents.as_ref().to_vec()));
        self
    }
    /// A copy of a file of the repository.
    pub fn copy(self, name: &str, from_repo: &str) -> Row {
        let bytes = fs::read(repo(from_repo)).unwrap_or_else(|e| panic!("{from_repo}: {e}"));
        self.file(name, bytes)
    }
    /// A symbolic link `name` → `target` in the scratch directory.
    pub fn link(mut self, name: &str, target: &str) -> Row {
        self.links.push((name.to_string(), target.to_string()));
        self
    }
    /// A directory to make.
    pub fn dir(mut self, name: &str) -> Row {
        self.dirs.push(name.to_string());
        self
    }
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Row {
        self.stdin = Source::Bytes(bytes.as_ref().to_vec());
        self
    }
    pub fn stdout(mut self, sink: Sink) -> Row {
        self.stdout = sink;
        self
    }
    /// Standard error on `/dev/full` too.
    pub fn stderr_full(mut self) -> Row {
        self.stderr_full = true;
        self
    }
    pub fn code(mut self, code: i32) -> Row {
        self.code = Some(code);
        self
    }
    /// Standard output holds this.
    pub fn out(mut self, fragment: &str) -> Row {
        self.out.push(fragment.to_string());
        self
    }
    /// Standard error holds this.
    pub fn err(mut self, fragment: &str) -> Row {
        self.err.push(fragment.to_string());
        self
    }
    /// Standard error does not hold this.
    pub fn not_err(mut self, fragment: &str) -> Row {
        self.not_err.push(fragment.to_string());
        self
    }
    /// Standard output does not hold this.
    pub fn not_out(mut self, fragment: &str) -> Row {
        self.not_out.push(fragment.to_string());
        self
    }
    pub fn after(mut self, check: After) -> Row {
        self.after = Some(check);
        self
    }
    pub fn needs(mut self, tool: &'static str) -> Row {
        self.needs = Some(tool);
        self
    }
    /// Sends signal `name` (`TERM`) after `after`; the process must die of it.
    pub fn signal(mut self, name: &'static str, after: Duration) -> Row {
        self.signal = Some((name, after));
        self.dies = Some(match name {
            "HUP" => 1,
            "INT" => 2,
            "KILL" => 9,
            _ => 15,
        });
        self
    }
}

/// A path of the repository.
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn fill(s: &str, dir: &Path) -> String {
    s.replace("{dir}", &dir.to_string_lossy())
        .replace("{bin}", env!("CARGO_BIN_EXE_openrdma"))
        .replace("{repo}", &repo("").to_string_lossy())
}

/// What a row's run gave.
#[derive(Debug)]
pub struct Ran {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

fn wait(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + limit;
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs one row in `dir`.
pub fn run(r: &Row, dir: &Path) -> Result<Ran, String> {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    for d in &r.dirs {
        fs::create_dir_all(dir.join(d)).map_err(|e| e.to_string())?;
    }
    for (name, bytes) in &r.files {
        let text = String::from_utf8(bytes.clone())
            .map(|t| fill(&t, dir).into_bytes())
            .unwrap_or_else(|_| bytes.clone());
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        fs::write(&p, text).map_err(|e| format!("{name}: {e}"))?;
        if name.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755))
                .map_err(|e| e.to_string())?;
        }
    }
    for (name, target) in &r.links {
        std::os::unix::fs::symlink(fill(target, dir), dir.join(name)).map_err(|e| e.to_string())?;
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_openrdma"));
    cmd.args(r.args.iter().map(|a| fill(a, dir))).current_dir(dir);
    cmd.stdin(match r.stdin {
        Source::Null => Stdio::null(),
        Source::Bytes(_) => Stdio::piped(),
    });
    let full = || fs::OpenOptions::new().write(true).open("/dev/full").map(Stdio::from);
    cmd.stdout(match r.stdout {
        Sink::Full => full().map_err(|e| e.to_string())?,
        _ => Stdio::piped(),
    });
    cmd.stderr(if r.stderr_full { full().map_err(|e| e.to_string())? } else { Stdio::piped() });
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    if r.stdout == Sink::ClosedPipe {
        drop(child.stdout.take());
    }
    if let (Source::Bytes(b), Some(mut w)) = (&r.stdin, child.stdin.take()) {
        let b = b.clone();
        std::thread::spawn(move || {
            let _ = w.write_all(&b);
        });
    }
    let readers: Vec<_> = [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .map(|s| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut s) = s {
                let _ = s.read_to_end(&mut v);
            }
            v
        })
    })
    .collect();
    if let Some((name, after)) = r.signal {
        std::thread::sleep(after);
        let _ = Command::new("kill").arg(format!("-{name}")).arg(child.id().to_string()).status();
    }
    let status = wait(&mut child, r.limit).ok_or("did not end in time")?;
    let mut texts = readers
        .into_iter()
        .map(|h| String::from_utf8_lossy(&h.join().unwrap_or_default()).into_owned());
    let stdout = texts.next().unwrap_or_default();
    let stderr = texts.next().unwrap_or_default();
    use std::os::unix::process::ExitStatusExt;
    Ok(Ran { code: status.code(), signal: status.signal(), stdout, stderr })
}

/// Checks one row; the problems found, empty when it behaves.
pub fn check(r: &Row, dir: &Path) -> Vec<String> {
    let ran = match run(r, dir) {
        Ok(ran) => ran,
        Err(e) => return vec![format!("cannot run: {e}")],
    };
    let mut bad = Vec::new();
    if ran.code == Some(101) || ran.stderr.contains("panicked") {
        bad.push("panicked".to_string());
    }
    if let Some(c) = r.code {
        if ran.code != Some(c) {
            bad.push(format!("exit code {:?} (signal {:?}), expected {c}", ran.code, ran.signal));
        }
    }
    if let Some(s) = r.dies {
        if ran.signal != Some(s) {
            bad.push(format!(
                "ended with {:?} / signal {:?}, expected signal {s}",
                ran.code, ran.signal
            ));
        }
    }
    for f in &r.out {
        if !ran.stdout.contains(&fill(f, dir)) {
            bad.push(format!("standard output lacks {f:?}"));
        }
    }
    for f in &r.err {
        if !ran.stderr.contains(&fill(f, dir)) {
            bad.push(format!("standard error lacks {f:?}"));
        }
    }
    for f in &r.not_err {
        if ran.stderr.contains(&fill(f, dir)) {
            bad.push(format!("standard error holds {f:?}"));
        }
    }
    for f in &r.not_out {
        if ran.stdout.contains(&fill(f, dir)) {
            bad.push(format!("standard output holds {f:?}"));
        }
    }
    if let Some(after) = r.after {
        if let Err(e) = after(dir) {
            bad.push(e);
        }
    }
    if !bad.is_empty() {
        let cut = |s: &str| s.chars().take(1500).collect::<String>();
        bad.push(format!("stdout: {}\nstderr: {}", cut(&ran.stdout), cut(&ran.stderr)));
    }
    bad
}

/// Whether `tool` can be run.
fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs the rows of a catalogue: those that need no tool, or (`with_tools`) those that do.
/// Panics naming every row that misbehaved.
pub fn run_catalogue(name: &str, rows: &[Row], with_tools: bool) {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}"));
    let mut names = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for (i, r) in rows.iter().enumerate() {
        assert!(names.insert(r.name.clone()), "two rows are named {:?}", r.name);
        match (r.needs, with_tools) {
            (None, false) => {}
            (Some(tool), true) if have(tool) => {}
            (Some(tool), true) => {
                failures.push(format!("{}: needs {tool}, which is not installed", r.name));
                continue;
            }
            _ => continue,
        }
        ran += 1;
        let bad = check(r, &base.join(format!("{i:03}")));
        if !bad.is_empty() {
            failures.push(format!("{} ({:?}):\n  {}", r.name, r.args, bad.join("\n  ")));
        }
    }
    let _ = fs::remove_dir_all(&base);
    assert!(
        failures.is_empty(),
        "{} of {ran} rows failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Whether the process whose ID file `name` (in `dir`) holds has ended (gone, or a zombie).
pub fn ended(dir: &Path, name: &str) -> Result<(), String> {
    let pid = fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
    let pid = pid.trim();
    // Give a killed process a moment to go.
    for _ in 0..100 {
        match fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return Ok(()),
            Ok(stat)
                if stat.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')) =>
            {
                return Ok(());
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let _ = Command::new("kill").args(["-KILL", pid]).status();
    Err(format!("process {pid} ({name}) is still running"))
}
