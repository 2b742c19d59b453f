//! Tests of the whole game: setup, turns, cards, hidden information, and property tests of
//! random play.
