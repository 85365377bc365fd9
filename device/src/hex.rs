//! Bytes in hexadecimal, for the JSON forms of the boundary.

/// Bytes as a hexadecimal string, two digits per byte (`CONF-ADP-013`).
pub(crate) mod hex_bytes {
    use std::fmt::Write as _;

    pub(crate) fn serialize<S: serde::Serializer, B: AsRef<[u8]>>(
        b: &B,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let b = b.as_ref();
        let mut out = String::with_capacity(b.len() * 2);
        for x in b {
            let _ = write!(out, "{x:02x}");
        }
        s.serialize_str(&out)
    }

    pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>, B: From<Vec<u8>>>(
        d: D,
    ) -> Result<B, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        if s.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex payload has an odd number of digits"));
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
