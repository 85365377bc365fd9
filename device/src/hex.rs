//! Bytes in hexadecimal, for the JSON forms of the boundary.

/// `bytes` in lower-case hexadecimal, two digits per byte.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xF)]));
    }
    out
}

/// Bytes as a hexadecimal string, two digits per byte (`CONF-ADP-013`).
pub(crate) mod hex_bytes {
    pub(crate) fn serialize<S: serde::Serializer, B: AsRef<[u8]>>(
        b: &B,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::to_hex(b.as_ref()))
    }

    pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>, B: From<Vec<u8>>>(
        d: D,
    ) -> Result<B, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        if s.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex bytes have an odd number of digits"));
        }
        // Two hexadecimal digits per byte, in either case, and nothing else: not the sign
        // that `u8::from_str_radix` would take (CONF-ADP-013).
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        s.as_bytes()
            .chunks_exact(2)
            .enumerate()
            .map(|(i, p)| match (digit(p[0]), digit(p[1])) {
                (Some(h), Some(l)) => Ok(h << 4 | l),
                _ => Err(serde::de::Error::custom(format!(
                    "invalid hex digit at position {}",
                    2 * i
                ))),
            })
            .collect::<Result<Vec<u8>, _>>()
            .map(B::from)
    }
}
