//! The adapter protocol: how the runner drives a device that lives in another process
//! (`spec/conformance.md`, `CONF-ADP-*`).
//!
//! The runner starts the device's command and talks to it over the child's standard input
//! and output, in JSON Lines: one JSON object per line, UTF-8, each line ending with `\n`.
//! The child's standard error is free text for logs. Every message is an object whose key
//! `type` names it:
//!
//! | runner → device | device → runner |
//! |---|---|
//! | `hello` (version, runner) | `hello` (version, name, capabilities) or `error` |
//! | `start` (manifest) | `started`, `unsupported` or `error` |
//! | `advance` (seq, until, inputs) | `outputs` (seq, outputs), `unsupported` or `error` |
//! | `finish` | `finished` or `error` |
//!
//! The runner sends one message and waits for its answer; a device answers every message
//! with exactly one line, in order. Inputs and outputs keep the shape of
//! [`TimedInput`] and [`TimedOutput`] in JSON, with frame bytes in hexadecimal; every input
//! frame also carries `fields`, the decoded headers as `openrdma dissect --json` shows them
//! ([`frame_fields_json`]), so that a harness for hardware need not decode frames itself;
//! and a device may give an output frame in the same shape instead of its bytes, for the
//! runner to build ([`frame_from_fields`]), so that it need not encode frames either.
//!
//! [`decode_line`] turns a line into a typed [`Message`] and names, when it cannot, the
//! message, the field and the column at fault ([`ProtocolError`]). [`serve`] is the device
//! side of the protocol for any [`Device`]; `openrdma serve` runs it over the reference
//! model, and [`crate::process::ProcessDevice`] is the runner side.

use std::collections::BTreeSet;
use std::io::{self, BufRead, Read, Write};

use openrdma_device::{
    Capability, CpuCommand, Device, DeviceError, HostCommand, Input, Manifest, NicEvent, Output,
    TimedInput, TimedOutput, Timestamp,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::req::{self, Clause};

mod blame;
pub mod bounded;
mod fields;

pub use bounded::{MAX_DEPTH, MAX_ITEMS, MAX_VALUES};
use fields::kind;
pub use fields::{FieldsError, frame_fields_json, frame_from_fields};
mod serve;
pub use serve::{LineRead, ServeError, read_line, serve};

/// The version of the adapter protocol this crate speaks (`CONF-ADP-002`).
pub const VERSION: u32 = 1;

/// Every version this crate speaks, oldest first.
pub const SUPPORTED_VERSIONS: &[u32] = &[VERSION];

/// The longest line either side may send, newline excluded: 64 MiB (`CONF-ADP-001`).
pub const MAX_LINE_LEN: usize = 64 << 20;

/// The most outputs a device may give in one scenario, all batches together: 2^20
/// (`CONF-ADP-019`). The reference gives at most 3575, on `ret-cq-wrap-1k`.
pub const MAX_SCENARIO_OUTPUTS: u64 = 1 << 20;

/// The outputs of a scenario after `more` are added to the `given` ones, or the error past
/// `max` (`CONF-ADP-019`). The runner bounds every device with it, in-process or not; the
/// process adapter checks it before it decodes what the answer holds.
pub fn count_outputs(given: u64, more: usize, max: u64) -> Result<u64, ProtocolError> {
    let count = given.saturating_add(u64::try_from(more).unwrap_or(u64::MAX));
    if count > max {
        return Err(ProtocolError::TooManyOutputs { count, max });
    }
    Ok(count)
}

/// Whether every output time lies in its batch, from the `until` of the previous advance
/// (`from`) to this one's, both included; else the error naming the first that does not
/// (`CONF-ADP-007`). `batch` names the batch in the error (" of seq 3"), or is empty. The
/// runner checks every device with it, in-process or not.
pub fn check_times(
    times: impl IntoIterator<Item = Timestamp>,
    from: Timestamp,
    until: Timestamp,
    batch: &str,
) -> Result<(), ProtocolError> {
    let Some((k, at)) = times.into_iter().enumerate().find(|(_, at)| *at < from || *at > until)
    else {
        return Ok(());
    };
    Err(ProtocolError::Time {
        message: "outputs".into(),
        reason: format!(
            "outputs[{k}].at {} is outside the batch [{}, {}]{batch}",
            at.0, from.0, until.0
        ),
    })
}

/// One message of the protocol, either way. The JSON key `type` names the variant in
/// snake case (`{"type":"started"}`). [`decode_line`] reads one, at a bounded cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Message {
    /// The first message each way: the runner's offer, then the device's answer.
    Hello(Hello),
    /// Runner → device: prepare a fresh NIC for a scenario.
    Start {
        /// The scenario's manifest, as in its TOML file.
        manifest: Box<Manifest>,
    },
    /// Device → runner: ready for `advance`.
    Started,
    /// Device → runner: it cannot run this scenario (the verdict is `unsupported`).
    Unsupported {
        /// Why, for the report.
        reason: String,
    },
    /// Runner → device: a batch of inputs, and the time to run to.
    Advance(Advance),
    /// Device → runner: everything the device produced during a batch.
    Outputs(Outputs),
    /// Runner → device: the scenario is over.
    Finish,
    /// Device → runner: the scenario is over.
    Finished,
    /// Device → runner: the device failed; or either way, just before closing, the other
    /// side broke the protocol.
    Error {
        /// What went wrong.
        message: String,
    },
}

