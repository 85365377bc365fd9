//! The `process` adapter: a device that runs as another program, driven over the adapter
//! protocol ([`crate::protocol`], `spec/conformance.md`, `CONF-ADP-*`).
//!
//! [`ProcessDevice::spawn`] starts the command with piped standard input, output and error,
//! and says hello. Three threads serve the pipes, so that the runner itself never blocks on
//! the child: a writer takes lines to the child's standard input, a reader decodes the
//! lines of its standard output and hands them over a channel, and a third passes its
//! standard error through (and keeps the last lines of it for error reports). Every wait
//! for an answer has a deadline ([`ProcessOptions::timeout`], 30 s by default):
//!
//! | what happens | error |
//! |---|---|
//! | no answer in time | [`DeviceError::Timeout`], naming the message waited for |
//! | the child exits or closes its output, between lines or inside one, or exits while a process it started holds its output | [`DeviceError::Failed`], with its exit status and the last lines of its standard error |
//! | a line that is not a message, or not the message expected, or the wrong `seq`, or more outputs than a scenario may hold | [`DeviceError::Protocol`], naming the line and the answer waited for |
//! | a message the runner did not ask for, read without waiting when it reads an answer or before it next speaks, or a batch's answer read as the next batch's (CONF-ADP-023) | [`DeviceError::Protocol`], naming the message answered twice |
//! | `{"type":"error"}` | [`DeviceError::Failed`] with the device's message |
//! | `{"type":"unsupported"}` | [`DeviceError::Unsupported`] |
//!
//! After a timeout or a protocol error the conversation cannot be trusted: the child is
//! killed, and the next [`Device::start`] starts the command again, so that one scenario
//! that hangs a device does not fail every scenario after it. Dropping the device closes the
//! child's standard input, gives it a moment to exit, and kills it if it has not.
//!
//! The child runs in a process group of its own, and what is killed is the group: a device
//! command that is a script, or `make`, which starts the simulator as its own child, ends
//! whole. Every group still running is listed, so that a runner ended by a signal can end
//! them first ([`end_all_devices`]).
//!
//! What the child writes costs the runner bounded memory: a line of its output is at most
//! [`MAX_LINE_LEN`] bytes and is decoded at a bounded cost ([`crate::protocol::bounded`]);
//! the reader reads ahead at most a few lines; a line of its standard error is kept to its
//! first 1000 characters, however long it is; and a scenario holds at most
//! [`ProcessOptions::max_outputs`] outputs ([`MAX_SCENARIO_OUTPUTS`] by default), past which
//! the scenario ends in a protocol error naming the count and the limit.

use std::collections::{BTreeSet, VecDeque};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::thread;
use std::time::{Duration, Instant};

use openrdma_device::{
    Capability, Device, DeviceError, Manifest, TimedInput, TimedOutput, Timestamp,
};

use crate::protocol::{
    Advance, DeviceInfo, Hello, LineRead, MAX_LINE_LEN, MAX_SCENARIO_OUTPUTS, Message,
    ProtocolError, WireInput, check_times, count_outputs, decode_bytes, encode_line, read_line,
};

/// How long the runner waits for an answer unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a child that was asked to stop (its standard input closed) may take to exit
/// before it is killed.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// How the process adapter runs its child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOptions {
    /// The longest wait for any answer.
    pub timeout: Duration,
    /// Copy the child's standard error to the runner's standard error as it comes.
    pub pass_stderr: bool,
    /// How many of the last lines of the child's standard error an error report shows.
    pub stderr_tail: usize,
    /// The most outputs the child may give in one scenario (`CONF-ADP-019`).
    pub max_outputs: u64,
}

impl Default for ProcessOptions {
    fn default() -> Self {
        ProcessOptions {
            timeout: DEFAULT_TIMEOUT,
            pass_stderr: true,
            stderr_tail: 20,
            max_outputs: MAX_SCENARIO_OUTPUTS,
        }
    }
}

