//! Multipath fabric simulator for OpenRDMA.
