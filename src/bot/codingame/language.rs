//! The languages a `cg:` source may be written in, picked by its extension as CodinGame picks the
//! runtime from the language chosen in its editor, and how each is compiled and run: the one
//! table the docs (docs/external-bots.md, "CodinGame sources") describe.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::dotnet;

/// The program a language needs, and what to tell a user who does not have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tool {
    pub program: &'static str,
    /// How to get it, for the error when it is missing ("install it with ...").
    pub install: &'static str,
}

/// A language arena can run as CodinGame does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Language {
    Python,
    JavaScript,
    C,
    Cpp,
    Java,
    Rust,
    Go,
    Kotlin,
    /// C# through Mono's `mcs`.
    CSharp,
    /// C# through the .NET SDK's `dotnet`, as CodinGame runs it: what a `.cs` source becomes
    /// when the SDK is installed (`super::csharp_compiler`); no extension names it.
    CSharpDotnet,
    Php,
    Ruby,
}

/// The extensions `cg:` knows (compared without case), with their language.
pub(crate) const EXTENSIONS: &[(&str, Language)] = &[
    ("py", Language::Python),
    ("js", Language::JavaScript),
    ("c", Language::C),
    ("cpp", Language::Cpp),
    ("cc", Language::Cpp),
    ("cxx", Language::Cpp),
    ("java", Language::Java),
    ("rs", Language::Rust),
    ("go", Language::Go),
    ("kt", Language::Kotlin),
    ("cs", Language::CSharp),
    ("php", Language::Php),
    ("rb", Language::Ruby),
];

/// CodinGame's C and C++ flags, as its "languages update" announcement gives them (g++ 11,
/// `-std=gnu++17 -Werror=return-type -g -pthread`, linking `-lm -lpthread -ldl -lcrypt`). No
/// `-O`: CodinGame compiles unoptimised, and bots that want more say `#pragma GCC optimize`.
/// `-lcrypt` is left out: no bot needs crypt(3), and its development files are not everywhere.
const C_FLAGS: &[&str] = &["-std=gnu17", "-Werror=return-type", "-g", "-pthread"];
const CPP_FLAGS: &[&str] = &["-std=gnu++17", "-Werror=return-type", "-g", "-pthread"];
const C_LIBS: &[&str] = &["-lm", "-lpthread", "-ldl"];

/// PHP's settings for a bot: warnings go to standard error, once. PHP's built-in default (no
/// php.ini, as in many container images) and php.ini-development print them on standard output,
/// where the referee would read them as the bot's answer; Debian's php.ini logs them to stderr.
/// Set on the command line, they are the same on every machine.
const PHP_SETTINGS: &[&str] = &["display_errors=stderr", "log_errors=0"];

/// The C# compiler's errors that most often mean a source written for CodinGame's .NET (C# 8
/// and later) meets Mono's `mcs` (C# 7.2 at most, and without local functions or `case ...
/// when`), each with what to tell the user.
const CSHARP_NOTES: &[(&str, &str)] = &[
    (
        "error CS0136",
        "C# 8, which CodinGame's .NET compiles, lets a lambda parameter or a local reuse the \
         name of an enclosing local; mcs (Mono) knows C# 7 and refuses it: rename one of them",
    ),
    (
        "error CS0453",
        "`string?` and other nullable reference types are C# 8, which CodinGame's .NET \
         compiles; mcs (Mono) knows C# 7 and reads them as `Nullable<T>`: drop the `?`",
    ),
    (
        "error CS1644",
        "the feature named is newer than mcs (Mono) knows, C# 7.2 at most; CodinGame compiles \
         with .NET's current C#",
    ),
    (
        "error CS1525",
        "if this source compiles on CodinGame, it uses syntax newer than mcs (Mono) knows, C# \
         7.2 without local functions or `case ... when`: switch expressions, `??=`, `using \
         var`, `^1` and ranges, target-typed `new()`, records, `is not`, property patterns, \
         raw strings; rewrite it in C# 7 (docs/external-bots.md lists what mcs refuses)",
    ),
];

