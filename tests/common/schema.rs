//! A validator for the subset of JSON Schema that docs/schema/ uses:
//! `type` (a name or a list), `const`, `enum`, `minimum`, `properties`,
//! `required`, `additionalProperties` (false or a schema), `items`,
//! `anyOf`, `oneOf` and `$ref` (`#/$defs/NAME` in the same file or
//! `FILE#/$defs/NAME` beside it). Any other keyword is refused, so a schema
//! cannot say more than this checks.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The schemas of docs/schema/, loaded by file name.
pub struct Schemas {
    dir: PathBuf,
    files: HashMap<String, Value>,
}

const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "minimum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "$ref",
];

impl Schemas {
    /// The schemas in `docs/schema/` of the workspace.
    pub fn load() -> Schemas {
        let dir = super::workspace_dir().join("docs/schema");
        let mut files = HashMap::new();
        for e in std::fs::read_dir(&dir).expect("docs/schema") {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".schema.json") {
                let text = std::fs::read_to_string(&p).unwrap();
                let v: Value =
                    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                files.insert(name, v);
            }
        }
        Schemas { dir, files }
    }

    /// The directory the schemas were read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Checks `v` against the schema file `file`; the error names the path
    /// in `v` that failed and why.
    pub fn check(&self, file: &str, v: &Value) -> Result<(), String> {
        let root = self
            .files
            .get(file)
            .unwrap_or_else(|| panic!("no schema {file}"));
        self.at(file, root, v, "$")
    }

    /// Checks every JSON line of `text` against `file`'s schema (the
    /// number of lines checked, or the first failure).
    pub fn check_lines(&self, file: &str, text: &str) -> Result<usize, String> {
        let mut n = 0;
        for (i, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with("{\""))
        {
            let v: Value = serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1))?;
            self.check(file, &v)
                .map_err(|e| format!("line {}: {e}\n  {l}", i + 1))?;
            n += 1;
        }
        Ok(n)
    }

    fn resolve(&self, file: &str, r: &str) -> (String, &Value) {
        let (f, frag) = r.split_once('#').unwrap_or((r, ""));
        let f = if f.is_empty() { file } else { f };
        let mut v = self
            .files
            .get(f)
            .unwrap_or_else(|| panic!("$ref to missing {f}"));
        for part in frag.split('/').filter(|p| !p.is_empty()) {
            v = v.get(part).unwrap_or_else(|| panic!("$ref {r}: no {part}"));
        }
        (f.to_string(), v)
    }

    fn at(&self, file: &str, s: &Value, v: &Value, path: &str) -> Result<(), String> {
        let s = s
            .as_object()
            .unwrap_or_else(|| panic!("{file}: schema not an object"));
        if let Some(k) = s.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            panic!("{file}: keyword {k} is not supported by the test's validator");
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let (f, target) = self.resolve(file, r);
            self.at(&f, target, v, path)?;
        }
        if let Some(t) = s.get("type") {
            let names: Vec<&str> = match t {
                Value::String(n) => vec![n.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => panic!("{file}: bad type"),
            };
            if !names.iter().any(|n| type_is(n, v)) {
                return Err(format!("{path}: {v} is not of type {t}"));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                return Err(format!("{path}: {v} is not {c}"));
            }
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            if !e.contains(v) {
                return Err(format!("{path}: {v} is not one of {e:?}"));
            }
        }
        if let (Some(m), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
            if n < m {
                return Err(format!("{path}: {v} is below {m}"));
            }
        }
        if let Some(obj) = v.as_object() {
            let props = s.get("properties").and_then(Value::as_object);
            for r in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let r = r.as_str().unwrap();
                if !obj.contains_key(r) {
                    return Err(format!("{path}: required key {r} is missing"));
                }
            }
            for (k, x) in obj {
                let sub = format!("{path}.{k}");
                match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                    (Some(ps), _) => self.at(file, ps, x, &sub)?,
                    (None, Some(Value::Bool(false))) => {
                        return Err(format!("{path}: key {k} is not in the schema"))
                    }
                    (None, Some(a @ Value::Object(_))) => self.at(file, a, x, &sub)?,
                    (None, _) => {}
                }
            }
        }
        if let (Some(items), Some(a)) = (s.get("items"), v.as_array()) {
            for (i, x) in a.iter().enumerate() {
                self.at(file, items, x, &format!("{path}[{i}]"))?;
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
            let errs: Vec<String> = any
                .iter()
                .filter_map(|b| self.at(file, b, v, path).err())
                .collect();
            if errs.len() == any.len() {
                return Err(format!(
                    "{path}: matches none of anyOf: {}",
                    errs.join(" | ")
                ));
            }
        }
        if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
            let results: Vec<Result<(), String>> =
                one.iter().map(|b| self.at(file, b, v, path)).collect();
            let ok = results.iter().filter(|r| r.is_ok()).count();
            if ok != 1 {
                let errs: Vec<String> = results.into_iter().filter_map(Result::err).collect();
                return Err(format!(
                    "{path}: matches {ok} of oneOf, not exactly one: {}",
                    errs.join(" | ")
                ));
            }
        }
        Ok(())
    }
}

fn type_is(name: &str, v: &Value) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        other => panic!("unknown type {other}"),
    }
}
