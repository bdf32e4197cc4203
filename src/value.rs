//! Typed field values, parsed from the text a placeholder captured.

use crate::time::Timestamp;
use crate::vocab::FieldType;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_until};
use nom::character::complete::{char, digit1};
use nom::combinator::{map, map_res, opt};
use nom::multi::separated_list0;
use nom::sequence::{delimited, preceded, separated_pair};
use nom::IResult;
use serde_json::{json, Value as Json};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretKeyInfo {
    pub id: String,
    pub created: Option<Timestamp>,
    pub expires: Option<Timestamp>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    U64(u64),
    I64(i64),
    Str(String),
    TermIndex {
        term: i64,
        index: i64,
    },
    Version {
        name: String,
        number: i64,
    },
    BlockId {
        container: u64,
        local: u64,
        bcs_id: u64,
        replica_index: Option<u64>,
    },
    SecretKey(SecretKeyInfo),
    SecretKeys(Vec<SecretKeyInfo>),
    Datanode {
        uuid: String,
        host: Option<String>,
        ip: Option<String>,
    },
    Member {
        peer: String,
        group: String,
    },
    HostIp {
        host: String,
        ip: Option<String>,
    },
}

impl Value {
    /// Parses captured text as `ty`. `Err` says why the text is not a value of the type (a number out of
    /// range, a key id that is not a UUID, a damaged instant): the record is then not evidence of anything.
    pub fn parse(ty: FieldType, s: &str) -> Result<Value, String> {
        let bad = |what: &str| Err(format!("not {what}: `{}`", excerpt(s)));
        Ok(match ty {
            FieldType::U64 => match s.parse() {
                Ok(v) => Value::U64(v),
                Err(_) => return bad("an unsigned 64-bit number"),
            },
            FieldType::I64 => match s.parse() {
                Ok(v) => Value::I64(v),
                Err(_) => return bad("a signed 64-bit number"),
            },
            FieldType::Word | FieldType::Text => Value::Str(s.to_string()),
            FieldType::Uuid => {
                if !is_uuid(s.as_bytes()) {
                    return bad("a UUID");
                }
                Value::Str(s.to_string())
            }
            FieldType::TermIndex => {
                // Ratis prints `<INITIAL_VALUE>` before anything was applied.
                if s.starts_with('<') {
                    return Ok(Value::TermIndex { term: 0, index: -1 });
                }
                let Some((term, index)) = whole(term_index, s) else {
                    return bad("a Ratis term index `(t:T, i:I)`");
                };
                Value::TermIndex { term, index }
            }
            FieldType::TxInfo => {
                let parsed = s
                    .split_once('#')
                    .and_then(|(t, i)| Some((t.parse().ok()?, i.parse().ok()?)));
                let Some((term, index)) = parsed else {
                    return bad("a transaction info `T#I`");
                };
                Value::TermIndex { term, index }
            }
            FieldType::Version => {
                let parsed = s.split_once(" (").and_then(|(name, rest)| {
                    Some((name.to_string(), rest.strip_suffix(')')?.parse().ok()?))
                });
                let Some((name, number)) = parsed else {
                    return bad("a version `NAME (N)`");
                };
                Value::Version { name, number }
            }
            FieldType::BlockId => match whole(block_id, s) {
                Some(v) => v,
                None => return bad("a block id"),
            },
            FieldType::SecretKey => match whole(secret_key, s.trim()) {
                Some(k) => Value::SecretKey(valid_key(k)?),
                None => return bad("a SecretKey(...)"),
            },
            FieldType::SecretKeys => match whole(secret_keys, s.trim()) {
                Some(ks) => {
                    Value::SecretKeys(ks.into_iter().map(valid_key).collect::<Result<_, _>>()?)
                }
                None => return bad("a list of SecretKey(...)"),
            },
            FieldType::Datanode => {
                let split = s.find(['(', '{']).unwrap_or(s.len());
                let uuid = s[..split].to_string();
                // `DatanodeDetails.toString()` starts with the datanode's UUID.
                if !is_uuid(uuid.as_bytes()) {
                    return Err(format!("datanode id not a UUID: `{}`", excerpt(&uuid)));
                }
                let (mut host, mut ip) = (None, None);
                if let Some(inner) = s[split..]
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix(')'))
                {
                    match inner.rsplit_once('/') {
                        Some((h, i)) => {
                            host = Some(h.to_string());
                            ip = Some(i.to_string());
                        }
                        None => host = Some(inner.to_string()),
                    }
                } else if s[split..].starts_with('{') {
                    host = debug_field(&s[split..], "host: ");
                    ip = debug_field(&s[split..], "ip: ");
                }
                Value::Datanode { uuid, host, ip }
            }
            FieldType::Member => match s.split_once('@') {
                Some((peer, group)) => Value::Member {
                    peer: peer.to_string(),
                    group: group.to_string(),
                },
                None => return bad("a Ratis member id `peer@group-HEX`"),
            },
            FieldType::HostIp => match s.rsplit_once('/') {
                Some((h, i)) => Value::HostIp {
                    host: h.to_string(),
                    ip: Some(i.to_string()),
                },
                None => Value::HostIp {
                    host: s.to_string(),
                    ip: None,
                },
            },
        })
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::U64(v) => Some(*v),
            Value::I64(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::I64(v) => Some(*v),
            Value::U64(v) => i64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn to_json(&self) -> Json {
        match self {
            Value::U64(v) => json!(v),
            Value::I64(v) => json!(v),
            Value::Str(s) => json!(s),
            Value::TermIndex { term, index } => json!({"term": term, "index": index}),
            Value::Version { name, number } => json!({"name": name, "number": number}),
            Value::BlockId {
                container,
                local,
                bcs_id,
                replica_index,
            } => {
                json!({"container": container, "local": local, "bcs_id": bcs_id, "replica_index": replica_index})
            }
            Value::SecretKey(k) => key_json(k),
            Value::SecretKeys(ks) => Json::Array(ks.iter().map(key_json).collect()),
            Value::Datanode { uuid, host, ip } => json!({"uuid": uuid, "host": host, "ip": ip}),
            Value::Member { peer, group } => json!({"peer": peer, "group": group}),
            Value::HostIp { host, ip } => json!({"host": host, "ip": ip}),
        }
    }
}

/// Values serialize as their JSON form, without building a `serde_json::Value` first.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::U64(v) => s.serialize_u64(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::Str(v) => s.serialize_str(v),
            other => other.to_json().serialize(s),
        }
    }
}

