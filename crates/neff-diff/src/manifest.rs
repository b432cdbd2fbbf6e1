//! The manifests, structured and by key: the kelf descriptor (`kelf-a.json`), every def.json
//! (its `var`s and `dma_queue`s are objects keyed by name, so a var or queue is compared with
//! the one of the same name) and every engine JSON, each as neff-kelf reads it. A change is a
//! JSON pointer (RFC 6901) with the value on each side.

use std::collections::BTreeMap;

use neff_kelf::Kelf;
use serde::Serialize;
use serde_json::Value;

/// One value that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestChange {
    /// The member (`sg00/def.json`).
    pub member: String,
    /// The JSON pointer inside it (`/var/input0/size`).
    pub pointer: String,
    /// A's value; `None` when A has no such key.
    pub a: Option<Value>,
    /// B's value; `None` when B has no such key.
    pub b: Option<Value>,
}

/// Every manifest of a kelf by member path, as neff-kelf's typed readers give it back.
fn manifests(k: &Kelf<'_>) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    out.insert(k.descriptor_member.clone(), k.descriptor.to_value());
    for g in k.graphs() {
        out.insert(g.def_member.clone(), g.def.to_value());
        for e in &g.engines {
            if let (Some(member), Some(json)) = (&e.json_member, &e.json) {
                out.insert(member.clone(), json.to_value());
            }
        }
    }
    out
}

/// Compares the manifests of two kelfs. A manifest only one side has is left to the member
/// list (it is an added or removed member there).
pub fn diff_manifests(a: &Kelf<'_>, b: &Kelf<'_>) -> Vec<ManifestChange> {
    let ma = manifests(a);
    let mb = manifests(b);
    let mut out = Vec::new();
    for (member, va) in &ma {
        if let Some(vb) = mb.get(member) {
            diff_value(member, &mut String::new(), va, vb, &mut out);
        }
    }
    out
}

/// RFC 6901 escaping of one key.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Recurses through objects by key and arrays by index; anything else is compared whole.
fn diff_value(member: &str, at: &mut String, a: &Value, b: &Value, out: &mut Vec<ManifestChange>) {
    if a == b {
        return;
    }
    let len = at.len();
    match (a, b) {
        (Value::Object(oa), Value::Object(ob)) => {
            for (k, va) in oa {
                at.push('/');
                at.push_str(&escape(k));
                match ob.get(k) {
                    Some(vb) => diff_value(member, at, va, vb, out),
                    None => out.push(ManifestChange {
                        member: member.to_owned(),
                        pointer: at.clone(),
                        a: Some(va.clone()),
                        b: None,
                    }),
                }
                at.truncate(len);
            }
            for (k, vb) in ob.iter().filter(|(k, _)| !oa.contains_key(*k)) {
                out.push(ManifestChange {
                    member: member.to_owned(),
                    pointer: format!("{at}/{}", escape(k)),
                    a: None,
                    b: Some(vb.clone()),
                });
            }
        }
        (Value::Array(xa), Value::Array(xb)) => {
            for i in 0..xa.len().max(xb.len()) {
                at.push('/');
                at.push_str(&i.to_string());
                match (xa.get(i), xb.get(i)) {
                    (Some(va), Some(vb)) => diff_value(member, at, va, vb, out),
                    (va, vb) => out.push(ManifestChange {
                        member: member.to_owned(),
                        pointer: at.clone(),
                        a: va.cloned(),
                        b: vb.cloned(),
                    }),
                }
                at.truncate(len);
            }
        }
        _ => out.push(ManifestChange {
            member: member.to_owned(),
            pointer: at.clone(),
            a: Some(a.clone()),
            b: Some(b.clone()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vars_are_compared_by_name_and_pointers_escape() {
        let a = json!({"var": {"in/0": {"size": 4}, "w": {"size": 8}}});
        let b = json!({"var": {"in/0": {"size": 16}, "x": {"size": 8}}});
        let mut out = Vec::new();
        diff_value("sg00/def.json", &mut String::new(), &a, &b, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|c| (c.pointer.as_str(), c.a.clone(), c.b.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("/var/in~10/size", Some(json!(4)), Some(json!(16))),
                ("/var/w", Some(json!({"size": 8})), None),
                ("/var/x", None, Some(json!({"size": 8}))),
            ]
        );
    }
}
