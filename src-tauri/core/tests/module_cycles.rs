//! hark-core's top-level modules form no dependency cycle. A module depends on another when its
//! files name `crate::<other>` (the crate's own style: no top-level module reaches another through
//! `super::`), tests inside it included, since they compile with it; a cycle is a strongly connected
//! component of that graph. A new one fails this test: what both sides need belongs in a module
//! below them (as the history, the open session's events and the socket's data types are).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules: `src/<name>.rs` and `src/<name>/mod.rs`.
fn modules() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(src()).expect("read src") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let module = path.is_dir() && path.join("mod.rs").exists() || path.extension().is_some_and(|e| e == "rs");
        if module && !matches!(name.as_str(), "lib" | "bin") {
            names.insert(name);
        }
    }
    names
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The texts of a module's files.
fn files_of(module: &str) -> Vec<String> {
    let single = src().join(format!("{module}.rs"));
    let mut paths = Vec::new();
    if single.exists() {
        paths.push(single);
    } else {
        rust_files(&src().join(module), &mut paths);
    }
    paths.iter().map(|p| std::fs::read_to_string(p).expect("read a source file")).collect()
}

/// Which modules each module names through `crate::` (tests inside it included: they compile with it).
fn graph(names: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    names
        .iter()
        .map(|module| {
            let mut uses = BTreeSet::new();
            for text in files_of(module) {
                for (i, _) in text.match_indices("crate::") {
                    let rest = &text[i + "crate::".len()..];
                    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    // `crate::{a, b}` names several.
                    if name.is_empty() && rest.starts_with('{') {
                        let inner = rest[1..].split('}').next().unwrap_or_default();
                        for part in inner.split(',') {
                            let head: String =
                                part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                            if names.contains(&head) && &head != module {
                                uses.insert(head);
                            }
                        }
                    } else if names.contains(&name) && &name != module {
                        uses.insert(name);
                    }
                }
            }
            (module.clone(), uses)
        })
        .collect()
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<BTreeSet<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: BTreeSet<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.insert(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: BTreeSet::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let names = modules();
    assert!(names.contains("host") && names.contains("question"), "the modules are read: {names:?}");
    let found = cycles(&graph(&names));
    assert!(
        found.is_empty(),
        "hark-core's modules depend on each other in a circle: {found:?}; move what both sides use below them"
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_ignores_a_chain() {
    let graph: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"]), ("e", vec![])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
    let found = cycles(&graph);
    let expected: BTreeSet<String> = ["a", "b", "c"].into_iter().map(String::from).collect();
    assert_eq!(found, BTreeSet::from([expected]));
}
