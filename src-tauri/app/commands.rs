//! IPC commands the UI calls. Each one is a thin adapter over [`crate::hub::Hub`] and hark-core;
//! `docs/desktop-ipc.md` is their contract. Blocking work (keyring, folder picker) runs off the
//! async workers.

use hark_core::front_door::{FrontDoor, Start};
use std::path::PathBuf;

use hark_core::agent::AgentEvent;
use hark_core::error::BoundaryError;
use hark_core::host::Catalogue;
use hark_core::model::KeySource;
use hark_core::question::AnswerBatch;
use hark_core::session::{ModelKind, SessionSummary, Transcript};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

use crate::error::{CommandError, CommandResult};
use crate::hub::{AnswerPath, AttachResult, SessionView, SubmitResult};
use crate::phone_settings::{self, PairingView, PhoneForm, PhoneView, Relay};
use crate::remote_settings::{self, RemoteHostsView};
use crate::settings::Settings;
use crate::state::AppState;

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AppInfo {
    pub name: &'static str,
    pub version: &'static str,
    pub data_dir: String,
    /// The session the launch options opened, to show first.
    pub initial_session: Option<String>,
    /// That session opened for this page (as `open_session` would, streaming to the call's channel):
    /// a launch with `--session` shows it after one round trip instead of two.
    pub initial_view: Option<SessionView>,
    /// Why the launch options could not be carried out (e.g. `--session` names no session).
    pub launch_error: Option<BoundaryError>,
    /// A question of the initial session to open (a notification or the tray built this window for it).
    pub initial_call: Option<String>,
    /// Why the window was opened on it (an answer from a notification that was not taken).
    pub initial_notice: Option<BoundaryError>,
    /// Open on the inbox (the tray or a notification built this window for it).
    pub initial_inbox: bool,
    /// This page load's number, passed back with `open_session` and `attach_question`.
    pub page: u64,
}

/// The app's facts for the page that starts, and the session the launch named opened for it,
/// streaming to `channel`. If that open fails the view is left out and the window opens the session
/// the usual way, which reports why.
#[tauri::command]
pub async fn app_info(
    state: State<'_, AppState>,
    turns: Option<usize>,
    channel: Channel<AgentEvent>,
) -> CommandResult<AppInfo> {
    // Read first: the page has started, whatever else fails, and a later show is told to it.
    let launched = state.page_started();
    let dir = state.data_dir()?.display().to_string();
    // A data directory another process hosts is reported here too: the window has nothing to show.
    let hub = state.hub()?;
    let page = hub.page();
    if let Some(session) = &launched.session {
        state.set_last_shown(session);
    }
    let initial_view = match launched.session.clone() {
        Some(session) => open_for_window(hub, session, turns, Some(page), channel).await.ok(),
        None => None,
    };
    Ok(AppInfo {
        name: "Hark",
        version: env!("CARGO_PKG_VERSION"),
        data_dir: dir,
        initial_session: launched.session,
        initial_view,
        launch_error: launched.error,
        initial_call: launched.call_id,
        initial_notice: launched.notice,
        initial_inbox: launched.inbox,
        page,
    })
}

/// The sessions sidebar: every stored session, most recently active first, with its question counts.
#[tauri::command]
pub async fn list_sessions(state: State<'_, AppState>) -> CommandResult<Vec<SessionSummary>> {
    state.door()?.sessions().await
}

/// A session's transcript as the core projects it from the event log; with `turns`, its newest turns.
#[tauri::command]
pub async fn session_transcript(
    state: State<'_, AppState>,
    session_id: String,
    turns: Option<usize>,
) -> CommandResult<Transcript> {
    let transcript = state.door()?.transcript(&session_id, turns).await?;
    crate::hub::after_reading(&transcript);
    Ok(transcript)
}

/// Runs `work` on a blocking thread: reading a long log must hold up neither the IPC thread nor the
/// runtime's workers, which carry every other session's stream meanwhile.
async fn off_ipc_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> CommandResult<T> {
    Ok(tokio::task::spawn_blocking(work).await.map_err(|e| CommandError::Worker(e.to_string()))??)
}

