//! The two episodes of Skynet Revolution, which are the game's variants: Episode 1 lets the virus
//! cut any link and allows one gateway link per node, Episode 2 only gateway links and two.

use super::rules::InvalidCut;
use crate::game::SetupError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Episode {
    Ep1,
    Ep2,
}

impl Episode {
    /// The episode a variant name (`ep1`, `ep2`) plays.
    pub fn of_variant(variant: &str) -> Result<Episode, SetupError> {
        match variant {
            "ep1" => Ok(Episode::Ep1),
            "ep2" => Ok(Episode::Ep2),
            v => Err(SetupError::Variant(v.to_string())),
        }
    }

    /// The variant name.
    pub fn variant(self) -> &'static str {
        match self {
            Episode::Ep1 => "ep1",
            Episode::Ep2 => "ep2",
        }
    }

    /// The most gateway links a node may have within the episode's statement.
    pub fn gateway_links_per_node(self) -> usize {
        match self {
            Episode::Ep1 => 1,
            Episode::Ep2 => 2,
        }
    }

    /// What a cut of a missing or already cut link does unless the `invalid_cut` option says:
    /// a pass in Episode 1, where public bots that pass CodinGame's tests repeat cuts, a loss in
    /// Episode 2, where nothing shows CodinGame's referee forgives one (docs/skynet.md).
    pub fn default_invalid_cut(self) -> InvalidCut {
        match self {
            Episode::Ep1 => InvalidCut::Ignore,
            Episode::Ep2 => InvalidCut::Lose,
        }
    }
}
