//! The Tauri shell: commands, event channels, launch options, single instance. Thin on purpose:
//! every policy lives in hark-core; this crate adapts it to IPC and the desktop.

mod agent_settings;
mod autostart;
#[cfg(test)]
mod bindings;
mod commands;
mod error;
mod events;
pub mod hub;
pub mod launch;
mod mcp_settings;
mod models;
mod notifier;
#[cfg(all(unix, not(target_os = "macos")))]
mod notify_signals;
mod phone_settings;
mod remote_settings;
mod rendering;
mod resident;
mod secrets;
pub mod settings;
mod state;
mod toast;
mod tray;
mod window;

use std::path::PathBuf;
use std::sync::Arc;

use hark_core::error::{BoundaryError, CodedError};
use tauri::{AppHandle, Manager, RunEvent};

use crate::hub::Hub;
use crate::launch::{LaunchOptions, USAGE};
use crate::state::{AppState, Launched};
use hark_core::front_door::{FrontDoor, Start};
use hark_core::host::WorkingChoices;

const IDENTIFIER: &str = "app.hark.desktop";

/// How long quitting waits for the notification server to take Hark's notifications down.
const NOTIFICATION_CLOSE_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether the tray icon exists (hiding the window without one would leave no way back).
struct TrayInstalled(bool);

/// Builds and runs the desktop app. Start-up failures that leave no window to report into end the
/// process with a message; everything after start-up reports into the window.
pub fn run() {
    resident::remember_libraries();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    if args.iter().any(|a| a == "--version" || a == "-V") {
        println!("hark-desktop {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    let launch = match LaunchOptions::parse(args) {
        Ok(o) => o,
        Err(problem) => {
            eprintln!("hark-desktop: {problem}\n{USAGE}");
            std::process::exit(2);
        }
    };
    rendering::choose();
    // Tauri's app-data dir is `data_dir()/IDENTIFIER` too; chosen here because the single-instance
    // name depends on it before Tauri starts.
    let default_dir = dirs::data_dir().map(|d| d.join(IDENTIFIER));
    let chosen = hark_core::data_dir::choose(launch.data_dir.clone(), default_dir.clone());
    let instance = instance_name(chosen.as_ref().ok());
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::Builder::new().dbus_id(instance).callback(forwarded).build())
        .plugin(autostart::plugin(chosen.as_deref().ok(), default_dir.as_deref()))
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            let state = AppState::prepare(chosen, launch.clone());
            app.manage(window::NetworkProcess::default());
            if let Ok(hub) = &state.hub {
                let notifier = notifier::Notifier::new(app.handle().clone(), Arc::clone(hub));
                events::watch_questions(app.handle().clone(), Arc::clone(hub), Arc::clone(&notifier));
                app.manage(TrayInstalled(tray::install(app.handle(), hub)));
                app.manage(notifier);
                // Its control socket, for `hark answer`, `hark mcp` and `hark tui`. A failure (another
                // app answers there) costs only that way in, so it is reported and the app goes on.
                #[cfg(any(unix, windows))]
                if let Err(e) = tauri::async_runtime::block_on(async { hub.host().serve() }) {
                    eprintln!("hark-desktop: no control socket for the CLI: {e}");
                }
                // The phone relay (Telegram) runs as long as the app hosts the data directory.
                let phone = tauri::async_runtime::block_on(async {
                    hark_core::phone::start(&hub.host(), secrets::telegram_token())
                });
                app.manage(phone_settings::Relay::new(phone));
                let launched = tauri::async_runtime::block_on(carry_out(hub, &launch));
                state.set_launched(launched);
            }
            // Hidden only when there is a way back (the tray) and nothing to report (a data directory
            // that cannot be used is said in the window).
            let hidden = launch.hidden && state.hub.is_ok() && app.try_state::<TrayInstalled>().is_some_and(|t| t.0);
            app.manage(state);
            if hidden {
                settle_in_the_tray(app.handle(), HIDDEN_START);
            } else {
                app.state::<AppState>().first_window();
                let window = window::build(app.handle())?;
                if let Some(n) = app.try_state::<Arc<notifier::Notifier>>() {
                    n.set_focused(window.is_focused().unwrap_or(false));
                }
            }
            quit_on_signals(app.handle().clone());
            Ok(())
        })
        .on_page_load(|webview, payload| {
            // A reload (the context menu's, or a crashed web process restarting) leaves the old page's
            // take-overs and streams behind: the shell lets go of them here.
            if payload.event() == tauri::webview::PageLoadEvent::Started {
                if let Some(Ok(hub)) = webview.try_state::<AppState>().map(|s| s.hub()) {
                    hub.new_page();
                }
            }
        })
        .on_window_event(on_window_event)
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::list_sessions,
            commands::session_transcript,
            commands::get_settings,
            commands::save_settings,
            commands::choose_workspace,
            commands::start_session,
            commands::open_session,
            commands::close_session_view,
            commands::send_message,
            commands::abort,
            commands::retry,
            commands::session_questions,
            commands::inbox,
            commands::attach_question,
            commands::release_question,
            commands::submit_answers,
            commands::cancel_question,
            commands::decline_question,
            commands::mcp_servers,
            commands::save_mcp_servers,
            commands::agent_setups,
            commands::setup_agent,
            commands::first_run,
            commands::save_first_run,
            commands::expire_question,
            commands::open_link,
            commands::phone_settings,
            commands::save_phone_settings,
            commands::pair_phone,
            commands::unpair_phone,
            commands::remote_hosts,
            commands::add_remote_host,
            commands::remove_remote_host,
        ])
        .build(tauri::generate_context!());
    let app = match result {
        Ok(app) => app,
        Err(error) => {
            eprintln!("hark-desktop: {error}");
            std::process::exit(1);
        }
    };
    app.run(|app, event| {
        // The last window closed (`code` is None; Quit and signals give one): Hark may stay.
        if let RunEvent::ExitRequested { code: None, api, .. } = &event {
            if stays_in_background(app) {
                api.prevent_exit();
                return;
            }
        }
        if let RunEvent::Exit = event {
            // Running turns end recorded (a live question gets ASK_ABORTED) before the lock is let go,
            // and before anything that waits on another process (the notification server). The host
            // quits in the order every host keeps: outside agents told, its socket closed, the rest.
            if let Ok(hub) = &app.state::<AppState>().hub {
                let hub = Arc::clone(hub);
                let notifier = app.try_state::<Arc<notifier::Notifier>>().map(|n| Arc::clone(&n));
                tauri::async_runtime::block_on(async move {
                    if let Some(n) = &notifier {
                        n.stop_showing();
                    }
                    hub.shutdown().await;
                    if let Some(n) = notifier {
                        n.close_all(NOTIFICATION_CLOSE_LIMIT).await;
                    }
                });
            }
        }
    });
}