impl Value {
    /// The inverse of [`Value::to_json`] for a field of type `ty`: how `check --events` reads back the values
    /// `events` wrote. `Err` names what the JSON should have been.
    pub fn from_json(ty: FieldType, j: &Json) -> Result<Value, String> {
        let want = |what: &str| format!("a {} field must be {what}, not `{j}`", ty.name());
        let text = |j: &Json, name: &str| -> Result<String, String> {
            j.get(name)
                .and_then(Json::as_str)
                .map(String::from)
                .ok_or_else(|| want(&format!("an object with the string `{name}`")))
        };
        let opt_text = |j: &Json, name: &str| -> Result<Option<String>, String> {
            match j.get(name) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(want(&format!(
                    "an object whose `{name}` is a string or null"
                ))),
            }
        };
        let int = |j: &Json, name: &str| -> Result<i64, String> {
            j.get(name)
                .and_then(Json::as_i64)
                .ok_or_else(|| want(&format!("an object with the integer `{name}`")))
        };
        let uint = |j: &Json, name: &str| -> Result<u64, String> {
            j.get(name)
                .and_then(Json::as_u64)
                .ok_or_else(|| want(&format!("an object with the unsigned integer `{name}`")))
        };
        let instant = |j: &Json, name: &str| -> Result<Option<Timestamp>, String> {
            match j.get(name) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Timestamp::parse_event_time(s)
                    .map(Some)
                    .ok_or_else(|| want(&format!("an object whose `{name}` is a time"))),
                Some(_) => Err(want(&format!("an object whose `{name}` is a time or null"))),
            }
        };
        let key = |j: &Json| -> Result<SecretKeyInfo, String> {
            Ok(SecretKeyInfo {
                id: text(j, "id")?,
                created: instant(j, "created")?,
                expires: instant(j, "expires")?,
            })
        };
        Ok(match ty {
            FieldType::U64 => Value::U64(j.as_u64().ok_or_else(|| want("an unsigned integer"))?),
            FieldType::I64 => Value::I64(j.as_i64().ok_or_else(|| want("an integer"))?),
            FieldType::Word | FieldType::Text | FieldType::Uuid => {
                Value::Str(j.as_str().ok_or_else(|| want("a string"))?.to_string())
            }
            FieldType::TermIndex | FieldType::TxInfo => Value::TermIndex {
                term: int(j, "term")?,
                index: int(j, "index")?,
            },
            FieldType::Version => Value::Version {
                name: text(j, "name")?,
                number: int(j, "number")?,
            },
            FieldType::BlockId => Value::BlockId {
                container: uint(j, "container")?,
                local: uint(j, "local")?,
                bcs_id: uint(j, "bcs_id")?,
                replica_index: match j.get("replica_index") {
                    None | Some(Json::Null) => None,
                    Some(_) => Some(uint(j, "replica_index")?),
                },
            },
            FieldType::SecretKey => Value::SecretKey(key(j)?),
            FieldType::SecretKeys => Value::SecretKeys(
                j.as_array()
                    .ok_or_else(|| want("an array of keys"))?
                    .iter()
                    .map(key)
                    .collect::<Result<_, _>>()?,
            ),
            FieldType::Datanode => Value::Datanode {
                uuid: text(j, "uuid")?,
                host: opt_text(j, "host")?,
                ip: opt_text(j, "ip")?,
            },
            FieldType::Member => Value::Member {
                peer: text(j, "peer")?,
                group: text(j, "group")?,
            },
            FieldType::HostIp => Value::HostIp {
                host: text(j, "host")?,
                ip: opt_text(j, "ip")?,
            },
        })
    }
}

