//! The `[maps]` table: checked into [`MapSources`] (pure: counts, seeds, exclusive keys), then
//! loaded (files read, globs searched, maps generated), each map under the key it came from so
//! a map the game refuses is named by it.

use std::collections::BTreeMap;

use crate::registry::GameDef;

use super::MAX_MAPS;
use super::error::{ConfigError, Problem, setup_error};
use super::files::Files;
use super::raw::{RawGenerate, RawMaps, strings};
use super::validate::LoadedMap;

/// Where an arena's maps come from, checked: files, then the glob's matches, then generated
/// ones.
#[derive(Debug)]
pub(super) struct MapSources {
    files: Vec<String>,
    glob: Option<String>,
    generate: Option<Generation>,
}

/// Maps from the game's generator.
#[derive(Debug)]
struct Generation {
    params: BTreeMap<String, String>,
    /// One map per seed.
    seeds: Vec<u64>,
}

impl MapSources {
    /// Checks the table: at least one source, counts within [`MAX_MAPS`]; `count` generated maps
    /// draw their seeds from the arena's master `seed`.
    pub(super) fn check(raw: RawMaps, seed: u64) -> Result<MapSources, ConfigError> {
        if raw.files.len() > MAX_MAPS {
            return Err(Problem::TooManyFiles(raw.files.len()).at("maps.files"));
        }
        let generate = raw.generate.map(|g| Generation::check(g, seed)).transpose()?;
        if raw.files.is_empty() && raw.glob.is_none() && generate.is_none() {
            return Err(Problem::NoMaps.at("maps"));
        }
        Ok(MapSources { files: raw.files, glob: raw.glob, generate })
    }

    /// The generator's settings, if maps are generated (an SPRT's fresh maps use them too).
    pub(super) fn generator_params(&self) -> Option<BTreeMap<String, String>> {
        self.generate.as_ref().map(|g| g.params.clone())
    }

    /// Reads the files, searches the glob and generates the maps of `variant`.
    pub(super) fn load<D: GameDef>(
        &self,
        files: &Files,
        variant: &str,
    ) -> Result<Vec<LoadedMap>, ConfigError> {
        let mut maps = Vec::new();
        for (i, rel) in self.files.iter().enumerate() {
            let key = format!("maps.files[{i}]");
            let map = files.read(rel).map_err(|p| p.at(&key))?;
            maps.push(LoadedMap { key, map });
        }
        if let Some(pattern) = &self.glob {
            let found = files.glob(pattern).map_err(|p| p.at("maps.glob"))?;
            if found.len() + maps.len() > MAX_MAPS {
                let problem = Problem::GlobTooWide { pattern: pattern.clone(), found: found.len() };
                return Err(problem.at("maps.glob"));
            }
            for rel in found {
                let map = files.read(&rel).map_err(|p| p.at("maps.glob"))?;
                maps.push(LoadedMap { key: "maps.glob".into(), map });
            }
        }
        if let Some(generate) = &self.generate {
            if generate.seeds.len() + maps.len() > MAX_MAPS {
                let problem = Problem::TooManyGenerated {
                    generated: generate.seeds.len(),
                    others: maps.len(),
                };
                return Err(problem.at("maps.generate"));
            }
            for &seed in &generate.seeds {
                let map = D::generate_map(variant, &generate.params, seed)
                    .map_err(|e| setup_error("maps.generate.params", e))?;
                maps.push(LoadedMap { key: "maps.generate".into(), map });
            }
        }
        Ok(maps)
    }
}

impl Generation {
    fn check(raw: RawGenerate, seed: u64) -> Result<Generation, ConfigError> {
        let seeds: Vec<u64> = match (raw.count, raw.seeds) {
            (Some(_), Some(_)) => return Err(Problem::CountAndSeeds.at("maps.generate")),
            (None, Some(seeds)) if seeds.len() > MAX_MAPS => {
                return Err(Problem::TooManySeeds(seeds.len()).at("maps.generate.seeds"));
            }
            (Some(count), None) if count > MAX_MAPS as i64 => {
                return Err(Problem::CountTooLarge(count).at("maps.generate.count"));
            }
            (None, Some(seeds)) if !seeds.is_empty() => seeds,
            (Some(count), None) if count >= 1 => {
                (0..count as u64).map(|i| crate::seed::map_seed(seed, i)).collect()
            }
            (Some(count), None) => return Err(Problem::BelowOne(count).at("maps.generate.count")),
            _ => return Err(Problem::NoCountOrSeeds.at("maps.generate")),
        };
        Ok(Generation { params: strings(raw.params), seeds })
    }
}
