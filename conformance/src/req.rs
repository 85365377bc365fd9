//! The clauses of the specification as typed values.
//!
//! A [`Clause`] is one rule the specification states: a requirement line (`XX-ACK-001`),
//! or one marked clause of a line that states several (`XX-ACK-002.b`, spec/README.md,
//! "How a requirement is written"). The whole of a marked line is a clause too, but not a
//! leaf: it stands for its clauses together.
//!
//! Every clause is a constant of this module named by its ID in upper snake case
//! (`XX_ACK_002_B`, and `XX_ACK_002` for the whole line), so that code naming a clause that
//! the specification does not define does not compile. A withdrawn requirement's constant is
//! deprecated, so that citing it fails `clippy -D warnings`. Level and subject travel with
//! the value; the sentence comes from the specification
//! ([`Spec::clause_text`](crate::requirements::Spec::clause_text)).
//!
//! The constants (`req/ids.rs`, `req/ids/`) and the table behind them (`req/table.rs`,
//! `req/table/`) are generated from `spec/` by the test `tests/req_ids.rs`, which fails when
//! they differ from the specification; `OPENRDMA_BLESS=1` makes it write them. Do not edit
//! them by hand.

use std::fmt;
use std::sync::OnceLock;

use crate::requirements::{Level, Subject};

mod ids;
mod table;

pub use ids::*;

/// One clause of the specification: a requirement line, or one marked clause of it.
///
/// Clauses are ordered as the specification is: by chapter file name, then by line, a line
/// before its clauses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Clause(u16);

/// What the specification says about a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// Its ID: `XX-ACK-002.b`, or `XX-ACK-002` for a line.
    pub id: &'static str,
    /// The ID of its line: `XX-ACK-002`.
    pub requirement: &'static str,
    /// Its letter, or `None` for a line.
    pub part: Option<char>,
    /// Whether it is one rule: a marked clause, or a line without clauses. The whole of a
    /// marked line is not.
    pub leaf: bool,
    /// Its level; for the whole of a marked line, the strongest of its clauses.
    pub level: Level,
    /// The party it binds.
    pub subject: Subject,
}

/// A line without marked clauses: one rule.
const fn line(id: &'static str, level: Level, subject: Subject) -> Info {
    Info { id, requirement: id, part: None, leaf: true, level, subject }
}

/// The whole of a line with marked clauses.
const fn whole(id: &'static str, level: Level, subject: Subject) -> Info {
    Info { id, requirement: id, part: None, leaf: false, level, subject }
}

/// One marked clause of a line.
const fn part(
    id: &'static str,
    requirement: &'static str,
    letter: char,
    level: Level,
    subject: Subject,
) -> Info {
    Info { id, requirement, part: Some(letter), leaf: true, level, subject }
}

/// The clauses' IDs, sorted, with their clauses: the index [`Clause::parse`] searches.
fn index() -> &'static [(&'static str, Clause)] {
    static INDEX: OnceLock<Vec<(&'static str, Clause)>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut v: Vec<(&'static str, Clause)> = Clause::all().map(|c| (c.id(), c)).collect();
        v.sort_unstable_by_key(|(id, _)| *id);
        v
    })
}

impl Clause {
    /// Everything the specification says about it, but its sentence.
    pub fn info(self) -> &'static Info {
        let mut n = usize::from(self.0);
        for chapter in table::CHAPTERS {
            match chapter.get(n) {
                Some(info) => return info,
                None => n -= chapter.len(),
            }
        }
        // A `Clause` is only made from an index of the table.
        unreachable!("clause {} beyond the table", self.0)
    }

    /// Its ID: `XX-ACK-002.b`, or `XX-ACK-002` for a line.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The ID of its line: `XX-ACK-002` for `XX-ACK-002.b`.
    pub fn requirement(self) -> &'static str {
        self.info().requirement
    }

    /// Its letter, or `None` for a line.
    pub fn part(self) -> Option<char> {
        self.info().part
    }

    /// Whether it is one rule: a marked clause, or a line without clauses.
    pub fn is_leaf(self) -> bool {
        self.info().leaf
    }

    /// Its level; for the whole of a marked line, the strongest of its clauses.
    pub fn level(self) -> Level {
        self.info().level
    }

    /// The party it binds.
    pub fn subject(self) -> Subject {
        self.info().subject
    }

    /// Its line: itself for a line, `XX-ACK-002` for `XX-ACK-002.b`.
    pub fn line(self) -> Clause {
        let mut c = self;
        while c.part().is_some() {
            c = Clause(c.0 - 1);
        }
        c
    }

    /// The rules of its line: the marked clauses of a marked line, or the line itself when it
    /// has none; for a marked clause, that clause alone.
    pub fn leaves(self) -> impl Iterator<Item = Clause> {
        let first = if self.is_leaf() { self.0 } else { self.0 + 1 };
        let whole = !self.is_leaf();
        (first..table::COUNT)
            .map(Clause)
            .take_while(move |c| c.0 == first || (whole && c.part().is_some()))
    }

    /// The clause of this ID (`XX-ACK-002.b`, `XX-ACK-002`), if the specification
    /// defines it.
    pub fn parse(s: &str) -> Option<Clause> {
        let ix = index();
        ix.binary_search_by_key(&s, |(id, _)| id).ok().map(|k| ix[k].1)
    }

    /// Every clause, in order.
    pub fn all() -> impl Iterator<Item = Clause> {
        (0..table::COUNT).map(Clause)
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl fmt::Debug for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Clause({})", self.id())
    }
}

impl serde::Serialize for Clause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::Spec;

    #[test]
    fn the_table_is_the_bundled_specification() {
        let spec = Spec::bundled().expect("the specification parses");
        let mut ids: Vec<String> = spec.clauses().map(|c| c.id()).collect();
        ids.sort();
        let mut table: Vec<&str> = Clause::all().map(Clause::id).collect();
        table.sort_unstable();
        assert_eq!(
            ids, table,
            "req/ is out of date: `OPENRDMA_BLESS=1 cargo test -p openrdma-conformance --test req_ids`"
        );
        for c in Clause::all() {
            let s = spec.clause(c.id()).expect("defined");
            assert_eq!(
                (c.level(), c.subject(), c.is_leaf()),
                (s.level(), s.subject(), s.is_leaf())
            );
            assert_eq!(c.requirement(), s.requirement.id);
        }
    }

    #[test]
    fn clauses_parse_and_know_their_lines() {
        for c in Clause::all() {
            assert_eq!(Clause::parse(c.id()), Some(c));
            let line = c.line();
            assert_eq!(line.id(), c.requirement());
            assert!(line.leaves().all(|l| l.is_leaf() && l.requirement() == c.requirement()));
            assert!(line.leaves().count() >= 1);
            if c.is_leaf() {
                assert_eq!(c.leaves().collect::<Vec<_>>(), [c]);
            }
        }
        assert_eq!(Clause::parse("XX-YY-001"), None);
        assert_eq!(Clause::parse(""), None);
    }
}
