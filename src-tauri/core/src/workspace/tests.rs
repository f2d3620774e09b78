use std::collections::BTreeSet;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::error::CodedError;
use crate::service::{Caller, MemoryLog, UserQuestionService};
use crate::tools::{AskUserQuestionTool, QuestionSettings, SubmitPlanTool, ToolContext};

fn ctx(root: &std::path::Path) -> ToolContext {
    ToolContext { caller: Caller::root("s", "a"), abort: CancellationToken::new(), workspace: Some(root.to_path_buf()) }
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn each_definition_is_derived_from_its_input_type() {
    let write = WriteFile::new(std::path::PathBuf::from(".")).definition();
    assert_eq!(
        write,
        json!({
            "name": "write_file",
            "description": "Create or replace a text file in the workspace (at most 1 MiB); missing parent folders are created.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "Relative path of the file inside the workspace." },
                    "content": { "type": "string", "description": "The whole new content of the file." }
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }
        })
    );
    let list = serde_json::to_value(ListDirInput { path: "p".into() }).unwrap();
    let read = serde_json::to_value(ReadFileInput { path: "p".into() }).unwrap();
    let write_args = serde_json::to_value(WriteFileInput { path: "p".into(), content: "c".into() }).unwrap();
    let root = std::path::PathBuf::from(".");
    let tools: [(Value, Box<dyn ToolHandler>); 3] = [
        (list, Box::new(ListDir::new(root.clone()))),
        (read, Box::new(ReadFile::new(root.clone()))),
        (write_args, Box::new(WriteFile::new(root))),
    ];
    for (value, tool) in tools {
        let definition = tool.definition();
        let schema = &definition["parameters"];
        assert_eq!(keys(&value), keys(&schema["properties"]), "{}", tool.name());
        let required: BTreeSet<String> =
            schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        assert_eq!(keys(&value), required);
        assert!(definition["description"].as_str().is_some_and(|d| d.ends_with('.')), "{definition}");
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none(), "{schema}");
    }
}

async fn call<T: ToolHandler + Clone + 'static>(
    tool: &T,
    root: &std::path::Path,
    args: Value,
) -> Result<String, ToolError> {
    Arc::new(tool.clone()).handle(&ctx(root), "c1", args).await.map(|o| o.content)
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
    // Through the link made above (Unix only: a Windows symlink needs a privilege tests lack).
    #[cfg(unix)]
    {
        let err =
            call(&WriteFile::new(root.clone()), &root, json!({"path": "link/new", "content": "x"})).await.unwrap_err();
        assert_eq!(err.code(), "PATH_OUTSIDE_WORKSPACE");
        assert!(!outside_dir.path().join("new").exists());
    }
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
    assert_eq!(serde_json::to_value(err.boundary()).unwrap()["name"], "ToolError");
}

#[cfg(unix)]
#[tokio::test]
async fn a_hard_link_to_a_file_outside_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    // Like a package manager's global store hard-linked into a project.
    let shared = store.path().join("index.js");
    std::fs::write(&shared, "original").unwrap();
    std::fs::hard_link(&shared, root.join("index.js")).unwrap();
    let err = call(&WriteFile::new(root.clone()), &root, json!({"path": "index.js", "content": "changed"}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "FILE_HARD_LINKED");
    assert!(err.message().contains("2 hard links"), "{}", err.message());
    assert_eq!(serde_json::to_value(err.boundary()).unwrap()["name"], "ToolError");
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "original");
    assert_eq!(std::fs::read_to_string(root.join("index.js")).unwrap(), "original");
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1, "nothing left beside it");
}

#[cfg(unix)]
#[tokio::test]
async fn replacing_a_file_swaps_in_a_new_one_with_the_old_mode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let file = root.join("run.sh");
    std::fs::write(&file, "echo old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o751)).unwrap();
    let before = std::fs::metadata(&file).unwrap();
    let out =
        call(&WriteFile::new(root.clone()), &root, json!({"path": "run.sh", "content": "echo new"})).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["bytes_written"], 8);
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "echo new");
    assert_ne!(after.ino(), before.ino(), "a new file was renamed over the old one");
    assert_eq!(after.permissions().mode() & 0o7777, 0o751, "the old mode bits are kept");
    let names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["run.sh"], "no temporary file is left behind");
}

