//! The coding schemes a scenario can name: one table of schemes, one of families. A
//! family is a folder of `coding/` with its own `[scheme.<family>]` table, header and
//! counters; a scheme is a name (`scheme.name`) that makes a node's coding layer from
//! the family tables. Adding a scheme adds a row here (and, for a new family, its table
//! to `SchemeCfg`).

use super::ncaqm::{NcaqmCfg, NcaqmQueue};
use super::passthrough::PassThrough;
use super::xor::fifo::FifoQueue;
use super::xor::{XorCfg, XorCounters, XorScheme};
use super::CodingScheme;
use crate::scenario::check::R;
use crate::scenario::{Scenario, ScenarioError};
use serde::{Deserialize, Serialize};

/// The `[scheme]` table: which scheme runs at every node, and each family's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchemeCfg {
    /// The coding scheme of every node's interface queue (see `SCHEMES`).
    pub name: String,
    /// XOR-coding family (COPE, Encode Once, BFLY; NCAQM runs inside it).
    pub xor: XorCfg,
    /// NCAQM's queue management.
    pub ncaqm: NcaqmCfg,
}

impl Default for SchemeCfg {
    fn default() -> Self {
        SchemeCfg {
            name: "none".to_string(),
            xor: XorCfg::default(),
            ncaqm: NcaqmCfg::default(),
        }
    }
}

/// One scheme: its name in `scheme.name`, what it is, and how a node's layer is made.
pub struct SchemeEntry {
    /// The value of `scheme.name`.
    pub name: &'static str,
    /// One line for listings and docs.
    pub help: &'static str,
    /// The `[scheme.<family>]` tables it reads.
    pub families: &'static [&'static str],
    make: fn(&Scenario) -> Box<dyn CodingScheme>,
}

/// One family: its table's name and its counters (result columns).
pub struct FamilyEntry {
    /// `[scheme.<name>]`.
    pub name: &'static str,
    /// The family's counters, in result-column order.
    pub counters: &'static [&'static str],
}

/// Every scheme.
pub const SCHEMES: &[SchemeEntry] = &[
    SchemeEntry {
        name: "none",
        help: "no coding: a drop-tail FIFO interface queue, native frames",
        families: &[],
        make: |s| Box::new(PassThrough::new(s.mac.queue_packets as usize)),
    },
    SchemeEntry {
        name: "cope",
        help: "COPE (Katti et al.): natives queued, XOR-coded at each transmission opportunity",
        families: &["xor"],
        make: |s| {
            Box::new(XorScheme::new(
                s.scheme.xor.params(false),
                Box::new(FifoQueue::new()),
                0,
            ))
        },
    },
    SchemeEntry {
        name: "ncaqm",
        help: "NCAQM (Seferoglu & Markopoulou): codes stored in the queue, re-coding pass, coding-aware drops",
        families: &["xor", "ncaqm"],
        make: |s| {
            let (p, tick) = s.scheme.ncaqm.params();
            Box::new(XorScheme::new(
                s.scheme.xor.params(false),
                Box::new(NcaqmQueue::new(&p)),
                tick,
            ))
        },
    },
    SchemeEntry {
        name: "bfly",
        help: "BFLY (Omiwade et al.): COPE's queue with two-hop (butterfly) codes",
        families: &["xor"],
        make: |s| {
            Box::new(XorScheme::new(
                s.scheme.xor.params(true),
                Box::new(FifoQueue::new()),
                0,
            ))
        },
    },
];

/// Every family.
pub const FAMILIES: &[FamilyEntry] = &[
    FamilyEntry {
        name: "xor",
        counters: &XorCounters::NAMES,
    },
    FamilyEntry {
        name: "ncaqm",
        counters: &[],
    },
];

/// The scheme called `name`.
pub fn scheme(name: &str) -> Option<&'static SchemeEntry> {
    SCHEMES.iter().find(|e| e.name == name)
}

/// The names of every scheme, in table order.
pub fn scheme_names() -> Vec<&'static str> {
    SCHEMES.iter().map(|e| e.name).collect()
}

/// Checks the `[scheme]` table: a known scheme, and every family table's values.
pub fn validate(k: &SchemeCfg) -> R {
    if scheme(&k.name).is_none() {
        return Err(ScenarioError::new(
            "scheme.name",
            format!(
                "\"{}\" is not a coding scheme: expected one of {}",
                k.name,
                scheme_names().join(", ")
            ),
        ));
    }
    k.xor.validate("scheme.xor")?;
    k.ncaqm.validate("scheme.ncaqm")
}

/// The coding layer of one node of scenario `s` (validated).
pub fn make_scheme(s: &Scenario) -> Result<Box<dyn CodingScheme>, ScenarioError> {
    validate(&s.scheme)?;
    let e = scheme(&s.scheme.name).expect("validated");
    Ok((e.make)(s))
}

/// Every counter of every coding family, in result-column order: each node reports all
/// of them (0 where its scheme does not count one), so result tables of different
/// schemes share their columns.
pub fn counter_names() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.counters.iter().copied())
        .collect()
}

/// The body of the `[scheme]` table and each family's table, as canonical TOML;
/// `string` quotes a TOML string.
pub fn emit(k: &SchemeCfg, out: &mut String, string: fn(&str) -> String) {
    let names: Vec<String> = scheme_names().into_iter().map(string).collect();
    out.push_str(&format!("name = {}\n", string(&k.name)));
    out.push_str(&format!("# name = {}\n", names.join(", ")));
    let mut table = |name: &str, emit: &dyn Fn(&mut dyn FnMut(&str, String))| {
        out.push_str(&format!("\n[scheme.{name}]\n"));
        emit(&mut |key, v| out.push_str(&format!("{key} = {v}\n")));
    };
    table("xor", &|kv| k.xor.emit(kv));
    table("ncaqm", &|kv| k.ncaqm.emit(kv));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_a_scheme_reads_is_registered() {
        for s in SCHEMES {
            for f in s.families {
                assert!(
                    FAMILIES.iter().any(|x| x.name == *f),
                    "{}: family {f}",
                    s.name
                );
            }
        }
        let mut names = scheme_names();
        names.dedup();
        assert_eq!(names.len(), SCHEMES.len(), "names are unique");
    }

    #[test]
    fn unknown_scheme_is_one_clear_line() {
        let k = SchemeCfg {
            name: "xor".into(),
            ..SchemeCfg::default()
        };
        let e = validate(&k).unwrap_err();
        assert_eq!(e.field, "scheme.name");
        assert_eq!(
            e.message,
            "\"xor\" is not a coding scheme: expected one of none, cope, ncaqm, bfly"
        );
    }
}
