//! A compact binary form of field values and excerpts, for events kept by the million.
//!
//! A `check` holds every event of a run until the merge has ordered them; on an event-dense log of a
//! long-running cluster that is millions of events. As `Vec<(&str, Value)>` a field costs about 100 bytes
//! (the enum is as large as its largest variant) plus an allocation; packed, a field costs its bytes: a
//! varint for numbers, a length and the text for strings. Only [`crate::event_store`] packs and unpacks.

use crate::time::Timestamp;
use crate::value::{SecretKeyInfo, Value};

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-encoded, so that small negative numbers stay short.
pub fn put_ivarint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_uvarint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        // Length + 1, so that 0 is "none".
        Some(s) => {
            put_uvarint(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
        None => out.push(0),
    }
}

fn put_instant(out: &mut Vec<u8>, t: Option<Timestamp>) {
    match t {
        None => out.push(0),
        Some(t) => {
            out.push(1 + u8::from(t.has_date));
            put_ivarint(out, t.millis);
        }
    }
}

fn put_key(out: &mut Vec<u8>, k: &SecretKeyInfo) {
    put_str(out, &k.id);
    put_instant(out, k.created);
    put_instant(out, k.expires);
}

/// Appends `value`.
pub fn put_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::U64(v) => {
            out.push(0);
            put_uvarint(out, *v);
        }
        Value::I64(v) => {
            out.push(1);
            put_ivarint(out, *v);
        }
        Value::Str(s) => {
            out.push(2);
            put_str(out, s);
        }
        Value::TermIndex { term, index } => {
            out.push(3);
            put_ivarint(out, *term);
            put_ivarint(out, *index);
        }
        Value::Version { name, number } => {
            out.push(4);
            put_str(out, name);
            put_ivarint(out, *number);
        }
        Value::BlockId {
            container,
            local,
            bcs_id,
            replica_index,
        } => {
            out.push(5);
            put_uvarint(out, *container);
            put_uvarint(out, *local);
            put_uvarint(out, *bcs_id);
            match replica_index {
                Some(r) => {
                    out.push(1);
                    put_uvarint(out, *r);
                }
                None => out.push(0),
            }
        }
        Value::SecretKey(k) => {
            out.push(6);
            put_key(out, k);
        }
        Value::SecretKeys(ks) => {
            out.push(7);
            put_uvarint(out, ks.len() as u64);
            for k in ks {
                put_key(out, k);
            }
        }
        Value::Datanode { uuid, host, ip } => {
            out.push(8);
            put_str(out, uuid);
            put_opt_str(out, host.as_deref());
            put_opt_str(out, ip.as_deref());
        }
        Value::Member { peer, group } => {
            out.push(9);
            put_str(out, peer);
            put_str(out, group);
        }
        Value::HostIp { host, ip } => {
            out.push(10);
            put_str(out, host);
            put_opt_str(out, ip.as_deref());
        }
    }
}

