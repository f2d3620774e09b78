use std::collections::BTreeSet;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::service::Caller;
use crate::tools::ToolContext;

fn ctx(root: &std::path::Path) -> ToolContext {
    ToolContext { caller: Caller::root("s", "a"), abort: CancellationToken::new(), workspace: Some(root.to_path_buf()) }
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn schemas_match_the_input_structs() {
    let list = serde_json::to_value(ListDirInput { path: "p".into() }).unwrap();
    let read = serde_json::to_value(ReadFileInput { path: "p".into() }).unwrap();
    let write = serde_json::to_value(WriteFileInput { path: "p".into(), content: "c".into() }).unwrap();
    for (value, schema) in
        [(list, ListDirInput::schema()), (read, ReadFileInput::schema()), (write, WriteFileInput::schema())]
    {
        assert_eq!(keys(&value), keys(&schema["properties"]));
        let required: BTreeSet<String> =
            schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        assert_eq!(keys(&value), required);
    }
}

async fn call(tool: &dyn ToolHandler, root: &std::path::Path, args: Value) -> Result<String, ToolError> {
    tool.handle(&ctx(root), "c1", args).await.map(|o| o.content)
}

#[tokio::test]
async fn write_read_and_list_inside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    call(&WriteFile::new(root.clone()), &root, json!({"path": "sub/a.txt", "content": "hi"})).await.unwrap();
    assert_eq!(call(&ReadFile::new(root.clone()), &root, json!({"path": "./sub/../sub/a.txt"})).await.unwrap(), "hi");
    let listed: Value =
        serde_json::from_str(&call(&ListDir::new(root.clone()), &root, json!({"path": "."})).await.unwrap()).unwrap();
    assert_eq!(listed["entries"], json!(["sub/"]));
}

#[tokio::test]
async fn escapes_are_refused_with_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    std::fs::write(outside_dir.path().join("secret"), "s").unwrap();
    let root = dir.path().to_path_buf();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside_dir.path(), root.join("link")).unwrap();
    let read = ReadFile::new(root.clone());
    let abs = outside_dir.path().join("secret").to_string_lossy().into_owned();
    let mut paths = vec!["../secret".to_string(), abs, "a/../../x".into()];
    if cfg!(unix) {
        paths.push("link/secret".into());
    }
    for p in paths {
        let err = call(&read, &root, json!({ "path": p })).await.unwrap_err();
        assert_eq!(err.code(), "PATH_OUTSIDE_WORKSPACE", "{p}");
    }
    let err =
        call(&WriteFile::new(root.clone()), &root, json!({"path": "link/new", "content": "x"})).await.unwrap_err();
    assert_eq!(err.code(), "PATH_OUTSIDE_WORKSPACE");
    assert!(!outside_dir.path().join("new").exists());
}

#[tokio::test]
async fn limits_and_bad_arguments_are_structured_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("big"), vec![b'a'; READ_LIMIT as usize + 1]).unwrap();
    let err = call(&ReadFile::new(root.clone()), &root, json!({"path": "big"})).await.unwrap_err();
    assert_eq!(err.code(), "FILE_TOO_LARGE");
    let big = "x".repeat(WRITE_LIMIT + 1);
    let err = call(&WriteFile::new(root.clone()), &root, json!({"path": "w", "content": big})).await.unwrap_err();
    assert_eq!(err.code(), "CONTENT_TOO_LARGE");
    let err = call(&ListDir::new(root.clone()), &root, json!({"dir": "."})).await.unwrap_err();
    assert_eq!(err.code(), "INVALID_REQUEST");
    assert_eq!(err.to_json()["name"], "ToolError");
}