/// The process groups of the devices running, by their leader's process ID; `None` once
/// [`end_all_devices`] ran, after which no device starts.
static GROUPS: Mutex<Option<Vec<u32>>> = Mutex::new(Some(Vec::new()));

/// Lists a child's group; false when the runner is ending, and the child must not run.
fn track(pid: u32) -> bool {
    match GROUPS.lock() {
        Ok(mut g) => match g.as_mut() {
            Some(list) => {
                list.push(pid);
                true
            }
            None => false,
        },
        Err(_) => true,
    }
}

fn untrack(pid: u32) {
    if let Ok(mut g) = GROUPS.lock() {
        if let Some(list) = g.as_mut() {
            list.retain(|&p| p != pid);
        }
    }
}

fn signal_group(pid: u32, signal: Signal) {
    if let Ok(pid) = i32::try_from(pid) {
        // An error says the group is gone already (ESRCH), which is what is asked for.
        let _ = killpg(Pid::from_raw(pid), signal);
    }
}

/// Ends the process group of every device running: asks them to stop (SIGTERM), gives them
/// a moment, then kills what is left (SIGKILL); no device starts after it. For a runner
/// about to exit on a signal, which would otherwise leave its devices running.
pub fn end_all_devices() {
    let groups: Vec<u32> = GROUPS.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
    if groups.is_empty() {
        return;
    }
    for &g in &groups {
        signal_group(g, Signal::SIGTERM);
    }
    thread::sleep(Duration::from_millis(200));
    for &g in &groups {
        signal_group(g, Signal::SIGKILL);
        // Reap the leader, unless the thread that runs it already did.
        if let Ok(pid) = i32::try_from(g) {
            // An error says another thread reaped it first (ECHILD).
            let _ = nix::sys::wait::waitpid(Pid::from_raw(pid), None);
        }
    }
}

/// Kills the child's process group and reaps the child.
fn end(child: &mut Child) {
    let pid = child.id();
    signal_group(pid, Signal::SIGKILL);
    // The group's SIGKILL may have ended the child already, and an error of `kill` says
    // just that; `wait` then reaps it, or says it was reaped.
    let _ = child.kill();
    let _ = child.wait();
    untrack(pid);
}

/// What the reader thread hands over.
#[derive(Debug)]
enum Incoming {
    /// A line (1-based number) and what it decodes to.
    Line(usize, Result<Message, ProtocolError>),
    /// The child closed its standard output.
    Eof,
    /// The child closed its standard output in the middle of a line, after this many bytes
    /// of it.
    Cut(usize),
    /// Reading failed.
    Broken(String),
    /// The child exited, and its standard output is still open: a process it started
    /// holds it. Made by [`receive`], never by the reader.
    Orphaned,
}

/// A running child.
#[derive(Debug)]
struct Running {
    child: Child,
    /// Lines to the writer thread; dropping it closes the child's standard input.
    to_child: Option<Sender<Vec<u8>>>,
    from_child: Receiver<Incoming>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once the standard-error thread has read everything.
    stderr_done: Receiver<()>,
    /// What the reader handed over while the runner only looked for an answer too many:
    /// the next wait reads it first.
    held: Option<Incoming>,
}

/// A device that runs as another program. See the module documentation.
#[derive(Debug)]
pub struct ProcessDevice {
    command: Vec<String>,
    options: ProcessOptions,
    running: Option<Running>,
    info: DeviceInfo,
    /// The seq of the last batch sent in this scenario.
    seq: u64,
    /// The `until` of the last batch.
    now: Timestamp,
    /// The outputs the device gave in this scenario.
    given: u64,
    /// Whether a scenario was started and may be advanced.
    started: bool,
    /// The line number of the device's last answer and what the runner waited for then,
    /// so that an error found in the answer says where it is.
    answered: Option<(usize, String)>,
    /// The scenario started last.
    scenario: String,
    /// The scenario that ended last with `finished`, until the next scenario starts: a
    /// second `finished` read then is its answer given twice.
    finished: Option<String>,
    /// The failure of an earlier scenario found since, with its name.
    late: Option<(String, DeviceError)>,
}

