//! The tray icon: how many questions wait, the sessions they wait in (click → that question), Open inbox,
//! Open, Quit. What it lists is `hark_core::notify::tray_summary`; this module only builds the menu.

use std::sync::Arc;

use hark_core::notify::{tray_summary, tray_title, TraySummary};
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager, Wry};

use crate::hub::Hub;
use crate::state::Launched;

const TRAY_ID: &str = "hark";
const OPEN: &str = "open";
const INBOX: &str = "inbox";
const QUIT: &str = "quit";
const SESSION_PREFIX: &str = "session:";

/// Creates the tray icon; whether it exists. A desktop without a tray (no StatusNotifier host) just has
/// none, and closing the window then quits as usual.
pub fn install(app: &AppHandle, hub: &Arc<Hub>) -> bool {
    let summary = summary(hub);
    let built = menu(app, &summary).and_then(|menu| {
        let mut builder = TrayIconBuilder::with_id(TRAY_ID)
            .menu(&menu)
            .tooltip(tray_title(&summary))
            .show_menu_on_left_click(true)
            .on_menu_event(|app, event| on_menu(app, event.id().as_ref()));
        if let Some(icon) = app.default_window_icon() {
            builder = builder.icon(icon.clone());
        }
        builder.build(app)
    });
    match built {
        Ok(tray) => {
            set_count(&tray, &summary);
            true
        }
        Err(e) => {
            eprintln!("hark-desktop: no tray icon: {e}");
            false
        }
    }
}

fn summary(hub: &Hub) -> TraySummary {
    tray_summary(&hub.store().list_sessions().unwrap_or_default())
}

fn menu(app: &AppHandle, summary: &TraySummary) -> tauri::Result<Menu<Wry>> {
    let menu = Menu::new(app)?;
    let heading = MenuItem::with_id(app, "count", tray_title(summary), false, None::<&str>)?;
    menu.append(&heading)?;
    for entry in &summary.sessions {
        let item =
            MenuItem::with_id(app, format!("{SESSION_PREFIX}{}", entry.session_id), &entry.label, true, None::<&str>)?;
        menu.append(&item)?;
    }
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    if summary.waiting > 0 {
        menu.append(&MenuItem::with_id(app, INBOX, "Open inbox", true, None::<&str>)?)?;
    }
    menu.append(&MenuItem::with_id(app, OPEN, "Open Hark", true, None::<&str>)?)?;
    menu.append(&MenuItem::with_id(app, QUIT, "Quit Hark", true, None::<&str>)?)?;
    Ok(menu)
}

fn set_count(tray: &TrayIcon, summary: &TraySummary) {
    let _ = tray.set_tooltip(Some(tray_title(summary)));
    // Linux (AppIndicator) and macOS show the title next to the icon: the count, when there is one.
    let _ = tray.set_title((summary.waiting > 0).then(|| summary.waiting.to_string()));
}

/// Rebuilds the menu and count after a question or session changed.
pub fn refresh(app: &AppHandle, hub: &Hub) {
    let Some(tray) = app.tray_by_id(TRAY_ID) else { return };
    let summary = summary(hub);
    if let Ok(menu) = menu(app, &summary) {
        let _ = tray.set_menu(Some(menu));
    }
    set_count(&tray, &summary);
}

fn on_menu(app: &AppHandle, id: &str) {
    match id {
        OPEN => crate::window::show(app, Launched::default()),
        INBOX => crate::window::show(app, Launched::inbox()),
        QUIT => app.exit(0),
        other => {
            let Some(session) = other.strip_prefix(SESSION_PREFIX) else { return };
            let call = app.state::<crate::state::AppState>().hub().ok().and_then(|hub| {
                let views = hub.host().questions(session);
                hark_core::service::next_to_show(&views, true, |_| false).map(|v| v.call_id.clone())
            });
            let first = match call {
                Some(call) => Launched::question(session, &call, None),
                None => Launched::session(session),
            };
            crate::window::show(app, first);
        }
    }
}
