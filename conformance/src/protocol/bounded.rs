//! What one line of the adapter protocol may cost to decode: little more than its length
//! (`CONF-ADP-018`, beside the length of `CONF-ADP-001`).
//!
//! A line is at most [`super::MAX_LINE_LEN`] bytes, but a short text can stand for a large
//! structure (`[1,1,1,...]` is two bytes an element), so the length alone does not bound the
//! memory a decoder spends. Lines are decoded here straight into the typed messages:
//!
//! * the message's `type` is read first, everything else skipped without being built
//!   ([`serde::de::IgnoredAny`]), and then the message of that type is read, its unknown
//!   keys skipped the same way (`CONF-ADP-003`);
//! * no line nests arrays and objects deeper than [`MAX_DEPTH`];
//! * the lists a message keeps (`inputs`, `outputs`, `capabilities`) hold at most
//!   [`MAX_ITEMS`] entries;
//! * a command, an event, a manifest or a frame's `fields` is counted before it is built
//!   and holds at most [`MAX_VALUES`] JSON values; the fields of an output frame that has
//!   its bytes are not read at all (`CONF-ADP-014`).
//!
//! A line past a limit is a protocol error naming it (`CONF-ADP-018.b`); the runner fails
//! the scenario with it as the device failure.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use openrdma_device::{CpuCommand, HostCommand, Manifest, NicEvent};
use serde::Deserialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Advance, Hello, Message, Outputs, WireInputKind, WireOutputKind};

/// The deepest nesting of arrays and objects a line may hold (`CONF-ADP-018`).
pub const MAX_DEPTH: usize = 64;

/// The most entries of a list that a message keeps: `inputs`, `outputs`, `capabilities`
/// (`CONF-ADP-018`).
pub const MAX_ITEMS: usize = 1 << 16;

/// The most JSON values (each number, string, array, object, key...) that one command,
/// event, manifest or frame's `fields` may hold (`CONF-ADP-018`).
pub const MAX_VALUES: usize = 1 << 16;

/// The depth of the deepest array or object of `line` if it is above [`MAX_DEPTH`]. Strings
/// are skipped; the text need not be valid JSON (the parser says what else is wrong).
pub(super) fn too_deep(line: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in line {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Counts the values of one JSON value without building it, failing past `left`.
#[derive(Clone, Copy)]
struct Counter<'a> {
    left: &'a Cell<usize>,
}

impl Counter<'_> {
    fn tick<E: de::Error>(self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(n) => {
                self.left.set(n);
                Ok(())
            }
            None => Err(E::custom(format_args!("more than {MAX_VALUES} values"))),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Counter<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counter<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.tick()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.tick()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.tick()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.tick()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.tick()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.tick()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.tick()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.tick()?;
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.tick()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.tick()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

/// Whether `text` (one JSON value) holds at most `max` values; the error says why not.
pub(super) fn count(text: &str, max: usize) -> Result<(), serde_json::Error> {
    let left = Cell::new(max);
    let mut d = serde_json::Deserializer::from_str(text);
    Counter { left: &left }.deserialize(&mut d)?;
    d.end()
}

/// `T` read from raw JSON once its values are counted (at most [`MAX_VALUES`]).
fn bounded<T: DeserializeOwned, E: de::Error>(raw: &RawValue) -> Result<T, E> {
    count(raw.get(), MAX_VALUES).map_err(E::custom)?;
    serde_json::from_str(raw.get()).map_err(E::custom)
}

/// A value read from raw JSON once counted: see [`bounded`].
#[derive(Debug)]
struct Bounded<T>(T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Bounded<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        bounded(&raw).map(Bounded)
    }
}

/// A list of at most [`MAX_ITEMS`] entries, read one by one.
pub(super) fn bounded_vec<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an array of at most {MAX_ITEMS} entries")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(x) = seq.next_element()? {
                if out.len() == MAX_ITEMS {
                    return Err(de::Error::custom(format_args!("more than {MAX_ITEMS} entries")));
                }
                out.push(x);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V(PhantomData))
}

/// [`bounded_vec`] of an optional list.
pub(super) fn bounded_opt_vec<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(bound = "T: Deserialize<'de>")]
    struct Some_<T>(#[serde(deserialize_with = "bounded_vec")] Vec<T>);
    Option::<Some_<T>>::deserialize(d).map(|o| o.map(|s| s.0))
}

/// The keys of an input or output object.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Kind,
    Port,
    Bytes,
    Fields,
    Command,
    Event,
    #[serde(other)]
    Other,
}

/// The keys of an input or output, each kept raw until `kind` is known.
#[derive(Default)]
struct Keys {
    kind: Option<String>,
    port: Option<Box<RawValue>>,
    bytes: Option<Box<RawValue>>,
    fields: Option<Box<RawValue>>,
    command: Option<Box<RawValue>>,
    event: Option<Box<RawValue>>,
}