/// Focus feeds the notifier (no notifications while the person looks at the window). A closed
/// window is gone: what it showed goes back to the shell, which keeps it for the next window.
fn on_window_event(window: &tauri::Window, event: &tauri::WindowEvent) {
    let app = window.app_handle();
    let notifier = app.try_state::<Arc<notifier::Notifier>>();
    match event {
        tauri::WindowEvent::Focused(focused) => {
            if let Some(n) = notifier {
                n.set_focused(*focused);
            }
        }
        tauri::WindowEvent::Destroyed => {
            app.state::<AppState>().window_closed();
            if let Ok(hub) = app.state::<AppState>().hub() {
                // Its take-overs go back to their deadlines and its streams stop; a late call from
                // the page is refused as coming from a page before.
                hub.new_page();
            }
            if let Some(n) = notifier {
                n.set_focused(false);
            }
            window::end_network_process_later(app);
            settle_in_the_tray(app, WINDOW_TEARDOWN);
        }
        _ => {}
    }
}

/// How long after the window is destroyed WebKit is done with it: its web process has exited and its
/// network process was ended (`window::NETWORK_PROCESS_GRACE`) and taken in as gone.
const WINDOW_TEARDOWN: std::time::Duration = std::time::Duration::from_secs(4);
/// How long after a start with no window (`--hidden`) it has settled: the tray icon is up, the
/// control socket and the phone relay run.
const HIDDEN_START: std::time::Duration = std::time::Duration::from_secs(5);

/// After `after`, Hark lets go of the memory a window (or start-up) used: the heap it freed, which
/// glibc would keep for reuse, and, if no window is open, the pages of its libraries that nothing
/// uses now (see `resident`).
fn settle_in_the_tray(app: &AppHandle, after: std::time::Duration) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(after).await;
        hub::release_freed_memory();
        if app.webview_windows().is_empty() {
            resident::drop_unused_library_pages();
        }
    });
}

