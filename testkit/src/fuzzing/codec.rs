//! Bodies of the fuzz targets that exercise the codec, as ordinary functions: the
//! `fuzz/` workspace calls them from libFuzzer, and the tests call them on the seed
//! corpora, so a crash found by the fuzzer is a test failure too.
//!
//! Each function panics only when the codec breaks one of its own promises.

use openrdma_codec::frame::{DECODE_RULES, FrameKind, IcrcStatus, decode, decode_captured};
use openrdma_codec::wire::LinkType;

/// Frame decode: never panics; every violation and decode error names one of the frame's
/// own rules (`DecodedFrame::rules`, `frame::DECODE_RULES`); whatever decodes cleanly
/// re-emits to the same bytes, and decoding those bytes again gives the same frame.
pub fn frame_decode(data: &[u8]) {
    let d = decode(data);
    let rules = d.rules();
    for v in d.validate() {
        assert!(rules.contains(&v.requirement), "{v} is not among the frame's rules {rules:?}");
    }
    if let Some(e) = d.error {
        assert!(DECODE_RULES.contains(&e.requirement()), "{e}: {}", e.requirement());
    }
    let _ = d.entropy();
    // The same bytes under the other link types a reader of captures decodes, and as a frame
    // the capture cut: never a panic; a cut frame is truncated, its ICRC never judged
    // (DEC-CUT-001), and it fails only a strict reader.
    for link in [LinkType::LINUX_SLL, LinkType::LINUX_SLL2, LinkType::RAW, LinkType::IPV6] {
        let other = decode_captured(link, data, data.len());
        let _ = (other.validate(), other.kind(), other.fails(true));
    }
    let cut = decode_captured(LinkType::ETHERNET, data, data.len() + 1 + data.len() % 64);
    assert_eq!(cut.kind(), FrameKind::Truncated);
    assert!(matches!(cut.icrc, IcrcStatus::NotCheckable | IcrcStatus::Absent), "{:?}", cut.icrc);
    assert!(!cut.fails(false) && cut.to_repr().is_none());
    let Some(repr) = d.to_repr() else { return };
    let bytes: Vec<u8> = match repr.to_bytes() {
        Ok(b) => b,
        Err(e) => panic!("a decoded frame must re-emit: {e}"),
    };
    assert_eq!(bytes.as_slice(), data, "parse -> emit must be lossless");
    let again = decode(&bytes);
    assert_eq!(again.to_repr().as_ref(), Some(&repr), "decode -> emit -> decode must be stable");
    assert_eq!(again.icrc == IcrcStatus::Ok, d.icrc == IcrcStatus::Ok);
}

pub use self::repr::repr_roundtrip;

mod repr {
    use std::vec;
    use std::vec::Vec;

    use arbitrary::{Arbitrary, Unstructured};

    use openrdma_codec::error::{DecodeError, DecodeErrorKind, EmitError, Violation};
    use openrdma_codec::frame::{Extensions, FrameRepr, IcrcStatus, IpRepr, decode, header_stack};
    use openrdma_codec::host::{CompletionRepr, DoorbellToken, FlagRepr, WorkRequest};
    use openrdma_codec::opcode::{ExtHeader, Opcode};
    use openrdma_codec::wire::*;

    /// What the round trip needs of a Repr: the same four functions every Repr has.
    trait Wire: Sized + PartialEq + core::fmt::Debug + for<'a> Arbitrary<'a> {
        const NAME: &'static str;
        fn parse_bytes(b: &[u8]) -> Result<Self, DecodeError>;
        fn emit_bytes(&self, b: &mut [u8]) -> Result<usize, EmitError>;
        fn wire_len(&self) -> usize;
        fn check(&self, base: usize, out: &mut Vec<Violation>);
    }

    /// The table of Reprs the round trip covers: every wire header and every host format
    /// with a binary layout. (`Template` has none: it is configuration.)
    macro_rules! wire_table {
        ($($t:ident),* $(,)?) => {
            $(impl Wire for $t {
                const NAME: &'static str = stringify!($t);
                fn parse_bytes(b: &[u8]) -> Result<Self, DecodeError> {
                    $t::parse(b)
                }
                fn emit_bytes(&self, b: &mut [u8]) -> Result<usize, EmitError> {
                    self.emit(b)
                }
                fn wire_len(&self) -> usize {
                    self.buffer_len()
                }
                fn check(&self, base: usize, out: &mut Vec<Violation>) {
                    self.validate(base, out)
                }
            })*
        };
    }