#[test]
fn a_failed_replacement_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // Renaming a file over a folder fails after the temporary file was written.
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("inside"), "x").unwrap();
    let err = replace::write_then_rename(&folder, b"new", None).unwrap_err();
    assert_ne!(err.kind(), std::io::ErrorKind::NotFound, "{err}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["folder"], "only what was there before");
    assert_eq!(std::fs::read_to_string(folder.join("inside")).unwrap(), "x");
}

/// A replaced file's content can be private (an agent's settings with credentials), so the
/// temporary file that replaces it has the file's mode from its creation, before it holds anything.
#[cfg(unix)]
#[test]
fn a_temporary_file_has_the_replaced_files_mode_from_the_start() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The usual umask, which would leave a 0666 file readable by everyone.
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    let before = unsafe { libc::umask(0o022) };
    let private = replace::create_temp(dir.path(), Some(&std::fs::Permissions::from_mode(0o600)));
    let usual = replace::create_temp(dir.path(), None);
    // SAFETY: as above.
    unsafe { libc::umask(before) };
    let (private, usual) = (private.unwrap(), usual.unwrap());
    let meta = std::fs::metadata(private.path()).unwrap();
    assert_eq!(meta.len(), 0, "nothing was written yet");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let usual = std::fs::metadata(usual.path()).unwrap();
    assert_eq!(usual.permissions().mode() & 0o777, 0o644, "a new file gets the umask's mode");
}

#[cfg(unix)]
#[tokio::test]
async fn a_new_file_gets_the_mode_a_plain_create_would() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("plain"), "p").unwrap();
    call(&WriteFile::new(root.clone()), &root, json!({"path": "new.txt", "content": "n"})).await.unwrap();
    let mode = |name: &str| std::fs::metadata(root.join(name)).unwrap().permissions().mode();
    assert_eq!(mode("new.txt"), mode("plain"), "the umask decides, not the temporary file's owner-only mode");
}

#[test]
fn only_tools_that_only_read_or_ask_run_before_a_plan_is_approved() {
    let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
    let mut tools: Vec<Arc<dyn ToolHandler>> = vec![
        Arc::new(AskUserQuestionTool::new(service.clone(), QuestionSettings::default())),
        Arc::new(SubmitPlanTool::new(service)),
    ];
    tools.extend(workspace_tools(std::env::temp_dir()));
    let gated: Vec<(&str, bool)> = tools.iter().map(|t| (t.name(), t.changes_workspace())).collect();
    assert_eq!(
        gated,
        [
            ("ask_user_question", false),
            ("submit_plan", false),
            ("list_dir", false),
            ("read_file", false),
            ("write_file", true)
        ]
    );
}

#[tokio::test]
async fn before_a_plan_is_approved_a_change_hears_the_gate_first_and_arguments_not_json_hear_that() {
    struct NotApproved;
    impl crate::tools::PlanApproval for NotApproved {
        fn plan_approved(&self) -> bool {
            false
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let mut registry = crate::tools::ToolRegistry::new();
    registry.register(Arc::new(WriteFile::new(root.clone()))).unwrap();
    registry.require_plan(Arc::new(NotApproved));
    // Arguments the tool refuses wait behind the gate, as before they were parsed.
    let wrong = registry.prepare("write_file", json!({ "nope": 1 }));
    let heard = registry.run(&ctx(&root), "c1", "write_file", wrong).await.unwrap_err();
    assert_eq!(heard.code(), "PLAN_NOT_APPROVED");
    // Text that is not JSON names no arguments at all: the model hears that first.
    let invalid = crate::question::UserInteractionError::invalid_request("not JSON");
    let not_json = crate::tools::Prepared::refused(json!("{"), invalid.into());
    let heard = registry.run(&ctx(&root), "c2", "write_file", not_json).await.unwrap_err();
    assert_eq!(heard.code(), "INVALID_REQUEST");
    assert!(!root.join("nope").exists());
}
