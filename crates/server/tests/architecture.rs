//! The architecture as the code has it, checked:
//!
//! - the crate diagram in docs/architecture.md (between the `crates:begin`
//!   and `crates:end` markers) is generated from the crates' Cargo.toml
//!   files; when the dependencies change, this test fails and prints the
//!   new diagram (`NESTOR_UPDATE_DOCS=1` rewrites the block in place);
//! - every declared dependency on another Nestor crate is used;
//! - inside each crate, the top-level modules import each other without a
//!   cycle (a directory module counts as one module).
//!
//! Cargo already refuses cycles between crates.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Crate directory name -> the Nestor crates it depends on (directory names).
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for entry in fs::read_dir(root().join("crates")).expect("crates/") {
        let dir = entry.expect("dir entry").path();
        let Ok(toml) = fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut deps = BTreeSet::new();
        let mut in_deps = false;
        for line in toml.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
            } else if in_deps {
                if let Some(rest) = line.strip_prefix("nestor-") {
                    let dep: String = rest
                        .chars()
                        .take_while(|c| *c != '.' && *c != ' ')
                        .collect();
                    deps.insert(dep);
                }
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// Layer of each crate: 0 for crates with no Nestor dependency, else one
/// more than its highest dependency.
fn layers(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, usize> {
    fn layer(
        c: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        memo: &mut BTreeMap<String, usize>,
    ) -> usize {
        if let Some(&l) = memo.get(c) {
            return l;
        }
        let l = g[c]
            .iter()
            .map(|d| layer(d, g, memo) + 1)
            .max()
            .unwrap_or(0);
        memo.insert(c.to_string(), l);
        l
    }
    let mut memo = BTreeMap::new();
    for c in graph.keys() {
        layer(c, graph, &mut memo);
    }
    memo
}

fn render(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    let layers = layers(graph);
    let mut rows: Vec<(usize, &String)> = layers.iter().map(|(c, l)| (*l, c)).collect();
    rows.sort();
    rows.reverse();
    let mut out = String::from("```text\nlayer  crate      depends on (Nestor crates)\n");
    for (l, c) in rows {
        let deps: Vec<&str> = graph[c].iter().map(String::as_str).collect();
        let deps = if deps.is_empty() {
            "-".to_string()
        } else {
            deps.join(", ")
        };
        out.push_str(&format!("{l:>5}  {c:<10} {deps}\n"));
    }
    out.push_str("```\n");
    out
}

#[test]
fn crate_diagram_in_the_docs_matches_the_cargo_files() {
    let path = root().join("docs/architecture.md");
    let doc = fs::read_to_string(&path).expect("docs/architecture.md");
    let (begin, end) = ("<!-- crates:begin -->\n", "<!-- crates:end -->");
    let start = doc.find(begin).expect("crates:begin marker") + begin.len();
    let stop = doc.find(end).expect("crates:end marker");
    let want = render(&crate_graph());
    if doc[start..stop] != want {
        if std::env::var_os("NESTOR_UPDATE_DOCS").is_some() {
            let new = format!("{}{want}{}", &doc[..start], &doc[stop..]);
            fs::write(&path, new).expect("rewrite docs/architecture.md");
            return;
        }
        panic!(
            "docs/architecture.md's crate diagram is stale; it should read:\n{want}\
             (NESTOR_UPDATE_DOCS=1 rewrites it)"
        );
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_declared_crate_dependency_is_used() {
    for (c, deps) in crate_graph() {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(&c).join("src"), &mut files);
        let text: String = files
            .iter()
            .map(|f| fs::read_to_string(f).unwrap())
            .collect();
        for d in deps {
            let name = format!("nestor_{d}");
            assert!(
                text.contains(&name),
                "crate {c} declares nestor-{d} but never uses it"
            );
        }
    }
}

/// Top-level module of a source file under `src` (lib.rs/main.rs: "lib").
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    let m = first.trim_end_matches(".rs").to_string();
    if m == "main" {
        "lib".into()
    } else {
        m
    }
}

/// Source without `#[cfg(test)]` modules (tests may import anything).
fn non_test(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    }
}

fn module_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("crates").join(krate).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let m = module_of(&src, f);
        let text = fs::read_to_string(f).unwrap();
        let deps = graph.entry(m.clone()).or_default();
        for (i, _) in non_test(&text).match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != m && name != "lib" && modules.contains(&name) {
                deps.insert(name);
            }
        }
        // `use crate::{a, b::c}` groups.
        for (i, _) in non_test(&text).match_indices("use crate::{") {
            let rest = &text[i + "use crate::{".len()..];
            let group = &rest[..rest.find('}').unwrap_or(0)];
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != m && modules.contains(&name) {
                    deps.insert(name);
                }
            }
        }
    }
    graph.remove("lib");
    graph.remove("tests");
    for deps in graph.values_mut() {
        deps.remove("lib");
        deps.remove("tests");
    }
    graph
}

/// A cycle in `graph`, if any, as the list of modules on it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(c) = visit(m, graph, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn modules_of_the_sql_crates_import_each_other_without_cycles() {
    for krate in [
        "catalog", "parser", "settings", "plan", "exec", "durable", "session", "server",
    ] {
        let graph = module_graph(krate);
        if let Some(cycle) = find_cycle(&graph) {
            panic!("crate {krate}: modules import each other in a cycle: {cycle:?}");
        }
    }
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default();
    assert_eq!(find_cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g).map(|c| c.len()), Some(3));
}
