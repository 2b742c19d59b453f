//! Maps that separate strategies.
