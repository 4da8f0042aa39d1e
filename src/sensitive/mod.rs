//! What must never be read aloud to a live character (docs/SECURITY.md, "Sensitivity model").
//!
//! [`detect`] finds sensitive statements in Chinese and English text: credentials, government
//! ids, financial details, health conditions, sexuality, precise locations and contact details.
//! Each [`Finding`] has a category, the byte span of the statement and, where the statement
//! names a secret value (a password, a number), the span of that value. The detector is a
//! deterministic floor under whatever an LLM or an operator says: it is run on every write of
//! a memory, on the conversation material a dream turns into chunks and diary entries, and on
//! every candidate memory_retrieval could return.
//!
//! It favours precision on everyday talk: an allergy, a cold, a city, "I forgot my password",
//! "我的密码箱是红色的" are not sensitive; a stated password, an id number that passes its
//! check digit, a diagnosis, a street address are. [`material::keep_safe_sentences`] applies it
//! to conversation material sentence by sentence.

mod lexicon;
pub mod material;
mod rules;

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Why a text is sensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
#[cfg_attr(
    feature = "contract",
    derive(schemars::JsonSchema),
    schemars(rename = "SensitiveCategory")
)]
pub enum Category {
    /// Passwords, PINs, API keys, verification codes.
    Credentials,
    /// 身份证号, SSN, passport and driving licence numbers.
    GovernmentId,
    /// Card and bank account numbers, salary, debt.
    Finance,
    /// Diagnoses, medications, mental and sexual health, self-harm.
    Health,
    /// Sexual orientation, gender identity, sex life.
    Sexuality,
    /// Street addresses, house numbers, coordinates.
    PreciseLocation,
    /// Phone numbers, e-mail addresses, messenger ids.
    Contact,
    /// Marked sensitive by an operator or an LLM for another reason.
    Other,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Credentials,
        Category::GovernmentId,
        Category::Finance,
        Category::Health,
        Category::Sexuality,
        Category::PreciseLocation,
        Category::Contact,
        Category::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Credentials => "credentials",
            Category::GovernmentId => "government_id",
            Category::Finance => "finance",
            Category::Health => "health",
            Category::Sexuality => "sexuality",
            Category::PreciseLocation => "precise_location",
            Category::Contact => "contact",
            Category::Other => "other",
        }
    }

    /// The category of a wire name (exact, as [`Category::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Category> {
        Some(match name.trim() {
            "credentials" => Category::Credentials,
            "government_id" => Category::GovernmentId,
            "finance" => Category::Finance,
            "health" => Category::Health,
            "sexuality" => Category::Sexuality,
            "precise_location" => Category::PreciseLocation,
            "contact" => Category::Contact,
            "other" => Category::Other,
            _ => return None,
        })
    }

    /// The names, for error messages.
    pub const NAMES: &'static str = "credentials, government_id, finance, health, sexuality, \
                                     precise_location, contact, other";
}

impl TryFrom<String> for Category {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Category::parse(&name).ok_or_else(|| {
            format!(
                "unknown sensitive category {name:?}: one of {}",
                Category::NAMES
            )
        })
    }
}

/// One sensitive statement in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub category: Category,
    /// Bytes of the statement (the trigger and the value).
    pub span: Range<usize>,
    /// Bytes of the secret value itself, when the statement names one.
    pub value: Option<Range<usize>>,
}

/// Every sensitive statement in `text`, in text order.
pub fn detect(text: &str) -> Vec<Finding> {
    // Few findings per text: an insertion sort, not a generic sort's code in the wasm.
    let mut found: Vec<Finding> = Vec::new();
    for f in rules::all(text) {
        let key = |f: &Finding| (f.span.start, f.span.end, f.category);
        if found.iter().any(|g| key(g) == key(&f)) {
            continue;
        }
        let at = found
            .iter()
            .position(|g| key(g) > key(&f))
            .unwrap_or(found.len());
        found.insert(at, f);
    }
    found
}

/// The category of the first sensitive statement in `text`, if any.
pub fn category_of(text: &str) -> Option<Category> {
    detect(text).first().map(|f| f.category)
}

/// The sensitivity floor every write of a memory applies (docs/SECURITY.md): one whose text
/// the detector flags is sensitive whatever its writer said, one with a category is sensitive,
/// and a marked one gets the detector's category when it came without one.
pub fn apply_floor(text: &str, sensitive: &mut bool, category: &mut Option<Category>) {
    if *sensitive && category.is_some() {
        return;
    }
    let detected = category_of(text);
    if *sensitive || category.is_some() || detected.is_some() {
        *sensitive = true;
        *category = category.or(detected);
    }
}

/// Whether a PKG field of this name holds sensitive data whatever its value says ("Address",
/// "ID Number", "Health", "身份证号", …).
pub fn key_category(key: &str) -> Option<Category> {
    rules::key_category(key)
}

/// The sensitivity of a stored item: its own mark (an operator's, an LLM's, a dream's), else
/// what the detector finds in its text. Never downgrades a mark.
pub fn judge(marked: bool, category: Option<Category>, text: &str) -> Option<Category> {
    if marked {
        return Some(category.unwrap_or(Category::Other));
    }
    category_of(text)
}

#[cfg(test)]
mod tests;
