//! Numbers that name things software creates on a device and that no wire or host format
//! carries: completion queues and retirement domains. The identifiers that the formats carry
//! (PSNs, QPNs, EVs, MSNs, keys, template IDs) are the codec's (`openrdma_codec::id`).
//!
//! As there, each is a `#[repr(transparent)]` wrapper whose serde form is the bare integer,
//! so scenario files and the adapter protocol read and write as they did before.

use core::fmt;

use serde::{Deserialize, Serialize};

/// A completion queue's number, chosen by software when it creates the queue
/// (`CQE-SETUP-001`); QPs and the device error queue name a queue by it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct CqId(u32);

/// A retirement domain's number (`RET-DOMAIN-001`): in shared retirement, the QPs of a NIC
/// created with the same number share one MSN sequence and one retirement table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct DomainId(u32);

macro_rules! number {
    ($name:ident) => {
        impl $name {
            #[doc = concat!("The ", stringify!($name), " whose value is `value`.")]
            #[inline]
            pub const fn new(value: u32) -> $name {
                $name(value)
            }

            /// The value.
            #[inline]
            pub const fn value(self) -> u32 {
                self.0
            }
        }

        impl From<u32> for $name {
            #[inline]
            fn from(value: u32) -> $name {
                $name(value)
            }
        }

        impl From<$name> for u32 {
            #[inline]
            fn from(id: $name) -> u32 {
                id.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

number!(CqId);
number!(DomainId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(format!("{} {:?}", CqId::new(3), CqId::new(3)), "3 CqId(3)");
        assert_eq!(format!("{} {:?}", DomainId::new(1), DomainId::new(1)), "1 DomainId(1)");
        assert_eq!(serde_json::to_string(&CqId::new(7)).unwrap(), "7");
        assert_eq!(serde_json::from_str::<DomainId>("9").unwrap(), DomainId::new(9));
    }
}