impl Message {
    /// The message's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Message::Hello(_) => "hello",
            Message::Start { .. } => "start",
            Message::Started => "started",
            Message::Unsupported { .. } => "unsupported",
            Message::Advance(_) => "advance",
            Message::Outputs(_) => "outputs",
            Message::Finish => "finish",
            Message::Finished => "finished",
            Message::Error { .. } => "error",
        }
    }
}

/// The `hello` message. The runner sets `version` and `runner`; the device answers with
/// `version`, `name` and `capabilities`, and may set `frame_fields`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version: the runner's offer, and the device's answer (the same).
    pub version: u32,
    /// The runner and its version, e.g. `openrdma 0.1.0` (runner only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    /// The device's name for reports (device only; required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The device's capabilities, kebab-case names of [`Capability`] (device only;
    /// required). Names the runner does not know are ignored (`CONF-ADP-004`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded::bounded_opt_vec"
    )]
    pub capabilities: Option<Vec<String>>,
    /// Whether the device wants `fields` beside the bytes of input frames (device only;
    /// absent means yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_fields: Option<bool>,
}

impl Hello {
    /// The runner's hello.
    pub fn runner() -> Hello {
        Hello {
            version: VERSION,
            runner: Some(format!("openrdma {}", env!("CARGO_PKG_VERSION"))),
            ..Hello::default()
        }
    }

    /// A device's hello.
    pub fn device(name: &str, capabilities: &BTreeSet<Capability>) -> Hello {
        Hello {
            version: VERSION,
            name: Some(name.to_string()),
            capabilities: Some(capabilities.iter().map(|c| capability_name(*c)).collect()),
            ..Hello::default()
        }
    }

    /// Checks that the version is one this crate speaks (`CONF-ADP-002`).
    pub fn check_version(&self) -> Result<(), ProtocolError> {
        if SUPPORTED_VERSIONS.contains(&self.version) {
            Ok(())
        } else {
            Err(ProtocolError::Version {
                got: self.version,
                supported: SUPPORTED_VERSIONS.to_vec(),
            })
        }
    }

    /// What a device's hello says, checking that it has a name and capabilities.
    pub fn device_info(&self) -> Result<DeviceInfo, ProtocolError> {
        let missing = |field: &str| ProtocolError::MissingField {
            message: "hello".into(),
            field: field.into(),
        };
        let name = self.name.clone().ok_or_else(|| missing("name"))?;
        let names = self.capabilities.as_ref().ok_or_else(|| missing("capabilities"))?;
        let mut capabilities = BTreeSet::new();
        let mut unknown_capabilities = Vec::new();
        for n in names {
            match serde_json::from_value::<Capability>(Value::String(n.clone())) {
                Ok(c) => {
                    capabilities.insert(c);
                }
                Err(_) => unknown_capabilities.push(n.clone()),
            }
        }
        Ok(DeviceInfo {
            name,
            capabilities,
            unknown_capabilities,
            frame_fields: self.frame_fields.unwrap_or(true),
        })
    }
}