    wire_table!(
        EthernetRepr,
        VlanRepr,
        Ipv4Repr,
        Ipv6Repr,
        UdpRepr,
        BthRepr,
        MethRepr,
        TsethRepr,
        RethRepr,
        ImmDtRepr,
        AethRepr,
        SethRepr,
        CcStateRepr,
        NethRepr,
        PethRepr,
        ErthRepr,
        EethRepr,
        DethRepr,
        IethRepr,
        AtomicEthRepr,
        AtomicAckEthRepr,
        CnpRepr,
        DoorbellToken,
        WorkRequest,
        CompletionRepr,
        FlagRepr,
    );

    /// Number of choices of the selector byte: the 26 Reprs above and a whole frame.
    const CHOICES: u8 = 27;
    /// At most this many Reprs per input, so that one execution stays short.
    const MAX_PER_INPUT: usize = 64;

    /// Round trip of arbitrary Reprs: any Repr built by `Arbitrary` (every field inside
    /// its width) emits exactly `buffer_len()` bytes that parse back to the same Repr and
    /// re-emit to the same bytes; a buffer one byte short is an `EmitError`, a prefix one
    /// byte short a truncation `DecodeError` inside the buffer; `validate` never panics.
    /// A whole `FrameRepr` with the opcode's header stack, after `finalize()`, emits,
    /// decodes with a good ICRC and no error, and gives back the same frame.
    ///
    /// Input: a sequence of records, each a selector byte (`b % 27`: 0 Ethernet, 1 VLAN,
    /// 2 IPv4, 3 IPv6, 4 UDP, 5 BTH, 6 METH, 7 TSETH, 8 RETH, 9 ImmDt, 10 AETH, 11 SETH,
    /// 12 CC_STATE, 13 NETH, 14 PETH, 15 ERTH, 16 EETH, 17 DETH, 18 IETH, 19 AtomicETH,
    /// 20 AtomicAckETH, 21 CNP, 22 doorbell token, 23 work request, 24 completion entry,
    /// 25 flag, 26 whole frame) followed by the bytes `Arbitrary` consumes for it.
    pub fn repr_roundtrip(data: &[u8]) {
        let mut u = Unstructured::new(data);
        for _ in 0..MAX_PER_INPUT {
            if u.is_empty() {
                break;
            }
            let Ok(sel) = u8::arbitrary(&mut u) else { break };
            let u = &mut u;
            let r = match sel % CHOICES {
                0 => header::<EthernetRepr>(u),
                1 => header::<VlanRepr>(u),
                2 => header::<Ipv4Repr>(u),
                3 => header::<Ipv6Repr>(u),
                4 => header::<UdpRepr>(u),
                5 => header::<BthRepr>(u),
                6 => header::<MethRepr>(u),
                7 => header::<TsethRepr>(u),
                8 => header::<RethRepr>(u),
                9 => header::<ImmDtRepr>(u),
                10 => header::<AethRepr>(u),
                11 => header::<SethRepr>(u),
                12 => header::<CcStateRepr>(u),
                13 => header::<NethRepr>(u),
                14 => header::<PethRepr>(u),
                15 => header::<ErthRepr>(u),
                16 => header::<EethRepr>(u),
                17 => header::<DethRepr>(u),
                18 => header::<IethRepr>(u),
                19 => header::<AtomicEthRepr>(u),
                20 => header::<AtomicAckEthRepr>(u),
                21 => header::<CnpRepr>(u),
                22 => header::<DoorbellToken>(u),
                23 => header::<WorkRequest>(u),
                24 => header::<CompletionRepr>(u),
                25 => header::<FlagRepr>(u),
                _ => frame(u),
            };
            if r.is_err() {
                break;
            }
        }
    }

    fn header<T: Wire>(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
        let r = T::arbitrary(u)?;
        let name = T::NAME;
        let n = r.wire_len();
        assert!(n > 0, "{name}: buffer_len is 0");
        // One spare byte after the header: emit must not touch it.
        let mut buf = vec![0xA5u8; n + 1];
        assert_eq!(r.emit_bytes(&mut buf[..n]), Ok(n), "{name}: emit of {r:?}");
        assert_eq!(buf[n], 0xA5, "{name}: emit wrote past buffer_len");
        let bytes = &buf[..n];
        let back = match T::parse_bytes(bytes) {
            Ok(b) => b,
            Err(e) => panic!("{name}: emitted bytes do not parse: {e} ({r:?})"),
        };
        assert_eq!(back, r, "{name}: parse(emit(r)) != r");
        let mut again = vec![0u8; n];
        assert_eq!(back.emit_bytes(&mut again), Ok(n), "{name}");
        assert_eq!(again.as_slice(), bytes, "{name}: emit(parse(b)) != b");
        // A longer buffer parses the same (a header reads only its own bytes).
        assert_eq!(T::parse_bytes(&buf).as_ref(), Ok(&r), "{name}: trailing byte changed parse");
        // One byte short: an error, never a panic, naming a field inside the buffer.
        let mut short = vec![0u8; n - 1];
        match r.emit_bytes(&mut short) {
            Err(EmitError::BufferTooShort { need, have, .. }) => {
                assert!(need > have && have == n - 1, "{name}: need {need}, have {have}");
            }
            other => panic!("{name}: emit into {} bytes gave {other:?}", n - 1),
        }
        match T::parse_bytes(&bytes[..n - 1]) {
            Err(e @ DecodeError { kind: DecodeErrorKind::Truncated { need, have }, .. }) => {
                assert!(e.offset < n, "{name}: {e} lies beyond the buffer");
                assert!(e.offset + need > n - 1, "{name}: {e}: the field was not cut");
                assert_eq!(e.offset + have, n - 1, "{name}: {e}: have is not what is left");
            }
            other => panic!("{name}: a prefix one byte short gave {other:?}"),
        }
        let mut out = Vec::new();
        r.check(7, &mut out);
        for v in &out {
            assert!(v.offset.is_none_or(|o| o >= 7 && o < 7 + n), "{name}: {v} lies outside");
        }
        Ok(())
    }

