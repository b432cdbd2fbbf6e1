//! Typed reads from a parsed JSON manifest that remember where they are: every error carries the
//! member and JSON pointer (serde's derive loses the path under `#[serde(flatten)]`, so manifests
//! are read through this small reader and serialized back with derive + flatten).

use serde_json::{Map, Value};

use crate::error::{KelfError, Location, Result};

/// Parses a member's bytes as JSON; a syntax error names the member, line and column.
pub(crate) fn parse_json(member: &str, bytes: &[u8]) -> Result<Value> {
    serde_json::from_slice(bytes).map_err(|e| KelfError::Json {
        member: member.to_owned(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// A short rendering of a JSON value for error messages (type and, for scalars, the value).
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) if s.len() <= 40 => format!("string {s:?}"),
        Value::String(_) => "a long string".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

fn type_err(at: At<'_>, expected: &'static str, v: &Value) -> KelfError {
    KelfError::Type {
        at: at.loc(),
        expected,
        found: describe(v),
    }
}

/// Where a value being read sits, built up as the reader descends and turned into a
/// [`Location`] only when there is an error to report: a read that succeeds allocates no path
/// (issue 34: the per-key `Location`s were a third of the engine JSON read).
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'p> {
    member: &'p str,
    parent: Option<&'p At<'p>>,
    seg: Seg<'p>,
}

#[derive(Debug, Clone, Copy)]
enum Seg<'p> {
    Root,
    Key(&'p str),
    Index(usize),
}

impl<'p> At<'p> {
    /// The whole member `member`.
    pub(crate) fn root(member: &'p str) -> Self {
        Self {
            member,
            parent: None,
            seg: Seg::Root,
        }
    }

    /// The child `key` of this object.
    pub(crate) fn key<'q>(&'q self, key: &'q str) -> At<'q> {
        At {
            member: self.member,
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    /// Element `i` of this array.
    pub(crate) fn index(&self, i: usize) -> At<'_> {
        At {
            member: self.member,
            parent: Some(self),
            seg: Seg::Index(i),
        }
    }

    /// The [`Location`] (member and RFC 6901 pointer) of this value.
    pub(crate) fn loc(&self) -> Location {
        let mut segs = Vec::new();
        let mut at = Some(self);
        while let Some(a) = at {
            segs.push(a.seg);
            at = a.parent;
        }
        let mut loc = Location::new(self.member, "");
        for seg in segs.into_iter().rev() {
            loc = match seg {
                Seg::Root => loc,
                Seg::Key(k) => loc.key(k),
                Seg::Index(i) => loc.index(i),
            };
        }
        loc
    }
}

/// A JSON object being read, with where it is; collects nothing, so reading is cheap.
pub(crate) struct Obj<'v, 'p> {
    pub(crate) map: &'v Map<String, Value>,
    pub(crate) at: At<'p>,
}

impl<'v, 'p> Obj<'v, 'p> {
    /// Views `v` as an object or fails with a type error at `at`.
    pub(crate) fn new(v: &'v Value, at: At<'p>) -> Result<Self> {
        match v {
            Value::Object(map) => Ok(Self { map, at }),
            other => Err(type_err(at, "an object", other)),
        }
    }

    /// The keys not in `known`, kept verbatim so a manifest re-serializes unchanged.
    pub(crate) fn extra(&self, known: &[&str]) -> Map<String, Value> {
        self.map
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The raw value of `key`, if present.
    pub(crate) fn raw(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key)
    }

    /// A present key's value read by `f` with its location.
    fn read<T>(
        &self,
        key: &str,
        f: impl FnOnce(&'v Value, At<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self.map.get(key) {
            Some(v) => f(v, self.at.key(key)).map(Some),
            None => Ok(None),
        }
    }

    /// An optional string.
    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<String>> {
        self.read(key, as_str)
    }

    /// A required string.
    pub(crate) fn req_str(&self, key: &'static str) -> Result<String> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    /// An optional unsigned integer.
    pub(crate) fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        self.read(key, as_u64)
    }

    /// A required unsigned integer.
    pub(crate) fn req_u64(&self, key: &'static str) -> Result<u64> {
        self.opt_u64(key)?.ok_or_else(|| self.missing(key))
    }

    /// An optional signed integer.
    pub(crate) fn opt_i64(&self, key: &str) -> Result<Option<i64>> {
        self.read(key, as_i64)
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        self.read(key, |v, at| {
            v.as_bool().ok_or_else(|| type_err(at, "a boolean", v))
        })
    }

    /// An optional array of strings.
    pub(crate) fn opt_str_list(&self, key: &str) -> Result<Option<Vec<String>>> {
        self.opt_list(key, as_str)
    }

    /// An optional array of unsigned integers.
    pub(crate) fn opt_u64_list(&self, key: &str) -> Result<Option<Vec<u64>>> {
        self.opt_list(key, as_u64)
    }

    /// An optional array of signed integers.
    pub(crate) fn opt_i64_list(&self, key: &str) -> Result<Option<Vec<i64>>> {
        self.opt_list(key, as_i64)
    }

    /// An optional array whose elements are read by `f`.
    pub(crate) fn opt_list<T>(
        &self,
        key: &str,
        f: impl Fn(&'v Value, At<'_>) -> Result<T>,
    ) -> Result<Option<Vec<T>>> {
        self.read(key, |v, at| list(v, at, f))
    }

    /// An optional object, read by `f`.
    pub(crate) fn opt_obj<T>(
        &self,
        key: &str,
        f: impl FnOnce(Obj<'v, '_>) -> Result<T>,
    ) -> Result<Option<T>> {
        self.read(key, |v, at| Obj::new(v, at).and_then(f))
    }

    /// An optional object used as a name -> entry map, each entry read by `f(name, obj)`.
    pub(crate) fn opt_entries<T>(
        &self,
        key: &str,
        f: impl Fn(&str, Obj<'v, '_>) -> Result<T>,
    ) -> Result<Option<Vec<(String, T)>>> {
        self.opt_obj(key, |o| {
            o.map
                .iter()
                .map(|(name, v)| Ok((name.clone(), f(name, Obj::new(v, o.at.key(name))?)?)))
                .collect()
        })
    }

    /// The missing-key error for this object.
    pub(crate) fn missing(&self, key: &'static str) -> KelfError {
        KelfError::MissingKey {
            at: self.at.loc(),
            key,
        }
    }

    /// An optional u32.
    pub(crate) fn opt_u32(&self, key: &str) -> Result<Option<u32>> {
        self.read(key, as_u32)
    }
}

/// An array whose elements are read by `f`.
fn list<'v, T>(
    v: &'v Value,
    at: At<'_>,
    f: impl Fn(&'v Value, At<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let Value::Array(items) = v else {
        return Err(type_err(at, "an array", v));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| f(item, at.index(i)))
        .collect()
}

/// Reads a string.
pub(crate) fn as_str(v: &Value, at: At<'_>) -> Result<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| type_err(at, "a string", v))
}

/// Reads an unsigned integer.
pub(crate) fn as_u64(v: &Value, at: At<'_>) -> Result<u64> {
    v.as_u64()
        .ok_or_else(|| type_err(at, "an unsigned integer", v))
}

/// Reads a signed integer.
fn as_i64(v: &Value, at: At<'_>) -> Result<i64> {
    v.as_i64().ok_or_else(|| type_err(at, "an integer", v))
}

/// Reads an array of unsigned integers.
pub(crate) fn as_u64_list(v: &Value, at: At<'_>) -> Result<Vec<u64>> {
    list(v, at, as_u64)
}

/// Reads an unsigned integer that must fit in u32 (semaphore and var ids).
pub(crate) fn as_u32(v: &Value, at: At<'_>) -> Result<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| type_err(at, "an unsigned 32-bit integer", v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_member_and_pointer() {
        let v = parse_json("sg00/def.json", br#"{"var":{"a/b":{"var_id":"x"}}}"#).unwrap();
        let root = Obj::new(&v, At::root("sg00/def.json")).unwrap();
        let err = root
            .opt_entries("var", |_, o| o.req_u64("var_id"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "sg00/def.json#/var/a~1b/var_id: expected an unsigned integer, found string \"x\""
        );
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = parse_json("kelf-a.json", b"{\n  \"graphs\": [,]\n}").unwrap_err();
        assert!(
            matches!(
                err,
                KelfError::Json {
                    line: 2,
                    column: 14,
                    ..
                }
            ),
            "{err}"
        );
    }
}