impl ProcessDevice {
    /// Starts `command` (the program, then its arguments) and says hello, waiting at most
    /// `timeout` for every answer.
    pub fn spawn(command: &[String], timeout: Duration) -> Result<ProcessDevice, DeviceError> {
        ProcessDevice::spawn_with(command, ProcessOptions { timeout, ..ProcessOptions::default() })
    }

    /// Starts `command` with these options and says hello.
    pub fn spawn_with(
        command: &[String],
        options: ProcessOptions,
    ) -> Result<ProcessDevice, DeviceError> {
        let mut dev = ProcessDevice {
            command: command.to_vec(),
            options,
            running: None,
            info: DeviceInfo {
                name: String::new(),
                capabilities: BTreeSet::new(),
                unknown_capabilities: Vec::new(),
                frame_fields: true,
            },
            seq: 0,
            now: Timestamp::ZERO,
            given: 0,
            started: false,
            answered: None,
            scenario: String::new(),
            finished: None,
            late: None,
        };
        dev.launch()?;
        Ok(dev)
    }

    /// What the device said of itself in its hello.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The child's process ID, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.child.id())
    }

    /// Closes the child's standard input and waits for it to exit (at most the timeout),
    /// killing it if it does not; returns its exit status.
    pub fn close(mut self) -> Result<ExitStatus, DeviceError> {
        let Some(mut r) = self.running.take() else {
            return Err(DeviceError::Failed("the device is not running".into()));
        };
        r.to_child = None;
        match wait_exit(&mut r.child, self.options.timeout) {
            Some(status) => {
                // What the device left running in its group ends with it.
                end(&mut r.child);
                Ok(status)
            }
            None => {
                end(&mut r.child);
                Err(DeviceError::Timeout {
                    what: "the device to exit after its standard input closed".into(),
                    after_ms: millis(self.options.timeout),
                })
            }
        }
    }

    /// Starts the command and says hello (`CONF-ADP-002`).
    fn launch(&mut self) -> Result<(), DeviceError> {
        self.kill();
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| DeviceError::Failed("no device command given".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| DeviceError::Failed(format!("cannot start `{program}`: {e}")))?;
        if !track(child.id()) {
            signal_group(child.id(), Signal::SIGKILL);
            // Reaps the child just killed; the error returned says why it never ran.
            let _ = child.wait();
            return Err(DeviceError::Failed("the runner is ending; no device starts".into()));
        }
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            end(&mut child);
            return Err(DeviceError::Failed("the child's pipes are missing".into()));
        };
        let to_child = spawn_writer(stdin);
        let from_child = spawn_reader(BufReader::with_capacity(1 << 20, stdout));
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = spawn_stderr(BufReader::new(stderr), stderr_tail.clone(), &self.options);
        self.running = Some(Running {
            child,
            to_child: Some(to_child),
            from_child,
            stderr_tail,
            stderr_done,
            held: None,
        });
        self.started = false;
        let hello = self.call(&Message::Hello(Hello::runner()), "hello")?;
        let info = match hello {
            Message::Hello(h) => {
                h.check_version().and_then(|()| h.device_info()).map_err(|e| self.protocol(e))?
            }
            Message::Error { message } => {
                self.kill();
                return Err(DeviceError::Protocol(format!(
                    "the device refused the handshake for adapter protocol version {}: {message}",
                    crate::protocol::VERSION
                )));
            }
            other => return Err(self.unexpected("hello", &other)),
        };
        self.info = info;
        Ok(())
    }

    /// Kills the child, if it runs.
    fn kill(&mut self) {
        if let Some(mut r) = self.running.take() {
            r.to_child = None;
            end(&mut r.child);
        }
    }

    /// A protocol error: the conversation is over.
    fn protocol(&mut self, e: ProtocolError) -> DeviceError {
        self.kill();
        match self.answered.take() {
            Some((n, what)) => DeviceError::Protocol(format!(
                "line {n} of the device's output, waiting for {what}: {e}"
            )),
            None => DeviceError::Protocol(e.to_string()),
        }
    }

    fn unexpected(&mut self, expected: &str, got: &Message) -> DeviceError {
        self.protocol(ProtocolError::Unexpected {
            expected: expected.into(),
            got: got.type_name().into(),
        })
    }

    /// A protocol error for a second answer, `got`, to the message `answered` (CONF-ADP-005):
    /// the conversation is over, and the child is killed.
    fn twice(&mut self, answered: &str, got: &str) -> DeviceError {
        self.protocol(ProtocolError::Twice { answered: answered.into(), got: got.into() })
    }

    /// An answer too many that the device has already written, without waiting for one:
    /// a message read now answers `asked` a second time (CONF-ADP-005, CONF-ADP-023). What
    /// else the reader handed over (the end of the output, a line that does not decode) is
    /// kept for the next wait, which reports it as it comes.
    fn extra(&mut self, asked: &str) -> Result<(), DeviceError> {
        let Some(r) = self.running.as_mut() else { return Ok(()) };
        if r.held.is_some() {
            return Ok(());
        }
        match r.from_child.try_recv() {
            Ok(Incoming::Line(n, Ok(m))) => {
                self.answered = Some((n, "no answer".to_string()));
                Err(self.twice(asked, m.type_name()))
            }
            Ok(other) => {
                r.held = Some(other);
                Ok(())
            }
            Err(_) => Ok(()),
        }
    }

    /// The message of this scenario the device answered last: its `start`, or its last batch.
    fn last_asked(&self) -> String {
        match self.seq {
            0 => format!("start of scenario {:?}", self.scenario),
            seq => format!("advance seq {seq}"),
        }
    }

    /// Sends `m` and waits for one answer; `what` names the answer for errors.
    fn call(&mut self, m: &Message, what: &str) -> Result<Message, DeviceError> {
        let timeout = self.options.timeout;
        let line = encode_line(m).map_err(|e| DeviceError::Failed(e.to_string()))?;
        let r = self
            .running
            .as_mut()
            .ok_or_else(|| DeviceError::Failed("the device is not running".into()))?;
        // A send fails when the writer stopped (the child closed its input); the reader
        // then reports the end of the child's output, which says more.
        if let Some(tx) = &r.to_child {
            let _ = tx.send(line);
        }
        match receive(r, timeout, EXIT_GRACE) {
            Ok(Incoming::Line(n, Ok(answer))) => {
                self.answered = Some((n, what.to_string()));
                Ok(answer)
            }
            Ok(Incoming::Line(n, Err(e))) => {
                let e = DeviceError::Protocol(format!(
                    "line {n} of the device's output, waiting for {what}: {e}"
                ));
                self.kill();
                Err(e)
            }
            Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.exited(what, None, false))
            }
            Ok(Incoming::Cut(len)) => Err(self.exited(what, Some(len), false)),
            Ok(Incoming::Orphaned) => Err(self.exited(what, None, true)),
            Ok(Incoming::Broken(e)) => {
                self.kill();
                Err(DeviceError::Failed(format!(
                    "cannot read the device's output, waiting for {what}: {e}"
                )))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(DeviceError::Timeout { what: what.to_string(), after_ms: millis(timeout) })
            }
        }
    }

    /// The error for a child that closed its output (`cut`: in the middle of a line of
    /// that many bytes): its exit status, if it exits in a moment, and the last lines of
    /// its standard error. A line cut by the end of the output is the end of a device that
    /// stopped, not a message: a crash, as an exit between two lines is. `held`: the child
    /// exited with its output still open, held by a process it started.
    fn exited(&mut self, what: &str, cut: Option<usize>, held: bool) -> DeviceError {
        let Some(mut r) = self.running.take() else {
            return DeviceError::Failed("the device is not running".into());
        };
        r.to_child = None;
        let status = wait_exit(&mut r.child, exit_grace(self.options.timeout));
        let how = match status {
            Some(s) => format!("the device exited ({s})"),
            None => "the device closed its standard output (and was killed)".to_string(),
        };
        end(&mut r.child);
        // Let the standard-error thread read what the child wrote last.
        // Waits at most EXIT_GRACE: either outcome leaves the tail as complete as it gets.
        let _ = r.stderr_done.recv_timeout(EXIT_GRACE);
        let tail: Vec<String> =
            r.stderr_tail.lock().map(|t| t.iter().cloned().collect()).unwrap_or_default();
        let mut msg = format!("{how} while the runner waited for {what}");
        if held {
            msg.push_str(
                ", a process it started still holding its standard output (ended with it)",
            );
        }
        if let Some(len) = cut {
            msg.push_str(&format!(
                ", its output ending in {len} bytes of a line without its newline"
            ));
        }
        if tail.is_empty() {
            msg.push_str("; its standard error is empty");
        } else {
            msg.push_str("; the last lines of its standard error:");
            for l in tail {
                msg.push_str("\n  ");
                msg.push_str(&l);
            }
        }
        DeviceError::Failed(msg)
    }
}

