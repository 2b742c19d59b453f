//! Java's entry point, read from the source: CodinGame bots declare `class Player` (not public),
//! so the file's name says nothing, and javac wants a public class in a file of its name.
//!
//! A light scan, not a parser: comments and literals are blanked, then the top-level type
//! declarations and the `main` method are found by their tokens and brace depth.

/// What the source declares, for compiling it and running it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The fully qualified class with `static void main(...)` (`pkg.Player` under a package).
    pub main_class: String,
    /// The name the file must have for javac (the public top-level class, else the main class).
    pub file_stem: String,
}

/// Finds the class holding `main`, or `None` when the source has none.
pub(super) fn entry(source: &str) -> Option<Entry> {
    let code = blank_comments_and_literals(source);
    let tokens = tokens(&code);
    let mut depth = 0usize;
    let mut package: Option<String> = None;
    let mut top: Option<String> = None;
    let mut public_top: Option<String> = None;
    let mut main_top: Option<String> = None;
    // Modifiers seen since the last `;`, `{` or `}` (of the declaration being read).
    let mut public = false;
    let mut is_static = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        match t {
            "{" | "}" | ";" => {
                match t {
                    "{" => depth += 1,
                    "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                public = false;
                is_static = false;
            }
            "package" if depth == 0 && package.is_none() && top.is_none() => {
                let mut name = String::new();
                let mut j = i + 1;
                while j < tokens.len() && tokens[j] != ";" {
                    name.push_str(tokens[j]);
                    j += 1;
                }
                package = Some(name);
                i = j;
                continue;
            }
            "public" => public = true,
            "static" => is_static = true,
            "class" | "interface" | "enum" | "record" if depth == 0 => {
                if let Some(name) = tokens.get(i + 1).filter(|n| is_identifier(n)) {
                    top = Some(name.to_string());
                    if public && public_top.is_none() {
                        public_top = Some(name.to_string());
                    }
                }
            }
            "main"
                if main_top.is_none()
                    && is_static
                    && i > 0
                    && tokens[i - 1] == "void"
                    && tokens.get(i + 1) == Some(&"(") =>
            {
                main_top = top.clone();
            }
            _ => {}
        }
        i += 1;
    }
    let main = main_top?;
    let main_class = match package {
        Some(p) if !p.is_empty() => format!("{p}.{main}"),
        _ => main.clone(),
    };
    Some(Entry { main_class, file_stem: public_top.unwrap_or(main) })
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
}

/// Identifiers and the punctuation that matters (`{`, `}`, `;`, `(`, `.`).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_' || c == '$';
        if word {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&text[s..i]);
        }
        if "{};(.".contains(c) {
            out.push(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// The source with comments, string and character literals and text blocks replaced by spaces,
/// so that braces and words inside them do not count.
fn blank_comments_and_literals(source: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment,
        Text(&'static str),
    }
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut state = State::Code;
    let mut i = 0;
    let starts =
        |i: usize, s: &str| s.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
    while i < chars.len() {
        let c = chars[i];
        match state {
            State::Code => {
                let opening = [
                    ("//", None),
                    ("/*", None),
                    ("\"\"\"", Some("\"\"\"")),
                    ("\"", Some("\"")),
                    ("'", Some("'")),
                ];
                if let Some((open, close)) = opening.iter().find(|(o, _)| starts(i, o)) {
                    state = match (open, close) {
                        (&"//", _) => State::LineComment,
                        (&"/*", _) => State::BlockComment,
                        (_, Some(close)) => State::Text(close),
                        _ => unreachable!("every opening has a state"),
                    };
                    out.extend(std::iter::repeat_n(' ', open.chars().count()));
                    i += open.chars().count();
                    continue;
                }
                out.push(c);
            }
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                }
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
            State::BlockComment => {
                if starts(i, "*/") {
                    out.push_str("  ");
                    i += 2;
                    state = State::Code;
                    continue;
                }
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
            State::Text(close) => {
                if c == '\\' {
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if starts(i, close) {
                    out.extend(std::iter::repeat_n(' ', close.len()));
                    i += close.len();
                    state = State::Code;
                    continue;
                }
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_of(src: &str) -> Option<(String, String)> {
        entry(src).map(|e| (e.main_class, e.file_stem))
    }

    #[test]
    fn codingame_players_class_is_found() {
        let src = "import java.util.*;\n\n/**\n * Auto-generated code below aims at helping you parse\n **/\nclass Player {\n\n    public static void main(String args[]) {\n        Scanner in = new Scanner(System.in);\n    }\n}\n";
        assert_eq!(main_of(src), Some(("Player".into(), "Player".into())));
    }

    #[test]
    fn helper_classes_comments_and_strings_do_not_confuse_it() {
        let src = r#"
            // class Fake { public static void main(String[] a) {} }
            class Graph { int n; /* } class Bogus { */ }
            enum Kind { A, B }
            class Solution {
                static class Inner { void main() {} }
                String s = "class X { static void main(";
                char c = '{';
                String block = """
                    } class Y {
                    """;
                public static void main(String[] args) { new Graph(); }
            }
        "#;
        assert_eq!(main_of(src), Some(("Solution".into(), "Solution".into())));
    }

    #[test]
    fn a_public_class_names_the_file_and_a_package_qualifies_the_class() {
        let src = "package bots.skynet;\npublic class Virus { }\nclass Main { public static void main(String[] a) {} }";
        assert_eq!(main_of(src), Some(("bots.skynet.Main".into(), "Virus".into())));
    }

    #[test]
    fn no_main_is_none() {
        assert_eq!(main_of("class Player { void main(String[] a) {} }"), None);
        assert_eq!(main_of(""), None);
        assert_eq!(main_of("\"unterminated"), None);
    }
}
