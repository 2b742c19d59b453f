//! `cg:` bots: CodinGame sources run as they are, without a hand-made command line.
//!
//! CodinGame picks a runtime from the language of the code in its editor; arena picks it from the
//! source's extension ([`language`]): Python unbuffered, JavaScript with CodinGame's `readline()`
//! and `print()` globals (a preload arena ships), PHP with its warnings on standard error, Ruby
//! as it is, compiled languages compiled once with CodinGame's flags into a content-addressed
//! [`cache`]. Resolution happens while a match is set up (or a tournament's arena file is
//! loaded), so compile time never counts against a turn.
//!
//! A source that does not compile is the bot's fault, so a result of its matches
//! (`startup_failed`, with the compiler's message); a missing file, an unknown extension or a
//! missing compiler is the user's to fix, so an error before any match.

pub(crate) mod cache;
mod dotnet;
mod java;
pub(crate) mod language;

use std::collections::BTreeMap;
use std::io::Read;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::external::job::{Job, JobRun};
use super::external::{BotIdentity, ExternalBot, ExternalOptions, SpawnError, Supervisor};
use super::{Bot, BotFailure, BotReport, TurnContext};
use crate::error::Error;
use crate::game::Game;
use language::{Language, Tool, find_on_path};

/// The variable that sets the compile time limit, in seconds.
pub(crate) const COMPILE_TIMEOUT_VAR: &str = "ARENA_COMPILE_TIMEOUT";

/// How long a compile may take unless [`COMPILE_TIMEOUT_VAR`] says otherwise.
pub(crate) const DEFAULT_COMPILE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long asking a compiler its version may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest source `cg:` reads. CodinGame's own limit is 100,000 characters; this one only
/// keeps a careless path (a disk image, a log) from being copied into the cache.
pub(crate) const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

/// CodinGame's JavaScript globals, loaded before a `.js` bot.
const JS_PRELOAD: &str = include_str!("../../../assets/codingame/preload.js");

/// Why a `cg:` source cannot be set up. None of these is a bot's fault: each stops arena before
/// a match is played.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CgError {
    #[error("source `{}` does not exist", path.display())]
    Missing { path: PathBuf },
    #[error("source `{}` is not a regular file", path.display())]
    NotAFile { path: PathBuf },
    #[error("cannot read source `{}`: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "source `{}` is {bytes} bytes, more than the {MAX_SOURCE_BYTES} a `cg:` source may have",
        path.display()
    )]
    TooBig { path: PathBuf, bytes: u64 },
    #[error("source `{}`: unknown extension; `cg:` knows {}", path.display(), Language::supported())]
    UnknownExtension { path: PathBuf },
    #[error("`{program}` ({purpose}) is not installed or not on PATH; install it with {install}")]
    MissingTool { program: &'static str, purpose: String, install: &'static str },
    #[error(
        "no folder for compiled `cg:` sources: set {} (or XDG_CACHE_HOME or HOME)",
        cache::CACHE_DIR_VAR
    )]
    NoCacheDir,
    #[error("{COMPILE_TIMEOUT_VAR}={0:?}: not a number of seconds above 0")]
    BadTimeout(String),
    #[error("{var}={0:?}: expected `dotnet`, `mcs` or `auto`", var = dotnet::CSHARP_VAR)]
    BadCSharp(String),
    #[error(
        "{}=dotnet, but `{} --version` names no .NET SDK ({answer}); install {}, or set {}=mcs",
        dotnet::CSHARP_VAR, program.display(), dotnet::INSTALL, dotnet::CSHARP_VAR
    )]
    NoDotnetSdk { program: PathBuf, answer: String },
    /// The cache cannot be written, or a compiler cannot be started: the machine's problem.
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
    /// The compile's supervisor was stopped (Ctrl-C): the compile has no result.
    #[error("interrupted: the compile was stopped")]
    Interrupted,
}

impl CgError {
    /// The harness's error: input errors through `input` (which names the bot), the machine's
    /// as I/O errors.
    pub(crate) fn into_error(self, input: impl FnOnce(CgError) -> Error) -> Error {
        match self {
            CgError::Io { context, source } => Error::Io { context, source },
            CgError::Interrupted => Error::Interrupted,
            other => input(other),
        }
    }
}

