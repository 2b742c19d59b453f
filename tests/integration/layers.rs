//! docs/architecture.md's layers, checked on the source: which file names which. A module path in
//! a file's code (`use` lines and paths written inline; comments and unit tests left out) is an
//! edge from that file to the file that defines the module it names. The checks: `error.rs` is
//! a leaf (it names nothing of the crate), external bots never name `cg:` bots (which are built
//! on them), the files of the process supervisor form no import circle, an arena file's
//! validation does no I/O, and only `src/cli` (and `main.rs`) writes to the terminal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::root;

/// Every source file, by its module path (`bot::external::spawn`; `mod.rs` is its folder's).
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, &[prefix, &[name]].concat(), out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let module = match stem {
                    "mod" | "lib" | "main" => prefix.to_vec(),
                    _ => [prefix, &[stem.to_string()]].concat(),
                };
                out.entry(module).or_insert(path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&root().join("src"), &[], &mut out);
    out
}

/// A file's code without comments, visibilities (`pub(in crate::a)` names no dependency) and
/// its unit tests.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    let mut code = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    while let Some(start) = code.find("pub(in ") {
        let end = code[start..].find(')').map_or(code.len(), |i| start + i + 1);
        code.replace_range(start..end, "pub");
    }
    code
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (`self` in a group is `a`).
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else { return vec![path.to_string()] };
    let head = &path[..open];
    let body = path[open + 1..].strip_suffix('}').unwrap_or(&path[open + 1..]);
    let mut items = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&body[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&body[from..]);
    let mut out = Vec::new();
    for item in items.into_iter().filter(|i| !i.is_empty()) {
        if item == "self" {
            out.push(head.trim_end_matches("::").to_string());
        } else {
            out.extend(expand(item).into_iter().map(|sub| format!("{head}{sub}")));
        }
    }
    out
}

/// The module paths a file's code names, made absolute (`super::x` from `a::b` is `a::x`).
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    // Paths with their groups, without blanks: `use a::{b,\n c}` reads as `a::{b,c}`.
    let compact = without_blanks_in_paths(code);
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_:{},".contains(c);
    let mut paths = Vec::new();
    let mut rest = compact.as_str();
    while let Some(start) = rest.find(|c: char| is_path_char(c)) {
        let word_len = rest[start..].find(|c: char| !is_path_char(c)).unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        rest = &rest[start + word_len..];
        // A word may hold several paths (`f(crate::a,super::b)` reads as one): each starts at a
        // `crate`, `super` or `self` that follows a separator.
        for candidate in split_paths(word) {
            for path in expand(&candidate) {
                paths.extend(absolute(module, &path));
            }
        }
    }
    paths
}

/// `code` with the blanks next to `{`, `}`, `,` and `:` removed, other runs of blanks as one
/// space.
fn without_blanks_in_paths(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let end = (i..chars.len()).find(|&j| !chars[j].is_whitespace()).unwrap_or(chars.len());
        let before = out.chars().last();
        let after = chars.get(end).copied();
        let joins = |c: Option<char>, set: &str| c.is_some_and(|c| set.contains(c));
        if !joins(before, "{,:") && !joins(after, "},:") {
            out.push(' ');
        }
        i = end;
    }
    out
}

/// The paths starting with `crate::`, `super::` or `self::` in a run of path characters, each
/// with its balanced group.
fn split_paths(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = word.as_bytes();
    let mut i = 0;
    while i < word.len() {
        let starts = ["crate::", "super::", "self::"].iter().any(|p| word[i..].starts_with(p));
        let after_separator = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':');
        if starts && after_separator {
            let mut depth = 0i32;
            let mut end = word.len();
            for (j, c) in word[i..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = i + j;
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        end = i + j;
                        break;
                    }
                    _ => {}
                }
            }
            out.push(word[i..end].to_string());
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// `path` (`super::x::y`) from `module`, as a path from the crate's root; `None` for a path
/// that is not the crate's (`std::fs`).
fn absolute(module: &[String], path: &str) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (&first, mut rest) = segments.split_first()?;
    let mut absolute: Vec<String> = match first {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    while let Some((&"super", tail)) = rest.split_first() {
        absolute.pop();
        rest = tail;
    }
    absolute.extend(rest.iter().map(|s| (*s).to_string()));
    Some(absolute)
}

/// For every file, the files it names (the longest module prefix of each path that is a file).
type Edges = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

fn edges() -> Edges {
    let modules = modules();
    let mut edges = Edges::new();
    for (module, path) in &modules {
        let mut named = BTreeSet::new();
        for target in named_paths(module, &code(path)) {
            let file = (0..=target.len())
                .rev()
                .map(|n| target[..n].to_vec())
                .find(|prefix| modules.contains_key(prefix));
            if let Some(file) = file.filter(|f| f != module) {
                named.insert(file);
            }
        }
        edges.insert(module.clone(), named);
    }
    edges
}

fn name(module: &[String]) -> String {
    if module.is_empty() { "lib".to_string() } else { module.join("::") }
}

fn modules_under(prefix: &[&str]) -> Vec<Vec<String>> {
    modules()
        .into_keys()
        .filter(|m| m.len() >= prefix.len() && m[..prefix.len()] == *prefix)
        .collect()
}

/// Import circles among `files`: pairs that reach each other through files of the set.
fn circles(edges: &Edges, files: &[Vec<String>]) -> Vec<String> {
    let inside: BTreeSet<&Vec<String>> = files.iter().collect();
    let reach = |from: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut pending = vec![from.clone()];
        while let Some(file) = pending.pop() {
            for next in edges.get(&file).into_iter().flatten() {
                if inside.contains(next) && seen.insert(next.clone()) {
                    pending.push(next.clone());
                }
            }
        }
        seen
    };
    let mut found = Vec::new();
    for a in files {
        for b in reach(a) {
            if a < &b && reach(&b).contains(a) {
                found.push(format!("{} <-> {}", name(a), name(&b)));
            }
        }
    }
    found
}

