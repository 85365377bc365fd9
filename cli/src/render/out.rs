//! The output buffer of the views, and the formatting of numbers and addresses into it.
//!
//! [`Out`] keeps its buffer at full length and writes by position: each piece first makes
//! sure of its room (one comparison; the buffer grows when it must, so nothing is ever cut),
//! then stores its bytes with fixed-size copies. Numbers are written digit pairs at a time
//! from a table, straight into place.

use std::fmt;

/// The fixed size of the padded strings the views copy in one go (keys, literals).
pub(crate) const PAD: usize = 32;

/// `s` in a zero-padded array of [`PAD`] bytes (at most that long).
pub(crate) const fn padded(s: &str) -> [u8; PAD] {
    let b = s.as_bytes();
    let mut a = [0u8; PAD];
    let mut i = 0;
    while i < b.len() && i < PAD {
        a[i] = b[i];
        i += 1;
    }
    a
}

/// `00`, `01`, ..., `99`: the two digits of each number below 100.
const DEC2: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Lower-case hexadecimal digits.
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// Bytes written by the views, in a buffer they can write by position.
#[derive(Debug, Clone)]
pub struct Out {
    /// Always at its full length; the bytes written are `buf[..len]`.
    buf: Vec<u8>,
    len: usize,
}

impl Default for Out {
    fn default() -> Self {
        Out::with_capacity(4096)
    }
}

impl Out {
    /// An empty output with room for `n` bytes before it first grows.
    pub fn with_capacity(n: usize) -> Out {
        Out { buf: vec![0; n.max(PAD * 4)], len: 0 }
    }

    /// The bytes written since the last [`Out::clear`].
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// How many bytes were written since the last [`Out::clear`].
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written since the last [`Out::clear`].
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets the bytes written; the buffer is kept.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Makes sure that `n` more bytes fit.
    #[inline(always)]
    pub(crate) fn room(&mut self, n: usize) {
        if self.len + n > self.buf.len() {
            self.grow(n);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        let want = (self.len + n).max(self.buf.len() * 2);
        self.buf.resize(want, 0);
    }

    /// Appends the first `n` bytes of `bytes` with one fixed-size copy.
    #[inline(always)]
    pub(crate) fn pad(&mut self, bytes: &[u8; PAD], n: usize) {
        self.room(PAD);
        let at = self.len;
        self.buf[at..at + PAD].copy_from_slice(bytes);
        self.len = at + n.min(PAD);
    }

    /// Appends one byte.
    #[inline(always)]
    pub(crate) fn byte(&mut self, b: u8) {
        self.room(1);
        let at = self.len;
        self.buf[at] = b;
        self.len = at + 1;
    }

    /// Appends `bytes`.
    #[inline]
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.room(bytes.len());
        let at = self.len;
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
        self.len = at + bytes.len();
    }

    /// Appends the decimal digits of `n`. One digit, the most common case, is written in
    /// place; longer numbers out of line.
    #[inline(always)]
    pub(crate) fn u64(&mut self, n: u64) {
        if n < 10 {
            self.byte(b'0' + n as u8);
        } else {
            self.u64_long(n);
        }
    }

    #[inline(never)]
    fn u64_long(&mut self, n: u64) {
        let digits = decimal_digits(n);
        self.room(digits);
        let at = self.len;
        digits_into(&mut self.buf[at..at + digits], n);
        self.len = at + digits;
    }

    /// Appends `n` in decimal with at least `width` digits, zeros in front.
    pub(crate) fn u64_zeros(&mut self, n: u64, width: usize) {
        let digits = decimal_digits(n).max(width);
        self.room(digits);
        let at = self.len;
        digits_into(&mut self.buf[at..at + digits], n);
        self.len = at + digits;
    }

    /// Appends the decimal digits of `n`, with a minus sign when it is negative.
    pub(crate) fn i64(&mut self, n: i64) {
        if n < 0 {
            self.byte(b'-');
        }
        self.u64(n.unsigned_abs());
    }

    /// Appends the decimal digits of a byte.
    #[inline(always)]
    pub(crate) fn u8(&mut self, n: u8) {
        self.room(3);
        let at = self.len;
        let i = 2 * usize::from(n % 100);
        if n >= 100 {
            self.buf[at] = b'0' + n / 100;
            self.buf[at + 1..at + 3].copy_from_slice(&DEC2[i..i + 2]);
            self.len = at + 3;
        } else if n >= 10 {
            self.buf[at..at + 2].copy_from_slice(&DEC2[i..i + 2]);
            self.len = at + 2;
        } else {
            self.buf[at] = b'0' + n;
            self.len = at + 1;
        }
    }

    /// Appends `n` as `0x` and `width` hexadecimal digits (more if it needs them, at least
    /// one).
    pub(crate) fn hex(&mut self, n: u64, width: usize) {
        let digits = ((64 - n.leading_zeros() as usize).div_ceil(4)).max(width).max(1);
        self.room(digits + 2);
        let at = self.len;
        let out = &mut self.buf[at..at + digits + 2];
        out[0] = b'0';
        out[1] = b'x';
        let mut v = n;
        for b in out[2..].iter_mut().rev() {
            *b = HEX[(v & 0xF) as usize];
            v >>= 4;
        }
        self.len = at + digits + 2;
    }

