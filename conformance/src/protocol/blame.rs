//! Which field of a command, event or manifest made it fail to decode.
//!
//! serde reads these types from a buffered tree (they are tagged, or nest tagged types), and
//! its error then says what was wrong ("invalid value: integer `1099511627776`, expected
//! u32") but not where. The field is found by trial: a key whose removal changes the error
//! is the one at fault, since serde reports the first bad value before any missing field,
//! and a good key's removal leaves that report as it was. The search goes down into the
//! field at fault while it is an object. It runs only on a line that failed, and is bounded:
//! at most [`MAX_KEYS`] keys an object, [`MAX_LEVELS`] levels down.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The most keys of one object tried.
const MAX_KEYS: usize = 64;

/// The most levels of objects searched.
const MAX_LEVELS: usize = 6;

/// The keys that name a variant of a tagged type: removing one changes every error, so it
/// is never blamed for a field's value.
const TAGS: [&str; 4] = ["event", "command", "cmd", "report"];

/// The path (`qpn`, `nic.seed`) of the field that makes `value` fail to decode as `T`, with
/// serde's words for what is wrong; `None` when `value` decodes, or when no single field
/// is found at fault, or the error is a field missing, which serde names itself.
pub(crate) fn blame<T: DeserializeOwned>(value: &Value) -> Option<(String, String)> {
    let first = serde_json::from_value::<T>(value.clone()).err()?.to_string();
    // A field that is missing is named by serde itself; removing others cannot find it.
    if first.starts_with("missing field") {
        return None;
    }
    let mut path: Vec<String> = Vec::new();
    for _ in 0..MAX_LEVELS {
        let Some(Value::Object(map)) = at(value, &path) else { break };
        if map.len() > MAX_KEYS {
            break;
        }
        let guilty = map.keys().filter(|k| !TAGS.contains(&k.as_str())).find(|k| {
            let mut trial = value.clone();
            if let Some(Value::Object(m)) = at_mut(&mut trial, &path) {
                m.remove(k.as_str());
            }
            serde_json::from_value::<T>(trial).err().map(|e| e.to_string()) != Some(first.clone())
        });
        match guilty {
            Some(k) => path.push(k.clone()),
            None => break,
        }
    }
    if path.is_empty() { None } else { Some((path.join("."), first)) }
}

fn at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, k| v.get(k.as_str()))
}

fn at_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, k| v.get_mut(k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use openrdma_device::{HostCommand, Manifest, NicEvent};
    use serde_json::json;

    #[test]
    fn names_the_field_of_a_tagged_event() {
        let v = json!({"event":"dma_write","qpn":1u64 << 40,"psn":0,"msn":0,"va":0,
            "payload":{"bytes":"00"}});
        let (field, reason) = blame::<NicEvent>(&v).expect("a field at fault");
        assert_eq!(field, "qpn");
        assert!(reason.contains("1099511627776"), "{reason}");
        let v = json!({"event":"flag_write","qpn":17,"side":"responder","msn":70000,
            "addr":0,"value":0});
        assert_eq!(blame::<NicEvent>(&v).map(|b| b.0).as_deref(), Some("msn"));
    }

    #[test]
    fn names_the_field_of_a_command() {
        let v = json!({"command":"set_error_cq","cq":-1});
        assert_eq!(blame::<HostCommand>(&v).map(|b| b.0).as_deref(), Some("cq"));
    }

    #[test]
    fn goes_down_into_nested_objects() {
        let spec = include_str!("../../../spec/conformance.md");
        let line = spec.lines().find(|l| l.starts_with("{\"type\":\"start\"")).expect("a start");
        let mut v: Value = serde_json::from_str(line).expect("JSON");
        let mut m = v["manifest"].take();
        assert!(blame::<Manifest>(&m).is_none(), "the example decodes");
        m["nic"]["pmtu"] = json!("large");
        assert_eq!(blame::<Manifest>(&m).map(|b| b.0).as_deref(), Some("nic.pmtu"));
    }

    #[test]
    fn a_line_of_the_device_names_the_field_by_its_path() {
        let line = r#"{"type":"outputs","seq":1,"outputs":[{"at":0,"output":{"kind":"event","event":{"event":"flag_write","qpn":17,"side":"responder","msn":70000,"addr":0,"value":0}}}]}"#;
        let e = crate::protocol::decode_line(line).expect_err("msn is 16 bits").to_string();
        assert!(e.contains("field `outputs[0].output.event.msn`"), "{e}");
        assert!(e.contains("70000"), "{e}");
    }

    #[test]
    fn a_value_that_decodes_or_is_not_an_object_has_no_field_at_fault() {
        assert!(blame::<NicEvent>(&json!(7)).is_none());
        assert!(blame::<HostCommand>(&json!({"command":"reboot"})).is_none());
        assert!(blame::<HostCommand>(&json!({"command":"set_error_cq"})).is_none());
    }
}