    /// Fills `ext` with exactly the headers of `bth`'s stack: keeps those the arbitrary
    /// frame already has, builds the missing ones from the input, drops the others.
    fn fit_ext(
        u: &mut Unstructured<'_>,
        bth: &BthRepr,
        ext: &mut Extensions,
    ) -> arbitrary::Result<()> {
        let stack: Vec<ExtHeader> = header_stack(bth).collect();
        let has = |h| stack.contains(&h);
        macro_rules! fit {
            ($($h:ident => $f:ident),* $(,)?) => {$(
                if !has(ExtHeader::$h) {
                    ext.$f = None;
                } else if ext.$f.is_none() {
                    ext.$f = Some(Arbitrary::arbitrary(u)?);
                }
            )*};
        }
        fit!(
            Meth => meth, Tseth => tseth, Reth => reth, ImmDt => immdt, Aeth => aeth,
            Seth => seth, CcState => cc_state, Neth => neth, Peth => peth, Erth => erth,
            Eeth => eeth, Deth => deth, Rdeth => rdeth, Xrceth => xrceth, Ieth => ieth,
            AtomicEth => atomiceth,
            AtomicAckEth => atomicacketh, Cnp => cnp,
        );
        Ok(())
    }

    /// A whole frame: an arbitrary `FrameRepr` emits or refuses without panicking; made
    /// into a RoCEv2 frame (ethertypes that chain, UDP to 4791 over a non-fragment, the
    /// opcode's header stack) and finalized, it decodes back to itself.
    fn frame(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
        let mut f = FrameRepr::arbitrary(u)?;
        // As built, the frame is usually inconsistent: emit refuses or writes something
        // that decodes without panicking.
        if let Ok(b) = f.to_bytes() {
            let d = decode(&b);
            let _ = d.validate();
        }
        f.chain_to_roce();
        // An arbitrary byte is mostly an unknown opcode; give the table most of the share.
        if f.bth.opcode.info().is_none() && u.ratio(3, 4)? {
            f.bth.opcode = *u.choose(Opcode::ALL)?;
        }
        let bth = f.bth;
        fit_ext(u, &bth, &mut f.ext)?;
        if let Err(e) = f.finalize() {
            let udp_len = f.ip_len() - f.ip.header_len();
            let too_long =
                udp_len > 0xFFFF || (matches!(f.ip, IpRepr::V4(_)) && f.ip_len() > 0xFFFF);
            assert!(too_long, "finalize refused a frame of {} bytes: {e}", f.ip_len());
            return Ok(());
        }
        let bytes = match f.to_bytes() {
            Ok(b) => b,
            Err(e) => panic!("a finalized frame must emit: {e} ({f:?})"),
        };
        assert_eq!(bytes.len(), f.buffer_len());
        let d = decode(&bytes);
        assert_eq!(d.error, None, "finalized frame: {f:?}");
        assert_eq!(d.icrc, IcrcStatus::Ok, "finalized frame: {f:?}");
        let back = d.to_repr().expect("a clean RoCEv2 frame has a Repr");
        assert_eq!(back.to_bytes().as_deref(), Ok(bytes.as_slice()), "decode -> emit");
        assert_eq!(FrameRepr { icrc: None, ..back }, f, "emit -> decode of a finalized frame");
        for v in d.validate() {
            assert!(
                !matches!(v.requirement, "ICRC-VERIFY-001" | "PAY-PAD-001" | "PAY-PAD-002"),
                "a finalized frame breaks {v}"
            );
        }
        Ok(())
    }
}
