//! Codex's `config.toml`: MCP servers under `[mcp_servers.<name>]`, and hooks as lists of matcher
//! groups under `hooks.<event>`, written `[[hooks.PreToolUse]]` with `[[hooks.PreToolUse.hooks]]`
//! handlers (or the same lists inline). `toml_edit` keeps everything Hark does not touch as it was
//! written, comments included.

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, TableLike, Value};

use super::{
    hook_command, is_hark_hook, Action, Agent, Edit, Outcome, Problem, CODEX_TOOL_TIMEOUT_SECS, HOOK_TIMEOUT_SECS,
    MCP_SERVER_NAME,
};

const SERVERS: &str = "mcp_servers";
const EVENT: &str = "PreToolUse";

pub(super) fn config(old: Option<&str>, program: &str, action: Action) -> Result<Edit, Problem> {
    let text = old.unwrap_or_default();
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| Problem::NotToml(describe(&e, text)))?;
    let command = hook_command(program, Agent::Codex);
    // Both parts are checked before either is changed, so a refused file is refused whole.
    check(doc.get(SERVERS), SERVERS, Shape::Table)?;
    if let Some(hooks) = doc.get("hooks") {
        check(Some(hooks), "hooks", Shape::Table)?;
        check(hooks.get(EVENT), "hooks.PreToolUse", Shape::List)?;
    }
    let had_hark = match action {
        Action::Setup => {
            let had_server = set_server(doc.as_table_mut(), program);
            let had_hook = set_hook(doc.as_table_mut(), &command);
            had_server || had_hook
        }
        Action::Undo => {
            let had_server = remove_server(doc.as_table_mut());
            let had_hook = remove_hook(doc.as_table_mut());
            had_server || had_hook
        }
    };
    let new = doc.to_string();
    let changed = new != text;
    Ok(Edit { outcome: Outcome::of(action, had_hark, changed), text: changed.then_some(new) })
}

/// A parse error in one line: toml_edit's own text draws the line under it, which a one-line error
/// cannot show.
fn describe(error: &toml_edit::TomlError, text: &str) -> String {
    match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
            format!("{} (line {line}, column {column})", error.message().trim())
        }
        None => error.message().trim().to_string(),
    }
}

enum Shape {
    Table,
    List,
}

fn check(item: Option<&Item>, key: &str, shape: Shape) -> Result<(), Problem> {
    let Some(item) = item else {
        return Ok(());
    };
    let (fits, expected) = match shape {
        Shape::Table => (item.is_table_like(), "a table"),
        Shape::List => (List::fits(item), "an array of tables"),
    };
    if fits {
        return Ok(());
    }
    Err(Problem::WrongType { key: key.to_string(), expected, found: kind(item) })
}

fn kind(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(value) => match value {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array of values",
            Value::InlineTable(_) => "a table",
        },
    }
}

/// A TOML list of tables, written either as `[[a.b]]` sections or inline as `a.b = [{ ... }]`.
enum List<'a> {
    Sections(&'a mut ArrayOfTables),
    Inline(&'a mut Array),
}

impl<'a> List<'a> {
    /// An empty inline array counts too: `PreToolUse = []` is an empty list of groups.
    fn fits(item: &Item) -> bool {
        match item {
            Item::ArrayOfTables(_) => true,
            Item::Value(Value::Array(array)) => array.iter().all(Value::is_inline_table),
            _ => false,
        }
    }

    fn of(item: &'a mut Item) -> Option<List<'a>> {
        match item {
            Item::ArrayOfTables(tables) => Some(List::Sections(tables)),
            Item::Value(Value::Array(array)) => Some(List::Inline(array)),
            _ => None,
        }
    }

    fn len(&self) -> usize {
        match self {
            List::Sections(tables) => tables.len(),
            List::Inline(array) => array.len(),
        }
    }

    fn get(&self, index: usize) -> Option<&dyn TableLike> {
        match self {
            List::Sections(tables) => tables.get(index).map(|t| t as &dyn TableLike),
            List::Inline(array) => array.get(index).and_then(Value::as_inline_table).map(|t| t as &dyn TableLike),
        }
    }

    fn get_mut(&mut self, index: usize) -> Option<&mut dyn TableLike> {
        match self {
            List::Sections(tables) => tables.get_mut(index).map(|t| t as &mut dyn TableLike),
            List::Inline(array) => {
                array.get_mut(index).and_then(Value::as_inline_table_mut).map(|t| t as &mut dyn TableLike)
            }
        }
    }

    fn remove(&mut self, index: usize) {
        match self {
            List::Sections(tables) => {
                tables.remove(index);
            }
            List::Inline(array) => {
                array.remove(index);
            }
        }
    }

    fn push(&mut self, table: Table) {
        match self {
            List::Sections(tables) => tables.push(table),
            List::Inline(array) => array.push(table.into_inline_table()),
        }
    }
}

fn is_ours(handler: &dyn TableLike) -> bool {
    handler.get("command").and_then(Item::as_str).is_some_and(|c| is_hark_hook(c, Agent::Codex))
}

fn same(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::String(a), Value::String(b)) => a.value() == b.value(),
        (Value::Integer(a), Value::Integer(b)) => a.value() == b.value(),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same(a, b)),
        _ => false,
    }
}

