//! Why an effect or hook failed ([`EffectError`]): a scripted entry's failure, or a change the
//! engine refused (a depth out of range, a second card of a rank in front). Every layer of
//! the core above the state speaks it; it names nothing else of the core.

use std::fmt;

/// A failure inside an effect or hook (a scripted one, or a forbidden change such as a depth
/// out of range). The message says where, when it can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectError(pub String);

impl fmt::Display for EffectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EffectError {}