#[test]
fn error_rs_is_a_leaf() {
    let edges = edges();
    let named = &edges[&vec!["error".to_string()]];
    assert!(
        named.is_empty(),
        "error.rs names {:?}",
        named.iter().map(|m| name(m)).collect::<Vec<_>>()
    );
}

#[test]
fn external_bots_never_name_codingame_bots() {
    let edges = edges();
    for module in modules_under(&["bot", "external"]) {
        for named in &edges[&module] {
            assert!(
                !named.starts_with(&["bot".to_string(), "codingame".to_string()]),
                "{} names {}",
                name(&module),
                name(named)
            );
        }
    }
}

#[test]
fn the_process_supervisor_has_no_import_circle() {
    let mut files = modules_under(&["bot", "external"]);
    files.extend(modules_under(&["bot", "codingame"]));
    files.push(vec!["error".to_string()]);
    files.push(vec!["bot".to_string()]);
    assert_eq!(circles(&edges(), &files), Vec::<String>::new());
}

/// Reading an arena file in layers: its raw types, its validation, its SPRT settings and its
/// errors read no file and run no program, so every check of a value is pure and comes before
/// any map is read or bot compiled. They name neither the layers that do (`files`, `maps`,
/// `prepare`) nor what those call.
#[test]
fn the_arena_files_validation_does_no_io() {
    let edges = edges();
    let config = |m: &str| ["tournament", "config", m].map(String::from).to_vec();
    let loading = [config("files"), config("maps"), config("prepare")];
    let io_items = [
        "tournament::bot_files::fingerprint_bot",
        "bot::codingame",
        "bot::external::program_problem",
        "bot::external::spawn",
        "game::read_input",
    ];
    let modules = modules();
    for pure in ["raw", "validate", "sprt_settings", "error"] {
        let module = config(pure);
        for named in &edges[&module] {
            assert!(!loading.contains(named), "{} names {}", name(&module), name(named));
        }
        let code = code(&modules[&module]);
        for path in named_paths(&module, &code) {
            let path = name(&path);
            assert!(
                !io_items.iter().any(|item| path.starts_with(item)),
                "{} names {path}",
                name(&module)
            );
        }
        for word in ["std::fs", "glob::", "std::process"] {
            assert!(!code.contains(word), "{} uses {word}", name(&module));
        }
    }
}

#[test]
fn the_checks_see_names_and_circles() {
    let m = |path: &str| path.split("::").map(String::from).collect::<Vec<_>>();
    let code = "use super::cpu::CpuClock;\nuse super::super::{\n    spawn::X,\n    io::{a, b},\n};\n\
                fn f() { g(crate::error::Error::Usage(s), self::h) }";
    let named: Vec<String> =
        named_paths(&m("bot::external::sandbox::cgroup"), code).iter().map(|p| name(p)).collect();
    assert_eq!(
        named,
        [
            "bot::external::sandbox::cpu::CpuClock",
            "bot::external::spawn::X",
            "bot::external::io::a",
            "bot::external::io::b",
            "error::Error::Usage",
            "bot::external::sandbox::cgroup::h",
        ]
    );
    // a -> b -> c -> a is one circle of three pairs; d only names a.
    let mut edges = Edges::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        edges.entry(m(from)).or_default().insert(m(to));
    }
    let files = [m("a"), m("b"), m("c"), m("d")];
    assert_eq!(circles(&edges, &files), ["a <-> b", "a <-> c", "b <-> c"]);
}

/// What writes to the terminal: the print macros (which `lib.rs`'s Clippy lints also deny),
/// handles to stdout and stderr (which no lint sees), and a progress bar.
const TERMINAL_WRITERS: [&str; 9] = [
    "print!(",
    "println!(",
    "eprint!(",
    "eprintln!(",
    "dbg!(",
    "io::stdout(",
    "io::stderr(",
    "indicatif::",
    "console::",
];

fn terminal_writers(code: &str) -> Vec<&'static str> {
    let code = without_blanks_in_paths(code);
    TERMINAL_WRITERS
        .into_iter()
        .filter(|w| {
            code.match_indices(w).any(|(i, _)| {
                // `eprintln!` is not `println!`; `std::io::stdout(` is `io::stdout(`.
                let before = code[..i].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

/// The library reports through events and return values; only `src/cli` and `main.rs` print.
/// Unit tests are left out by `code`, and test modules that print (measurements run by hand
/// with `--nocapture`) say so with an `#[allow]` of the lint, which `lib.rs` denies everywhere.
#[test]
fn only_the_cli_writes_to_the_terminal() {
    let mut found = Vec::new();
    for (module, path) in modules() {
        let in_cli = module.first().is_some_and(|m| m == "cli");
        if in_cli || path.ends_with("src/main.rs") {
            continue;
        }
        for writer in terminal_writers(&code(&path)) {
            found.push(format!("{} writes with {writer}", path.display()));
        }
    }
    assert_eq!(found, Vec::<String>::new());
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]"),
        "lib.rs no longer denies the print lints"
    );
}

#[test]
fn the_terminal_check_sees_every_writer() {
    let code = "fn f() { eprintln!(\"x\"); let _ = writeln!(std::io::stdout(), \"y\");\n\
                let bar = indicatif::ProgressBar::new(1); my_println!(1); }";
    assert_eq!(terminal_writers(code), ["eprintln!(", "io::stdout(", "indicatif::"]);
    assert_eq!(terminal_writers("fn f() { writeln!(out, \"x\") }"), Vec::<&str>::new());
}