impl Device for ProcessDevice {
    fn name(&self) -> String {
        self.info.name.clone()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.info.capabilities.clone()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        if self.running.is_none() {
            self.launch()?;
        }
        self.started = false;
        self.seq = 0;
        self.now = Timestamp::ZERO;
        self.given = 0;
        self.scenario.clone_from(&manifest.name);
        let m = Message::Start { manifest: Box::new(manifest.clone()) };
        let what = format!("the answer to start {:?} (started)", manifest.name);
        let answer = self.call(&m, &what)?;
        let finished = self.finished.take();
        match answer {
            Message::Started => {
                self.started = true;
                Ok(())
            }
            // The last scenario's `finish` answered twice (CONF-ADP-005): that scenario
            // fails, and this one starts on a fresh device (CONF-ADP-020).
            Message::Finished if finished.is_some() => {
                let name = finished.unwrap_or_default();
                let e = self.twice(&format!("finish of scenario {name:?}"), "finished");
                self.late = Some((name, e));
                self.launch()?;
                self.start(manifest)
            }
            // The hello answered twice: this scenario fails (CONF-ADP-020).
            Message::Hello(_) => Err(self.twice("hello", "hello")),
            Message::Unsupported { reason } => Err(DeviceError::Unsupported(reason)),
            Message::Error { message } => Err(DeviceError::Failed(message)),
            other => Err(self.unexpected("started, unsupported or error", &other)),
        }
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        if !self.started {
            return Err(DeviceError::Failed(
                "advance without a started scenario (an earlier error ended it)".into(),
            ));
        }
        // An answer too many to the last message fails here, before the next is sent.
        if let Err(e) = self.extra(&self.last_asked()) {
            self.started = false;
            return Err(e);
        }
        self.seq += 1;
        let seq = self.seq;
        let fields = self.info.frame_fields;
        let inputs = inputs.into_iter().map(|i| WireInput::from_input(i, fields)).collect();
        let m = Message::Advance(Advance { seq, until, inputs });
        let what = format!("the answer to advance seq {seq} (outputs)");
        let answer = self.call(&m, &what);
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                self.started = false;
                return Err(e);
            }
        };
        let from = self.now;
        match answer {
            // The last batch's answer given again, read as this batch's (CONF-ADP-023).
            Message::Outputs(o) if seq > 1 && o.seq == seq - 1 => {
                self.started = false;
                Err(self.twice(&format!("advance seq {}", seq - 1), "outputs"))
            }
            Message::Outputs(o) => {
                o.check_seq(seq).map_err(|e| self.protocol(e))?;
                // A bounded number of outputs in a scenario (`CONF-ADP-019`).
                self.given =
                    match count_outputs(self.given, o.outputs.len(), self.options.max_outputs) {
                        Ok(count) => count,
                        Err(e) => return Err(self.protocol(e)),
                    };
                // Outputs lie within the batch (`CONF-ADP-007`).
                let times = o.outputs.iter().map(|w| w.at);
                check_times(times, from, until, &format!(" of seq {seq}"))
                    .map_err(|e| self.protocol(e))?;
                let mut outputs = Vec::with_capacity(o.outputs.len());
                for (k, w) in o.outputs.into_iter().enumerate() {
                    // Decoding built every frame given as fields; one built here failed.
                    match w.into_output() {
                        Ok(out) => outputs.push(out),
                        Err(e) => {
                            let e = ProtocolError::BadField {
                                message: "outputs".into(),
                                field: format!("outputs[{k}].{}", e.field()),
                                reason: e.to_string(),
                            };
                            return Err(self.protocol(e));
                        }
                    }
                }
                self.now = until;
                // An answer too many that came with this one fails this batch.
                if let Err(e) = self.extra(&format!("advance seq {seq}")) {
                    self.started = false;
                    return Err(e);
                }
                Ok(outputs)
            }
            Message::Unsupported { reason } => {
                self.started = false;
                Err(DeviceError::Unsupported(reason))
            }
            Message::Error { message } => {
                self.started = false;
                Err(DeviceError::Failed(message))
            }
            other => Err(self.unexpected("outputs, unsupported or error", &other)),
        }
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        self.started = false;
        let last = self.last_asked();
        self.extra(&last)?;
        match self.call(&Message::Finish, "the answer to finish (finished)")? {
            // The last batch's answer given again, read as the answer to finish.
            Message::Outputs(o) if self.seq > 0 && o.seq == self.seq => {
                Err(self.twice(&last, "outputs"))
            }
            Message::Finished => {
                self.finished = Some(self.scenario.clone());
                Ok(())
            }
            Message::Error { message } => Err(DeviceError::Failed(message)),
            other => Err(self.unexpected("finished or error", &other)),
        }
    }

    fn take_late_error(&mut self) -> Option<(String, DeviceError)> {
        self.late.take()
    }
}