/// Reads what the `put_*` functions wrote. The bytes are our own, written in this process: a short or
/// damaged buffer is a bug, and panics with what was being read.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    /// How many bytes have not been read.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    pub fn byte(&mut self) -> u8 {
        let (&b, rest) = self
            .bytes
            .split_first()
            .expect("packed event: a byte past the end");
        self.bytes = rest;
        b
    }

    pub fn uvarint(&mut self) -> u64 {
        self.try_uvarint()
            .expect("packed event: a varint past the end")
    }

    /// A varint, or `None` if the bytes end inside it (a window that cut a record).
    pub fn try_uvarint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let (&b, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
        }
    }

    pub fn ivarint(&mut self) -> i64 {
        let z = self.uvarint();
        ((z >> 1) as i64) ^ -((z & 1) as i64)
    }

    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        head
    }

    pub fn str(&mut self) -> &'a str {
        let n = self.uvarint() as usize;
        std::str::from_utf8(self.bytes(n)).expect("packed event: text is UTF-8")
    }

    fn opt_str(&mut self) -> Option<String> {
        match self.uvarint() {
            0 => None,
            n => Some(
                std::str::from_utf8(self.bytes(n as usize - 1))
                    .expect("packed event: text is UTF-8")
                    .to_string(),
            ),
        }
    }

    fn instant(&mut self) -> Option<Timestamp> {
        match self.byte() {
            0 => None,
            tag => Some(Timestamp {
                has_date: tag == 2,
                millis: self.ivarint(),
            }),
        }
    }

    fn key(&mut self) -> SecretKeyInfo {
        SecretKeyInfo {
            id: self.str().to_string(),
            created: self.instant(),
            expires: self.instant(),
        }
    }

    pub fn value(&mut self) -> Value {
        match self.byte() {
            0 => Value::U64(self.uvarint()),
            1 => Value::I64(self.ivarint()),
            2 => Value::Str(self.str().to_string()),
            3 => Value::TermIndex {
                term: self.ivarint(),
                index: self.ivarint(),
            },
            4 => Value::Version {
                name: self.str().to_string(),
                number: self.ivarint(),
            },
            5 => Value::BlockId {
                container: self.uvarint(),
                local: self.uvarint(),
                bcs_id: self.uvarint(),
                replica_index: (self.byte() == 1).then(|| self.uvarint()),
            },
            6 => Value::SecretKey(self.key()),
            7 => {
                let n = self.uvarint() as usize;
                Value::SecretKeys((0..n).map(|_| self.key()).collect())
            }
            8 => Value::Datanode {
                uuid: self.str().to_string(),
                host: self.opt_str(),
                ip: self.opt_str(),
            },
            9 => Value::Member {
                peer: self.str().to_string(),
                group: self.str().to_string(),
            },
            10 => Value::HostIp {
                host: self.str().to_string(),
                ip: self.opt_str(),
            },
            tag => panic!("packed event: unknown value tag {tag}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn instant() -> impl Strategy<Value = Option<Timestamp>> {
        proptest::option::of(
            (any::<i64>(), any::<bool>())
                .prop_map(|(millis, has_date)| Timestamp { millis, has_date }),
        )
    }

    fn key() -> impl Strategy<Value = SecretKeyInfo> {
        (".{0,40}", instant(), instant()).prop_map(|(id, created, expires)| SecretKeyInfo {
            id,
            created,
            expires,
        })
    }

    fn value() -> impl Strategy<Value = Value> {
        let text = ".{0,50}";
        prop_oneof![
            any::<u64>().prop_map(Value::U64),
            any::<i64>().prop_map(Value::I64),
            text.prop_map(Value::Str),
            (any::<i64>(), any::<i64>()).prop_map(|(term, index)| Value::TermIndex { term, index }),
            (text, any::<i64>()).prop_map(|(name, number)| Value::Version { name, number }),
            (
                any::<u64>(),
                any::<u64>(),
                any::<u64>(),
                proptest::option::of(any::<u64>())
            )
                .prop_map(|(container, local, bcs_id, replica_index)| Value::BlockId {
                    container,
                    local,
                    bcs_id,
                    replica_index
                }),
            key().prop_map(Value::SecretKey),
            proptest::collection::vec(key(), 0..4).prop_map(Value::SecretKeys),
            (text, proptest::option::of(text), proptest::option::of(text))
                .prop_map(|(uuid, host, ip)| Value::Datanode { uuid, host, ip }),
            (text, text).prop_map(|(peer, group)| Value::Member { peer, group }),
            (text, proptest::option::of(text)).prop_map(|(host, ip)| Value::HostIp { host, ip }),
        ]
    }

    proptest! {
        #[test]
        fn every_value_reads_back_as_written(values in proptest::collection::vec(value(), 0..6)) {
            let mut out = Vec::new();
            for v in &values {
                put_value(&mut out, v);
            }
            let mut r = Reader::new(&out);
            let back: Vec<Value> = values.iter().map(|_| r.value()).collect();
            prop_assert_eq!(back, values);
            prop_assert_eq!(r.remaining(), 0);
        }
    }

    #[test]
    fn varints_are_short_for_small_numbers_of_either_sign() {
        for (v, len) in [
            (0i64, 1),
            (-1, 1),
            (63, 1),
            (-64, 1),
            (64, 2),
            (i64::MIN, 10),
        ] {
            let mut out = Vec::new();
            put_ivarint(&mut out, v);
            assert_eq!(out.len(), len, "{v}");
            assert_eq!(Reader::new(&out).ivarint(), v);
        }
        let mut out = Vec::new();
        put_uvarint(&mut out, u64::MAX);
        assert_eq!(Reader::new(&out).uvarint(), u64::MAX);
    }
}