/// A source that does not compile: what the match records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompileFailure {
    /// One line, for the match's detail.
    pub message: String,
    /// The compiler's output.
    pub output: Vec<String>,
}

/// What a `cg:` source resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The command line that runs it.
    Command(Vec<String>),
    /// It does not compile.
    Failed(CompileFailure),
}

/// The bot a `cg:` source plays as: its compiled or interpreted process, or, for a source that
/// does not compile, a bot whose first turn fails with `startup_failed`.
pub(crate) fn bot<G: Game + 'static>(
    source: &Path,
    identity: &BotIdentity<'_>,
    mut options: ExternalOptions,
    supervisor: &Supervisor,
) -> Result<Box<dyn Bot<G>>, CgError> {
    Ok(match resolve(source, supervisor)? {
        Resolved::Command(words) => {
            // A build the command names by its folder (Java's class path) must be readable in
            // the sandbox, which opens only the files a command line names; so must the folder
            // of a .NET program (`bot.dll` reads `bot.runtimeconfig.json` beside it).
            if let Some(root) = cache::root() {
                let builds = words.iter().map(PathBuf::from).filter(|w| w.starts_with(&root));
                options.files.extend(builds.filter_map(|w| match w.extension() {
                    Some(ext) if ext == "dll" => w.parent().map(Path::to_path_buf),
                    _ => w.is_dir().then_some(w),
                }));
            }
            // An interpreter reads its libraries from its installation, which need not be
            // under the system's folders (chruby's `~/.rubies`, nvm's `~/.nvm`, a virtualenv).
            let runner = Language::of(source).filter(|l| l.runner().is_some()).zip(words.first());
            if let Some((language, program)) = runner {
                options.files.extend(language::toolchain(language, Path::new(program)));
            }
            Box::new(ExternalBot::<G>::spawn(&words, identity, options, supervisor))
        }
        Resolved::Failed(failure) => Box::new(UncompiledBot::<G> {
            failure,
            report_lines: options.stderr_lines,
            _game: PhantomData,
        }),
    })
}

/// Checks a `cg:` source and compiles it now, so that the matches that use it start at once.
///
/// The compile has a supervisor of its own, which nothing stops: a Ctrl-C ends arena, and the
/// compile with it (its sandbox's lifeline, or without the sandbox `PR_SET_PDEATHSIG`), and a
/// compile that finished is a cache entry however the run ends.
pub(crate) fn prepare(source: &Path) -> Result<(), CgError> {
    resolve(source, &Supervisor::new()).map(|_| ())
}