impl Drop for ProcessDevice {
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            r.to_child = None;
            // A child that did not exit in time is killed by `end` below.
            let _ = wait_exit(&mut r.child, EXIT_GRACE);
            end(&mut r.child);
        }
    }
}

/// How long a child that closed its output has to exit and show why.
fn exit_grace(timeout: Duration) -> Duration {
    EXIT_GRACE.max(timeout.min(Duration::from_secs(2)))
}

/// How often a wait for an answer looks whether the child still runs.
const POLL: Duration = Duration::from_millis(50);

/// Waits at most `timeout` for what the reader hands over. A child that exits while a
/// process it started still holds its standard output never closes that output: once the
/// child has exited, the wait ends after `grace` with [`Incoming::Orphaned`], unless a
/// line comes first: the lines it wrote before it exited are read, and a wrapper whose
/// simulator answers on within the grace is not failed.
fn receive(
    r: &mut Running,
    timeout: Duration,
    grace: Duration,
) -> Result<Incoming, RecvTimeoutError> {
    if let Some(held) = r.held.take() {
        return Ok(held);
    }
    // A limit beyond what the clock holds is no limit.
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let left = deadline.map_or(POLL, |d| d.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return Err(RecvTimeoutError::Timeout);
        }
        match r.from_child.recv_timeout(left.min(POLL)) {
            Err(RecvTimeoutError::Timeout) => {}
            other => return other,
        }
        if matches!(r.child.try_wait(), Ok(Some(_))) {
            let left = deadline.map_or(grace, |d| d.saturating_duration_since(Instant::now()));
            return match r.from_child.recv_timeout(grace.min(left)) {
                Err(RecvTimeoutError::Timeout) if grace < left => Ok(Incoming::Orphaned),
                other => other,
            };
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Waits at most `limit` for the child to exit.
fn wait_exit(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    // A limit beyond what the clock holds is no limit.
    let deadline = Instant::now().checked_add(limit);
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if deadline.is_none_or(|d| Instant::now() < d) => {
                thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            _ => return None,
        }
    }
}

/// The writer thread: lines from the channel to the child's standard input, until the
/// channel closes (then the input is closed) or a write fails.
fn spawn_writer(mut stdin: ChildStdin) -> Sender<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || {
        for line in rx {
            if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                break;
            }
        }
    });
    tx
}

