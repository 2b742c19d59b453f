//! Start-up hints: a sandboxed bot that dies in its first decision saying a file or module is
//! missing, or that it was denied, most often reads something beside its program that the
//! sandbox does not let it read (a module next to it, a data file). The failure's detail then
//! says what the sandbox let it read and how to add a folder.

use std::path::PathBuf;

/// What runtimes write when a file cannot be opened or a module found.
const SIGNS: &[&str] = &[
    "ModuleNotFoundError",
    "ImportError",
    "FileNotFoundError",
    "No such file or directory",
    "Permission denied",
    "PermissionError",
    "Cannot find module",
    "cannot open",
    "EACCES",
    "ENOENT",
    "Could not find or load main class",
    "cannot load such file",
];

/// The most paths the hint lists.
const SHOWN: usize = 6;

/// The hint for a bot that wrote `stderr` in its first decision and could read only `readable`
/// (besides the system and its private directory); `None` when its stderr shows no sign of a
/// missing or denied file.
pub(super) fn startup_hint(stderr: &str, readable: &[PathBuf]) -> Option<String> {
    if !SIGNS.iter().any(|sign| stderr.contains(sign)) {
        return None;
    }
    // The files it was given (its program, the files its command names) first: the folders of
    // its PATH say less.
    let mut paths: Vec<&PathBuf> = Vec::new();
    for path in
        readable.iter().filter(|p| !p.is_dir()).chain(readable.iter().filter(|p| p.is_dir()))
    {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    let mut shown: Vec<String> =
        paths.iter().take(SHOWN).map(|p| format!("`{}`", p.display())).collect();
    if paths.len() > SHOWN {
        shown.push(format!("{} more", paths.len() - SHOWN));
    }
    let listed = if shown.is_empty() { "nothing else".to_string() } else { shown.join(", ") };
    Some(format!(
        "its stderr names a missing or denied file: the sandbox let it read only the system, its \
         private folder and {listed}; add its folder with `--allow-read DIR` (`files = [\"DIR\"]` \
         in the bot's `external` settings of an arena file), or run it with `--sandbox off` if \
         you trust it"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_module_gets_the_readable_paths_and_how_to_add_one() {
        let readable = vec![PathBuf::from("/usr/bin"), PathBuf::from("/home/me/bot/main.py")];
        let stderr = "Traceback (most recent call last):\n  File \"/home/me/bot/main.py\", line 1\n\
                      ModuleNotFoundError: No module named 'helpers'\n";
        let hint = startup_hint(stderr, &readable).unwrap();
        // Its own files first: that is where a folder to allow is most likely missing.
        assert!(hint.contains("`/home/me/bot/main.py`, `/usr/bin`"), "{hint}");
        assert!(hint.contains("--allow-read DIR"), "{hint}");
        assert_eq!(startup_hint("panicked: index out of bounds", &readable), None);
        let many: Vec<PathBuf> = (0..9).map(|i| PathBuf::from(format!("/p{i}"))).collect();
        assert!(startup_hint("Permission denied", &many).unwrap().contains("3 more"));
    }
}
