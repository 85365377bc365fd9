//! Replaying recorded inputs (`Nic::handle`): each input does what its `handle_*` method does,
//! and gives back the error that method gives, so that a replay shows where it went wrong.

use openrdma_codec::{Qpn, Rkey};
use openrdma_sm::{
    CpuCommand, HostCommand, InputError, Nic, NicConfig, NicInput, Region, Timestamp,
};

fn region() -> HostCommand {
    HostCommand::RegisterRegion(Region {
        rkey: Rkey::new(7),
        base: 0,
        len: 1 << 20,
        remote_write: true,
    })
}

#[test]
fn a_replayed_input_gives_back_its_error() {
    let mut nic = Nic::new(NicConfig::default()).expect("the default configuration is valid");
    nic.handle(&NicInput::Host { at: Timestamp(1_000), command: region() })
        .expect("a region registered once");
    // A host command dated before the last input: the time went backwards.
    let late = nic.handle(&NicInput::Host { at: Timestamp(10), command: region() });
    assert!(matches!(late, Err(InputError::Host(_))), "{late:?}");
    // A CPU command for a QP the NIC does not have.
    let stranger = NicInput::Cpu {
        at: Timestamp(2_000),
        command: CpuCommand::QpError { qpn: Qpn::new(0x99) },
    };
    assert!(matches!(nic.handle(&stranger), Err(InputError::Packet(_))));
    // A timeout dated before the last input.
    assert!(nic.handle(&NicInput::Timeout { at: Timestamp(10) }).is_err());
    assert_eq!(nic.handle(&NicInput::Timeout { at: Timestamp(3_000) }), Ok(()));
}