/// Checks a source, compiles it under `supervisor` if it must be compiled and is not in the
/// cache, and returns the command that runs it. Relative paths are relative to the current
/// folder.
pub(crate) fn resolve(source: &Path, supervisor: &Supervisor) -> Result<Resolved, CgError> {
    let (absolute, language) = check_source(source)?;
    let language = match language {
        Language::CSharp => csharp_compiler(supervisor)?,
        other => other,
    };
    let runner = language
        .runner()
        .map(|tool| locate(tool, format!("needed to run {} sources", language.name())))
        .transpose()?;
    let Some(compiler) = language.compiler() else {
        let preload = match language {
            Language::JavaScript => Some(js_preload()?),
            _ => None,
        };
        let command =
            language.command(runner.as_deref(), &absolute, Path::new(""), preload.as_deref(), None);
        return Ok(Resolved::Command(command));
    };
    let compiler_path = locate(compiler, format!("needed to compile {} sources", language.name()))?;
    let text = read_source(source, &absolute)?;
    let timeout = compile_timeout()?;
    let root = cache::root().ok_or(CgError::NoCacheDir)?;

    let (file_name, main_class) = match compile_name(source, &absolute, language, &text) {
        Ok(names) => names,
        Err(failure) => return Ok(Resolved::Failed(failure)),
    };
    // A name like `-o.cpp` must not read as an option.
    let argument =
        if file_name.starts_with('-') { format!("./{file_name}") } else { file_name.clone() };
    let args = language.compile_args(&argument);
    let version = compiler_version(language, &compiler_path, &root, supervisor)?.text;
    let project = match language {
        Language::CSharpDotnet => dotnet::project_files(&file_name, &version).ok_or_else(|| {
            CgError::NoDotnetSdk { program: compiler_path.clone(), answer: version.clone() }
        })?,
        _ => Vec::new(),
    };
    let flags: Vec<u8> =
        args.iter().flat_map(|a| a.as_encoded_bytes().iter().copied().chain([0])).collect();
    let project_text: String =
        project.iter().map(|(name, text)| format!("{name}\0{text}\0")).collect();
    let key = cache::key(&[
        language.slug().as_bytes(),
        compiler_path.as_os_str().as_encoded_bytes(),
        version.as_bytes(),
        &flags,
        project_text.as_bytes(),
        file_name.as_bytes(),
        &text,
    ]);
    let entry = root.join(format!("{}-{key}", language.slug()));

    // One compile per key in this process; other processes are handled by the atomic install.
    let slot = Arc::clone(lock(&BUILDS).entry(key).or_default());
    let mut build = lock(&slot);
    // The entry on disk is the truth: another process may have compiled it, a user cleared it.
    let on_disk = entry.is_dir();
    match *build {
        None if on_disk => *build = Some(Build::Ready),
        Some(Build::Ready) if !on_disk => *build = None,
        _ => {}
    }
    if build.is_none() {
        let compile = Compile {
            source,
            language,
            compiler: &compiler_path,
            file_name: &file_name,
            args: &args,
            project: &project,
            text: &text,
        };
        *build = Some(compile.run(&root, &entry, timeout, supervisor)?);
    }
    Ok(match build.as_ref().expect("set above") {
        Build::Ready => Resolved::Command(language.command(
            runner.as_deref(),
            &absolute,
            &entry,
            None,
            main_class.as_deref(),
        )),
        Build::Failed(failure) => Resolved::Failed(failure.clone()),
    })
}

/// The C# toolchain for this run, as [`dotnet::CSHARP_VAR`] chooses:
/// [`Language::CSharpDotnet`] or [`Language::CSharp`] (`mcs`). Asking `dotnet --version` goes
/// through the compilers' version cache, so a run whose builds are cached starts no `dotnet`
/// process to decide.
fn csharp_compiler(supervisor: &Supervisor) -> Result<Language, CgError> {
    let choice = dotnet::choice().map_err(CgError::BadCSharp)?;
    if choice == dotnet::Choice::Mcs {
        return Ok(Language::CSharp);
    }
    let Some(program) = find_on_path("dotnet") else {
        return match choice {
            dotnet::Choice::Dotnet => Err(CgError::MissingTool {
                program: "dotnet",
                purpose: format!("needed to compile C# sources with {}=dotnet", dotnet::CSHARP_VAR),
                install: dotnet::INSTALL,
            }),
            _ => Ok(Language::CSharp),
        };
    };
    let root = cache::root().ok_or(CgError::NoCacheDir)?;
    let version = compiler_version(Language::CSharpDotnet, &program, &root, supervisor)?;
    if version.answered && dotnet::target_framework(&version.text).is_some() {
        return Ok(Language::CSharpDotnet);
    }
    // A `dotnet` with runtimes only ("No .NET SDKs were found") compiles nothing.
    if choice == dotnet::Choice::Dotnet {
        let words: Vec<&str> = version.text.split_whitespace().collect();
        let answer = words.join(" ").chars().take(300).collect();
        return Err(CgError::NoDotnetSdk { program, answer });
    }
    tracing::info!("`{} --version` names no .NET SDK: C# goes to mcs", program.display());
    Ok(Language::CSharp)
}

/// The source's absolute path and language, once it is known to be a readable file of a
/// language `cg:` knows, and not too big.
fn check_source(source: &Path) -> Result<(PathBuf, Language), CgError> {
    let absolute = std::path::absolute(source)
        .map_err(|e| CgError::Read { path: source.to_path_buf(), source: e })?;
    let meta = std::fs::metadata(&absolute).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CgError::Missing { path: source.to_path_buf() },
        _ => CgError::Read { path: source.to_path_buf(), source: e },
    })?;
    if !meta.is_file() {
        return Err(CgError::NotAFile { path: source.to_path_buf() });
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(CgError::TooBig { path: source.to_path_buf(), bytes: meta.len() });
    }
    let language =
        Language::of(source).ok_or_else(|| CgError::UnknownExtension { path: source.into() })?;
    Ok((absolute, language))
}