/// Lines the reader decodes ahead of the runner: a device that writes more than it is asked
/// waits for the runner instead of filling its memory.
const READ_AHEAD: usize = 2;

/// The reader thread: decodes the child's output line by line.
fn spawn_reader<R: BufRead + Send + 'static>(mut stdout: R) -> Receiver<Incoming> {
    let (tx, rx): (SyncSender<Incoming>, _) = mpsc::sync_channel(READ_AHEAD);
    thread::spawn(move || {
        let mut buf = Vec::new();
        let mut n = 0;
        loop {
            n += 1;
            let item = match read_line(&mut stdout, &mut buf, MAX_LINE_LEN) {
                Ok(LineRead::Line) => Incoming::Line(n, decode_bytes(&buf)),
                Ok(LineRead::Eof) => Incoming::Eof,
                Ok(LineRead::TooLong) => {
                    Incoming::Line(n, Err(ProtocolError::TooLong { max: MAX_LINE_LEN }))
                }
                Ok(LineRead::Unterminated) => Incoming::Cut(buf.len()),
                Err(e) => Incoming::Broken(e.to_string()),
            };
            let last = !matches!(item, Incoming::Line(_, Ok(_)));
            if tx.send(item).is_err() || last {
                break;
            }
        }
    });
    rx
}

