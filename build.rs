// tauri-build reads tauri.conf.json next to this file. Capabilities live with the shell's sources, and
// the app's own commands go through the ACL (listing them here makes them deny-by-default until a
// capability grants them), so IPC is limited to what src-tauri/app/capabilities allows.
fn main() {
    println!("cargo:rerun-if-changed=src-tauri/app/capabilities");
    println!("cargo:rerun-if-changed=ui/dist");
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/app/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(&["app_info", "list_sessions", "session_transcript"]));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}
