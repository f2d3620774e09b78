//! A tool's model-facing definition, derived from its input type.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Value};

/// The model-facing name of `run_code` (`ptc`), here because an open session reads it in the tools
/// its requests offered, without reaching the sandbox.
pub const RUN_CODE_TOOL_NAME: &str = "run_code";

/// `{name, description, parameters}` for a tool whose arguments are `T`: the type's description
/// becomes the tool's, the rest of its schema the parameters. Nested types are written in place
/// (the model reads one self-contained schema, no `$ref`s), and the schema's own title and dialect
/// go, as does `format` (`int64`, `uint`...), a Rust detail the bounds already say better.
pub fn definition_of<T: JsonSchema>(name: &str) -> Value {
    let generator = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator();
    let mut parameters = generator.into_root_schema_for::<T>().to_value();
    drop_formats(&mut parameters);
    let description = parameters.as_object_mut().and_then(|p| {
        p.remove("$schema");
        p.remove("title");
        p.remove("description")
    });
    json!({ "name": name, "description": description, "parameters": parameters })
}

fn drop_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("format").is_some_and(Value::is_string) && map.contains_key("type") {
                map.remove("format");
            }
            map.values_mut().for_each(drop_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_formats),
        _ => {}
    }
}
