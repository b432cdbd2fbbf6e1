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

fn type_err(at: Location, expected: &'static str, v: &Value) -> KelfError {
    KelfError::Type {
        at,
        expected,
        found: describe(v),
    }
}

/// A JSON object being read, with its location; collects nothing, so reading is cheap.
pub(crate) struct Obj<'v> {
    pub(crate) map: &'v Map<String, Value>,
    pub(crate) at: Location,
}

impl<'v> Obj<'v> {
    /// Views `v` as an object or fails with a type error at `at`.
    pub(crate) fn new(v: &'v Value, at: Location) -> Result<Self> {
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

    /// A present key's value and location.
    fn get(&self, key: &str) -> Option<(&'v Value, Location)> {
        self.map.get(key).map(|v| (v, self.at.key(key)))
    }

    /// An optional string.
    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<String>> {
        self.get(key).map(|(v, at)| as_str(v, at)).transpose()
    }

    /// A required string.
    pub(crate) fn req_str(&self, key: &'static str) -> Result<String> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    /// An optional unsigned integer.
    pub(crate) fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        self.get(key).map(|(v, at)| as_u64(v, at)).transpose()
    }

    /// A required unsigned integer.
    pub(crate) fn req_u64(&self, key: &'static str) -> Result<u64> {
        self.opt_u64(key)?.ok_or_else(|| self.missing(key))
    }

    /// An optional signed integer.
    pub(crate) fn opt_i64(&self, key: &str) -> Result<Option<i64>> {
        self.get(key)
            .map(|(v, at)| v.as_i64().ok_or_else(|| type_err(at, "an integer", v)))
            .transpose()
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        self.get(key)
            .map(|(v, at)| v.as_bool().ok_or_else(|| type_err(at, "a boolean", v)))
            .transpose()
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
        self.opt_list(key, |v, at| {
            v.as_i64().ok_or_else(|| type_err(at, "an integer", v))
        })
    }

    /// An optional array whose elements are read by `f`.
    pub(crate) fn opt_list<T>(
        &self,
        key: &str,
        f: impl Fn(&'v Value, Location) -> Result<T>,
    ) -> Result<Option<Vec<T>>> {
        let Some((v, at)) = self.get(key) else {
            return Ok(None);
        };
        let Value::Array(items) = v else {
            return Err(type_err(at, "an array", v));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| f(item, at.index(i)))
            .collect::<Result<_>>()
            .map(Some)
    }

    /// An optional object, read by `f`.
    pub(crate) fn opt_obj<T>(
        &self,
        key: &str,
        f: impl FnOnce(Obj<'v>) -> Result<T>,
    ) -> Result<Option<T>> {
        let Some((v, at)) = self.get(key) else {
            return Ok(None);
        };
        Obj::new(v, at).and_then(f).map(Some)
    }

    /// An optional object used as a name -> entry map, each entry read by `f(name, obj)`.
    pub(crate) fn opt_entries<T>(
        &self,
        key: &str,
        f: impl Fn(&str, Obj<'v>) -> Result<T>,
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
            at: self.at.clone(),
            key,
        }
    }
}

/// Reads a string.
pub(crate) fn as_str(v: &Value, at: Location) -> Result<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| type_err(at, "a string", v))
}

/// Reads an unsigned integer.
pub(crate) fn as_u64(v: &Value, at: Location) -> Result<u64> {
    v.as_u64()
        .ok_or_else(|| type_err(at, "an unsigned integer", v))
}

/// Reads an array of unsigned integers.
pub(crate) fn as_u64_list(v: &Value, at: Location) -> Result<Vec<u64>> {
    let Value::Array(items) = v else {
        return Err(type_err(at, "an array", v));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| as_u64(item, at.index(i)))
        .collect()
}

/// Reads an unsigned integer that must fit in u32 (semaphore and var ids).
pub(crate) fn as_u32(v: &Value, at: Location) -> Result<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| type_err(at, "an unsigned 32-bit integer", v))
}

impl Obj<'_> {
    /// An optional u32.
    pub(crate) fn opt_u32(&self, key: &str) -> Result<Option<u32>> {
        self.get(key).map(|(v, at)| as_u32(v, at)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_member_and_pointer() {
        let v = parse_json("sg00/def.json", br#"{"var":{"a/b":{"var_id":"x"}}}"#).unwrap();
        let root = Obj::new(&v, Location::new("sg00/def.json", "")).unwrap();
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