/// What a device said of itself in its hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Its name.
    pub name: String,
    /// The capabilities the runner knows.
    pub capabilities: BTreeSet<Capability>,
    /// Capability names the runner does not know (ignored).
    pub unknown_capabilities: Vec<String>,
    /// Whether it wants `fields` beside input frames.
    pub frame_fields: bool,
}

/// The kebab-case name of a capability, as manifests and the protocol write it.
pub fn capability_name(c: Capability) -> String {
    match serde_json::to_value(c) {
        Ok(Value::String(s)) => s,
        _ => format!("{c:?}"),
    }
}

/// The `advance` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Advance {
    /// 1 for the first batch after `start`, then one more for each batch (`CONF-ADP-006`).
    pub seq: u64,
    /// The time to run to, ns since the scenario's start.
    pub until: Timestamp,
    /// The inputs, in order, none earlier than the previous `until` nor later than this one.
    #[serde(deserialize_with = "bounded::bounded_vec")]
    pub inputs: Vec<WireInput>,
}

/// The `outputs` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outputs {
    /// The `seq` of the `advance` it answers.
    pub seq: u64,
    /// Everything produced after the previous `until` and at or before this `until`.
    #[serde(deserialize_with = "bounded::bounded_vec")]
    pub outputs: Vec<WireOutput>,
}

impl Outputs {
    /// Checks that this answers batch `expected` (`CONF-ADP-006`).
    pub fn check_seq(&self, expected: u64) -> Result<(), ProtocolError> {
        if self.seq == expected {
            Ok(())
        } else {
            Err(ProtocolError::Seq { message: "outputs".into(), expected, got: self.seq })
        }
    }
}

/// An input on the wire: [`TimedInput`] with hexadecimal frame bytes and decoded fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireInput {
    /// When it reaches the device, ns.
    pub at: Timestamp,
    /// What it is.
    pub input: WireInputKind,
}

/// What an input is. Read without buffering the object (see [`bounded`]): its command is
/// read once `kind` says which, and its `fields` are counted first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireInputKind {
    /// A frame arriving on a port.
    Frame {
        /// Port.
        port: u16,
        /// The Ethernet frame without FCS, in hexadecimal.
        #[serde(with = "hex")]
        bytes: Vec<u8>,
        /// The decoded headers ([`frame_fields_json`]); for information only: `bytes` is
        /// the frame.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fields: Option<Value>,
    },
    /// A host command.
    Host {
        /// The command.
        command: HostCommand,
    },
    /// A command from the CPU half of recovery.
    Cpu {
        /// The command.
        command: CpuCommand,
    },
}

impl WireInput {
    /// The wire form of an input; `fields` adds the decoded headers of a frame.
    pub fn from_input(i: TimedInput, fields: bool) -> WireInput {
        let input = match i.input {
            Input::Frame { port, bytes } => {
                let fields = fields.then(|| frame_fields_json(&bytes));
                WireInputKind::Frame { port, bytes, fields }
            }
            Input::Host { command } => WireInputKind::Host { command },
            Input::Cpu { command } => WireInputKind::Cpu { command },
        };
        WireInput { at: i.at, input }
    }

    /// The input it carries (`fields` are dropped).
    pub fn into_input(self) -> TimedInput {
        let input = match self.input {
            WireInputKind::Frame { port, bytes, .. } => Input::Frame { port, bytes },
            WireInputKind::Host { command } => Input::Host { command },
            WireInputKind::Cpu { command } => Input::Cpu { command },
        };
        TimedInput { at: self.at, input }
    }
}

/// An output on the wire: [`TimedOutput`] with hexadecimal frame bytes, or a frame given
/// as fields for the runner to build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireOutput {
    /// When the device produced it, ns.
    pub at: Timestamp,
    /// What it is.
    pub output: WireOutputKind,
}

