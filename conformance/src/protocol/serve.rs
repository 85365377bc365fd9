//! The device's side of the protocol: reading bounded lines and answering the runner's
//! messages with a [`Device`].

use super::*;

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// A whole line is in the buffer (without its `\n`).
    Line,
    /// The stream ended before any byte of a new line.
    Eof,
    /// The line is longer than the limit; the stream cannot be followed any further.
    TooLong,
    /// The stream ended inside a line; the buffer holds its start.
    Unterminated,
}

/// Reads one line of at most `max` bytes (newline excluded) into `buf`, without ever
/// holding more than `max + 1` bytes of it.
pub fn read_line<R: BufRead + ?Sized>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let n = reader.take(limit).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(LineRead::Eof);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(LineRead::Line);
    }
    if buf.len() > max {
        return Ok(LineRead::TooLong);
    }
    Ok(LineRead::Unterminated)
}

/// Why [`serve`] stopped before the end of its input.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The runner broke the protocol; an `error` message was sent before stopping.
    #[error("the runner broke the adapter protocol: {0}")]
    Protocol(#[from] ProtocolError),
    /// Reading or writing failed.
    #[error("cannot talk to the runner: {0}")]
    Io(#[from] io::Error),
}

impl ServeError {
    /// The clause the runner broke ([`ProtocolError::requirement`]); `None` for a failure
    /// to read or write.
    pub fn requirement(&self) -> Option<Clause> {
        match self {
            ServeError::Protocol(e) => e.requirement(),
            ServeError::Io(_) => None,
        }
    }
}

/// Where [`serve`] is in the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `hello`.
    Greeting,
    /// Between scenarios.
    Idle,
    /// In a scenario: the next batch's seq and the time reached.
    Running { next_seq: u64, now: Timestamp },
}

/// The device side of the protocol: answers the runner's messages read from `input` on
/// `output`, driving `device`, until `input` ends (`Ok`), or until the runner breaks the
/// protocol (an `error` message is written, then `Err`). The device's own failures are
/// answered with `error` (or `unsupported`) and serving goes on.
pub fn serve<R: BufRead, W: Write>(
    device: &mut dyn Device,
    mut input: R,
    mut output: W,
) -> Result<(), ServeError> {
    let mut phase = Phase::Greeting;
    let mut buf = Vec::new();
    loop {
        let msg = match read_line(&mut input, &mut buf, MAX_LINE_LEN)? {
            LineRead::Eof => return Ok(()),
            LineRead::TooLong => Err(ProtocolError::TooLong { max: MAX_LINE_LEN }),
            LineRead::Unterminated => Err(ProtocolError::Unterminated { len: buf.len() }),
            LineRead::Line => decode_bytes(&buf),
        };
        let answer = msg.and_then(|m| answer(device, &mut phase, m));
        match answer {
            Ok(reply) => send(&mut output, &reply)?,
            Err(e) => {
                // The runner may be gone; the protocol error, not a failure to tell it, is
                // what ends serving.
                let _ = send(&mut output, &Message::Error { message: e.to_string() });
                return Err(e.into());
            }
        }
    }
}

fn send<W: Write>(output: &mut W, m: &Message) -> Result<(), ServeError> {
    let line = encode_line(m)?;
    output.write_all(&line)?;
    output.flush()?;
    Ok(())
}

/// The answer to one message, or the protocol error that ends the conversation.
fn answer(
    device: &mut dyn Device,
    phase: &mut Phase,
    m: Message,
) -> Result<Message, ProtocolError> {
    let failed = |e: DeviceError| match e {
        DeviceError::Unsupported(reason) => Message::Unsupported { reason },
        other => Message::Error { message: other.to_string() },
    };
    match (m, *phase) {
        (Message::Hello(h), Phase::Greeting) => {
            h.check_version()?;
            *phase = Phase::Idle;
            Ok(Message::Hello(Hello::device(&device.name(), &device.capabilities())))
        }
        (m, Phase::Greeting) => {
            Err(ProtocolError::Unexpected { expected: "hello".into(), got: m.type_name().into() })
        }
        (Message::Start { manifest }, _) => match device.start(&manifest) {
            Ok(()) => {
                *phase = Phase::Running { next_seq: 1, now: Timestamp::ZERO };
                Ok(Message::Started)
            }
            Err(e) => {
                *phase = Phase::Idle;
                Ok(failed(e))
            }
        },
        (Message::Advance(a), Phase::Running { next_seq, now }) => {
            if a.seq != next_seq {
                return Err(ProtocolError::Seq {
                    message: "advance".into(),
                    expected: next_seq,
                    got: a.seq,
                });
            }
            check_times(&a, now)?;
            let inputs = a.inputs.into_iter().map(WireInput::into_input).collect();
            *phase = Phase::Running { next_seq: next_seq + 1, now: a.until };
            Ok(match device.advance(inputs, a.until) {
                Ok(out) => Message::Outputs(Outputs {
                    seq: a.seq,
                    outputs: out.into_iter().map(WireOutput::from_output).collect(),
                }),
                Err(e) => failed(e),
            })
        }
        (Message::Finish, Phase::Running { .. }) => {
            *phase = Phase::Idle;
            Ok(match device.finish() {
                Ok(()) => Message::Finished,
                Err(e) => failed(e),
            })
        }
        (m @ (Message::Advance(_) | Message::Finish), Phase::Idle) => {
            Err(ProtocolError::Unexpected { expected: "start".into(), got: m.type_name().into() })
        }
        (m, _) => Err(ProtocolError::Unexpected {
            expected: "start, advance or finish".into(),
            got: m.type_name().into(),
        }),
    }
}

/// Time only moves forward: `until` is not before the previous `until`, and the inputs lie
/// between the two, in order (`CONF-DEV-003`).
fn check_times(a: &Advance, now: Timestamp) -> Result<(), ProtocolError> {
    let bad = |reason: String| ProtocolError::Time { message: "advance".into(), reason };
    if a.until < now {
        return Err(bad(format!("until {} is before the previous until {}", a.until.0, now.0)));
    }
    let mut t = now;
    for (k, i) in a.inputs.iter().enumerate() {
        if i.at < t || i.at > a.until {
            return Err(bad(format!(
                "inputs[{k}].at {} is outside [{}, {}] or before the input ahead of it",
                i.at.0, t.0, a.until.0
            )));
        }
        t = i.at;
    }
    Ok(())
}
