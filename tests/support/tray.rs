//! A tray of our own on the session bus, as a desktop's panel is: it serves
//! `org.kde.StatusNotifierWatcher`, so the app's tray icon (a StatusNotifierItem, through
//! libayatana-appindicator) registers with it, and it reads and clicks the icon's menu over
//! `com.canonical.dbusmenu`, as a panel does when the person picks an entry. Together with
//! `x11_windows.py` (what the person does to the window itself), the tray tests drive the real app.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zbus::{OwnedObjectPath, OwnedVariant, Variant};

const WATCHER: &str = "org.kde.StatusNotifierWatcher";
const WATCHER_PATH: &str = "/StatusNotifierWatcher";

/// One registered item: the bus name it lives on and its object path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub bus_name: String,
    pub path: String,
}

struct Watcher {
    items: Arc<Mutex<Vec<Item>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    /// libappindicator passes its object path; others pass a bus name. Either way the sender is
    /// where the item lives.
    fn register_status_notifier_item(&self, service: &str, #[zbus(header)] header: zbus::message::Header<'_>) {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let (bus_name, path) = if service.starts_with('/') {
            (sender, service.to_string())
        } else {
            (service.to_string(), "/StatusNotifierItem".to_string())
        };
        self.items.lock().expect("items").push(Item { bus_name, path });
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.lock().expect("items").iter().map(|i| format!("{}{}", i.bus_name, i.path)).collect()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

/// An entry of the icon's menu.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: i32,
    pub label: String,
    pub enabled: bool,
}

/// The running tray; dropping it frees the watcher's name for the next test.
pub struct Tray {
    conn: zbus::Connection,
    items: Arc<Mutex<Vec<Item>>>,
}

impl Tray {
    pub async fn start() -> Tray {
        let items = Arc::new(Mutex::new(Vec::new()));
        let conn = zbus::connection::Builder::session()
            .name(WATCHER)
            .serve_at(WATCHER_PATH, Watcher { items: Arc::clone(&items) })
            .build()
            .await
            .expect("own org.kde.StatusNotifierWatcher on the session bus");
        Tray { conn, items }
    }

    /// The items registered so far whose bus name is still on the bus (an app that quit is gone).
    pub async fn live_items(&self) -> Vec<Item> {
        let dbus = zbus::fdo::DBusProxy::new(&self.conn).await.expect("bus proxy");
        let mut live = Vec::new();
        let items = self.items.lock().expect("items").clone();
        for item in items {
            let Ok(name) = zbus::names::BusName::try_from(item.bus_name.as_str()) else { continue };
            if dbus.name_has_owner(name).await.unwrap_or(false) {
                live.push(item);
            }
        }
        live
    }

    /// Waits (up to `within`) for the app's icon to be in the tray.
    pub async fn wait_for_item(&self, within: Duration) -> Item {
        let start = Instant::now();
        loop {
            if let Some(item) = self.live_items().await.into_iter().next() {
                return item;
            }
            assert!(start.elapsed() < within, "no tray icon registered within {within:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn menu_path(&self, item: &Item) -> OwnedObjectPath {
        let proxy =
            zbus::Proxy::new(&self.conn, item.bus_name.as_str(), item.path.as_str(), "org.kde.StatusNotifierItem")
                .await
                .expect("item proxy");
        proxy.get_property("Menu").await.expect("the item's Menu property")
    }

    async fn menu_proxy(&self, item: &Item) -> zbus::Proxy<'static> {
        let path = self.menu_path(item).await;
        zbus::Proxy::new_owned(self.conn.clone(), item.bus_name.clone(), path, "com.canonical.dbusmenu".to_string())
            .await
            .expect("menu proxy")
    }

    /// The icon's menu entries, in order (separators left out).
    pub async fn menu(&self, item: &Item) -> Vec<Entry> {
        let proxy = self.menu_proxy(item).await;
        type Layout = (i32, HashMap<String, OwnedVariant>, Vec<OwnedVariant>);
        let (_revision, (_root, _props, children)): (u32, Layout) =
            proxy.call("GetLayout", &(0i32, -1i32, Vec::<String>::new())).await.expect("GetLayout");
        let mut entries = Vec::new();
        for child in &children {
            collect(child, &mut entries);
        }
        entries
    }

    /// Waits (up to `within`) for an entry whose label contains `label`.
    pub async fn wait_for_entry(&self, item: &Item, label: &str, within: Duration) -> Entry {
        let start = Instant::now();
        loop {
            let menu = self.menu(item).await;
            if let Some(entry) = menu.iter().find(|e| e.label.contains(label)) {
                return entry.clone();
            }
            assert!(start.elapsed() < within, "no tray entry {label:?} within {within:?}; the menu: {menu:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The person picks the entry labelled `label` in the icon's menu.
    pub async fn click(&self, item: &Item, label: &str) {
        let entry = self.wait_for_entry(item, label, Duration::from_secs(20)).await;
        assert!(entry.enabled, "the entry {label:?} is disabled");
        let proxy = self.menu_proxy(item).await;
        let () = proxy
            .call("Event", &(entry.id, "clicked", Variant::from(0i32), 0u32))
            .await
            .unwrap_or_else(|e| panic!("click {label:?}: {e}"));
    }
}

/// Walks a dbusmenu layout node `(id, properties, children)`, each child a variant of the same.
fn collect(node: &Variant<'_>, out: &mut Vec<Entry>) {
    let node = match node {
        Variant::Variant(inner) => inner.as_ref(),
        other => other,
    };
    let Variant::Structure(s) = node else { return };
    let (Some(Variant::I32(id)), Some(Variant::Dict(props)), Some(Variant::Array(children))) =
        (s.fields().first(), s.fields().get(1), s.fields().get(2))
    else {
        return;
    };
    let prop = |key: &str| {
        props.iter().find_map(|(k, v)| match (k, v) {
            (Variant::Str(k), Variant::Variant(v)) if k.as_str() == key => Some(v.as_ref().clone()),
            (Variant::Str(k), v) if k.as_str() == key => Some(v.clone()),
            _ => None,
        })
    };
    let text = |key: &str| match prop(key) {
        Some(Variant::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    };
    if text("type").as_deref() != Some("separator") {
        let enabled = !matches!(prop("enabled"), Some(Variant::Bool(false)));
        // GTK mnemonics arrive as underscores; the label a person reads has none.
        let label = text("label").unwrap_or_default().replace('_', "");
        out.push(Entry { id: *id, label, enabled });
    }
    for child in children.iter() {
        collect(child, out);
    }
}

/// The mapped top-level windows titled `title` (what the person sees on screen).
pub fn windows_titled(title: &str) -> usize {
    x11("list", title).lines().filter(|l| !l.trim().is_empty()).count()
}

/// The person closes every window titled `title` with its close button; how many there were.
pub fn close_windows_titled(title: &str) -> usize {
    x11("close", title).trim().parse().expect("x11_windows.py prints how many it closed")
}

fn x11(what: &str, title: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/x11_windows.py");
    let out = std::process::Command::new("python3").arg(script).args([what, title]).output().expect("run python3");
    assert!(out.status.success(), "x11_windows.py {what}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
