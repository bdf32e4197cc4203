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
    /// Parses captured text as `ty`. `None` means the text does not have the type's shape, and the rule
    /// does not match this record.
    pub fn parse(ty: FieldType, s: &str) -> Option<Value> {
        Some(match ty {
            FieldType::U64 => Value::U64(s.parse().ok()?),
            FieldType::I64 => Value::I64(s.parse().ok()?),
            FieldType::Word | FieldType::Text => Value::Str(s.to_string()),
            FieldType::TermIndex => {
                // Ratis prints `<INITIAL_VALUE>` before anything was applied.
                if s.starts_with('<') {
                    return Some(Value::TermIndex { term: 0, index: -1 });
                }
                let (term, index) = whole(term_index, s)?;
                Value::TermIndex { term, index }
            }
            FieldType::TxInfo => {
                let (t, i) = s.split_once('#')?;
                Value::TermIndex {
                    term: t.parse().ok()?,
                    index: i.parse().ok()?,
                }
            }
            FieldType::Version => {
                let (name, rest) = s.split_once(" (")?;
                Value::Version {
                    name: name.to_string(),
                    number: rest.strip_suffix(')')?.parse().ok()?,
                }
            }
            FieldType::BlockId => whole(block_id, s)?,
            FieldType::SecretKey => Value::SecretKey(whole(secret_key, s.trim())?),
            FieldType::SecretKeys => Value::SecretKeys(whole(secret_keys, s.trim())?),
            FieldType::Datanode => {
                let split = s.find(['(', '{']).unwrap_or(s.len());
                let uuid = s[..split].to_string();
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
            FieldType::Member => {
                let (peer, group) = s.split_once('@')?;
                Value::Member {
                    peer: peer.to_string(),
                    group: group.to_string(),
                }
            }
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

fn key_json(k: &SecretKeyInfo) -> Json {
    json!({
        "id": k.id,
        "created": k.created.map(|t| t.to_string()),
        "expires": k.expires.map(|t| t.to_string()),
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

/// `SecretKey(id = <uuid>, creation at: <instant>, expire at: <instant>)` (`ManagedSecretKey`).
fn secret_key(s: &str) -> IResult<&str, SecretKeyInfo> {
    let (s, id) = preceded(tag("SecretKey(id = "), take_until(", creation at: "))(s)?;
    let (s, created) = preceded(tag(", creation at: "), take_until(", expire at: "))(s)?;
    let (s, expires) = delimited(tag(", expire at: "), take_until(")"), char(')'))(s)?;
    Ok((
        s,
        SecretKeyInfo {
            id: id.to_string(),
            created: Timestamp::parse_instant(created),
            expires: Timestamp::parse_instant(expires),
        },
    ))
}

/// `[SecretKey(...), SecretKey(...)]` (a Java `List`).
fn secret_keys(s: &str) -> IResult<&str, Vec<SecretKeyInfo>> {
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

    #[test]
    fn parses_ozone_renderings() {
        assert_eq!(
            Value::parse(FieldType::TermIndex, "(t:3, i:5120)"),
            Some(Value::TermIndex {
                term: 3,
                index: 5120
            })
        );
        assert_eq!(
            Value::parse(FieldType::TermIndex, "(t:~1, i:~1)"),
            Some(Value::TermIndex {
                term: -1,
                index: -1
            })
        );
        assert_eq!(
            Value::parse(FieldType::TxInfo, "3#5120"),
            Some(Value::TermIndex {
                term: 3,
                index: 5120
            })
        );
        assert_eq!(
            Value::parse(FieldType::Version, "ZDU (100)"),
            Some(Value::Version {
                name: "ZDU".into(),
                number: 100
            })
        );
        assert_eq!(
            Value::parse(
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
        assert_eq!(
            Value::parse(FieldType::BlockId, "conID: x locID: 1 bcsId: 0"),
            None
        );
        assert_eq!(Value::parse(FieldType::U64, "18446744073709551616"), None);
        let keys = "[SecretKey(id = a1, creation at: 2026-08-23T09:00:00.123Z, expire at: 2026-09-01T09:00:00.123Z), SecretKey(id = b2, creation at: 2026-08-24T09:00:00Z, expire at: 2026-09-02T09:00:00Z)]";
        let Some(Value::SecretKeys(ks)) = Value::parse(FieldType::SecretKeys, keys) else {
            panic!()
        };
        assert_eq!(ks.len(), 2);
        assert_eq!(ks[1].id, "b2");
        assert_eq!(
            ks[0].expires.unwrap().to_string(),
            "2026-09-01T09:00:00.123"
        );
        assert_eq!(
            Value::parse(FieldType::SecretKeys, "[]"),
            Some(Value::SecretKeys(vec![]))
        );
        assert_eq!(
            Value::parse(FieldType::Datanode, "1d3c(dn1.example.com/172.18.0.7)"),
            Some(Value::Datanode {
                uuid: "1d3c".into(),
                host: Some("dn1.example.com".into()),
                ip: Some("172.18.0.7".into())
            })
        );
        assert_eq!(
            Value::parse(FieldType::Member, "2f3c@group-9F3A1C2B4D5E"),
            Some(Value::Member {
                peer: "2f3c".into(),
                group: "group-9F3A1C2B4D5E".into()
            })
        );
        assert_eq!(
            Value::parse(FieldType::HostIp, "scm1/172.18.0.4"),
            Some(Value::HostIp {
                host: "scm1".into(),
                ip: Some("172.18.0.4".into())
            })
        );
    }
}