/// The name the source is compiled under, and Java's class to run. Java wants the file named
/// after its public class, and runs the class holding `main`; a Java source without `main`
/// cannot run, which is the bot's fault.
fn compile_name(
    source: &Path,
    absolute: &Path,
    language: Language,
    text: &[u8],
) -> Result<(String, Option<String>), CompileFailure> {
    if language != Language::Java {
        let name = absolute.file_name().map(|n| n.to_string_lossy().into_owned());
        return Ok((name.unwrap_or_else(|| format!("bot.{}", language.slug())), None));
    }
    match java::entry(&String::from_utf8_lossy(text)) {
        Some(entry) => Ok((format!("{}.java", entry.file_stem), Some(entry.main_class))),
        None => Err(CompileFailure {
            message: format!(
                "`{}` has no class with `public static void main(String[] args)`",
                source.display()
            ),
            output: Vec::new(),
        }),
    }
}

/// The outcome of compiling one source, kept for the process's life (a tournament's thousand
/// matches of a bot that does not compile compile it once).
#[derive(Clone, Debug)]
enum Build {
    Ready,
    Failed(CompileFailure),
}

static BUILDS: Mutex<BTreeMap<String, Arc<Mutex<Option<Build>>>>> = Mutex::new(BTreeMap::new());

/// Compiler versions by the key of their file in [`VERSIONS_DIR`], read or asked once per
/// process.
static VERSIONS: Mutex<BTreeMap<String, Version>> = Mutex::new(BTreeMap::new());

/// A compiler's answer to its version question.
#[derive(Clone, Debug)]
struct Version {
    /// What it printed: part of every build's key.
    text: String,
    /// Whether it answered cleanly (a `dotnet` without an SDK fails; the answer still keys its
    /// builds, and is asked again next run).
    answered: bool,
}

/// The cache's folder of compiler versions, one file per compiler binary.
const VERSIONS_DIR: &str = "versions";

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn locate(tool: Tool, purpose: String) -> Result<PathBuf, CgError> {
    find_on_path(tool.program).ok_or(CgError::MissingTool {
        program: tool.program,
        purpose,
        install: tool.install,
    })
}

fn read_source(source: &Path, absolute: &Path) -> Result<Vec<u8>, CgError> {
    let read_error = |e| CgError::Read { path: source.to_path_buf(), source: e };
    let file = std::fs::File::open(absolute).map_err(read_error)?;
    let mut text = Vec::new();
    // The file may have grown since its size was checked.
    file.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut text).map_err(read_error)?;
    if text.len() as u64 > MAX_SOURCE_BYTES {
        return Err(CgError::TooBig { path: source.to_path_buf(), bytes: text.len() as u64 });
    }
    Ok(text)
}

/// The compile time limit: [`COMPILE_TIMEOUT_VAR`] seconds, else the default.
pub(crate) fn compile_timeout() -> Result<Duration, CgError> {
    let Some(value) = std::env::var_os(COMPILE_TIMEOUT_VAR) else {
        return Ok(DEFAULT_COMPILE_TIMEOUT);
    };
    let text = value.to_string_lossy().into_owned();
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(CgError::BadTimeout(text)),
    }
}