fn key_json(k: &SecretKeyInfo) -> Json {
    json!({
        "id": k.id,
        "created": k.created.map(|t| t.to_string()),
        "expires": k.expires.map(|t| t.to_string()),
    })
}

/// `8-4-4-4-12` hex digits: a UUID as Java prints one (datanode ids, scmIds, secret key ids).
pub(crate) fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

// The structured renderings are parsed with nom: each parser mirrors one Java `toString()`.

/// Runs a parser that must consume all of `s`.
fn whole<'a, T>(mut parser: impl FnMut(&'a str) -> IResult<&'a str, T>, s: &'a str) -> Option<T> {
    match parser(s) {
        Ok(("", v)) => Some(v),
        _ => None,
    }
}

/// Ratis prints negative longs with `~` (e.g. `~1`).
fn ratis_long(s: &str) -> IResult<&str, i64> {
    let (s, negative) = opt(char('~'))(s)?;
    let (s, v) = map_res(digit1, str::parse::<i64>)(s)?;
    Ok((s, if negative.is_some() { -v } else { v }))
}

/// `(t:3, i:5120)` (Ratis `TermIndex`).
fn term_index(s: &str) -> IResult<&str, (i64, i64)> {
    delimited(
        tag("(t:"),
        separated_pair(ratis_long, tag(", i:"), ratis_long),
        char(')'),
    )(s)
}

fn u64_(s: &str) -> IResult<&str, u64> {
    map_res(digit1, str::parse::<u64>)(s)
}

/// `conID: 1 locID: 113750153625600001 bcsId: 0 replicaIndex: null` (Ozone `BlockID`).
fn block_id(s: &str) -> IResult<&str, Value> {
    let (s, container) = preceded(tag("conID: "), u64_)(s)?;
    let (s, local) = preceded(tag(" locID: "), u64_)(s)?;
    let (s, bcs_id) = preceded(tag(" bcsId: "), u64_)(s)?;
    let (s, replica) = opt(preceded(
        tag(" replicaIndex: "),
        alt((map(u64_, Some), map(tag("null"), |_| None))),
    ))(s)?;
    Ok((
        s,
        Value::BlockId {
            container,
            local,
            bcs_id,
            replica_index: replica.flatten(),
        },
    ))
}