impl Keys {
    fn read<'de, A: MapAccess<'de>>(mut map: A, output: bool) -> Result<Keys, A::Error> {
        let mut k = Keys::default();
        fn once<E: de::Error>(
            slot: &mut Option<Box<RawValue>>,
            v: Box<RawValue>,
            name: &'static str,
        ) -> Result<(), E> {
            if slot.replace(v).is_some() {
                return Err(E::duplicate_field(name));
            }
            Ok(())
        }
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Kind => {
                    if k.kind.replace(map.next_value()?).is_some() {
                        return Err(de::Error::duplicate_field("kind"));
                    }
                }
                Key::Port => once(&mut k.port, map.next_value()?, "port")?,
                Key::Bytes => once(&mut k.bytes, map.next_value()?, "bytes")?,
                Key::Fields => once(&mut k.fields, map.next_value()?, "fields")?,
                Key::Command if !output => once(&mut k.command, map.next_value()?, "command")?,
                Key::Event if output => once(&mut k.event, map.next_value()?, "event")?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(k)
    }
}

fn required<E: de::Error>(
    v: Option<Box<RawValue>>,
    name: &'static str,
) -> Result<Box<RawValue>, E> {
    v.ok_or_else(|| E::missing_field(name))
}

fn plain<T: DeserializeOwned, E: de::Error>(raw: &RawValue) -> Result<T, E> {
    serde_json::from_str(raw.get()).map_err(E::custom)
}

#[derive(Deserialize)]
struct Hex(#[serde(with = "super::hex")] Vec<u8>);

impl<'de> Deserialize<'de> for WireInputKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WireInputKind;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an input object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<WireInputKind, A::Error> {
                let k = Keys::read(map, false)?;
                match k.kind.as_deref() {
                    None => Err(de::Error::missing_field("kind")),
                    Some("frame") => {
                        let port = plain(&required(k.port, "port")?)?;
                        let Hex(bytes) = plain(&required(k.bytes, "bytes")?)?;
                        let fields = match k.fields {
                            Some(raw) => bounded::<Option<Value>, _>(&raw)?,
                            None => None,
                        };
                        Ok(WireInputKind::Frame { port, bytes, fields })
                    }
                    Some("host") => Ok(WireInputKind::Host {
                        command: bounded::<HostCommand, _>(&required(k.command, "command")?)?,
                    }),
                    Some("cpu") => Ok(WireInputKind::Cpu {
                        command: bounded::<CpuCommand, _>(&required(k.command, "command")?)?,
                    }),
                    Some(other) => {
                        Err(de::Error::unknown_variant(other, &["frame", "host", "cpu"]))
                    }
                }
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for WireOutputKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WireOutputKind;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an output object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<WireOutputKind, A::Error> {
                let k = Keys::read(map, true)?;
                match k.kind.as_deref() {
                    None => Err(de::Error::missing_field("kind")),
                    Some("frame") => {
                        let port = plain(&required(k.port, "port")?)?;
                        let bytes = match &k.bytes {
                            Some(raw) => Some(plain::<Hex, _>(raw)?.0),
                            None => None,
                        };
                        // Beside the bytes, the fields are not read (CONF-ADP-014).
                        let fields = match (&bytes, k.fields) {
                            (None, Some(raw)) => bounded::<Option<Value>, _>(&raw)?,
                            _ => None,
                        };
                        Ok(WireOutputKind::Frame { port, bytes, fields })
                    }
                    Some("event") => Ok(WireOutputKind::Event {
                        event: bounded::<NicEvent, _>(&required(k.event, "event")?)?,
                    }),
                    Some(other) => Err(de::Error::unknown_variant(other, &["frame", "event"])),
                }
            }
        }
        d.deserialize_map(V)
    }
}

/// Decodes a line that is valid JSON of bounded depth into the message its `type` names;
/// the error is the parser's, for the caller to explain.
pub(super) fn typed(line: &str) -> Result<Message, serde_json::Error> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "type")]
        ty: Option<String>,
    }
    #[derive(Deserialize)]
    struct Start {
        manifest: Bounded<Manifest>,
    }
    #[derive(Deserialize)]
    struct Unsupported {
        reason: String,
    }
    #[derive(Deserialize)]
    struct Error {
        message: String,
    }
    let head: Head = serde_json::from_str(line)?;
    let Some(ty) = head.ty else {
        return Err(de::Error::custom("a message needs a `type`"));
    };
    Ok(match ty.as_str() {
        "hello" => Message::Hello(serde_json::from_str::<Hello>(line)?),
        "start" => {
            let s: Start = serde_json::from_str(line)?;
            Message::Start { manifest: Box::new(s.manifest.0) }
        }
        "started" => Message::Started,
        "unsupported" => {
            Message::Unsupported { reason: serde_json::from_str::<Unsupported>(line)?.reason }
        }
        "advance" => Message::Advance(serde_json::from_str::<Advance>(line)?),
        "outputs" => Message::Outputs(serde_json::from_str::<Outputs>(line)?),
        "finish" => Message::Finish,
        "finished" => Message::Finished,
        "error" => Message::Error { message: serde_json::from_str::<Error>(line)?.message },
        other => return Err(de::Error::custom(format_args!("unknown message type {other:?}"))),
    })
}
