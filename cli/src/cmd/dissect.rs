//! `openrdma dissect FILE [--json] [--validate] [--strict]`: decodes every frame of a pcap or
//! pcapng capture (`-` reads standard input) and shows each one, readable or as JSON Lines
//! (see [`crate::render`]).
//!
//! Frames on Ethernet, Linux cooked (SLL, SLL2) and raw-IP link types are decoded
//! (`DEC-LINK-001`), with the FCS a capture declares removed (`DEC-FCS-001`); records on
//! other link types (for example the host events of a scenario) are listed as skipped. A
//! frame that does not decode never stops the frames after it; a file that goes wrong (a
//! truncated or corrupt record) stops the dissection there, after every frame before it has
//! been shown. The capture is streamed: memory does not grow with the file.
//!
//! Exit code (`DEC-EXIT-001`): 1 when some RoCEv2 frame is malformed or has a bad ICRC, 2
//! when the file cannot be read to its end or the arguments are wrong, 0 otherwise. Frames
//! of other protocols, frames cut by the capture and skipped records do not change it;
//! `--strict` also fails any frame that does not decode completely (`DEC-EXIT-002`).
//! Violations found by `--validate` (on RoCEv2 frames only) are reported and do not change
//! it. An output that goes away (a closed pipe) or fills up ends the output quietly; the
//! capture is still read to its end, and the exit code is the same as with the output.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use openrdma_codec::LinkType;
use openrdma_codec::frame::{self, FrameKind};

use crate::capture::CaptureReader;
use crate::error::{CliError, Outcome};
use crate::render::{FrameView, Out};

/// Arguments of `openrdma dissect`.
#[derive(Debug, Clone, clap::Args)]
pub struct DissectArgs {
    /// The capture: pcap (either byte order, microsecond or nanosecond timestamps) or pcapng;
    /// `-` reads standard input.
    pub file: PathBuf,
    /// Print one JSON object per frame (JSON Lines) instead of the readable view.
    #[arg(long)]
    pub json: bool,
    /// Also check every RoCEv2 frame against the specification and list what it breaks,
    /// with the requirement IDs.
    #[arg(long)]
    pub validate: bool,
    /// Exit with 1 when any frame does not decode completely (another protocol's frame
    /// with a decode error, a frame cut by the capture), not only on RoCEv2 frames.
    #[arg(long)]
    pub strict: bool,
}

/// Output buffered up to this many bytes before it is written.
const OUT_CHUNK: usize = 256 << 10;

/// Runs the command, writing to standard output.
pub fn run(args: &DissectArgs) -> Result<Outcome, CliError> {
    let capture = |source| CliError::Capture { path: args.file.clone(), source };
    let input: Box<dyn Read> = if args.file == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        Box::new(
            File::open(&args.file).map_err(|e| capture(crate::capture::CaptureError::Open(e)))?,
        )
    };
    let reader = CaptureReader::new(input).map_err(capture)?;
    let mut out = io::stdout().lock();
    let (outcome, output_error) = dissect(reader, args, &mut out)?;
    crate::output::settle(outcome, output_error.map(crate::output::Failure::Stdout))
}

/// Dissects every record of `capture` into `out`. `args.file` names the capture in errors.
/// An error writing `out` ends the output and nothing else: the capture is still read, and
/// the outcome is what it would have been; the first output error comes back beside it, for
/// the caller to settle the exit code as every command does (`DEC-EXIT-001`).
pub fn dissect<R: Read>(
    mut capture: CaptureReader<R>,
    args: &DissectArgs,
    out: &mut impl Write,
) -> Result<(Outcome, Option<io::Error>), CliError> {
    let mut outcome = Outcome::Clean;
    let mut buf = Out::with_capacity(OUT_CHUNK + (64 << 10));
    let mut output_error = None;
    while let Some(record) = capture.next_packet() {
        let record = match record {
            Ok(r) => r,
            Err(source) => {
                flush(out, &mut buf, &mut output_error);
                if output_error.is_none() {
                    let _ = out.flush();
                }
                return Err(CliError::Capture { path: args.file.clone(), source });
            }
        };
        let link = LinkType(record.link_type);
        let decoded = link
            .is_decoded()
            .then(|| frame::decode_captured(link, record.data, record.orig_len as usize));
        let view = match &decoded {
            Some(decoded) => {
                if decoded.fails(args.strict) {
                    outcome = Outcome::Findings;
                }
                let judged = matches!(decoded.kind(), FrameKind::Roce | FrameKind::Malformed);
                let violations = (args.validate && judged).then(|| decoded.validate());
                FrameView::decoded(&record, decoded, violations)
            }
            None => FrameView::skipped(&record),
        };
        if output_error.is_none() {
            if args.json {
                view.json(&mut buf);
            } else {
                view.text(&mut buf);
            }
            if buf.len() >= OUT_CHUNK {
                flush(out, &mut buf, &mut output_error);
            }
        }
    }
    flush(out, &mut buf, &mut output_error);
    if output_error.is_none() {
        if let Err(e) = out.flush() {
            output_error = Some(e);
        }
    }
    Ok((outcome, output_error))
}

/// Writes `buf` to `out` while writing still works, and empties it. The first error ends
/// the output and is kept.
fn flush(out: &mut impl Write, buf: &mut Out, error: &mut Option<io::Error>) {
    if error.is_none() {
        if let Err(e) = out.write_all(buf.as_bytes()) {
            *error = Some(e);
        }
    }
    buf.clear();
}