/// A `SecretKey(...)` as printed, before its parts are checked.
struct RawKey<'a> {
    id: &'a str,
    created: &'a str,
    expires: &'a str,
}

/// `SecretKey(id = <uuid>, creation at: <instant>, expire at: <instant>)` (`ManagedSecretKey`).
fn secret_key(s: &str) -> IResult<&str, RawKey<'_>> {
    let (s, id) = preceded(tag("SecretKey(id = "), take_until(", creation at: "))(s)?;
    let (s, created) = preceded(tag(", creation at: "), take_until(", expire at: "))(s)?;
    let (s, expires) = delimited(tag(", expire at: "), take_until(")"), char(')'))(s)?;
    Ok((
        s,
        RawKey {
            id,
            created,
            expires,
        },
    ))
}

/// A key's id is a UUID and its instants are instants: one damaged byte must not make a new key.
fn valid_key(k: RawKey<'_>) -> Result<SecretKeyInfo, String> {
    if !is_uuid(k.id.as_bytes()) {
        return Err(format!("secret key id not a UUID: `{}`", excerpt(k.id)));
    }
    let instant = |what: &str, t: &str| {
        Timestamp::parse_instant(t).ok_or_else(|| {
            format!(
                "secret key {} {what} not an instant: `{}`",
                k.id,
                excerpt(t)
            )
        })
    };
    Ok(SecretKeyInfo {
        id: k.id.to_string(),
        created: Some(instant("creation", k.created)?),
        expires: Some(instant("expiry", k.expires)?),
    })
}

/// The start of a rejected value, for the reason shown to the user.
fn excerpt(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// `[SecretKey(...), SecretKey(...)]` (a Java `List`).
fn secret_keys(s: &str) -> IResult<&str, Vec<RawKey<'_>>> {
    delimited(char('['), separated_list0(tag(", "), secret_key), char(']'))(s)
}