/// What an output is. Read without buffering the object (see [`bounded`]); the `fields` of
/// a frame given with its bytes are not read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireOutputKind {
    /// A frame leaving on a port, as bytes or as fields (`CONF-ADP-015`).
    Frame {
        /// Port.
        port: u16,
        /// The Ethernet frame without FCS, in hexadecimal. When it is given, it is the frame
        /// and `fields` are ignored (`CONF-ADP-014`).
        #[serde(default, with = "hex_opt", skip_serializing_if = "Option::is_none")]
        bytes: Option<Vec<u8>>,
        /// The frame's headers and payload, from which the runner builds it when `bytes`
        /// is absent ([`frame_from_fields`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fields: Option<Value>,
    },
    /// A DMA write, flag write, completion or report.
    Event {
        /// The event.
        event: NicEvent,
    },
}

impl WireOutput {
    /// The wire form of an output.
    pub fn from_output(o: TimedOutput) -> WireOutput {
        let output = match o.output {
            Output::Frame { port, bytes } => {
                WireOutputKind::Frame { port, bytes: Some(bytes), fields: None }
            }
            Output::Event { event } => WireOutputKind::Event { event },
        };
        WireOutput { at: o.at, output }
    }

    /// Makes sure a frame has its bytes: builds them from `fields` when only those are
    /// given. The error names the field by its path from the output object
    /// (`output.fields.ipv4.ttl`).
    pub fn build_frame(&mut self) -> Result<(), FieldsError> {
        if let WireOutputKind::Frame { bytes: bytes @ None, fields, .. } = &mut self.output {
            let Some(f) = fields else {
                return Err(FieldsError::Bad {
                    field: "output".into(),
                    reason: "a frame needs `bytes` or `fields`".into(),
                });
            };
            *bytes = Some(frame_from_fields(f).map_err(|e| e.within("output.fields"))?);
        }
        Ok(())
    }

    /// The output it carries; a frame given as fields is built ([`WireOutput::build_frame`]).
    pub fn into_output(mut self) -> Result<TimedOutput, FieldsError> {
        self.build_frame()?;
        let output = match self.output {
            WireOutputKind::Frame { port, bytes, .. } => {
                Output::Frame { port, bytes: bytes.unwrap_or_default() }
            }
            WireOutputKind::Event { event } => Output::Event { event },
        };
        Ok(TimedOutput { at: self.at, output })
    }
}

/// Why a line is not a message of the protocol, or a message is not the one expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The line is longer than [`MAX_LINE_LEN`].
    #[error("line longer than the limit of {max} bytes")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// The line nests arrays and objects too deep.
    #[error("arrays and objects nested deeper than {max}")]
    TooDeep {
        /// The deepest nesting allowed.
        max: usize,
    },
    /// The line is not UTF-8.
    #[error("line is not UTF-8: invalid byte at offset {offset}")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The stream ended inside a line.
    #[error("the stream ended inside a line ({len} bytes without a newline)")]
    Unterminated {
        /// Bytes read of the unfinished line.
        len: usize,
    },
    /// The line holds nothing but white space.
    #[error("empty line")]
    Empty,
    /// The line is not JSON (garbage, or a message cut short).
    #[error("not JSON, at line {line}, column {column}: {reason}")]
    Json {
        /// Line within the text (1 for a JSON Lines message).
        line: usize,
        /// Column, 1-based, in bytes.
        column: usize,
        /// What the parser found.
        reason: String,
    },
    /// The JSON value is not an object.
    #[error("a message must be a JSON object")]
    NotObject,
    /// The object has no `type`.
    #[error("a message must have a \"type\"")]
    MissingType,
    /// `type` names no message of the protocol.
    #[error("unknown message type {found:?}")]
    UnknownType {
        /// The type found.
        found: String,
    },
    /// A required field is missing.
    #[error("{message}: missing field `{field}`")]
    MissingField {
        /// The message type.
        message: String,
        /// The field, as a path (`inputs[2].input.port`).
        field: String,
    },
    /// A field has a wrong value.
    #[error("{message}: field `{field}`: {reason}")]
    BadField {
        /// The message type.
        message: String,
        /// The field, as a path.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The message is wrong in another way.
    #[error("{message}: {reason} (line {line}, column {column})")]
    Invalid {
        /// The message type.
        message: String,
        /// What is wrong.
        reason: String,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A message came that is not the one the protocol allows here.
    #[error("expected {expected}, got {got}")]
    Unexpected {
        /// What the protocol allows.
        expected: String,
        /// The type of the message received.
        got: String,
    },
    /// A message answered a second time (`CONF-ADP-005`), read as the answer to the next.
    #[error(
        "a second {got}, answering {answered} again: every message has exactly one answer (CONF-ADP-005)"
    )]
    Twice {
        /// The message answered twice.
        answered: String,
        /// The type of the second answer.
        got: String,
    },
    /// A batch's `seq` is not the expected one.
    #[error("{message}: seq {got}, expected {expected}")]
    Seq {
        /// The message type.
        message: String,
        /// The expected seq.
        expected: u64,
        /// The seq received.
        got: u64,
    },
    /// The other side speaks another version.
    #[error(
        "adapter protocol version {got} is not spoken here; supported: {}",
        versions(supported)
    )]
    Version {
        /// The version offered.
        got: u32,
        /// The versions spoken here.
        supported: Vec<u32>,
    },
    /// The device gave more outputs in a scenario than it may.
    #[error("{count} outputs in the scenario, past the limit of {max}")]
    TooManyOutputs {
        /// The outputs given in the scenario, the last answer's included.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// Times that go backwards or leave the batch.
    #[error("{message}: {reason}")]
    Time {
        /// The message type.
        message: String,
        /// What is wrong.
        reason: String,
    },
    /// A message could not be encoded.
    #[error("cannot encode a message: {0}")]
    Encode(String),
}

