//! `openrdma dissect FILE [--json] [--validate]`: decodes every frame of a pcap or pcapng
//! capture and shows each one, readable or as JSON Lines (see [`crate::render`]).
//!
//! Records on a link type other than Ethernet (for example the host events of a scenario)
//! are listed as skipped. A frame that does not decode never stops the frames after it; a
//! file that goes wrong (a truncated or corrupt record) stops the dissection there, after
//! every frame before it has been shown.
//!
//! Exit code: 0 when every frame decodes with a good or absent ICRC, 1 when some frame has
//! a decode error or a bad ICRC, 2 when the file cannot be read to its end. Violations found
//! by `--validate` are reported, and do not change the exit code.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

use openrdma_codec::frame;

use crate::capture::{CaptureReader, LINKTYPE_ETHERNET};
use crate::error::{CliError, Outcome};
use crate::render::FrameView;

/// Arguments of `openrdma dissect`.
#[derive(Debug, Clone, clap::Args)]
pub struct DissectArgs {
    /// The capture: pcap (either byte order, microsecond or nanosecond timestamps) or pcapng.
    pub file: PathBuf,
    /// Print one JSON object per frame (JSON Lines) instead of the readable view.
    #[arg(long)]
    pub json: bool,
    /// Also check every frame against the specification and list what it breaks, with the
    /// requirement IDs.
    #[arg(long)]
    pub validate: bool,
}

/// Runs the command, writing to standard output.
pub fn run(args: &DissectArgs) -> Result<Outcome, CliError> {
    let capture = CaptureReader::open(&args.file)
        .map_err(|source| CliError::Capture { path: args.file.clone(), source })?;
    let mut out = BufWriter::new(io::stdout().lock());
    let result = dissect(capture, args, &mut out);
    out.flush()?;
    result
}

/// Dissects every record of `capture` into `out`. `args.file` names the capture in errors.
pub fn dissect<R: Read>(
    capture: CaptureReader<R>,
    args: &DissectArgs,
    out: &mut impl Write,
) -> Result<Outcome, CliError> {
    let mut outcome = Outcome::Clean;
    for record in capture {
        let record =
            record.map_err(|source| CliError::Capture { path: args.file.clone(), source })?;
        let view = if record.link_type == LINKTYPE_ETHERNET {
            let decoded = frame::decode(&record.data);
            if !decoded.is_clean() {
                outcome = Outcome::Findings;
            }
            let violations = args.validate.then(|| decoded.validate());
            FrameView::decoded(&record, decoded, violations)
        } else {
            FrameView::skipped(&record)
        };
        if args.json {
            view.write_json(out)?;
        } else {
            view.write_text(out)?;
        }
    }
    Ok(outcome)
}
