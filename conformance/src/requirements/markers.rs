//! Key words and clause markers inside one requirement line (spec/README.md, "How a
//! requirement is written").
//!
//! A line that states several rules marks each with `**(x)**`, `x` a lower-case letter from
//! `a` on. Text before the first marker is a preamble and holds no key word. Each clause's key
//! words are of one level; a clause without one takes the level of the clause before it. An
//! unmarked line is one clause, and its key words are of one level too.

use super::{Level, SpecError};

/// One requirement line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Parsed {
    /// The strongest level of the line.
    pub(super) level: Level,
    /// The sentence with each marker shown as `(x)`.
    pub(super) text: String,
    /// The text before the first marker, trimmed.
    pub(super) preamble: String,
    /// The marked clauses: letter, level and text, trimmed.
    pub(super) parts: Vec<(char, Level, String)>,
}

/// Where a line is, for errors.
#[derive(Debug, Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) id: &'a str,
    pub(super) chapter: &'a str,
    pub(super) line: usize,
}

impl At<'_> {
    fn chapter(&self) -> String {
        self.chapter.to_string()
    }
}

/// The level of a key word, or `None` for any other word.
fn keyword_level(word: &str) -> Option<Level> {
    match word {
        "MUST" | "REQUIRED" | "SHALL" => Some(Level::Must),
        "SHOULD" | "RECOMMENDED" => Some(Level::Should),
        "MAY" | "OPTIONAL" => Some(Level::May),
        _ => None,
    }
}

/// The level of each key word of `text`, in order; `MUST NOT` is one key word, of the level of
/// `MUST`.
///
/// A key word used as a noun names a level and states no requirement: one after the article
/// `a`, `an` or `the` (`a SHOULD`), or joined by `or` or `and` to such a one (`a SHOULD or
/// MAY`). It is not counted.
pub fn keywords(text: &str) -> Vec<Level> {
    // Each word (a run of ASCII letters) with its byte range.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let word = |k: usize| &text[words[k].0..words[k].1];
    // Whether word `k` follows word `k - 1` with one space between.
    let spaced = |k: usize| k > 0 && &text[words[k - 1].1..words[k].0] == " ";
    let mut out = Vec::new();
    let mut last_mention: Option<usize> = None;
    for k in 0..words.len() {
        let Some(level) = keyword_level(word(k)) else { continue };
        let article = spaced(k)
            && matches!(word(k - 1), "a" | "an" | "the")
            && (k < 2 || !text[..words[k - 1].0].ends_with(['.', '-']));
        let joined = spaced(k)
            && matches!(word(k - 1), "or" | "and")
            && spaced(k - 1)
            && last_mention == Some(k - 2);
        if article || joined {
            last_mention = Some(k);
        } else {
            out.push(level);
        }
    }
    out
}

/// The strongest level among `levels`, if any.
fn strongest(levels: &[Level]) -> Option<Level> {
    levels.iter().copied().min()
}

/// Whether all of `levels` are one level.
fn one_level(levels: &[Level]) -> bool {
    levels.windows(2).all(|w| w[0] == w[1])
}

/// The names of the distinct levels of `levels`, for an error.
fn names(levels: &[Level]) -> String {
    let mut l = levels.to_vec();
    l.sort();
    l.dedup();
    l.iter().map(|l| l.keyword()).collect::<Vec<_>>().join(", ")
}

/// The markers of a sentence: (byte offset of the marker, its letter, byte offset after it).
fn markers(at: At<'_>, sentence: &str) -> Result<Vec<(usize, char, usize)>, SpecError> {
    let mut out = Vec::new();
    for (i, _) in sentence.match_indices("**(") {
        let rest = &sentence[i + 3..];
        let mut chars = rest.chars();
        let letter = chars.next();
        let ok =
            letter.is_some_and(|c| c.is_ascii_lowercase()) && chars.as_str().starts_with(")**");
        let end = i + 3 + 1 + 3;
        let spaced = ok && sentence[end..].chars().next().is_none_or(|c| c == ' ');
        if !ok || !spaced {
            let found: String = sentence[i..].chars().take(8).collect();
            return Err(SpecError::BadMarker {
                id: at.id.to_string(),
                found,
                chapter: at.chapter(),
                line: at.line,
            });
        }
        out.push((i, letter.unwrap_or('a'), end));
    }
    Ok(out)
}