impl ProtocolError {
    /// The requirement of the adapter protocol the error enforces, as a clause: the form
    /// of a line (`CONF-ADP-001.a`: one UTF-8 JSON object on a line of bounded length, ended
    /// by a newline), its decoding cost (`CONF-ADP-018.a`), the version (`CONF-ADP-002.b`),
    /// an unknown `type` (`CONF-ADP-003.b`), the answers allowed (`CONF-ADP-005`), `seq`
    /// (`CONF-ADP-006.b`), output times (`CONF-ADP-007.b`), the outputs of a scenario
    /// (`CONF-ADP-019.a`). `None` for a field of a message,
    /// which many requirements define (the error names the field), and for a message this
    /// side cannot encode.
    pub fn requirement(&self) -> Option<Clause> {
        Some(match self {
            ProtocolError::TooLong { .. }
            | ProtocolError::NotUtf8 { .. }
            | ProtocolError::Unterminated { .. }
            | ProtocolError::Empty
            | ProtocolError::Json { .. }
            | ProtocolError::NotObject => req::CONF_ADP_001_A,
            ProtocolError::TooDeep { .. } => req::CONF_ADP_018_A,
            ProtocolError::MissingType | ProtocolError::UnknownType { .. } => req::CONF_ADP_003_B,
            ProtocolError::Version { .. } => req::CONF_ADP_002_B,
            ProtocolError::Unexpected { .. } | ProtocolError::Twice { .. } => req::CONF_ADP_005,
            ProtocolError::Seq { .. } => req::CONF_ADP_006_B,
            ProtocolError::Time { .. } => req::CONF_ADP_007_B,
            ProtocolError::TooManyOutputs { .. } => req::CONF_ADP_019_A,
            ProtocolError::MissingField { .. }
            | ProtocolError::BadField { .. }
            | ProtocolError::Invalid { .. }
            | ProtocolError::Encode(_) => return None,
        })
    }
}

