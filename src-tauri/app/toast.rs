//! What a person did on a question's notice, on every system, and how Windows (toasts) and macOS
//! (banners) show one. XDG servers are driven in `notifier` and heard in `notify_signals`; the other
//! two go through notify-rust's own handles, whose wait blocks, so each notice is waited on by a
//! thread of its own. The policy (which buttons a notice offers) is `hark_core::notify`'s; this
//! module only fits it to what each system can draw.

use hark_core::notify::{self, ActionChoice, NotifyAction, ACTION_DEFAULT, ACTION_INLINE_REPLY};
use hark_core::question::Question;

/// What the person did on a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// The person chose the action with this key (`default`: the notification itself).
    Action(String),
    /// The person typed this into the notice's reply field.
    Replied(String),
    /// It went away without an action.
    Closed,
}

/// What `signal` on a notice of `questions` means, on every system alike: an option's button or a
/// typed reply answers, the notice itself and "Answer…" bring the window up, and a notice that went
/// away does nothing (`None`).
pub fn meaning(signal: Signal, questions: &[Question]) -> Option<ActionChoice> {
    match signal {
        Signal::Action(key) => Some(notify::interpret(&key, questions)),
        Signal::Replied(text) => Some(notify::interpret_reply(&text, questions)),
        Signal::Closed => None,
    }
}

/// A response from notify-rust's Windows or macOS handle, as a signal.
#[cfg_attr(all(unix, not(target_os = "macos")), allow(dead_code))]
pub fn signal_of(response: &notify_rust::NotificationResponse) -> Signal {
    use notify_rust::NotificationResponse as R;
    match response {
        R::Default => Signal::Action(ACTION_DEFAULT.to_string()),
        R::Action(key) => Signal::Action(key.clone()),
        R::Reply(text) => Signal::Replied(text.clone()),
        R::Closed(_) => Signal::Closed,
    }
}

/// Which system draws the notice, for what it can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(all(unix, not(target_os = "macos")), allow(dead_code))]
pub enum System {
    /// Toasts: up to five buttons, no reply field through notify-rust.
    Windows,
    /// `NSUserNotification`: one main button, either a menu of actions or a reply field.
    MacOs,
}

/// What a notice shows as controls: its buttons in order, and a reply field's placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controls {
    pub buttons: Vec<NotifyAction>,
    pub reply: Option<String>,
}

/// Windows toasts take at most this many buttons.
const WINDOWS_MAX_BUTTONS: usize = 5;

