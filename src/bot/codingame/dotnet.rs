//! C# through the .NET SDK, which CodinGame runs: the choice [`CSHARP_VAR`] makes between it
//! and Mono's `mcs` (`super::csharp_compiler` makes it), and the one-file project `dotnet build`
//! compiles a `.cs` source from.
//!
//! The SDK is not in Debian, so arena's tests drive this with a stand-in `dotnet` that checks
//! the project and compiles with `mcs` (docs/external-bots.md says what that verifies).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The variable that picks the C# compiler: `dotnet`, `mcs` or `auto` (the default).
pub(crate) const CSHARP_VAR: &str = "ARENA_CSHARP";

/// How to get the .NET SDK, for the errors that need it.
pub(crate) const INSTALL: &str = "the .NET SDK (https://dotnet.microsoft.com/download)";

/// The project file and the folder `dotnet build` writes the program to, in the build's folder.
pub(crate) const PROJECT: &str = "bot.csproj";
pub(crate) const OUT: &str = "out";
/// The program, named by the project's `AssemblyName` whatever the source's name.
pub(crate) const ASSEMBLY: &str = "bot.dll";

/// The NuGet settings beside the project: no package source at all, so a restore never goes to
/// the network (a bot's project references no package; the SDK carries the reference assemblies
/// of its own .NET).
const NUGET_CONFIG: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  \
                            <packageSources>\n    <clear />\n  </packageSources>\n</configuration>\n";

/// Which compiler [`CSHARP_VAR`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    /// `dotnet` when it is on `PATH` and answers `--version` as an SDK does, else `mcs`.
    Auto,
    Dotnet,
    Mcs,
}

/// What [`CSHARP_VAR`] asks for; its value when it is none of the choices.
pub(crate) fn choice() -> Result<Choice, String> {
    let Some(value) = std::env::var_os(CSHARP_VAR) else { return Ok(Choice::Auto) };
    let text = value.to_string_lossy().into_owned();
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "auto" => Ok(Choice::Auto),
        "dotnet" => Ok(Choice::Dotnet),
        "mcs" => Ok(Choice::Mcs),
        _ => Err(text),
    }
}

/// The target framework of the SDK whose `dotnet --version` answered `version` (`8.0.100` is
/// `net8.0`): a program for the .NET the SDK itself carries, so the build needs no download.
pub(crate) fn target_framework(version: &str) -> Option<String> {
    version.lines().find_map(|line| {
        let mut parts = line.trim().split(['.', '-']);
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = parts.next()?.parse().ok()?;
        Some(if major >= 5 {
            format!("net{major}.0")
        } else {
            format!("netcoreapp{major}.{minor}")
        })
    })
}

/// The files `dotnet build` needs beside the source `file_name`, for the SDK that answered
/// `version`: the project and its NuGet settings. Their text is part of the build's key.
pub(crate) fn project_files(file_name: &str, version: &str) -> Option<Vec<(String, String)>> {
    let framework = target_framework(version)?;
    let project = format!(
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    \
         <OutputType>Exe</OutputType>\n    \
         <TargetFramework>{framework}</TargetFramework>\n    \
         <AssemblyName>{assembly}</AssemblyName>\n    \
         <LangVersion>latest</LangVersion>\n    \
         <Nullable>disable</Nullable>\n    \
         <ImplicitUsings>disable</ImplicitUsings>\n    \
         <Optimize>true</Optimize>\n    \
         <InvariantGlobalization>true</InvariantGlobalization>\n    \
         <UseAppHost>false</UseAppHost>\n    \
         <EnableDefaultCompileItems>false</EnableDefaultCompileItems>\n    \
         <NuGetAudit>false</NuGetAudit>\n  \
         </PropertyGroup>\n  <ItemGroup>\n    \
         <Compile Include=\"{source}\" />\n  \
         </ItemGroup>\n</Project>\n",
        assembly = ASSEMBLY.trim_end_matches(".dll"),
        source = xml_escape(&msbuild_escape(file_name)),
    );
    Some(vec![(PROJECT.into(), project), ("nuget.config".into(), NUGET_CONFIG.into())])
}

/// `dotnet build`'s arguments, run in the build's folder. Build servers are off (MSBuild's
/// reused nodes and Roslyn's compiler server would outlive the compile, and its sandbox), and
/// `Directory.Build.props` files above the cache are not imported.
pub(crate) const BUILD_ARGS: &[&str] = &[
    "build",
    PROJECT,
    "-c",
    "Release",
    "-o",
    OUT,
    "--nologo",
    "-v:q",
    "-clp:NoSummary",
    "-nodeReuse:false",
    "-p:UseSharedCompilation=false",
    "-p:GenerateFullPaths=true",
    "-p:ImportDirectoryBuildProps=false",
    "-p:ImportDirectoryBuildTargets=false",
];