/// Whether closing the last window leaves Hark in the tray: the person wants it in the background
/// and has used it (a session exists, which also holds any waiting question). Before the first
/// session, closing quits, so trying Hark once leaves nothing running. Without a tray there would be
/// no way back but a notification or a second launch, so it quits.
fn stays_in_background(app: &AppHandle) -> bool {
    let has_tray = app.try_state::<TrayInstalled>().is_some_and(|t| t.0);
    let Ok(hub) = app.state::<AppState>().hub() else { return false };
    has_tray && hub.settings().run_in_background && hub.store().list_sessions().is_ok_and(|s| !s.is_empty())
}

/// SIGTERM (logout, shutdown, `kill`) and SIGINT quit like the tray's Quit: running turns end
/// recorded instead of being cut off mid-write.
fn quit_on_signals(app: AppHandle) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        app.exit(0);
    });
    #[cfg(not(unix))]
    let _ = app;
}

/// One running app per data directory: a second launch on the same directory hands its options to
/// the first; a launch on another directory (tests, a second profile) runs on its own.
fn instance_name(dir: Option<&PathBuf>) -> String {
    // Absolute, so `--data-dir data` typed in two folders names two directories.
    let dir = dir.map(|d| std::path::absolute(d).unwrap_or_else(|_| d.clone()));
    let hash = hark_core::data_dir::stable_hash(dir.map(|d| d.display().to_string()).unwrap_or_default().as_bytes());
    format!("{IDENTIFIER}.d{hash:016x}")
}

/// Opens the session the options name (sending the prompt to it), or starts one with the prompt,
/// through the front door the window's own commands use.
async fn carry_out(hub: &Arc<Hub>, launch: &LaunchOptions) -> Launched {
    let door = hub.door();
    let opened = match (&launch.run.session, &launch.prompt) {
        (Some(typed), prompt) => match hub.resolve(typed) {
            Err(e) => Err(e.boundary()),
            Ok(id) => match prompt {
                Some(p) => door.send(&id, p).await.map(|()| id),
                None => {
                    // Read while the window starts, off the thread that creates it.
                    let (hub, warmed) = (Arc::clone(hub), id.clone());
                    tauri::async_runtime::spawn_blocking(move || {
                        // A failure shows when the window opens the session itself.
                        let _ = hub.warm(&warmed);
                    });
                    Ok(id)
                }
            },
        },
        // A second launch's --plan and --ptc hold for the session it starts, whatever this run was told.
        (None, Some(prompt)) => {
            let choices = WorkingChoices {
                plan_first: launch.run.plan_first.then_some(true),
                ptc: launch.run.ptc.then_some(true),
            };
            door.start(Start { text: prompt.clone(), workspace: launch.run.workspace.clone(), by: None, choices }).await
        }
        (None, None) => return Launched::default(),
    };
    match opened {
        Ok(id) => Launched::session(id),
        Err(e) => Launched { error: Some(e), ..Launched::default() },
    }
}

/// A second launch on this data directory: carry out its session/prompt here and bring the window
/// up on it (not with `--hidden`: a login entry finding Hark already running leaves it as it is).
fn forwarded(app: &AppHandle, argv: Vec<String>, cwd: String) {
    let mut launch = match LaunchOptions::parse(argv.into_iter().skip(1)) {
        Ok(launch) => launch,
        Err(problem) => {
            let error = BoundaryError { name: "LaunchError".into(), code: "INVALID_ARGUMENT".into(), message: problem };
            window::show(app, Launched { error: Some(error), ..Launched::default() });
            return;
        }
    };
    // A relative workspace means the second launch's folder, not this process's.
    launch.run.workspace = launch.run.workspace.take().map(|w| PathBuf::from(&cwd).join(w));
    let state = app.state::<AppState>();
    let Ok(hub) = state.hub() else {
        window::show(app, Launched::default());
        return;
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let launched = carry_out(&hub, &launch).await;
        if launched.session.is_some() {
            events::sessions_changed(&app);
        }
        if !launch.hidden {
            window::show(&app, launched);
        }
    });
}