/// Sets `wanted`'s values in `table` where it is, so its place in the file and the comments above it
/// stay. What the person added stays too: keys Hark does not write, and arguments after Hark's own.
/// Comparing values (not text) leaves a value that is already right as it was written.
fn replace_in_place(table: &mut dyn TableLike, wanted: &Table) {
    for (key, item) in wanted.iter() {
        let Some(want) = item.as_value() else {
            continue;
        };
        let have = table.get(key).and_then(Item::as_value);
        let kept = have.is_some_and(|have| match (key, have, want) {
            ("args", Value::Array(have), Value::Array(want)) => {
                have.len() >= want.len() && want.iter().zip(have.iter()).all(|(w, h)| same(h, w))
            }
            _ => same(have, want),
        });
        if !kept {
            table.insert(key, Item::Value(want.clone()));
        }
    }
}

/// What Codex passes `hark mcp` beyond the few variables it gives every MCP server (HOME, PATH,
/// LANG, SHELL, TERM and the like): what starting the desktop app needs (the display, the session
/// bus) and the data folder a person may have chosen.
const PASSED_ENV: [&str; 6] =
    ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HARK_DATA_DIR"];

fn server(program: &str) -> Table {
    let mut table = Table::new();
    table.insert("command", toml_edit::value(program));
    table.insert("args", toml_edit::value(Array::from_iter(["mcp"])));
    table.insert("tool_timeout_sec", toml_edit::value(CODEX_TOOL_TIMEOUT_SECS as i64));
    // Asking the person is what the tools are for: Codex asking first whether the agent may ask
    // would put a prompt before the question, and `codex exec` (approval policy "never") would
    // refuse every call. Codex writes the same key when the person chooses "Always allow".
    table.insert("default_tools_approval_mode", toml_edit::value("approve"));
    table.insert("env_vars", toml_edit::value(Array::from_iter(PASSED_ENV)));
    table
}

fn handler(command: &str) -> Table {
    let mut table = Table::new();
    table.insert("type", toml_edit::value("command"));
    table.insert("command", toml_edit::value(command));
    table.insert("timeout", toml_edit::value(HOOK_TIMEOUT_SECS as i64));
    table
}

fn group(command: &str) -> Table {
    let mut handlers = ArrayOfTables::new();
    handlers.push(handler(command));
    let mut table = Table::new();
    table.insert("matcher", toml_edit::value(Agent::Codex.question_tool()));
    table.insert("hooks", Item::ArrayOfTables(handlers));
    table
}

/// An empty table that prints no header of its own, so only its children's `[a.b]` headers show.
fn implicit_table() -> Item {
    let mut table = Table::new();
    table.set_implicit(true);
    Item::Table(table)
}

/// Sets `[mcp_servers.hark]`. Returns whether a `hark` server was there.
fn set_server(root: &mut Table, program: &str) -> bool {
    let servers = root.entry(SERVERS).or_insert_with(implicit_table);
    let inline = servers.is_inline_table();
    let Some(servers) = servers.as_table_like_mut() else {
        return false;
    };
    let wanted = server(program);
    match servers.get_mut(MCP_SERVER_NAME) {
        Some(existing) => {
            match existing.as_table_like_mut() {
                Some(table) => replace_in_place(table, &wanted),
                None => *existing = entry_item(wanted, inline),
            }
            true
        }
        None => {
            servers.insert(MCP_SERVER_NAME, entry_item(wanted, inline));
            false
        }
    }
}