/// The variables `dotnet` gets for its version question and its build: no telemetry, banner or
/// first-run set-up, no build server, and every folder it writes (its home, NuGet's) in
/// `scratch`, inside the compile's folder, the only place the sandbox lets it write.
pub(crate) fn build_env(scratch: &Path) -> BTreeMap<String, String> {
    let at = |folder: &str| scratch.join(folder).display().to_string();
    let mut env = BTreeMap::new();
    for (name, value) in [
        ("DOTNET_CLI_TELEMETRY_OPTOUT", "1"),
        ("DOTNET_NOLOGO", "1"),
        ("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1"),
        ("DOTNET_GENERATE_ASPNET_CERTIFICATE", "false"),
        ("DOTNET_ADD_GLOBAL_TOOLS_TO_PATH", "false"),
        ("DOTNET_CLI_DO_NOT_USE_MSBUILD_SERVER", "1"),
        ("MSBUILDDISABLENODEREUSE", "1"),
    ] {
        env.insert(name.into(), value.into());
    }
    env.insert("DOTNET_CLI_HOME".into(), at("home"));
    // NuGet keeps its user settings under `HOME`.
    env.insert("HOME".into(), at("home"));
    env.insert("NUGET_PACKAGES".into(), at("packages"));
    env.insert("NUGET_HTTP_CACHE_PATH".into(), at("http-cache"));
    env
}

/// The folders of a .NET installation that its `dotnet` at `program` reads: the folder the real
/// program is in, which holds its `sdk` and `shared` runtimes (`~/.dotnet/dotnet` as Microsoft's
/// install script lays it out, `/usr/share/dotnet/dotnet` behind `/usr/bin/dotnet`), and
/// `DOTNET_ROOT` when set.
pub(crate) fn installation(program: &Path) -> Vec<PathBuf> {
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let mut folders: Vec<PathBuf> = real.parent().map(Path::to_path_buf).into_iter().collect();
    folders.extend(std::env::var_os("DOTNET_ROOT").map(PathBuf::from));
    folders
}

/// What decides `dotnet --version` besides the `dotnet` program: its `sdk` folder, which
/// installing another SDK beside it changes (the program may stay as it is).
pub(crate) fn sdk_stamp(program: &Path) -> String {
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let sdk = real.parent().map(|folder| folder.join("sdk")).unwrap_or_default();
    let modified = std::fs::metadata(&sdk).and_then(|m| m.modified()).ok();
    let nanos = modified.and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok());
    format!("{}\0{}", sdk.display(), nanos.map_or(0, |n| n.as_nanos()))
}

/// A file name as an MSBuild item: its special characters as `%XX`.
fn msbuild_escape(name: &str) -> String {
    let mut escaped = String::with_capacity(name.len());
    for c in name.chars() {
        if "%$@';?*".contains(c) {
            escaped.push_str(&format!("%{:02X}", c as u32));
        } else {
            escaped.push(c);
        }
    }
    escaped
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_framework_is_the_sdks_own() {
        assert_eq!(target_framework("8.0.100\n").as_deref(), Some("net8.0"));
        assert_eq!(target_framework("9.0.100-preview.7.24407.12").as_deref(), Some("net9.0"));
        assert_eq!(target_framework("3.1.426").as_deref(), Some("netcoreapp3.1"));
        // What `dotnet --version` says with runtimes and no SDK.
        let no_sdk = "The command could not be loaded, possibly because:\n  * You intended to \
                      execute a .NET SDK command:\n      No .NET SDKs were found.";
        assert_eq!(target_framework(no_sdk), None);
        assert_eq!(target_framework(""), None);
    }

    #[test]
    fn the_project_compiles_the_source_alone_as_codingame_writes_it() {
        let files = project_files("virus.cs", "8.0.204").unwrap();
        let project = &files.iter().find(|(name, _)| name == PROJECT).unwrap().1;
        for property in [
            "<OutputType>Exe</OutputType>",
            "<TargetFramework>net8.0</TargetFramework>",
            "<AssemblyName>bot</AssemblyName>",
            "<LangVersion>latest</LangVersion>",
            "<Nullable>disable</Nullable>",
            "<ImplicitUsings>disable</ImplicitUsings>",
            "<Optimize>true</Optimize>",
            "<EnableDefaultCompileItems>false</EnableDefaultCompileItems>",
            "<Compile Include=\"virus.cs\" />",
        ] {
            assert!(project.contains(property), "{property} in\n{project}");
        }
        assert!(project.starts_with("<Project Sdk=\"Microsoft.NET.Sdk\">"), "{project}");
        let config = &files.iter().find(|(name, _)| name == "nuget.config").unwrap().1;
        assert!(config.contains("<clear />"), "{config}");
        assert_eq!(project_files("virus.cs", "No .NET SDKs were found."), None);
    }

    #[test]
    fn a_source_name_with_msbuild_or_xml_characters_is_escaped() {
        let files = project_files("a;b's & 100%.cs", "8.0.100").unwrap();
        let project = &files[0].1;
        assert!(project.contains("<Compile Include=\"a%3Bb%27s &amp; 100%25.cs\" />"), "{project}");
    }

    #[test]
    fn the_installation_is_the_real_programs_folder() {
        // Microsoft's install script: `~/.dotnet/dotnet`, linked from a folder on PATH.
        let dir = tempfile::tempdir().unwrap();
        let install = dir.path().join("home/.dotnet");
        std::fs::create_dir_all(install.join("sdk/8.0.100")).unwrap();
        std::fs::write(install.join("dotnet"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        let link = dir.path().join("bin/dotnet");
        std::os::unix::fs::symlink(install.join("dotnet"), &link).unwrap();
        let folders = installation(&link);
        assert_eq!(folders[0], std::fs::canonicalize(&install).unwrap(), "{folders:?}");
        // Another SDK beside it changes the stamp.
        let before = sdk_stamp(&link);
        std::fs::create_dir(install.join("sdk/9.0.100")).unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::open(install.join("sdk")).unwrap().set_modified(later).unwrap();
        assert_ne!(sdk_stamp(&link), before);
    }
}