fn debug_field(s: &str, key: &str) -> Option<String> {
    let start = s.find(key)? + key.len();
    let rest = &s[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(ty: FieldType, s: &str) -> Option<Value> {
        Value::parse(ty, s).ok()
    }

    #[test]
    fn parses_ozone_renderings() {
        assert_eq!(
            ok(FieldType::TermIndex, "(t:3, i:5120)"),
            Some(Value::TermIndex {
                term: 3,
                index: 5120
            })
        );
        assert_eq!(
            ok(FieldType::TermIndex, "(t:~1, i:~1)"),
            Some(Value::TermIndex {
                term: -1,
                index: -1
            })
        );
        assert_eq!(
            ok(FieldType::TxInfo, "3#5120"),
            Some(Value::TermIndex {
                term: 3,
                index: 5120
            })
        );
        assert_eq!(
            ok(FieldType::Version, "ZDU (100)"),
            Some(Value::Version {
                name: "ZDU".into(),
                number: 100
            })
        );
        assert_eq!(
            ok(
                FieldType::BlockId,
                "conID: 1 locID: 113750153625600001 bcsId: 0 replicaIndex: null"
            ),
            Some(Value::BlockId {
                container: 1,
                local: 113750153625600001,
                bcs_id: 0,
                replica_index: None
            })
        );
        assert!(Value::parse(FieldType::BlockId, "conID: x locID: 1 bcsId: 0").is_err());
        assert!(Value::parse(FieldType::U64, "18446744073709551616").is_err());
        let keys = "[SecretKey(id = 3b0e6f1c-9a2d-4c57-8e14-6d2f0a9b7c31, creation at: 2026-08-23T09:00:00.123Z, expire at: 2026-09-01T09:00:00.123Z), SecretKey(id = 7d4a2e95-1f3b-4b8c-a6d0-2c9e5f7a1b42, creation at: 2026-08-24T09:00:00Z, expire at: 2026-09-02T09:00:00Z)]";
        let Ok(Value::SecretKeys(ks)) = Value::parse(FieldType::SecretKeys, keys) else {
            panic!()
        };
        assert_eq!(ks.len(), 2);
        assert_eq!(ks[1].id, "7d4a2e95-1f3b-4b8c-a6d0-2c9e5f7a1b42");
        assert_eq!(
            ks[0].expires.unwrap().to_string(),
            "2026-09-01T09:00:00.123"
        );
        assert_eq!(
            ok(FieldType::SecretKeys, "[]"),
            Some(Value::SecretKeys(vec![]))
        );
        assert_eq!(
            ok(
                FieldType::Datanode,
                "0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01(dn1.example.com/172.18.0.7)"
            ),
            Some(Value::Datanode {
                uuid: "0e4a1c7b-2d3f-4a5b-9c6d-7e8f9a0b1c01".into(),
                host: Some("dn1.example.com".into()),
                ip: Some("172.18.0.7".into())
            })
        );
        assert_eq!(
            ok(FieldType::Member, "2f3c@group-9F3A1C2B4D5E"),
            Some(Value::Member {
                peer: "2f3c".into(),
                group: "group-9F3A1C2B4D5E".into()
            })
        );
        assert_eq!(
            ok(FieldType::HostIp, "scm1/172.18.0.4"),
            Some(Value::HostIp {
                host: "scm1".into(),
                ip: Some("172.18.0.4".into())
            })
        );
    }

    #[test]
    fn damaged_values_are_rejected_with_a_reason() {
        let key = |id: &str, created: &str| {
            format!(
                "SecretKey(id = {id}, creation at: {created}, expire at: 2026-09-01T09:00:00.123Z)"
            )
        };
        let good = "3b0e6f1c-9a2d-4c57-8e14-6d2f0a9b7c31";
        assert!(Value::parse(FieldType::SecretKey, &key(good, "2026-08-23T09:00:00.123Z")).is_ok());
        // One damaged byte in the id: `c` became `g`.
        let damaged = "3b0e6f1g-9a2d-4c57-8e14-6d2f0a9b7c31";
        let why = Value::parse(
            FieldType::SecretKey,
            &key(damaged, "2026-08-23T09:00:00.123Z"),
        )
        .unwrap_err();
        assert!(why.contains("not a UUID") && why.contains(damaged), "{why}");
        // In a list, one bad key rejects the whole list: the list as logged is not known.
        let list = format!(
            "[{}, {}]",
            key(good, "2026-08-23T09:00:00.123Z"),
            key(damaged, "2026-08-23T09:00:00.123Z")
        );
        assert!(Value::parse(FieldType::SecretKeys, &list).is_err());
        let why =
            Value::parse(FieldType::SecretKey, &key(good, "2026-08-2xT09:00:00.123Z")).unwrap_err();
        assert!(why.contains("creation not an instant"), "{why}");
        let why = Value::parse(FieldType::U64, "20g").unwrap_err();
        assert!(
            why.contains("not an unsigned 64-bit number: `20g`"),
            "{why}"
        );
        assert!(Value::parse(FieldType::I64, "-1").is_ok());
        assert!(Value::parse(FieldType::I64, "1-").is_err());
        let why = Value::parse(
            FieldType::BlockId,
            "conID: 1 locID: 11375015362560000l bcsId: 13 replicaIndex: null",
        )
        .unwrap_err();
        assert!(why.contains("not a block id"), "{why}");
        assert!(Value::parse(FieldType::Uuid, good).is_ok());
        assert!(Value::parse(FieldType::Uuid, damaged).is_err());
        assert!(Value::parse(FieldType::Uuid, "3b0e6f1c9a2d4c578e146d2f0a9b7c31").is_err());
        let why = Value::parse(FieldType::Datanode, "0e4a1c7b-2d3f(dn1/172.18.0.7)").unwrap_err();
        assert!(why.contains("datanode id not a UUID"), "{why}");
        assert!(Value::parse(FieldType::Member, "no-group").is_err());
    }
}