fn versions(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Decodes one line (without its newline; a trailing `\r` or white space is allowed).
///
/// On success the message is typed; a message's unknown keys are ignored (`CONF-ADP-003`)
/// without being built, and what the line may cost is bounded ([`bounded`]): a line may
/// nest arrays and objects at most [`MAX_DEPTH`] deep, a list of the protocol holds at most
/// [`MAX_ITEMS`] entries, and a command, event, manifest or frame's fields at most
/// [`MAX_VALUES`] values.
/// On failure the error names what is wrong: the JSON position for text that is not JSON,
/// else the message type and the field (as a path such as `inputs[2].input.bytes`).
pub fn decode_line(line: &str) -> Result<Message, ProtocolError> {
    if line.len() > MAX_LINE_LEN {
        return Err(ProtocolError::TooLong { max: MAX_LINE_LEN });
    }
    if line.trim().is_empty() {
        return Err(ProtocolError::Empty);
    }
    if bounded::too_deep(line.as_bytes()) {
        return Err(ProtocolError::TooDeep { max: MAX_DEPTH });
    }
    let mut m = bounded::typed(line).map_err(|e| explain(line, &e))?;
    if let Message::Outputs(o) = &mut m {
        // CONF-ADP-015, CONF-ADP-016: frames given as fields are built here, so that a
        // decoded message holds every frame's bytes and a bad field is named at once.
        for (k, w) in o.outputs.iter_mut().enumerate() {
            w.build_frame().map_err(|e| {
                let field = format!("outputs[{k}].{}", e.field());
                match e {
                    FieldsError::Missing { .. } => {
                        ProtocolError::MissingField { message: "outputs".into(), field }
                    }
                    FieldsError::Bad { reason, .. } => {
                        ProtocolError::BadField { message: "outputs".into(), field, reason }
                    }
                }
            })?;
        }
    }
    Ok(m)
}

/// Decodes one line given as bytes: [`decode_line`] after checking the length and UTF-8.
pub fn decode_bytes(line: &[u8]) -> Result<Message, ProtocolError> {
    if line.len() > MAX_LINE_LEN {
        return Err(ProtocolError::TooLong { max: MAX_LINE_LEN });
    }
    let s = std::str::from_utf8(line)
        .map_err(|e| ProtocolError::NotUtf8 { offset: e.valid_up_to() })?;
    decode_line(s)
}

/// Encodes a message as one line, newline included.
pub fn encode_line(m: &Message) -> Result<Vec<u8>, ProtocolError> {
    let mut v = serde_json::to_vec(m).map_err(|e| ProtocolError::Encode(e.to_string()))?;
    v.push(b'\n');
    Ok(v)
}

/// Finds out, field by field, why a line that parses as JSON is not a message.
fn explain(line: &str, e: &serde_json::Error) -> ProtocolError {
    // The line is counted before it is built as a tree to look into; one too large for that
    // is reported with the parser's words and position.
    if let Err(c) = bounded::count(line, EXPLAIN_VALUES) {
        if c.is_data() {
            return ProtocolError::Invalid {
                message: message_type(line),
                reason: strip_position(&e.to_string()),
                line: e.line(),
                column: e.column(),
            };
        }
        return ProtocolError::Json {
            line: c.line(),
            column: c.column(),
            reason: strip_position(&c.to_string()),
        };
    }
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return ProtocolError::Json {
                line: e.line(),
                column: e.column(),
                reason: strip_position(&e.to_string()),
            };
        }
    };
    let Value::Object(map) = &v else { return ProtocolError::NotObject };
    let ty = match map.get("type") {
        None => return ProtocolError::MissingType,
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return ProtocolError::BadField {
                message: "?".into(),
                field: "type".into(),
                reason: format!("expected a string, found {}", kind(other)),
            };
        }
    };
    let o = Obj { message: ty, path: String::new(), map };
    let found = match ty {
        "hello" => (|| {
            o.req::<u32>("version")?;
            o.opt::<String>("runner")?;
            o.opt::<String>("name")?;
            if o.map
                .get("capabilities")
                .and_then(Value::as_array)
                .is_some_and(|c| c.len() > MAX_ITEMS)
            {
                return Err(o.bad("capabilities", format!("more than {MAX_ITEMS} entries")));
            }
            o.opt::<Vec<String>>("capabilities")?;
            o.opt::<bool>("frame_fields").map(drop)
        })()
        .err(),
        "start" => o.req::<Manifest>("manifest").err(),
        "unsupported" => o.req::<String>("reason").err(),
        "error" => o.req::<String>("message").err(),
        "advance" => (|| {
            o.req::<u64>("seq")?;
            o.req::<Timestamp>("until")?;
            o.list("inputs", |e| {
                e.req::<Timestamp>("at")?;
                let i = e.obj("input")?;
                match i.req::<String>("kind")?.as_str() {
                    "frame" => {
                        i.req::<u16>("port")?;
                        i.req_hex("bytes")
                    }
                    "host" => i.req::<HostCommand>("command").map(drop),
                    "cpu" => i.req::<CpuCommand>("command").map(drop),
                    other => Err(i.bad("kind", format!("unknown input kind {other:?}"))),
                }
            })
        })()
        .err(),
        "outputs" => (|| {
            o.req::<u64>("seq")?;
            o.list("outputs", |e| {
                e.req::<Timestamp>("at")?;
                let x = e.obj("output")?;
                match x.req::<String>("kind")?.as_str() {
                    "frame" => {
                        x.req::<u16>("port")?;
                        // A frame given as fields alone is checked once it decodes.
                        if x.map.contains_key("bytes") || !x.map.contains_key("fields") {
                            x.req_hex("bytes")?;
                        }
                        Ok(())
                    }
                    "event" => x.req::<NicEvent>("event").map(drop),
                    other => Err(x.bad("kind", format!("unknown output kind {other:?}"))),
                }
            })
        })()
        .err(),
        "started" | "finish" | "finished" => None,
        other => return ProtocolError::UnknownType { found: other.to_string() },
    };
    found.unwrap_or_else(|| ProtocolError::Invalid {
        message: ty.to_string(),
        reason: strip_position(&e.to_string()),
        line: e.line(),
        column: e.column(),
    })
}