/// The compiler's answer to its version question, part of every build's key. Asked once per
/// compiler binary: kept in memory for the process and on disk in the cache's `versions` folder,
/// keyed by the binary's real path, size and modification time, so a run whose builds are all
/// cached starts no compiler at all (`kotlinc -version` alone takes a second), and an upgraded
/// compiler (another size or time) is asked again. `dotnet`'s key adds its `sdk` folder, where
/// another SDK may be installed without changing the program.
fn compiler_version(
    language: Language,
    compiler: &Path,
    root: &Path,
    supervisor: &Supervisor,
) -> Result<Version, CgError> {
    let args: Vec<String> = language.version_args().iter().map(|a| (*a).to_string()).collect();
    let mut stamp = binary_stamp(compiler);
    if language == Language::CSharpDotnet {
        stamp.push('\0');
        stamp.push_str(&dotnet::sdk_stamp(compiler));
    }
    let key = cache::key(&[
        language.slug().as_bytes(),
        compiler.as_os_str().as_encoded_bytes(),
        stamp.as_bytes(),
        args.join("\0").as_bytes(),
    ]);
    if let Some(version) = lock(&VERSIONS).get(&key) {
        return Ok(version.clone());
    }
    let file = root.join(VERSIONS_DIR).join(&key);
    if let Ok(text) = std::fs::read_to_string(&file) {
        let version = Version { text, answered: true };
        lock(&VERSIONS).insert(key, version.clone());
        return Ok(version);
    }
    // Asked in the cache, where compiles run: a toolchain chosen by folder (rustup's override
    // files) is the same for both.
    let temp = cache::temp_dir(root).map_err(|e| cache_error(root, e))?;
    tracing::info!("asking `{}` its version", compiler.display());
    let run = run_tool(language, compiler, args, temp.path(), VERSION_TIMEOUT, None, supervisor)?;
    let answered = run.succeeded();
    let version = Version { text: run.output, answered };
    // Only a clean answer is kept: a probe that failed or timed out is asked again next run.
    if version.answered {
        cache::write_file(&file, version.text.as_bytes()).map_err(|e| cache_error(&file, e))?;
    }
    lock(&VERSIONS).insert(key, version.clone());
    Ok(version)
}

/// What identifies a compiler binary without running it: its real path (a symlink switched by
/// `update-alternatives` points elsewhere), size and modification time; empty when it cannot be
/// read, which then keys on the path alone.
fn binary_stamp(compiler: &Path) -> String {
    let real = std::fs::canonicalize(compiler).unwrap_or_else(|_| compiler.to_path_buf());
    let Ok(meta) = std::fs::metadata(&real) else { return String::new() };
    let modified = meta.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok());
    let nanos = modified.map_or(0, |m| m.as_nanos());
    format!("{}\0{}\0{nanos}", real.display(), meta.len())
}

/// Runs `compiler args` as a job in `workspace`: sandboxed like a bot, reading the system, its
/// toolchain and `workspace`, writing only `workspace`.
fn run_tool(
    language: Language,
    compiler: &Path,
    args: Vec<String>,
    workspace: &Path,
    limit: Duration,
    address_space: Option<u64>,
    supervisor: &Supervisor,
) -> Result<JobRun, CgError> {
    let mut command = vec![compiler.display().to_string()];
    command.extend(args);
    let job = Job {
        command,
        workspace,
        readable: language::toolchain(language, compiler),
        env: language.compile_env(workspace),
        limit,
        address_space,
    };
    job.run(supervisor).map_err(|e| match e {
        SpawnError::ShuttingDown => CgError::Interrupted,
        e => CgError::Io {
            context: format!("cannot run `{}`", compiler.display()),
            source: std::io::Error::other(e.to_string()),
        },
    })
}

fn cache_error(path: &Path, source: std::io::Error) -> CgError {
    CgError::Io { context: format!("cannot write the compile cache `{}`", path.display()), source }
}

/// One compile of one source.
struct Compile<'a> {
    source: &'a Path,
    language: Language,
    compiler: &'a Path,
    file_name: &'a str,
    args: &'a [std::ffi::OsString],
    /// Files written beside the source (`dotnet`'s project), by name.
    project: &'a [(String, String)],
    text: &'a [u8],
}

