//! The coding schemes a scenario can name, and how each is made.

use super::ncaqm::{NcaqmParams, NcaqmQueue};
use super::passthrough::PassThrough;
use super::xor::fifo::FifoQueue;
use super::xor::{XorCounters, XorParams, XorScheme};
use super::CodingScheme;
use crate::engine::secs;
use crate::scenario::schema::SchemeName;
use crate::scenario::{Scenario, ScenarioError};

/// The coding layer of one node of scenario `s`.
pub fn make_scheme(s: &Scenario) -> Result<Box<dyn CodingScheme>, ScenarioError> {
    let k = &s.scheme;
    let xor = XorParams::from(k);
    Ok(match k.name {
        SchemeName::None => Box::new(PassThrough::new(s.mac.queue_packets as usize)),
        SchemeName::Cope | SchemeName::Bfly => {
            Box::new(XorScheme::new(xor, Box::new(FifoQueue::new()), 0))
        }
        SchemeName::Ncaqm => {
            let q = NcaqmQueue::new(&NcaqmParams {
                split_window: k.split_window as usize,
            });
            let tick = secs(k.recode_interval_s);
            Box::new(XorScheme::new(xor, Box::new(q), tick))
        }
    })
}

/// Every counter of every coding family, in result-column order: each node reports all
/// of them (0 where its scheme does not count one), so result tables of different
/// schemes share their columns.
pub fn counter_names() -> Vec<&'static str> {
    XorCounters::NAMES.to_vec()
}