/// The address space of a native compiler: far beyond what compiling a bot takes (g++, rustc,
/// go and mcs compile the test bots in 1 GiB).
pub(crate) const COMPILE_ADDRESS_SPACE: u64 = 4 << 30;

/// The file the compiled program is written to, in its cache folder.
pub(crate) const BINARY: &str = "bot";
/// Java's class folder, Kotlin's jar and C#'s assembly, in their cache folder.
pub(crate) const JAVA_CLASSES: &str = "classes";
pub(crate) const KOTLIN_JAR: &str = "bot.jar";
pub(crate) const CSHARP_EXE: &str = "bot.exe";

impl Language {
    /// The language of a source file, by its extension.
    pub(crate) fn of(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|&(_, l)| l)
    }

    /// Every extension with its language, for the error about an unknown one.
    pub(crate) fn supported() -> String {
        let list: Vec<String> =
            EXTENSIONS.iter().map(|(e, l)| format!(".{e} ({})", l.name())).collect();
        list.join(", ")
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Language::Python => "Python 3",
            Language::JavaScript => "JavaScript",
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Java => "Java",
            Language::Rust => "Rust",
            Language::Go => "Go",
            Language::Kotlin => "Kotlin",
            Language::CSharp | Language::CSharpDotnet => "C#",
            Language::Php => "PHP",
            Language::Ruby => "Ruby",
        }
    }

    /// A short name for cache folders.
    pub(crate) fn slug(self) -> &'static str {
        match self {
            Language::Python => "py",
            Language::JavaScript => "js",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Java => "java",
            Language::Rust => "rs",
            Language::Go => "go",
            Language::Kotlin => "kt",
            Language::CSharp => "cs",
            Language::CSharpDotnet => "dotnet",
            Language::Php => "php",
            Language::Ruby => "rb",
        }
    }

    /// The compiler, for languages compiled before they run.
    pub(crate) fn compiler(self) -> Option<Tool> {
        let tool = |program, install| Some(Tool { program, install });
        match self {
            Language::Python | Language::JavaScript | Language::Php | Language::Ruby => None,
            Language::C => tool("gcc", "`apt-get install gcc` (Debian, Ubuntu)"),
            Language::Cpp => tool("g++", "`apt-get install g++` (Debian, Ubuntu)"),
            Language::Java => {
                tool("javac", "`apt-get install default-jdk-headless` (Debian, Ubuntu)")
            }
            Language::Rust => tool("rustc", "rustup (https://rustup.rs)"),
            Language::Go => tool("go", "`apt-get install golang-go` (Debian, Ubuntu)"),
            Language::Kotlin => tool(
                "kotlinc",
                "SDKMAN! (`sdk install kotlin`) or a release from https://kotlinlang.org",
            ),
            Language::CSharp => tool(
                "mcs",
                "`apt-get install mono-mcs` (Debian, Ubuntu), or install the .NET SDK (arena \
                 compiles with `dotnet` when it is on PATH)",
            ),
            Language::CSharpDotnet => tool("dotnet", dotnet::INSTALL),
        }
    }

    /// The program that runs the source or its compiled form, when it is not the compiled
    /// binary itself.
    pub(crate) fn runner(self) -> Option<Tool> {
        let tool = |program, install| Some(Tool { program, install });
        match self {
            Language::Python => tool("python3", "`apt-get install python3` (Debian, Ubuntu)"),
            Language::JavaScript => tool("node", "`apt-get install nodejs` (Debian, Ubuntu)"),
            Language::Java | Language::Kotlin => {
                tool("java", "`apt-get install default-jre-headless` (Debian, Ubuntu)")
            }
            Language::CSharp => tool("mono", "`apt-get install mono-runtime` (Debian, Ubuntu)"),
            Language::CSharpDotnet => tool("dotnet", dotnet::INSTALL),
            Language::Php => tool("php", "`apt-get install php-cli` (Debian, Ubuntu)"),
            Language::Ruby => tool("ruby", "`apt-get install ruby` (Debian, Ubuntu)"),
            Language::C | Language::Cpp | Language::Rust | Language::Go => None,
        }
    }

    /// The arguments that make the compiler build `source` (a file name in the current folder)
    /// into the current folder. Part of the cache key: changing them recompiles.
    pub(crate) fn compile_args(self, source: &str) -> Vec<OsString> {
        let csharp_out = format!("-out:{CSHARP_EXE}");
        let words: Vec<&str> = match self {
            Language::Python | Language::JavaScript | Language::Php | Language::Ruby => vec![],
            Language::C => [C_FLAGS, &["-o", BINARY, source], C_LIBS].concat(),
            Language::Cpp => [CPP_FLAGS, &["-o", BINARY, source], C_LIBS].concat(),
            Language::Java => vec!["-encoding", "UTF-8", "-d", JAVA_CLASSES, source],
            Language::Rust => vec!["--edition", "2021", "-O", "-o", BINARY, source],
            Language::Go => vec!["build", "-o", BINARY, source],
            Language::Kotlin => vec![source, "-include-runtime", "-d", KOTLIN_JAR],
            // `latest`: every C# version mcs knows (7.2), as CodinGame compiles with the latest.
            Language::CSharp => vec!["-langversion:latest", "-optimize+", &csharp_out, source],
            // The source is named in the project (`dotnet::project_files`).
            Language::CSharpDotnet => dotnet::BUILD_ARGS.to_vec(),
        };
        words.into_iter().map(OsString::from).collect()
    }

    /// What to add to the message of a compile that failed with `output`, when the failure
    /// likely comes from arena's compiler being older than CodinGame's (C#: Mono's `mcs`, not
    /// .NET's): the note of the first such error in the output.
    pub(crate) fn compile_note(self, output: &str) -> Option<&'static str> {
        let notes = match self {
            Language::CSharp => CSHARP_NOTES,
            _ => return None,
        };
        let first = notes.iter().filter_map(|&(code, note)| Some((output.find(code)?, note)));
        first.min_by_key(|&(at, _)| at).map(|(_, note)| note)
    }

    /// The address space a compile may use. A hostile source can make a compiler read without
    /// end (`#include "/dev/zero"`, `include_bytes!("/dev/zero")`); the limit turns that into a
    /// compile error instead of a machine out of memory. The JVM compilers and `dotnet` are left
    /// alone (the JVM and .NET reserve address space by the gigabyte up front, and neither Java
    /// nor C# has such an include).
    pub(crate) fn compile_address_space(self) -> Option<u64> {
        match self {
            Language::C | Language::Cpp | Language::Rust | Language::Go | Language::CSharp => {
                Some(COMPILE_ADDRESS_SPACE)
            }
            Language::Python
            | Language::JavaScript
            | Language::Java
            | Language::Kotlin
            | Language::CSharpDotnet
            | Language::Php
            | Language::Ruby => None,
        }
    }

    /// Variables a compile (and the compiler's version question) needs on top of arena's
    /// environment: Go's build cache and module folder, and `dotnet`'s homes, in the compile's
    /// own folder (the sandbox lets a compile write nowhere else), under [`SCRATCH`].
    pub(crate) fn compile_env(self, workspace: &Path) -> BTreeMap<String, String> {
        let scratch = |folder: &str| workspace.join(SCRATCH).join(folder).display().to_string();
        match self {
            Language::Go => BTreeMap::from([
                ("GOCACHE".into(), scratch("cache")),
                ("GOPATH".into(), scratch("path")),
            ]),
            Language::CSharpDotnet => dotnet::build_env(&workspace.join(SCRATCH)),
            _ => BTreeMap::new(),
        }
    }

    /// What a successful compile leaves in its folder that the build does not need, removed
    /// before the build is kept: [`SCRATCH`], and `dotnet`'s intermediate files.
    pub(crate) fn leftovers(self) -> &'static [&'static str] {
        match self {
            Language::CSharpDotnet => &[SCRATCH, "obj"],
            _ => &[SCRATCH],
        }
    }

    /// The arguments that print the compiler's version, for the cache key.
    pub(crate) fn version_args(self) -> &'static [&'static str] {
        match self {
            Language::Java | Language::Kotlin => &["-version"],
            Language::Go => &["version"],
            _ => &["--version"],
        }
    }

    /// The command line that runs the bot. `runner` is the runner's path (when the language has
    /// one), `build` the cache folder of the compiled source, `main_class` Java's entry point.
    pub(crate) fn command(
        self,
        runner: Option<&Path>,
        source: &Path,
        build: &Path,
        preload: Option<&Path>,
        main_class: Option<&str>,
    ) -> Vec<String> {
        let text = |p: &Path| p.display().to_string();
        let runner = runner.map(text).unwrap_or_default();
        match self {
            Language::Python => vec![runner, "-u".into(), text(source)],
            Language::JavaScript => {
                let preload = preload.map(text).unwrap_or_default();
                vec![runner, "--require".into(), preload, text(source)]
            }
            Language::C | Language::Cpp | Language::Rust | Language::Go => {
                vec![text(&build.join(BINARY))]
            }
            Language::Java => vec![
                runner,
                "-cp".into(),
                text(&build.join(JAVA_CLASSES)),
                main_class.unwrap_or("Player").to_string(),
            ],
            Language::Kotlin => vec![runner, "-jar".into(), text(&build.join(KOTLIN_JAR))],
            Language::CSharp => vec![runner, text(&build.join(CSHARP_EXE))],
            Language::CSharpDotnet => {
                vec![runner, text(&build.join(dotnet::OUT).join(dotnet::ASSEMBLY))]
            }
            Language::Php => {
                let mut words = vec![runner];
                words.extend(PHP_SETTINGS.iter().map(|s| format!("-d{s}")));
                words.push(text(source));
                words
            }
            Language::Ruby => vec![runner, text(source)],
        }
    }
}

