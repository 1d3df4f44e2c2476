//! `CITATION.cff` is valid Citation File Format 1.2.0: the YAML is converted to JSON and checked
//! against the published schema vendored in `verification/data/cff/` (issue 12: the file said
//! `license: "MIT OR Apache-2.0"`, which is not an SPDX identifier the schema lists; the dual
//! licence is the list form `license: [MIT, Apache-2.0]`).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// YAML as the JSON data model (CFF files use only maps, lists, strings, numbers, booleans).
fn to_json(y: &Yaml) -> Value {
    match y {
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    other => format!("{other:?}"),
                };
                m.insert(key, to_json(v));
            }
            Value::Object(m)
        }
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(r) => r.parse::<f64>().map_or_else(|_| Value::String(r.clone()), Value::from),
        Yaml::Boolean(b) => Value::Bool(*b),
        _ => Value::Null,
    }
}

fn cff_json(text: &str) -> Value {
    let docs = YamlLoader::load_from_str(text).expect("CITATION.cff is YAML");
    assert_eq!(docs.len(), 1, "one YAML document");
    to_json(&docs[0])
}

fn validator() -> jsonschema::Validator {
    let path = root().join("verification/data/cff/schema-1.2.0.json");
    let text = std::fs::read_to_string(&path).expect("vendored CFF schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::draft7::new(&schema).expect("schema compiles")
}

fn errors(instance: &Value) -> Vec<String> {
    validator().iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

#[test]
fn citation_cff_satisfies_the_cff_1_2_0_schema() {
    let text = std::fs::read_to_string(root().join("CITATION.cff")).expect("CITATION.cff");
    let cff = cff_json(&text);
    let errs = errors(&cff);
    assert!(errs.is_empty(), "CITATION.cff fails the CFF 1.2.0 schema: {errs:#?}");
    assert_eq!(cff["license"], serde_json::json!(["MIT", "Apache-2.0"]));
}

#[test]
fn the_schema_rejects_an_spdx_expression_as_license() {
    let text = std::fs::read_to_string(root().join("CITATION.cff")).expect("CITATION.cff");
    let mut cff = cff_json(&text);
    cff["license"] = Value::String("MIT OR Apache-2.0".into());
    assert!(!errors(&cff).is_empty(), "the form of issue 12 must fail");
    cff["license"] = Value::String("MIT".into());
    assert!(errors(&cff).is_empty(), "a single identifier is valid");
}