/// A table as an entry of its parent: a section, or an inline table inside an inline one.
fn entry_item(table: Table, inline: bool) -> Item {
    match inline {
        true => Item::Value(Value::InlineTable(table.into_inline_table())),
        false => Item::Table(table),
    }
}

fn remove_server(root: &mut Table) -> bool {
    let servers = root.get_mut(SERVERS).and_then(Item::as_table_like_mut);
    servers.is_some_and(|servers| servers.remove(MCP_SERVER_NAME).is_some())
}

/// Leaves exactly one Hark handler, `command`'s, in a group matching `request_user_input`: the first
/// Hark handler already in such a group is set where it is, any other is removed (with a group that
/// removal empties), and without one a new group is added at the end. Returns whether any Hark
/// handler was there.
fn set_hook(root: &mut Table, command: &str) -> bool {
    let hooks = root.entry("hooks").or_insert_with(implicit_table);
    let inline = hooks.is_inline_table();
    let Some(hooks) = hooks.as_table_like_mut() else {
        return false;
    };
    if !hooks.contains_key(EVENT) {
        let empty = match inline {
            true => Item::Value(Value::Array(Array::new())),
            false => Item::ArrayOfTables(ArrayOfTables::new()),
        };
        hooks.insert(EVENT, empty);
    }
    let Some(mut groups) = hooks.get_mut(EVENT).and_then(List::of) else {
        return false;
    };
    let keep = find_kept(&groups);
    let had_hark = remove_handlers(&mut groups, keep);
    let kept = keep.and_then(|(g, h)| {
        let group = groups.get_mut(g)?;
        List::of(group.get_mut("hooks")?)?.get_mut(h).map(|handler| replace_in_place(handler, &self::handler(command)))
    });
    if kept.is_none() {
        groups.push(group(command));
    }
    had_hark
}

/// The first Hark handler in a group that matches the question tool: (group, handler).
fn find_kept(groups: &List) -> Option<(usize, usize)> {
    (0..groups.len()).find_map(|g| {
        let group = groups.get(g)?;
        if group.get("matcher").and_then(Item::as_str) != Some(Agent::Codex.question_tool()) {
            return None;
        }
        let handlers = group.get("hooks")?;
        let count = match handlers {
            Item::ArrayOfTables(tables) => tables.len(),
            Item::Value(Value::Array(array)) => array.len(),
            _ => return None,
        };
        (0..count).find(|&h| handler_at(handlers, h).is_some_and(is_ours)).map(|h| (g, h))
    })
}

fn handler_at(handlers: &Item, index: usize) -> Option<&dyn TableLike> {
    match handlers {
        Item::ArrayOfTables(tables) => tables.get(index).map(|t| t as &dyn TableLike),
        Item::Value(Value::Array(array)) => array.get(index)?.as_inline_table().map(|t| t as &dyn TableLike),
        _ => None,
    }
}

/// Removes every Hark handler but the one at `keep` (group, handler), and each group this leaves
/// without handlers. Returns whether there was any Hark handler, `keep`'s included.
fn remove_handlers(groups: &mut List, keep: Option<(usize, usize)>) -> bool {
    let mut found = false;
    let mut emptied = Vec::new();
    for g in 0..groups.len() {
        let Some(mut handlers) = groups.get_mut(g).and_then(|group| group.get_mut("hooks")).and_then(List::of) else {
            continue;
        };
        let before = handlers.len();
        for h in (0..before).rev() {
            if handlers.get(h).is_some_and(is_ours) {
                found = true;
                if keep != Some((g, h)) {
                    handlers.remove(h);
                }
            }
        }
        if before > 0 && handlers.len() == 0 {
            emptied.push(g);
        }
    }
    // Codex keeps the person's trust in a hook by its place (`…:pre_tool_use:<group>:<handler>`): a
    // group that moved up is "new or changed" to it and stops running until trusted again. So an
    // emptied group is taken out only from the end of the list; one with groups after it stays, as
    // an inert group with no handlers, holding their places.
    let mut last = groups.len();
    for g in emptied.into_iter().rev() {
        if g + 1 == last {
            groups.remove(g);
            last = g;
        } else if let Some(group) = groups.get_mut(g) {
            group.insert("hooks", Item::Value(Value::Array(Array::new())));
        }
    }
    found
}