/// The folder of what a compile writes besides its result (Go's build cache, `dotnet`'s homes
/// and NuGet's packages), in the compile's folder.
pub(crate) const SCRATCH: &str = ".scratch";

/// The folders a compiler or interpreter reads besides the system: its installation (the folder
/// above the one its program is in, as found on `PATH` and after symlinks: `/opt/kotlinc` for
/// `/opt/kotlinc/bin/kotlinc`, `~/.rubies/ruby-3.3.0` for chruby's Ruby, a virtualenv for its
/// `bin/python3`), for Rust rustup's and cargo's homes (`~/.cargo/bin/rustc` is rustup's
/// proxy, which reads its toolchains there), and for `dotnet` the folder it is in (a .NET
/// installation has its program at the top: `~/.dotnet/dotnet`).
pub(crate) fn toolchain(language: Language, program: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    for path in [program, &real] {
        folders.extend(path.parent().and_then(Path::parent).map(Path::to_path_buf));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let var_or_home = |var: &str, default: &str| {
        std::env::var_os(var).map(PathBuf::from).or_else(|| home.as_ref().map(|h| h.join(default)))
    };
    match language {
        Language::Rust => {
            folders.extend(var_or_home("RUSTUP_HOME", ".rustup"));
            folders.extend(var_or_home("CARGO_HOME", ".cargo"));
        }
        Language::Java | Language::Kotlin => {
            folders.extend(std::env::var_os("JAVA_HOME").map(PathBuf::from));
        }
        // `bot()` knows a `.cs` source's runner only by its program.
        Language::CSharp | Language::CSharpDotnet
            if real.file_name().is_some_and(|name| name == "dotnet") =>
        {
            folders.extend(dotnet::installation(program));
        }
        _ => {}
    }
    // Only what exists, and never the whole machine or a whole home.
    folders.retain(|f| f.is_dir() && f.parent().is_some() && Some(f) != home.as_ref());
    folders.sort();
    folders.dedup();
    folders
}

/// Where `program` is on `PATH` (or on the default path bots get when arena has none).
pub(crate) fn find_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path).filter(|dir| dir.is_absolute()).map(|dir| dir.join(program)).find(
        |candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_language_whatever_its_case() {
        assert_eq!(Language::of(Path::new("a/b.cpp")), Some(Language::Cpp));
        assert_eq!(Language::of(Path::new("Player.JAVA")), Some(Language::Java));
        assert_eq!(Language::of(Path::new("my bot.py")), Some(Language::Python));
        assert_eq!(Language::of(Path::new("bot.rb")), Some(Language::Ruby));
        assert_eq!(Language::of(Path::new("Bot.PHP")), Some(Language::Php));
        assert_eq!(Language::of(Path::new("bot.pl")), None);
        assert_eq!(Language::of(Path::new("Makefile")), None);
        assert!(Language::supported().contains(".cpp (C++)"));
    }

    #[test]
    fn every_compiled_language_has_a_compiler_and_every_other_a_runner() {
        for &(_, language) in EXTENSIONS {
            assert!(
                language.compiler().is_some() || language.runner().is_some(),
                "{language:?} can neither be compiled nor run"
            );
        }
    }

    #[test]
    fn c_and_cpp_link_their_libraries_after_the_source() {
        let args = Language::Cpp.compile_args("x.cpp");
        let at = |w: &str| args.iter().position(|a| a == w).unwrap();
        assert!(at("x.cpp") < at("-lm"), "{args:?}");
        assert!(args.iter().any(|a| a == "-std=gnu++17"));
        assert!(!args.iter().any(|a| a.to_string_lossy().starts_with("-O")), "CodinGame uses -O0");
    }

    #[test]
    fn php_sends_its_warnings_to_stderr_whatever_the_machines_php_ini() {
        let command = Language::Php.command(
            Some(Path::new("/usr/bin/php")),
            Path::new("/b/x.php"),
            Path::new(""),
            None,
            None,
        );
        assert_eq!(
            command,
            ["/usr/bin/php", "-ddisplay_errors=stderr", "-dlog_errors=0", "/b/x.php"]
        );
    }

    /// mcs's own words (Mono 6.8), for sources CodinGame's .NET compiles.
    #[test]
    fn a_csharp_error_from_newer_syntax_gets_a_note_naming_mcs_and_the_fix() {
        let shadow = "t.cs(8,27): error CS0136: A local variable named `x' cannot be declared in \
                      this scope because it would give a different meaning to `x', which is \
                      already used in a `parent or current' scope to denote something else\n\
                      Compilation failed: 1 error(s), 0 warnings";
        let note = Language::CSharp.compile_note(shadow).unwrap();
        assert!(note.contains("C# 8") && note.contains("rename"), "{note}");
        let switch = "t.cs(8,18): error CS1525: Unexpected symbol `switch'";
        assert!(Language::CSharp.compile_note(switch).unwrap().contains("switch expressions"));
        let nullable = "t.cs(8,9): error CS0453: The type `string' must be a non-nullable value \
                        type in order to use it as type parameter `T'";
        assert!(Language::CSharp.compile_note(nullable).unwrap().contains("`string?`"));
        // The first error decides.
        let both = format!("{switch}\n{shadow}");
        assert!(Language::CSharp.compile_note(&both).unwrap().contains("switch expressions"));
        // A plain mistake, and other languages, get none.
        let typo = "t.cs(8,9): error CS0103: The name `y' does not exist in the current context";
        assert_eq!(Language::CSharp.compile_note(typo), None);
        assert_eq!(Language::Java.compile_note(shadow), None);
    }

    #[test]
    fn an_interpreters_installation_is_readable_before_and_after_symlinks() {
        // chruby's layout: `~/.rubies/ruby-3.3.0/bin/ruby`, reached through a `bin` of links.
        let dir = tempfile::tempdir().unwrap();
        let install = dir.path().join("rubies/ruby-3.3.0");
        std::fs::create_dir_all(install.join("bin")).unwrap();
        std::fs::write(install.join("bin/ruby"), "").unwrap();
        let links = dir.path().join("links");
        std::fs::create_dir_all(links.join("bin")).unwrap();
        std::os::unix::fs::symlink(install.join("bin/ruby"), links.join("bin/ruby")).unwrap();
        let folders = toolchain(Language::Ruby, &links.join("bin/ruby"));
        let install = std::fs::canonicalize(install).unwrap();
        assert!(folders.contains(&install), "{folders:?}");
        assert!(folders.contains(&links), "{folders:?}");
        assert_eq!(folders.len(), 2, "{folders:?}");
    }
}
