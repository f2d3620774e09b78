// tauri-build reads tauri.conf.json next to this file. Capabilities live with the shell's sources, and
// the app's own commands go through the ACL (listing them here makes them deny-by-default until a
// capability grants them), so IPC is limited to what src-tauri/app/capabilities allows.
/// Every command the shell registers (src-tauri/app/lib.rs); the capability grants them to `main`.
const COMMANDS: [&str; 34] = [
    "app_info",
    "list_sessions",
    "session_transcript",
    "get_settings",
    "save_settings",
    "choose_workspace",
    "start_session",
    "open_session",
    "close_session_view",
    "send_message",
    "abort",
    "retry",
    "session_questions",
    "inbox",
    "attach_question",
    "release_question",
    "submit_answers",
    "cancel_question",
    "decline_question",
    "mcp_servers",
    "save_mcp_servers",
    "agent_setups",
    "setup_agent",
    "first_run",
    "save_first_run",
    "expire_question",
    "open_link",
    "phone_settings",
    "save_phone_settings",
    "pair_phone",
    "unpair_phone",
    "remote_hosts",
    "add_remote_host",
    "remove_remote_host",
];

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/app/capabilities");
    println!("cargo:rerun-if-changed=ui/dist");
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/app/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(&COMMANDS));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}