/// The longest part of a line of standard error kept for error reports, in characters.
const STDERR_KEEP: usize = 1000;

/// The standard-error thread: passes what the child writes through as it comes, and keeps
/// the start of each of the last lines. A line is never held whole: however long it is,
/// the thread holds one buffer and the kept start of the line.
fn spawn_stderr<R: BufRead + Send + 'static>(
    mut stderr: R,
    tail: Arc<Mutex<VecDeque<String>>>,
    options: &ProcessOptions,
) -> Receiver<()> {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut pass = options.pass_stderr;
    let keep = options.stderr_tail.max(1);
    thread::spawn(move || {
        let _done = done_tx;
        let mut line: Vec<u8> = Vec::new();
        let mut open = false;
        let push = |line: &mut Vec<u8>| {
            let text = String::from_utf8_lossy(line);
            let kept: String = text.trim_end_matches('\r').chars().take(STDERR_KEEP).collect();
            line.clear();
            if let Ok(mut t) = tail.lock() {
                if t.len() == keep {
                    t.pop_front();
                }
                t.push_back(kept);
            }
        };
        loop {
            let chunk = match stderr.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(c) => c,
            };
            let n = chunk.len();
            // Once the runner's own standard error fails, stop passing the child's on; the
            // tail is still kept.
            if pass && io::stderr().lock().write_all(chunk).is_err() {
                pass = false;
            }
            for piece in chunk.split_inclusive(|&b| b == b'\n') {
                let (body, ends) = match piece.strip_suffix(b"\n") {
                    Some(b) => (b, true),
                    None => (piece, false),
                };
                // Four bytes a character at most: enough bytes for the characters kept.
                let room = (4 * STDERR_KEEP).saturating_sub(line.len());
                line.extend_from_slice(&body[..body.len().min(room)]);
                open = true;
                if ends {
                    push(&mut line);
                    open = false;
                }
            }
            stderr.consume(n);
        }
        if open && !line.is_empty() {
            push(&mut line);
        }
    });
    done_rx
}
