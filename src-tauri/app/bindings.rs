//! The window's TypeScript types, generated from the Rust types that cross IPC so the two cannot
//! drift. `make bindings` writes `ui/src/lib/bindings.ts`; the test below fails while the committed
//! file differs from what the types say.

use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use ts_rs::{Config, TypeVisitor, TS};

const FILE: &str = "ui/src/lib/bindings.ts";

const HEADER: &str = "// Generated from the Rust types by `make bindings` (src-tauri/app/bindings.rs): do not edit.\n\
// 64-bit integers (seqs, milliseconds, counts) are plain numbers: none comes near 2^53.\n";

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
}

/// Declarations by name, so each type is written once and the file's order does not depend on the
/// order the types are reached in.
struct Collect<'a> {
    cfg: &'a Config,
    decls: BTreeMap<String, String>,
    seen: HashSet<TypeId>,
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
        }
        T::visit_dependencies(self);
    }
}

fn typescript() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut collect = Collect { cfg: &cfg, decls: BTreeMap::new(), seen: HashSet::new() };
    roots(&mut collect);
    let mut out = String::from(HEADER);
    for decl in collect.decls.values() {
        out.push('\n');
        out.push_str(decl);
    }
    out
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