/// Fits a notice's actions to `system`. Clicking the notice itself is the `default` action on every
/// system, so it is never a button.
#[cfg_attr(all(unix, not(target_os = "macos")), allow(dead_code))]
pub fn controls(actions: &[NotifyAction], system: System) -> Controls {
    let buttons: Vec<NotifyAction> =
        actions.iter().filter(|a| a.id != ACTION_DEFAULT && a.id != ACTION_INLINE_REPLY).cloned().collect();
    let reply = actions.iter().find(|a| a.id == ACTION_INLINE_REPLY).map(|a| a.label.clone());
    match system {
        System::Windows => Controls { buttons: buttons.into_iter().take(WINDOWS_MAX_BUTTONS).collect(), reply: None },
        System::MacOs => {
            let answers = |a: &NotifyAction| hark_core::notify::answers_directly(&a.id);
            // A banner shows a reply field or a menu of buttons, not both. With options to choose
            // from, the menu; with none, the field (the window is a click on the banner away).
            if buttons.iter().any(answers) {
                // Clicking the menu's own title reports its first entry: that must be one that only
                // opens the window, never one that answers for the person.
                let (direct, opening): (Vec<_>, Vec<_>) = buttons.into_iter().partition(answers);
                Controls { buttons: opening.into_iter().chain(direct).collect(), reply: None }
            } else {
                Controls { buttons, reply }
            }
        }
    }
}
/// Shows `notice` as a toast or banner and waits, on a thread of its own, for what the person does.
#[cfg(any(target_os = "windows", target_os = "macos"))]
pub fn show(notice: &hark_core::notify::Notice) -> Result<tokio::sync::oneshot::Receiver<Signal>, String> {
    let system = if cfg!(target_os = "windows") { System::Windows } else { System::MacOs };
    let controls = controls(&notice.actions, system);
    let mut n = notify_rust::Notification::new();
    n.appname("Hark").summary(&notice.title).body(&notice.body).timeout(notify_rust::Timeout::Never);
    for button in &controls.buttons {
        n.action(&button.id, &button.label);
    }
    #[cfg(target_os = "macos")]
    if let Some(placeholder) = &controls.reply {
        n.reply(placeholder);
    }
    // On macOS the banner is sent by the wait itself; on Windows `show` sends it.
    let handle = n.show().map_err(|e| e.to_string())?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("hark-notice".into())
        .spawn(move || {
            let heard = handle.wait_for_response(|response: &notify_rust::NotificationResponse| {
                let _ = tx.send(signal_of(response));
            });
            if let Err(e) = heard {
                eprintln!("hark-desktop: notification not heard: {e}");
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(rx)
}

/// Notices on macOS name the app they come from: the installed bundle, or in development the
/// terminal it was started from (an unknown bundle id shows nothing).
#[cfg(target_os = "macos")]
pub fn name_the_app(identifier: &str) {
    let bundle = if cfg!(debug_assertions) { "com.apple.Terminal" } else { identifier };
    if let Err(e) = notify_rust::set_application(bundle) {
        eprintln!("hark-desktop: notifications will not name Hark: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::System::{MacOs, Windows};
    use super::*;
    use hark_core::notify::{ACTION_ANSWER, ACTION_DEFAULT, ACTION_INLINE_REPLY};
    use notify_rust::{CloseReason, NotificationResponse};

    fn action(id: &str, label: &str) -> NotifyAction {
        NotifyAction { id: id.into(), label: label.into() }
    }

    fn ids(controls: &Controls) -> Vec<&str> {
        controls.buttons.iter().map(|b| b.id.as_str()).collect()
    }

    /// What core offers for one question with two options on a server with replies.
    fn with_options() -> Vec<NotifyAction> {
        vec![
            action(ACTION_DEFAULT, "Open"),
            action("option:0", "Postgres"),
            action("option:1", "SQLite"),
            action(ACTION_INLINE_REPLY, "Reply…"),
            action(ACTION_ANSWER, "Answer…"),
        ]
    }

    #[test]
    fn a_toast_shows_the_options_and_answer_but_neither_the_body_click_nor_a_reply() {
        let c = controls(&with_options(), Windows);
        assert_eq!(ids(&c), ["option:0", "option:1", ACTION_ANSWER]);
        assert_eq!(c.reply, None);
    }

    #[test]
    fn a_toast_never_gets_more_buttons_than_windows_draws() {
        let many: Vec<_> = (0..8).map(|i| action(&format!("option:{i}"), "x")).collect();
        assert_eq!(controls(&many, Windows).buttons.len(), WINDOWS_MAX_BUTTONS);
    }

    #[test]
    fn a_banners_menu_starts_with_an_entry_that_only_opens_the_window() {
        let c = controls(&with_options(), MacOs);
        assert_eq!(ids(&c), [ACTION_ANSWER, "option:0", "option:1"], "the menu title reports its first entry");
        assert_eq!(c.reply, None, "a banner shows a menu or a reply field, and options come first");
    }

    #[test]
    fn a_banner_without_options_takes_a_typed_reply() {
        let actions = vec![
            action(ACTION_DEFAULT, "Open"),
            action(ACTION_INLINE_REPLY, "Reply…"),
            action(ACTION_ANSWER, "Answer…"),
        ];
        let c = controls(&actions, MacOs);
        assert_eq!(c.reply.as_deref(), Some("Reply…"));
        assert_eq!(ids(&c), [ACTION_ANSWER]);
    }

    /// One question of two options, as notified on `system` (Windows toasts take no typed reply,
    /// banners do): the notice core makes and the controls the system draws of it.
    fn notified(system: System) -> (Vec<Question>, Controls) {
        let questions = vec![Question {
            id: "db".into(),
            question: "Which database?".into(),
            header: Some("Database".into()),
            options: ["Postgres", "SQLite"]
                .map(|label| hark_core::question::QuestionOption { label: label.into(), description: None })
                .to_vec(),
            multi_select: false,
        }];
        let ctx = notify::NotifyContext {
            enabled: true,
            do_not_disturb: false,
            window_focused: false,
            server_has_actions: true,
            server_has_inline_reply: system == MacOs,
        };
        let notice = notify::notice(&ctx, notify::NotificationKind::Asked, "s1", "Notes", "c1", &questions).unwrap();
        (questions, controls(&notice.actions, system))
    }

    fn answered(selected: &[&str], custom: Option<&str>) -> Option<ActionChoice> {
        Some(ActionChoice::Answer(hark_core::question::AnswerBatch {
            answers: vec![hark_core::question::Answer {
                id: "db".into(),
                selected: selected.iter().map(|s| s.to_string()).collect(),
                custom: custom.map(str::to_string),
            }],
        }))
    }

    /// What the system reports for each thing a person can do on the notice, read as on Linux.
    fn meant(response: NotificationResponse, questions: &[Question]) -> Option<ActionChoice> {
        meaning(signal_of(&response), questions)
    }

    #[test]
    fn each_button_of_a_toast_means_what_it_says() {
        let (questions, c) = notified(Windows);
        let by_label: Vec<(String, Option<ActionChoice>)> = c
            .buttons
            .iter()
            .map(|b| (b.label.clone(), meant(NotificationResponse::Action(b.id.clone()), &questions)))
            .collect();
        assert_eq!(
            by_label,
            [
                ("Postgres".to_string(), answered(&["Postgres"], None)),
                ("SQLite".to_string(), answered(&["SQLite"], None)),
                ("Answer…".to_string(), Some(ActionChoice::Choose)),
            ]
        );
        assert_eq!(meant(NotificationResponse::Default, &questions), Some(ActionChoice::Focus), "the toast itself");
        assert_eq!(meant(NotificationResponse::Closed(CloseReason::Dismissed), &questions), None);
    }

    #[test]
    fn a_banners_menu_answers_by_its_entries_and_a_reply_answers_in_the_persons_words() {
        let (questions, c) = notified(MacOs);
        let meanings: Vec<Option<ActionChoice>> =
            c.buttons.iter().map(|b| meant(NotificationResponse::Action(b.id.clone()), &questions)).collect();
        assert_eq!(
            meanings,
            [Some(ActionChoice::Choose), answered(&["Postgres"], None), answered(&["SQLite"], None)],
            "the menu's title (its first entry) only opens the window"
        );
        // The reply field (a banner's, for a question without options to list): what is typed
        // answers as Other, and an empty reply opens the window instead of answering nothing.
        let reply = NotificationResponse::Reply("  a flat file ".into());
        assert_eq!(meant(reply, &questions), answered(&[], Some("a flat file")));
        assert_eq!(meant(NotificationResponse::Reply("  ".into()), &questions), Some(ActionChoice::Focus));
        assert_eq!(meant(NotificationResponse::Closed(CloseReason::Expired), &questions), None);
    }

    #[test]
    fn responses_read_as_the_signals_xdg_servers_send() {
        assert_eq!(signal_of(&NotificationResponse::Default), Signal::Action(ACTION_DEFAULT.into()));
        assert_eq!(signal_of(&NotificationResponse::Action("option:1".into())), Signal::Action("option:1".into()));
        assert_eq!(signal_of(&NotificationResponse::Reply("Use MySQL".into())), Signal::Replied("Use MySQL".into()));
        assert_eq!(signal_of(&NotificationResponse::Closed(CloseReason::Dismissed)), Signal::Closed);
    }
}