    /// Appends the two hexadecimal digits of each byte of `bytes`.
    pub(crate) fn hex_bytes(&mut self, bytes: &[u8]) {
        self.room(2 * bytes.len());
        let at = self.len;
        let out = &mut self.buf[at..at + 2 * bytes.len()];
        for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 0xF)];
        }
        self.len = at + 2 * bytes.len();
    }

    /// Appends a MAC address as six colon-separated pairs of hexadecimal digits.
    #[inline]
    pub(crate) fn mac(&mut self, m: [u8; 6]) {
        self.room(17);
        let at = self.len;
        let out = &mut self.buf[at..at + 17];
        for (i, b) in m.iter().enumerate() {
            out[3 * i] = HEX[usize::from(b >> 4)];
            out[3 * i + 1] = HEX[usize::from(b & 0xF)];
            if i < 5 {
                out[3 * i + 2] = b':';
            }
        }
        self.len = at + 17;
    }

    /// Appends an IPv4 address in dotted-quad form.
    #[inline]
    pub(crate) fn ipv4(&mut self, a: [u8; 4]) {
        self.u8(a[0]);
        for b in &a[1..] {
            self.byte(b'.');
            self.u8(*b);
        }
    }

    /// Appends a JSON string (quoted, escaped).
    pub(crate) fn json_str(&mut self, s: &str) {
        self.room(s.len() + 2);
        self.byte(b'"');
        for c in s.bytes() {
            match c {
                b'"' => self.bytes(b"\\\""),
                b'\\' => self.bytes(b"\\\\"),
                0..0x20 => {
                    self.bytes(b"\\u00");
                    self.byte(HEX[usize::from(c >> 4)]);
                    self.byte(HEX[usize::from(c & 0xF)]);
                }
                _ => self.byte(c),
            }
        }
        self.byte(b'"');
    }
}

/// 10^0 to 10^19.
const POW10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// How many decimal digits `n` has (1 for 0).
#[inline(always)]
fn decimal_digits(n: u64) -> usize {
    // floor(log2(n)) * 1233 / 4096 is floor(log10(n)) or one less; one comparison decides.
    let log2 = 63 - (n | 1).leading_zeros() as usize;
    let approx = (log2 * 1233) >> 12;
    approx + 1 + usize::from(POW10.get(approx + 1).is_some_and(|p| n >= *p))
}

/// Writes the last `out.len()` decimal digits of `n` into `out`, zeros in front: two at a
/// time from [`DEC2`], then the odd one.
#[inline]
fn digits_into(out: &mut [u8], mut n: u64) {
    let mut i = out.len();
    while i >= 2 {
        let r = 2 * (n % 100) as usize;
        n /= 100;
        out[i - 2..i].copy_from_slice(&DEC2[r..r + 2]);
        i -= 2;
    }
    if i == 1 {
        out[0] = b'0' + (n % 10) as u8;
    }
}

impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut Out)) -> String {
        let mut o = Out::with_capacity(0);
        f(&mut o);
        String::from_utf8(o.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn numbers_as_std_formats_them() {
        let mut samples: Vec<u64> = vec![0, 1, 9, 10, 99, 100, 101, 255, 999, 1000, 65535];
        samples.extend([u64::from(u32::MAX), u64::MAX, u64::MAX - 1, 10u64.pow(19)]);
        samples.extend((0..64).map(|s| 1u64 << s).flat_map(|p| [p - 1, p, p + 1]));
        for n in samples {
            assert_eq!(with(|o| o.u64(n)), n.to_string());
            assert_eq!(decimal_digits(n), n.to_string().len(), "{n}");
            assert_eq!(with(|o| o.u64_zeros(n, 9)), format!("{n:09}"));
            assert_eq!(with(|o| o.hex(n, 0)), format!("{n:#x}"));
            assert_eq!(with(|o| o.hex(n, 6)), format!("0x{n:06x}"));
            let i = n as i64;
            assert_eq!(with(|o| o.i64(i)), i.to_string());
        }
        for b in 0..=255u8 {
            assert_eq!(with(|o| o.u8(b)), b.to_string());
        }
    }

    #[test]
    fn addresses_and_strings() {
        assert_eq!(with(|o| o.mac([0x02, 0, 0xAB, 0xcd, 0x10, 0xff])), "02:00:ab:cd:10:ff");
        assert_eq!(with(|o| o.ipv4([192, 0, 2, 255])), "192.0.2.255");
        assert_eq!(with(|o| o.ipv4([0, 10, 100, 9])), "0.10.100.9");
        assert_eq!(with(|o| o.json_str("a\"b\\c\n")), "\"a\\\"b\\\\c\\u000a\"");
        assert_eq!(with(|o| o.hex_bytes(&[0, 0xAB, 0x5])), "00ab05");
    }

    #[test]
    fn grows_without_losing_bytes() {
        let mut o = Out::with_capacity(0);
        for i in 0..10_000u64 {
            o.u64(i);
            o.pad(&padded(",x"), 2);
        }
        let want: String = (0..10_000u64).map(|i| format!("{i},x")).collect();
        assert_eq!(o.as_bytes(), want.as_bytes());
        o.clear();
        assert!(o.is_empty());
    }
}
