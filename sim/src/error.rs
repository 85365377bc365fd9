//! The crate's one error type: every error the simulator returns converts into it.

use crate::config::SimConfigError;
use crate::engine::SimError;
use crate::plot::PlotError;
use crate::runspec::{RunFileError, RunSpecError};

/// Any error of the simulator. Each variant holds the error of one step (configuration,
/// set-up, run file, run options, plots), which says what is wrong and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] SimConfigError),
    /// A simulation could not start.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A run file could not be read.
    #[error(transparent)]
    RunFile(#[from] RunFileError),
    /// The options of a run do not fit together.
    #[error(transparent)]
    RunSpec(#[from] RunSpecError),
    /// A plot could not be written.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

impl Error {
    /// The requirement the error enforces, where one does: only an endpoint that refuses
    /// its set-up names one (the model's rule it broke). The simulator's own options are
    /// not requirements of the specification.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            Error::Sim(SimError::Setup { source, .. }) => Some(source.requirement()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_converts_and_keeps_its_message() {
        let file = RunFileError { line: 3, column: 7, message: "no such key `qpz`".into() };
        let e = Error::from(file.clone());
        assert_eq!(e.to_string(), file.to_string());
        assert_eq!(e.requirement(), None);
        let spec = RunSpecError::Knob { key: "qps", reason: "must be at least 1".into() };
        assert_eq!(Error::from(spec).to_string(), "qps: must be at least 1");
        let plot = PlotError { file: "out/plot.svg".into(), reason: "disk full".into() };
        assert!(Error::from(plot).to_string().contains("out/plot.svg"));
    }

    #[test]
    fn a_refused_setup_names_the_rule_the_model_gives() {
        let refused = openrdma_sm::HostError::from(openrdma_sm::ApiMisuse::TooManyQps(4));
        let rule = refused.requirement();
        let e = Error::from(SimError::Setup { host: 1, source: refused });
        assert_eq!(e.requirement(), Some(rule));
        assert!(e.to_string().starts_with("host 1: set-up refused"));
    }
}