/// Reads a requirement's sentence (the text after its ID): its level, its preamble and its
/// clauses, checking the rules of the markers. `withdrawn` says whether the line is withdrawn,
/// in which case its markers, if any, stand for clauses withdrawn with it.
pub(super) fn parse(at: At<'_>, sentence: &str, withdrawn: bool) -> Result<Parsed, SpecError> {
    let marks = markers(at, sentence)?;
    for (k, &(_, letter, _)) in marks.iter().enumerate() {
        let expected = char::from(b'a' + u8::try_from(k.min(25)).unwrap_or(25));
        if k >= 26 || letter != expected {
            return Err(SpecError::MarkerOrder {
                id: at.id.to_string(),
                expected,
                found: letter,
                chapter: at.chapter(),
                line: at.line,
            });
        }
    }
    if marks.len() == 1 {
        return Err(SpecError::LoneMarker {
            id: at.id.to_string(),
            chapter: at.chapter(),
            line: at.line,
        });
    }
    let mut text = String::with_capacity(sentence.len());
    let mut from = 0;
    for &(start, letter, end) in &marks {
        text.push_str(&sentence[from..start]);
        text.push('(');
        text.push(letter);
        text.push(')');
        from = end;
    }
    text.push_str(&sentence[from..]);
    if withdrawn {
        let parts = marks.iter().map(|&(_, l, _)| (l, Level::Withdrawn, String::new())).collect();
        let preamble = marks.first().map_or(sentence, |m| &sentence[..m.0]).trim().to_string();
        return Ok(Parsed { level: Level::Withdrawn, text, preamble, parts });
    }
    let Some(&(first, _, _)) = marks.first() else {
        let levels = keywords(sentence);
        let level = strongest(&levels).ok_or_else(|| SpecError::NoKeyword {
            id: at.id.to_string(),
            chapter: at.chapter(),
            line: at.line,
        })?;
        if !one_level(&levels) {
            return Err(SpecError::MixedLevels {
                id: at.id.to_string(),
                levels: names(&levels),
                chapter: at.chapter(),
                line: at.line,
            });
        }
        return Ok(Parsed { level, text, preamble: String::new(), parts: Vec::new() });
    };
    let preamble = sentence[..first].trim();
    if !keywords(preamble).is_empty() {
        return Err(SpecError::KeywordInPreamble {
            id: at.id.to_string(),
            chapter: at.chapter(),
            line: at.line,
        });
    }
    let mut parts: Vec<(char, Level, String)> = Vec::new();
    for (k, &(_, letter, end)) in marks.iter().enumerate() {
        let until = marks.get(k + 1).map_or(sentence.len(), |m| m.0);
        let body = sentence[end..until].trim();
        let clause_id = format!("{}.{letter}", at.id);
        let levels = keywords(body);
        if !one_level(&levels) {
            return Err(SpecError::MixedLevels {
                id: clause_id,
                levels: names(&levels),
                chapter: at.chapter(),
                line: at.line,
            });
        }
        let level = match (strongest(&levels), parts.last()) {
            (Some(l), _) => l,
            (None, Some(prev)) => prev.1,
            (None, None) => {
                return Err(SpecError::NoKeyword {
                    id: clause_id,
                    chapter: at.chapter(),
                    line: at.line,
                });
            }
        };
        if body.is_empty() {
            return Err(SpecError::EmptyClause {
                id: clause_id,
                chapter: at.chapter(),
                line: at.line,
            });
        }
        parts.push((letter, level, body.to_string()));
    }
    let level = parts.iter().map(|p| p.1).min().unwrap_or(Level::Must);
    Ok(Parsed { level, text, preamble: preamble.to_string(), parts })
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: At<'static> = At { id: "XX-YY-001", chapter: "x.md", line: 3 };

    #[test]
    fn key_words_are_counted_once_and_mentions_not_at_all() {
        use Level::*;
        assert_eq!(keywords("It MUST NOT and SHOULD, or MAY."), [Must, Should, May]);
        assert_eq!(keywords("a SHOULD or MAY makes it non-strict; it MUST"), [Must]);
        assert_eq!(keywords("(`XX-YY-001` is a SHOULD) and MUST"), [Must]);
        assert_eq!(keywords("SHOULDs and MUSTs are not key words"), []);
        assert_eq!(keywords("XX-YY-001.a MUST hold"), [Must]);
        assert_eq!(keywords("the data MAY be read"), [May]);
    }

    #[test]
    fn marked_lines_give_clauses_with_their_levels() {
        let p = parse(AT, "In X, **(a)** a sender SHOULD set it, **(b)** and a receiver MUST ignore it, **(c)** and validate() reports it.", false).unwrap();
        assert_eq!(p.level, Level::Must);
        assert_eq!(p.preamble, "In X,");
        assert_eq!(
            p.parts,
            [
                ('a', Level::Should, "a sender SHOULD set it,".to_string()),
                ('b', Level::Must, "and a receiver MUST ignore it,".to_string()),
                ('c', Level::Must, "and validate() reports it.".to_string()),
            ]
        );
        assert_eq!(
            p.text,
            "In X, (a) a sender SHOULD set it, (b) and a receiver MUST ignore it, (c) and validate() reports it."
        );
        let plain = parse(AT, "It MUST and MUST NOT.", false).unwrap();
        assert!(plain.parts.is_empty() && plain.level == Level::Must);
        assert!(matches!(
            parse(AT, "It MUST and MAY.", false),
            Err(SpecError::MixedLevels { ref id, ref levels, line: 3, .. })
                if id == "XX-YY-001" && levels == "MUST, MAY"
        ));
    }

    #[test]
    fn marker_rules_are_checked() {
        let err = |s: &str| parse(AT, s, false).unwrap_err();
        assert!(matches!(
            err("**(a)** It MUST. **(c)** It MUST."),
            SpecError::MarkerOrder { expected: 'b', found: 'c', line: 3, .. }
        ));
        assert!(matches!(err("**(b)** It MUST. **(a)** It MUST."), SpecError::MarkerOrder { .. }));
        assert!(matches!(err("**(a)** It MUST."), SpecError::LoneMarker { .. }));
        assert!(matches!(err("**(A)** It MUST. **(b)** x"), SpecError::BadMarker { .. }));
        assert!(matches!(err("**(a)**It MUST. **(b)** x"), SpecError::BadMarker { .. }));
        assert!(matches!(err("It MUST: **(a)** x **(b)** y"), SpecError::KeywordInPreamble { .. }));
        assert!(
            matches!(err("**(a)** x **(b)** y MUST"), SpecError::NoKeyword { ref id, .. } if id == "XX-YY-001.a")
        );
        assert!(
            matches!(err("**(a)** x MUST or MAY **(b)** y"), SpecError::MixedLevels { ref id, .. } if id == "XX-YY-001.a")
        );
        assert!(matches!(err("**(a)** x MUST **(b)** **(c)** y"), SpecError::EmptyClause { .. }));
        let w = parse(AT, "*Withdrawn in 0.2.0; replaced by XX-YY-002.* **(a)** **(b)**", true)
            .unwrap();
        assert_eq!(w.parts.len(), 2);
        assert!(w.parts.iter().all(|p| p.1 == Level::Withdrawn));
    }
}
