//! The window's TypeScript, generated from the Rust that crosses IPC so the two cannot drift: every
//! type the window reads or sends, and `Commands`, each window command's arguments and result as
//! its signature in `commands.rs` declares them (the window's `call` is typed by it). `make
//! bindings` writes `ui/src/lib/bindings.ts`; the test below fails while the committed file differs
//! from what the Rust says.

use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use ts_rs::{Config, TypeVisitor, TS};

const FILE: &str = "ui/src/lib/bindings.ts";

const HEADER: &str = "// Generated from the Rust types by `make bindings` (src-tauri/app/bindings.rs): do not edit.\n\
// 64-bit integers (seqs, milliseconds, counts) are plain numbers: none comes near 2^53.\n\
import type { Channel } from '@tauri-apps/api/core';\n";

/// Every type the window reads or sends: command arguments and results, streamed events, the
/// `hark://focus` payload. Their dependencies follow.
fn roots(out: &mut Collect<'_>) {
    use hark_core::question::AnswerBatch;
    out.visit::<hark_core::agent::AgentEvent>();
    out.visit::<hark_core::host::AnswerPath>();
    out.visit::<hark_core::session::SessionSummary>();
    out.visit::<AnswerBatch>();
    out.visit::<crate::commands::AppInfo>();
    out.visit::<crate::commands::SettingsView>();
    out.visit::<crate::commands::Started>();
    out.visit::<crate::events::Focus>();
    out.visit::<crate::hub::AttachResult>();
    out.visit::<hark_core::service::SessionQuestions>();
    out.visit::<hark_core::host::InboxEntry>();
    out.visit::<crate::hub::SessionView>();
    out.visit::<crate::hub::SubmitResult>();
    out.visit::<crate::settings::Settings>();
    out.visit::<crate::mcp_settings::McpView>();
    out.visit::<crate::agent_settings::AgentsView>();
    out.visit::<crate::agent_settings::AgentSetupDone>();
    out.visit::<hark_core::agent_setup::Action>();
    out.visit::<crate::phone_settings::PhoneView>();
    out.visit::<crate::phone_settings::PhoneForm>();
    out.visit::<crate::phone_settings::PairingView>();
    out.visit::<crate::remote_settings::RemoteHostsView>();
    out.visit::<crate::commands::FirstRunView>();
    out.visit::<hark_core::first_run::FirstRunRecord>();
}

/// Declarations by name, so each type is written once and the file's order does not depend on the
/// order the types are reached in.
struct Collect<'a> {
    cfg: &'a Config,
    decls: BTreeMap<String, String>,
    seen: HashSet<TypeId>,
    /// Each declared type's TypeScript name by its Rust name (the last segment of its path), for
    /// the commands' signatures, which name types as the Rust source does.
    names: BTreeMap<String, Vec<String>>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Recursive types (a JSON value holds JSON values) are reached again through themselves.
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        if T::output_path().is_some() {
            let decl = format!("{}export {}\n", T::docs().unwrap_or_default(), T::decl(self.cfg));
            self.decls.insert(T::ident(self.cfg), decl);
            let path = std::any::type_name::<T>();
            let rust = path.split('<').next().unwrap_or(path).rsplit("::").next().unwrap_or(path);
            self.names.entry(rust.to_string()).or_default().push(T::ident(self.cfg));
        }
        T::visit_dependencies(self);
    }
}

fn typescript() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut collect = Collect { cfg: &cfg, decls: BTreeMap::new(), seen: HashSet::new(), names: BTreeMap::new() };
    roots(&mut collect);
    let mut out = String::from(HEADER);
    for decl in collect.decls.values() {
        out.push('\n');
        out.push_str(decl);
    }
    out.push('\n');
    out.push_str(&commands_interface(&collect.names));
    out
}

/// The arguments only the shell provides (Tauri injects them), which the window never sends.
const INJECTED: [&str; 4] = ["State", "AppHandle", "Window", "WebviewWindow"];

/// `export interface Commands`: for each `#[tauri::command]` of `commands.rs`, in its order, the
/// arguments as `invoke` sends them (camelCase, as Tauri names them) and what it returns.
fn commands_interface(names: &BTreeMap<String, Vec<String>>) -> String {
    let mut out = String::from(
        "/** Every window command (src-tauri/app/commands.rs): its arguments, named as `invoke` sends them, and its result. */\n\
         export interface Commands {\n",
    );
    for command in commands() {
        let args: Vec<String> = command
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(arg) if !INJECTED.contains(&last_segment(&arg.ty).as_str()) => {
                    let syn::Pat::Ident(name) = &*arg.pat else {
                        panic!("{}: an argument without a name", command.ident)
                    };
                    Some(format!("{}: {}", camel_case(&name.ident.to_string()), typescript_of(&arg.ty, names)))
                }
                _ => None,
            })
            .collect();
        let returns = match &command.output {
            syn::ReturnType::Default => "void".to_string(),
            syn::ReturnType::Type(_, ty) => typescript_of(ty, names),
        };
        let args = if args.is_empty() { "{}".to_string() } else { format!("{{ {} }}", args.join("; ")) };
        out.push_str(&format!("  {}: {{ args: {args}; returns: {returns} }};\n", command.ident));
    }
    out.push_str("}\n");
    out
}