impl Compile<'_> {
    /// Compiles in a temporary folder of the cache, and moves the result to `entry`.
    fn run(
        &self,
        root: &Path,
        entry: &Path,
        timeout: Duration,
        supervisor: &Supervisor,
    ) -> Result<Build, CgError> {
        let temp = cache::temp_dir(root).map_err(|e| cache_error(root, e))?;
        let copy = temp.path().join(self.file_name);
        std::fs::write(&copy, self.text).map_err(|e| cache_error(&copy, e))?;
        for (name, text) in self.project {
            let path = temp.path().join(name);
            std::fs::write(&path, text).map_err(|e| cache_error(&path, e))?;
        }
        let program = self.compiler.file_name().unwrap_or_default().to_string_lossy().into_owned();
        tracing::info!("compiling `{}` with {program}", self.source.display());
        let memory = self.language.compile_address_space();
        let args = self.args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let run =
            run_tool(self.language, self.compiler, args, temp.path(), timeout, memory, supervisor)?;
        let text = self.in_users_words(&run.output, temp.path(), &copy);
        let output: Vec<String> = text.lines().map(str::to_string).collect();
        if run.status.is_none() {
            return Ok(Build::Failed(CompileFailure {
                message: format!(
                    "`{}` did not compile within {} s ({COMPILE_TIMEOUT_VAR} sets the limit)",
                    self.source.display(),
                    timeout.as_secs_f64()
                ),
                output,
            }));
        }
        if !run.succeeded() {
            let first_error = output
                .iter()
                .find(|l| l.to_ascii_lowercase().contains("error"))
                .or_else(|| output.iter().find(|l| !l.trim().is_empty()))
                .map(|l| format!(": {}", l.trim()))
                .unwrap_or_default();
            let note = self.language.compile_note(&text).map(|n| format!("; {n}"));
            return Ok(Build::Failed(CompileFailure {
                message: format!(
                    "`{}` does not compile ({program} {}){first_error}{}",
                    self.source.display(),
                    run.how_it_ended(),
                    note.unwrap_or_default()
                ),
                output,
            }));
        }
        for leftover in self.language.leftovers() {
            let path = temp.path().join(leftover);
            if path.exists() {
                std::fs::remove_dir_all(&path).map_err(|e| cache_error(&path, e))?;
            }
        }
        cache::install(temp, entry).map_err(|e| cache_error(entry, e))?;
        Ok(Build::Ready)
    }
}

impl Compile<'_> {
    /// The compiler's output as the user knows their files. Compilers that name the source by
    /// its full path (mcs, `dotnet build`) name arena's copy in the cache, which the user knows
    /// by the path they gave; MSBuild ends each message with its project (` [.../bot.csproj]`),
    /// a file of arena's. Both as written and after symlinks, as a compiler may see the folder.
    fn in_users_words(&self, output: &str, folder: &Path, copy: &Path) -> String {
        let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        let mut text = output.to_string();
        for folder in [folder, &real] {
            for (name, _) in self.project {
                text = text.replace(&format!(" [{}]", folder.join(name).display()), "");
            }
            let copy = folder.join(copy.file_name().unwrap_or_default());
            text = text.replace(&copy.display().to_string(), &self.source.display().to_string());
        }
        text
    }
}

/// The JavaScript preload, written once into the cache under a name that is its content's hash.
fn js_preload() -> Result<PathBuf, CgError> {
    let root = cache::root().ok_or(CgError::NoCacheDir)?;
    let path = root.join(format!("preload-{}.js", cache::key(&[JS_PRELOAD.as_bytes()])));
    if std::fs::read_to_string(&path).is_ok_and(|text| text == JS_PRELOAD) {
        return Ok(path);
    }
    let temp = cache::temp_dir(&root).map_err(|e| cache_error(&root, e))?;
    let written = temp.path().join("preload.js");
    std::fs::write(&written, JS_PRELOAD).map_err(|e| cache_error(&written, e))?;
    std::fs::rename(&written, &path).map_err(|e| cache_error(&path, e))?;
    Ok(path)
}

/// The player of a source that does not compile: its first turn fails with `startup_failed`,
/// and the report carries the compiler's first lines.
struct UncompiledBot<G> {
    failure: CompileFailure,
    report_lines: usize,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> Bot<G> for UncompiledBot<G> {
    fn act(&mut self, _view: &G::View, _ctx: &TurnContext) -> Result<G::Action, BotFailure> {
        Err(BotFailure::StartupFailed(self.failure.message.clone()))
    }

    fn finish(&mut self) -> BotReport {
        let mut lines: Vec<String> = self.failure.output.clone();
        if lines.len() > self.report_lines && self.report_lines > 0 {
            let more = lines.len() - self.report_lines + 1;
            lines.truncate(self.report_lines.saturating_sub(1));
            lines.push(format!("[... {more} more lines of compiler output]"));
        }
        lines.truncate(self.report_lines);
        BotReport { stderr_tail: lines, ..BotReport::default() }
    }
}