/// Takes Hark's handlers out of `hooks.PreToolUse`, then the event and `hooks` when that left them
/// empty.
fn remove_hook(root: &mut Table) -> bool {
    let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return false;
    };
    let Some(mut groups) = hooks.get_mut(EVENT).and_then(List::of) else {
        return false;
    };
    if !remove_handlers(&mut groups, None) {
        return false;
    }
    if groups.len() == 0 {
        hooks.remove(EVENT);
        if hooks.is_empty() {
            root.remove("hooks");
        }
    }
    true
}

/// The event Hark's approvals hook on. Codex runs this hook before its own prompt, so the hook's
/// end is what ends the approval; no report of the call is needed.
const APPROVAL_EVENT: &str = "PermissionRequest";

/// Hark's `PermissionRequest` hook, for every tool (no matcher), added (`on`) or taken out. The
/// server and the question hook are [`config`]'s, and stay as they are; so do the positions of the
/// person's own groups, by which Codex remembers their trust.
pub(super) fn approvals(old: Option<&str>, program: &str, on: bool) -> Result<Edit, Problem> {
    let text = old.unwrap_or_default();
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| Problem::NotToml(describe(&e, text)))?;
    if let Some(hooks) = doc.get("hooks") {
        check(Some(hooks), "hooks", Shape::Table)?;
        check(hooks.get(APPROVAL_EVENT), "hooks.PermissionRequest", Shape::List)?;
    }
    let root = doc.as_table_mut();
    let had_hark =
        if on { set_approval_hook(root, &hook_command(program, Agent::Codex)) } else { remove_approval_hook(root) };
    let action = if on { Action::Setup } else { Action::Undo };
    let new = doc.to_string();
    let changed = new != text;
    Ok(Edit { outcome: Outcome::of(action, had_hark, changed), text: changed.then_some(new) })
}

fn set_approval_hook(root: &mut Table, command: &str) -> bool {
    let hooks = root.entry("hooks").or_insert_with(implicit_table);
    let inline = hooks.is_inline_table();
    let Some(hooks) = hooks.as_table_like_mut() else {
        return false;
    };
    if !hooks.contains_key(APPROVAL_EVENT) {
        let empty = match inline {
            true => Item::Value(Value::Array(Array::new())),
            false => Item::ArrayOfTables(ArrayOfTables::new()),
        };
        hooks.insert(APPROVAL_EVENT, empty);
    }
    let Some(mut groups) = hooks.get_mut(APPROVAL_EVENT).and_then(List::of) else {
        return false;
    };
    let keep = (0..groups.len()).find_map(|g| {
        let handlers = groups.get(g)?.get("hooks")?;
        let count = match handlers {
            Item::ArrayOfTables(tables) => tables.len(),
            Item::Value(Value::Array(array)) => array.len(),
            _ => return None,
        };
        (0..count).find(|&h| handler_at(handlers, h).is_some_and(is_ours)).map(|h| (g, h))
    });
    let had_hark = remove_handlers(&mut groups, keep);
    let kept = keep.and_then(|(g, h)| {
        let group = groups.get_mut(g)?;
        List::of(group.get_mut("hooks")?)?.get_mut(h).map(|handler| replace_in_place(handler, &self::handler(command)))
    });
    if kept.is_none() {
        let mut handlers = ArrayOfTables::new();
        handlers.push(handler(command));
        let mut table = Table::new();
        table.insert("hooks", Item::ArrayOfTables(handlers));
        groups.push(table);
    }
    had_hark
}

fn remove_approval_hook(root: &mut Table) -> bool {
    let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return false;
    };
    let Some(mut groups) = hooks.get_mut(APPROVAL_EVENT).and_then(List::of) else {
        return false;
    };
    if !remove_handlers(&mut groups, None) {
        return false;
    }
    if groups.len() == 0 {
        hooks.remove(APPROVAL_EVENT);
        if hooks.is_empty() {
            root.remove("hooks");
        }
    }
    true
}