/// The signatures of the commands `commands.rs` declares, in its order.
fn commands() -> Vec<syn::Signature> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/app/commands.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let file = syn::parse_file(&text).unwrap();
    file.items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().segments.iter().any(|s| s.ident == "command")) => {
                Some(f.sig)
            }
            _ => None,
        })
        .collect()
}

fn last_segment(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        syn::Type::Reference(r) => last_segment(&r.elem),
        _ => String::new(),
    }
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A Rust type of a command's signature as the window sees it: a declared type by the name its
/// TypeScript has, and the few wrappers and primitives IPC maps itself.
fn typescript_of(ty: &syn::Type, names: &BTreeMap<String, Vec<String>>) -> String {
    let generic = |segment: &syn::PathSegment| -> Vec<String> {
        match &segment.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(typescript_of(t, names)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    match ty {
        syn::Type::Tuple(t) if t.elems.is_empty() => "void".to_string(),
        syn::Type::Reference(r) => typescript_of(&r.elem, names),
        syn::Type::Path(p) => {
            let Some(segment) = p.path.segments.last() else { panic!("an empty type path") };
            let name = segment.ident.to_string();
            let inner = generic(segment);
            match (name.as_str(), inner.as_slice()) {
                ("CommandResult" | "Box", [t]) => t.clone(),
                ("Option", [t]) => format!("{t} | null"),
                ("Vec", [t]) => format!("Array<{t}>"),
                ("Channel", [t]) => format!("Channel<{t}>"),
                ("String" | "str" | "PathBuf", []) => "string".to_string(),
                ("bool", []) => "boolean".to_string(),
                ("u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" | "f64", []) => "number".to_string(),
                (_, []) => match names.get(&name).map(Vec::as_slice) {
                    Some([typescript]) => typescript.clone(),
                    Some(several) => panic!("{name} names several types the window reads: {several:?}"),
                    None => panic!("{name} crosses IPC in a command but is not among the roots in bindings.rs"),
                },
                _ => panic!("{name}: a generic type IPC does not map"),
            }
        }
        other => panic!("a command's type IPC does not map: {other:?}"),
    }
}

#[test]
fn every_command_is_registered_with_the_window() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/app/lib.rs")).unwrap();
    let list = lib.split("generate_handler![").nth(1).and_then(|rest| rest.split(']').next()).unwrap();
    let registered: std::collections::BTreeSet<String> = list
        .split(',')
        .map(|c| c.trim().trim_start_matches("commands::").to_string())
        .filter(|c| !c.is_empty())
        .collect();
    let declared = commands().iter().map(|c| c.ident.to_string()).collect();
    assert_eq!(registered, declared, "lib.rs registers exactly the commands commands.rs declares");
}

/// A command the build's app manifest does not list, or that no capability allows, is refused to
/// the window at run time ("not allowed"), which no unit test would otherwise see.
#[test]
fn every_command_is_granted_to_the_window() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = std::fs::read_to_string(root.join("build.rs")).unwrap();
    let list = build.split("const COMMANDS").nth(1).and_then(|rest| rest.split("];").next()).unwrap();
    let manifest: std::collections::BTreeSet<String> = list.split('"').skip(1).step_by(2).map(str::to_string).collect();
    let capability: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("src-tauri/app/capabilities/main.json")).unwrap())
            .unwrap();
    let allowed: std::collections::BTreeSet<String> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-").map(|c| c.replace('-', "_")))
        .collect();
    let declared: std::collections::BTreeSet<String> = commands().iter().map(|c| c.ident.to_string()).collect();
    assert_eq!(manifest, declared, "build.rs's COMMANDS lists exactly the commands commands.rs declares");
    assert_eq!(allowed, declared, "capabilities/main.json allows exactly the commands commands.rs declares");
}

#[test]
fn the_committed_typescript_bindings_are_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FILE);
    let generated = typescript();
    if std::env::var_os("HARK_WRITE_BINDINGS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == generated, "{FILE} is stale: run `make bindings` and commit it");
}