/// Most values of a line that fails to decode that are built as a tree to find the field at
/// fault.
const EXPLAIN_VALUES: usize = 1 << 20;

/// The `type` of a line, or `?`, read without building anything else.
fn message_type(line: &str) -> String {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "type")]
        ty: Option<String>,
    }
    serde_json::from_str::<Head>(line).ok().and_then(|h| h.ty).unwrap_or_else(|| "?".into())
}

/// serde_json appends " at line L column C" to its messages; positions are reported apart.
fn strip_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// An object of a message being explained, at a path.
struct Obj<'a> {
    message: &'a str,
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn field(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }

    fn missing(&self, key: &str) -> ProtocolError {
        ProtocolError::MissingField { message: self.message.into(), field: self.field(key) }
    }

    fn bad(&self, key: &str, reason: String) -> ProtocolError {
        ProtocolError::BadField { message: self.message.into(), field: self.field(key), reason }
    }

    fn req<T: DeserializeOwned>(&self, key: &str) -> Result<T, ProtocolError> {
        let v = self.map.get(key).ok_or_else(|| self.missing(key))?;
        T::deserialize(v).map_err(|e| self.bad_value::<T>(key, v, &e))
    }

    fn opt<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ProtocolError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => T::deserialize(v).map(Some).map_err(|e| self.bad_value::<T>(key, v, &e)),
        }
    }

    /// `key` holds `v`, which does not decode as `T`: the error names the field within it
    /// that is at fault, when one is ([`blame`]).
    fn bad_value<T: DeserializeOwned>(
        &self,
        key: &str,
        v: &Value,
        e: &serde_json::Error,
    ) -> ProtocolError {
        match blame::blame::<T>(v) {
            Some((inner, reason)) => self.bad(&format!("{key}.{inner}"), reason),
            None => self.bad(key, e.to_string()),
        }
    }

    fn req_hex(&self, key: &str) -> Result<(), ProtocolError> {
        let v = self.map.get(key).ok_or_else(|| self.missing(key))?;
        hex::deserialize(v).map(drop).map_err(|e: serde_json::Error| self.bad(key, e.to_string()))
    }

    fn obj(&self, key: &str) -> Result<Obj<'a>, ProtocolError> {
        match self.map.get(key) {
            None => Err(self.missing(key)),
            Some(Value::Object(map)) => {
                Ok(Obj { message: self.message, path: self.field(key), map })
            }
            Some(other) => Err(self.bad(key, format!("expected an object, found {}", kind(other)))),
        }
    }

    fn list(
        &self,
        key: &str,
        each: impl Fn(&Obj<'a>) -> Result<(), ProtocolError>,
    ) -> Result<(), ProtocolError> {
        let items = match self.map.get(key) {
            None => return Err(self.missing(key)),
            Some(Value::Array(items)) if items.len() > MAX_ITEMS => {
                return Err(self.bad(key, format!("more than {MAX_ITEMS} entries")));
            }
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(self.bad(key, format!("expected an array, found {}", kind(other))));
            }
        };
        for (i, item) in items.iter().enumerate() {
            let path = format!("{}[{i}]", self.field(key));
            match item {
                Value::Object(map) => each(&Obj { message: self.message, path, map })?,
                other => {
                    return Err(ProtocolError::BadField {
                        message: self.message.into(),
                        field: path,
                        reason: format!("expected an object, found {}", kind(other)),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Optional frame bytes, written as [`hex`] when present (read in [`bounded`]).
mod hex_opt {
    pub(super) fn serialize<S: serde::Serializer>(
        b: &Option<Vec<u8>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match b {
            Some(b) => super::hex::serialize(b, s),
            None => s.serialize_none(),
        }
    }
}

/// Frame bytes as lower-case hexadecimal (either case is read).
mod hex {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";

    pub(super) fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(b.len() * 2);
        for x in b {
            out.push(DIGITS[usize::from(x >> 4)]);
            out.push(DIGITS[usize::from(x & 15)]);
        }
        s.serialize_str(std::str::from_utf8(&out).unwrap_or_default())
    }

    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_str(HexVisitor)
    }

    struct HexVisitor;

    impl serde::de::Visitor<'_> for HexVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string of hexadecimal digits")
        }

        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Vec<u8>, E> {
            let b = s.as_bytes();
            if b.len() % 2 != 0 {
                return Err(E::custom("hex bytes: odd number of digits"));
            }
            b.chunks_exact(2)
                .enumerate()
                .map(|(i, p)| match (digit(p[0]), digit(p[1])) {
                    (Some(h), Some(l)) => Ok(h << 4 | l),
                    _ => Err(E::custom(format!("hex bytes: bad digit at {}", 2 * i))),
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each protocol error that one requirement defines names it.
    #[test]
    fn errors_name_their_clause() {
        let e = ProtocolError::Seq { message: "outputs".into(), expected: 2, got: 3 };
        assert_eq!(e.requirement(), Some(req::CONF_ADP_006_B));
        assert_eq!(ProtocolError::TooDeep { max: 64 }.requirement(), Some(req::CONF_ADP_018_A));
        let e = ProtocolError::Version { got: 2, supported: vec![1, 3] };
        assert_eq!(e.to_string(), "adapter protocol version 2 is not spoken here; supported: 1, 3");
        assert_eq!(e.requirement(), Some(req::CONF_ADP_002_B));
        assert_eq!(ProtocolError::Encode("x".into()).requirement(), None);
    }

    /// CONF-ADP-013: frame bytes as two lower-case hexadecimal digits per byte, read in
    /// either case.
    #[test]
    fn hex_round_trips() {
        let i = WireInput {
            at: Timestamp(5),
            input: WireInputKind::Frame { port: 1, bytes: vec![0, 0xAB, 0xFF], fields: None },
        };
        let s = serde_json::to_string(&i).unwrap();
        assert_eq!(s, r#"{"at":5,"input":{"kind":"frame","port":1,"bytes":"00abff"}}"#);
        assert_eq!(serde_json::from_str::<WireInput>(&s).unwrap(), i);
        let upper = s.replace("00abff", "00ABFF");
        assert_eq!(serde_json::from_str::<WireInput>(&upper).unwrap(), i);
    }

    #[test]
    fn read_line_limits() {
        let mut buf = Vec::new();
        let mut r = &b"abc\nabcdef\nxy"[..];
        assert_eq!(read_line(&mut r, &mut buf, 4).unwrap(), LineRead::Line);
        assert_eq!(buf, b"abc");
        assert_eq!(read_line(&mut r, &mut buf, 4).unwrap(), LineRead::TooLong);
        let mut r = &b"abcd\nxy"[..];
        assert_eq!(read_line(&mut r, &mut buf, 4).unwrap(), LineRead::Line);
        assert_eq!(read_line(&mut r, &mut buf, 4).unwrap(), LineRead::Unterminated);
        assert_eq!(buf, b"xy");
        assert_eq!(read_line(&mut r, &mut buf, 4).unwrap(), LineRead::Eof);
    }
}
