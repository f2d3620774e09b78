//! The model-facing tool definition (in progress).
use super::*;

pub fn tool_definition(_mode: ToolMode, _default_timeout_secs: u64) -> serde_json::Value {
    serde_json::json!({ "name": TOOL_NAME })
}