/// Opens `session` for this window, streaming its events to `channel`.
async fn open_for_window(
    hub: std::sync::Arc<crate::hub::Hub>,
    session: String,
    turns: Option<usize>,
    page: Option<u64>,
    channel: Channel<AgentEvent>,
) -> CommandResult<SessionView> {
    off_ipc_thread(move || hub.open_session(&session, turns, page, Box::new(move |event| channel.send(event).is_ok())))
        .await
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct KeyringStatus {
    pub available: bool,
    pub message: Option<String>,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct ActiveModel {
    pub provider: ModelKind,
    pub label: String,
    pub is_demo: bool,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct SettingsView {
    pub settings: Settings,
    pub api_key_set: bool,
    /// Where the key new sessions would use comes from: the keyring, a vendor's variable, or none.
    pub key_source: KeySource,
    pub keyring: KeyringStatus,
    pub warning: Option<BoundaryError>,
    pub overrides: Vec<String>,
    pub active_model: ActiveModel,
    /// What the form offers: providers with their defaults, demo scripts, the timeout's bounds.
    pub catalogue: Catalogue,
}

async fn settings_view(app: &AppHandle, state: &AppState) -> CommandResult<SettingsView> {
    let hub = state.hub()?;
    let mut settings = hub.settings();
    // The login entry can be removed outside Hark: the form shows what the OS will do.
    settings.start_at_login = crate::autostart::is_enabled(app);
    let base_url = settings.base_url.clone();
    let catalogue = hark_core::host::catalogue();
    let needs_key = catalogue.provider(settings.provider.id()).is_none_or(|p| p.uses_key);
    // The keyring talks to D-Bus / the OS synchronously.
    let (probe, key_set, key_source) = tauri::async_runtime::spawn_blocking(move || {
        let probe = crate::secrets::probe();
        let source = if needs_key { crate::secrets::key_for(&base_url).1 } else { KeySource::None };
        // A stored key is the keyring's answer to that one lookup.
        let key_set = probe.is_none() && source == KeySource::Keyring;
        (probe, key_set, source)
    })
    .await
    .map_err(|e| CommandError::InvalidArgument(format!("keyring check failed: {e}")))?;
    let (model, label) = hub.model_label_for_new();
    Ok(SettingsView {
        settings,
        api_key_set: key_set,
        key_source,
        keyring: KeyringStatus { available: probe.is_none(), message: probe },
        warning: hub.settings_warning(),
        overrides: hub.launch().describe(),
        active_model: ActiveModel { is_demo: model.provider == ModelKind::Demo, provider: model.provider, label },
        catalogue,
    })
}

#[tauri::command]
pub async fn get_settings(app: AppHandle, state: State<'_, AppState>) -> CommandResult<SettingsView> {
    settings_view(&app, &state).await
}

/// Saves the settings; `api_key` `None` leaves the stored key alone, `""` removes it. The key goes
/// to the keyring first, so a keyring failure saves nothing.
#[tauri::command]
pub async fn save_settings(
    app: AppHandle,
    state: State<'_, AppState>,
    settings: Settings,
    api_key: Option<String>,
) -> CommandResult<SettingsView> {
    let hub = state.hub()?;
    settings.validate()?;
    if let Some(key) = api_key {
        let base_url = settings.base_url.clone();
        tauri::async_runtime::spawn_blocking(move || {
            if key.trim().is_empty() {
                crate::secrets::delete(&base_url)
            } else {
                crate::secrets::set(&base_url, &key)
            }
        })
        .await
        .map_err(|e| CommandError::InvalidArgument(format!("keyring call failed: {e}")))??;
    }
    let start_at_login = settings.start_at_login;
    hub.save_settings(settings)?;
    crate::autostart::set(&app, start_at_login).map_err(CommandError::from)?;
    settings_view(&app, &state).await
}

/// The MCP servers of `mcp.json`, each with how it last started.
#[tauri::command]
pub async fn mcp_servers(state: State<'_, AppState>) -> CommandResult<crate::mcp_settings::McpView> {
    let hub = state.hub()?;
    off_ipc_thread(move || Ok(hub.mcp_view())).await
}

/// Replaces the servers of `mcp.json` (secrets to the keyring first); sessions opened from now on
/// use them. Returns the new view.
#[tauri::command]
pub async fn save_mcp_servers(
    state: State<'_, AppState>,
    servers: Vec<hark_core::mcp::McpEntry>,
) -> CommandResult<crate::mcp_settings::McpView> {
    let hub = state.hub()?;
    off_ipc_thread(move || {
        hub.save_mcp(&servers)?;
        Ok(hub.mcp_view())
    })
    .await
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct FirstRunView {
    /// What the person skipped, and whether they asked not to be shown the first run again; the
    /// empty record when `first-run.json` cannot be read.
    pub record: hark_core::first_run::FirstRunRecord,
    /// Why `first-run.json` could not be read (`FIRST_RUN_READ`): the first run is offered as new.
    pub record_error: Option<BoundaryError>,
    /// Claude Code and Codex as this machine has them (their folders, their commands on the `PATH`).
    pub agents: Vec<hark_core::first_run::FoundAgent>,
}

/// The first run's "Connect what you use": what was skipped or dismissed (`first-run.json` in the
/// data directory) and which agents this machine has. Writes nothing.
#[tauri::command]
pub async fn first_run(state: State<'_, AppState>) -> CommandResult<FirstRunView> {
    let dir = state.data_dir()?.clone();
    off_ipc_thread(move || {
        // An unreadable record costs only the skips it held: the agents are still found and shown.
        let (record, record_error) = match hark_core::first_run::load(&dir) {
            Ok(record) => (record, None),
            Err(e) => (Default::default(), Some(hark_core::error::CodedError::boundary(&e))),
        };
        // The agents' own variables and home, as they find their settings themselves.
        let home = dirs::home_dir();
        let path = std::env::var_os("PATH");
        let agents = hark_core::first_run::find_agents(home.as_deref(), path.as_deref(), |name| std::env::var_os(name));
        Ok(FirstRunView { record, record_error, agents })
    })
    .await
}

/// Keeps what the person skipped on the first run, or that they dismissed it; returns it as kept.
#[tauri::command]
pub async fn save_first_run(
    state: State<'_, AppState>,
    record: hark_core::first_run::FirstRunRecord,
) -> CommandResult<hark_core::first_run::FirstRunRecord> {
    let dir = state.data_dir()?.clone();
    off_ipc_thread(move || Ok(hark_core::first_run::save(&dir, record)?)).await
}

/// The agents Hark can be set up with (Claude Code, Codex): their files, and whether each already
/// holds Hark's entries. Reads the files, writes nothing.
#[tauri::command]
pub async fn agent_setups() -> CommandResult<crate::agent_settings::AgentsView> {
    off_ipc_thread(|| Ok(crate::agent_settings::view())).await
}

/// `hark setup <agent> [--undo] [--approvals | --no-approvals]`: adds Hark's hook and MCP server to
/// the agent's own settings, or takes them out; `approvals` turns the permission requests' hooks on
/// or off (absent: leaves them). Returns what happened to each file, and the section as it is now.
#[tauri::command]
pub async fn setup_agent(
    agent: hark_core::agent_setup::Agent,
    action: hark_core::agent_setup::Action,
    approvals: Option<bool>,
) -> CommandResult<crate::agent_settings::AgentSetupDone> {
    off_ipc_thread(move || Ok(crate::agent_settings::run(agent, action, approvals)?)).await
}

/// The native folder picker for a new session's workspace; `None` when the person cancelled.
#[tauri::command]
pub async fn choose_workspace(app: AppHandle) -> CommandResult<Option<String>> {
    let picked = tauri::async_runtime::spawn_blocking(move || app.dialog().file().blocking_pick_folder())
        .await
        .map_err(|e| CommandError::InvalidArgument(format!("the folder picker failed: {e}")))?;
    Ok(picked.and_then(|p| p.into_path().ok()).map(|p| p.display().to_string()))
}

/// A new session's id.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct Started {
    pub session_id: String,
}

#[tauri::command]
pub async fn start_session(
    app: AppHandle,
    state: State<'_, AppState>,
    text: String,
    workspace: Option<String>,
) -> CommandResult<Started> {
    let start = Start { text, workspace: workspace.map(PathBuf::from), ..Start::default() };
    let session_id = state.door()?.start(start).await?;
    crate::events::sessions_changed(&app);
    Ok(Started { session_id })
}

#[tauri::command]
pub async fn open_session(
    state: State<'_, AppState>,
    session_id: String,
    turns: Option<usize>,
    page: Option<u64>,
    channel: Channel<AgentEvent>,
) -> CommandResult<SessionView> {
    state.set_last_shown(&session_id);
    open_for_window(state.hub()?, session_id, turns, page, channel).await
}

#[tauri::command]
pub fn close_session_view(state: State<'_, AppState>, session_id: String) -> CommandResult<()> {
    state.hub()?.close_view(&session_id);
    Ok(())
}

#[tauri::command]
pub async fn send_message(state: State<'_, AppState>, session_id: String, text: String) -> CommandResult<()> {
    state.door()?.send(&session_id, &text).await
}

#[tauri::command]
pub async fn abort(state: State<'_, AppState>, session_id: String) -> CommandResult<bool> {
    state.door()?.stop(&session_id).await
}

#[tauri::command]
pub async fn retry(state: State<'_, AppState>, session_id: String) -> CommandResult<()> {
    state.door()?.retry(&session_id).await
}

#[tauri::command]
pub async fn session_questions(
    state: State<'_, AppState>,
    session_id: String,
) -> CommandResult<hark_core::service::SessionQuestions> {
    state.door()?.questions(&session_id).await
}

/// Every waiting question of every session, in the inbox's order.
#[tauri::command]
pub async fn inbox(state: State<'_, AppState>) -> CommandResult<Vec<hark_core::host::InboxEntry>> {
    state.door()?.inbox().await
}

#[tauri::command]
pub fn attach_question(
    state: State<'_, AppState>,
    session_id: String,
    call_id: String,
    page: Option<u64>,
) -> CommandResult<AttachResult> {
    Ok(state.hub()?.attach(&session_id, &call_id, page)?)
}

#[tauri::command]
pub fn release_question(
    state: State<'_, AppState>,
    session_id: String,
    call_id: String,
    takeover_id: u64,
) -> CommandResult<()> {
    state.hub()?.release(&session_id, &call_id, takeover_id);
    Ok(())
}

#[tauri::command]
pub async fn submit_answers(
    state: State<'_, AppState>,
    session_id: String,
    call_id: String,
    answers: AnswerBatch,
    path: Option<AnswerPath>,
) -> CommandResult<SubmitResult> {
    let answered = state.door()?.answer(&session_id, &call_id, answers, path).await?;
    Ok(SubmitResult { path: answered.path })
}

#[tauri::command]
pub async fn cancel_question(state: State<'_, AppState>, session_id: String, call_id: String) -> CommandResult<()> {
    state.door()?.cancel(&session_id, &call_id).await
}

/// The person declined an MCP server's form (`ASK_DECLINED`; the server may go on without it).
#[tauri::command]
pub async fn decline_question(state: State<'_, AppState>, session_id: String, call_id: String) -> CommandResult<()> {
    state.door()?.decline(&session_id, &call_id).await
}

#[tauri::command]
pub async fn expire_question(state: State<'_, AppState>, session_id: String, call_id: String) -> CommandResult<()> {
    state.door()?.expire(&session_id, &call_id).await
}

/// Opens a link from model text in the system browser. The window asked the person first; only web
/// and mail links are opened, never files or custom schemes.
#[tauri::command]
pub fn open_link(app: AppHandle, url: String) -> CommandResult<()> {
    let parsed = url::Url::parse(&url).map_err(|e| CommandError::InvalidArgument(format!("not a link: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https" | "mailto") {
        return Err(CommandError::InvalidArgument(format!(
            "{}: links are opened only for http, https and mailto",
            parsed.scheme()
        ))
        .into());
    }
    app.opener()
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| CommandError::InvalidArgument(format!("the system browser could not open the link: {e}")).into())
}

/// The host of the data directory, once the app started its relay (it does whenever it hosts one).
fn phone_host(app: &AppHandle, state: &AppState) -> CommandResult<std::sync::Arc<crate::hub::Hub>> {
    let hub = state.hub()?;
    if app.try_state::<Relay>().is_none() {
        return Err(CommandError::InvalidArgument("the phone relay did not start".into()).into());
    }
    Ok(hub)
}

async fn phone_view(app: &AppHandle, state: &AppState) -> CommandResult<PhoneView> {
    let dir = phone_host(app, state)?.data_dir().to_path_buf();
    let link = app.state::<Relay>().link();
    // The keyring talks to D-Bus / the OS synchronously.
    off_ipc_thread(move || Ok(phone_settings::view(&dir, crate::secrets::telegram_token_with_source().1, link))).await
}

/// Settings → Phone: `phone.json`, where the bot token comes from (never the token), who is paired, a
/// pairing under way, and how the relay's link stands.
#[tauri::command]
pub async fn phone_settings(app: AppHandle, state: State<'_, AppState>) -> CommandResult<PhoneView> {
    phone_view(&app, &state).await
}

/// Saves the phone form; `token` null leaves the stored token alone, `""` removes it, anything else
/// goes to the OS keyring. Everything is checked before anything is stored. A new token or Bot API
/// server starts the relay again.
#[tauri::command]
pub async fn save_phone_settings(
    app: AppHandle,
    state: State<'_, AppState>,
    form: PhoneForm,
    token: Option<String>,
) -> CommandResult<PhoneView> {
    let hub = phone_host(&app, &state)?;
    phone_settings::check_form(&form)?;
    let token = match token.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(typed) => Some(Some(phone_settings::check_token(typed)?)),
    };
    let dir = hub.data_dir().to_path_buf();
    let (moved, token_changed, now) = off_ipc_thread(move || {
        match &token {
            Some(Some(t)) => crate::secrets::telegram_set(t)?,
            Some(None) => crate::secrets::telegram_delete()?,
            None => {}
        }
        let moved = phone_settings::save(&dir, &form)?;
        Ok((moved, token.is_some(), crate::secrets::telegram_token()))
    })
    .await?;
    if moved || token_changed {
        app.state::<Relay>().restart(&hub.host(), now);
    }
    phone_view(&app, &state).await
}

/// Starts pairing: a one-time code, sent to the bot as `/start <code>`; the running relay pairs
/// whoever sends it first from a private chat. Refused with NO_TOKEN while there is no bot token,
/// and TOKEN_REJECTED while Telegram refuses the one there is.
#[tauri::command]
pub async fn pair_phone(app: AppHandle, state: State<'_, AppState>) -> CommandResult<PairingView> {
    let dir = phone_host(&app, &state)?.data_dir().to_path_buf();
    let link = app.state::<Relay>().link();
    off_ipc_thread(move || Ok(phone_settings::pair(&dir, &link)?)).await
}

/// Forgets the paired person (and a pairing under way): no question goes to a phone any more.
#[tauri::command]
pub async fn unpair_phone(app: AppHandle, state: State<'_, AppState>) -> CommandResult<PhoneView> {
    let dir = phone_host(&app, &state)?.data_dir().to_path_buf();
    off_ipc_thread(move || Ok(phone_settings::unpair(&dir)?)).await?;
    phone_view(&app, &state).await
}

/// Settings → Remote hosts: the hosts whose agents ask here through an SSH tunnel, each with how its
/// tunnel stands (as the host that keeps them last wrote it).
#[tauri::command]
pub async fn remote_hosts(state: State<'_, AppState>) -> CommandResult<RemoteHostsView> {
    let dir = state.hub()?.data_dir().to_path_buf();
    off_ipc_thread(move || Ok(remote_settings::view(&dir)?)).await
}

/// Adds a remote host, as `hark remote add HOST` does: the running host opens its tunnel within
/// seconds. BAD_HOST for a name ssh would read as anything but a host.
#[tauri::command]
pub async fn add_remote_host(state: State<'_, AppState>, host: String) -> CommandResult<RemoteHostsView> {
    let dir = state.hub()?.data_dir().to_path_buf();
    off_ipc_thread(move || Ok(remote_settings::add(&dir, &host)?)).await
}

/// Removes a remote host (its tunnel closes); NOT_FOUND when it is not kept.
#[tauri::command]
pub async fn remove_remote_host(state: State<'_, AppState>, host: String) -> CommandResult<RemoteHostsView> {
    let dir = state.hub()?.data_dir().to_path_buf();
    off_ipc_thread(move || Ok(remote_settings::remove(&dir, &host)?)).await
}
