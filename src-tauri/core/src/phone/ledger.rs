//! The relay's record of the cards it sent, kept in the data directory. A button names its card by
//! a random token, never by a number a later run could hand out again, so a tap on a card from an
//! earlier run still reaches its own question, or is told that question ended; and a card whose
//! question ended while Hark was closed loses its buttons when Hark comes back. Ended cards are
//! remembered for a while (a late tap is told what happened), then forgotten.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::card::Ended;

pub const CARDS_FILE: &str = "phone-cards.json";
/// How long an ended card is remembered.
const KEEP_ENDED_DAYS: i64 = 7;
/// The most ended cards remembered, newest kept.
const MAX_ENDED: usize = 200;

/// One card on the phone: which question it asks, where it is, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardRecord {
    /// What every button of the card carries; unique across runs.
    pub token: String,
    pub session: String,
    pub call: String,
    pub chat: String,
    pub message: String,
    /// The card's text as last drawn, so it can be shown as ended without its question.
    pub text: String,
    pub ended: Option<Ended>,
    pub ended_at: Option<DateTime<Utc>>,
}

/// A fresh token: 64 random bits as 16 hex digits (a button's data holds 64 bytes).
pub fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_string()
}

/// The cards recorded in `dir`; none when there is no file. A file that cannot be read is moved
/// aside (kept for a person to look at) and the relay starts with no record, saying so.
pub fn load(dir: &Path) -> Vec<CardRecord> {
    let path = dir.join(CARDS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            eprintln!("hark: phone: the record of sent cards could not be read ({e}); buttons of earlier cards will say they are no longer open");
            return Vec::new();
        }
    };
    match serde_json::from_str(&text) {
        Ok(records) => records,
        Err(e) => {
            let aside = dir.join(format!("{CARDS_FILE}.unreadable"));
            let _ = std::fs::rename(&path, &aside);
            eprintln!(
                "hark: phone: the record of sent cards was unreadable ({e}); kept as {}; buttons of earlier cards will say they are no longer open",
                aside.display()
            );
            Vec::new()
        }
    }
}

/// Writes the record atomically and owner-only (it holds question text).
pub fn save(dir: &Path, records: &[CardRecord]) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(records).map_err(std::io::Error::other)?;
    crate::data_dir::private::replace(&dir.join(CARDS_FILE), &text)
}

/// Which ended cards are forgotten at `now`: those ended longer ago than a week, and the oldest
/// beyond the most kept. Open cards are always kept.
pub fn stale_tokens(records: &[&CardRecord], now: DateTime<Utc>) -> Vec<String> {
    let cutoff = now - chrono::Duration::days(KEEP_ENDED_DAYS);
    let mut ended: Vec<&&CardRecord> = records.iter().filter(|r| r.ended.is_some()).collect();
    // Newest first; a card with no time counts as oldest.
    ended.sort_by_key(|r| std::cmp::Reverse(r.ended_at));
    ended
        .iter()
        .enumerate()
        .filter(|(i, r)| *i >= MAX_ENDED || r.ended_at.is_none_or(|at| at < cutoff))
        .map(|(_, r)| r.token.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(token: &str, ended_at: Option<DateTime<Utc>>) -> CardRecord {
        CardRecord {
            token: token.into(),
            session: "s".into(),
            call: "c".into(),
            chat: "1".into(),
            message: "2".into(),
            text: "❓ Question".into(),
            ended: ended_at.map(|_| Ended::Elsewhere),
            ended_at,
        }
    }

    #[test]
    fn tokens_differ_and_fit_a_button() {
        let a = new_token();
        assert_eq!(a.len(), 16);
        assert_ne!(a, new_token());
        assert!(format!("{a}:p7.9").len() <= 64);
    }

    #[test]
    fn open_cards_stay_and_ended_ones_go_after_a_week_or_past_the_most_kept() {
        let now = Utc::now();
        let mut records = vec![record("open", None), record("old", Some(now - chrono::Duration::days(8)))];
        for i in 0..MAX_ENDED + 3 {
            records.push(record(&format!("e{i}"), Some(now - chrono::Duration::seconds(i as i64))));
        }
        let refs: Vec<&CardRecord> = records.iter().collect();
        let stale = stale_tokens(&refs, now);
        assert!(!stale.contains(&"open".to_string()), "an open card is never forgotten");
        assert!(stale.contains(&"old".to_string()), "ended over a week ago");
        assert!(!stale.contains(&"e0".to_string()) && !stale.contains(&format!("e{}", MAX_ENDED - 1)));
        assert!(stale.contains(&format!("e{MAX_ENDED}")) && stale.contains(&format!("e{}", MAX_ENDED + 2)));
        assert_eq!(stale.len(), 4);
    }

    #[test]
    fn a_record_reads_back_and_an_unreadable_one_is_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).is_empty());
        let records = vec![record("a", None), record("b", Some(Utc::now()))];
        save(dir.path(), &records).unwrap();
        assert_eq!(load(dir.path()), records);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(CARDS_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
        }
        std::fs::write(dir.path().join(CARDS_FILE), "{not json").unwrap();
        assert!(load(dir.path()).is_empty());
        assert_eq!(std::fs::read_to_string(dir.path().join(format!("{CARDS_FILE}.unreadable"))).unwrap(), "{not json");
    }
}
