//! The `[scheme.pipeline]` table: Pipeline coding (Chen et al., "Intra-flow coding",
//! Eq. 1-2). Values the paper leaves out are in docs/assumptions.md ("Pipeline coding").

use crate::check::*;
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// When Eq. 3 is evaluated, and on which count (Chen et al., "Loss adaptation
/// algorithm", which carries "the current generation's" count and does not say when the
/// sender evaluates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Estimate {
    /// Once per generation, on counts closed `report_lag` generations later.
    Closed,
    /// On every report, on the current generation's count so far against M so far: the
    /// estimate moves with every packet that comes back, but reads the combinations still
    /// in flight as lost.
    PerReport,
}

/// Pipeline coding's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct PipelineCfg {
    /// Packets per generation, k (Chen et al. Table 2: 16); 1-64.
    pub generation_size: u32,
    /// Source redundancy r: combinations sent per packet, k·r per generation (fractions
    /// accumulate from packet to packet); in [1, 10].
    pub redundancy: f64,
    /// Forwarding redundancy: re-encoded combinations a relay sends per innovative
    /// combination it receives (fractions accumulate); in [1, 10]. Not set: `redundancy`
    /// (one coding redundancy for the whole path, as Chen et al. tune it).
    pub forward_redundancy: Option<f64>,
    /// The destination delivers decoded packets to the transport in order; a packet
    /// still undecoded when a later one is ready is given up after this long; > 0.
    pub give_up_s: f64,
    /// Code the transport's pure acknowledgements too (ComboCoding codes the ACK flow
    /// with the DATA flow's redundancy); false: they pass uncoded.
    pub code_acks: bool,
    /// Generations a relay or destination keeps decoding per flow direction (older ones
    /// are dropped); 1-64.
    pub generations_kept: u32,
    /// A source closes its open generation when no packet has joined it for this long,
    /// so that a TCP retransmission after a timeout starts a fresh generation instead of
    /// joining one that lost a combination and can no longer be decoded; > 0.
    pub close_idle_s: f64,
    /// Loss adaptation (Chen et al. Eq. 3-5): sources and relays set their redundancy
    /// from the loss they estimate on their outgoing link, replacing `redundancy` and
    /// `forward_redundancy`. Needs the opposite direction coded too (its packets carry
    /// the counts): ComboCoding, or `code_acks`.
    pub adaptive: bool,
    /// K of Eq. 5: the redundancy without loss (1.4); in [1, 10].
    pub base_redundancy: f64,
    /// α of Eq. 4 (1/6); in (0, 1].
    pub ewma_alpha: f64,
    /// A node reports its count of a generation (Eq. 3's N) once a generation this many
    /// newer has arrived from the same upstream neighbour, and counts the generation's
    /// combinations that arrive until then. 1 (the default): the next generation's first
    /// combination closes a count, which is exact when nothing overtakes (a FIFO, or
    /// ComboCoding's network-layer XOR buffer); 3 keeps the stragglers that PiggyCode's
    /// interface-queue machinery (coded pairs towards the head) lets fall behind; 1-4.
    pub report_lag: u32,
    /// When Eq. 3 is evaluated: `"closed"` (once per generation, on counts closed
    /// `report_lag` generations later) or `"per-report"` (on every report, on the current
    /// generation's count so far).
    pub estimate: Estimate,
}

impl Default for PipelineCfg {
    fn default() -> Self {
        PipelineCfg {
            generation_size: 16,
            redundancy: 1.4,
            forward_redundancy: None,
            give_up_s: 0.1,
            code_acks: false,
            generations_kept: 4,
            close_idle_s: 0.1,
            adaptive: false,
            base_redundancy: 1.4,
            ewma_alpha: 1.0 / 6.0,
            report_lag: 1,
            estimate: Estimate::Closed,
        }
    }
}

/// The coder's parameters, in engine units.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineParams {
    /// k.
    pub generation_size: usize,
    /// r.
    pub redundancy: f64,
    /// Re-encoded combinations per innovative one.
    pub forward_redundancy: f64,
    /// How long an undecodable packet holds up the later ones.
    pub give_up: Time,
    /// Pure ACKs are coded too.
    pub code_acks: bool,
    /// Generations kept per flow direction.
    pub generations_kept: usize,
    /// Idle time after which a source closes its open generation.
    pub close_idle: Time,
    /// A relay sends an innovative combination on as it came, re-encoding only the
    /// redundancy beyond one (ComboCoding: the received packet is what the DATA/ACK XOR
    /// below pairs, so that each neighbour holds its partner).
    pub forward_received: bool,
    /// Loss adaptation, when on.
    pub adaptive: Option<Adaptation>,
}

/// Loss adaptation's parameters (Chen et al. Eq. 3-5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptation {
    /// K of Eq. 5.
    pub base_redundancy: f64,
    /// α of Eq. 4.
    pub alpha: f64,
    /// Generations a count waits for stragglers before it is reported.
    pub report_lag: u32,
    /// Eq. 3 on every report, on the current generation's count.
    pub per_report: bool,
}

impl PipelineCfg {
    /// Checks every value; `at` is the table's path (`scheme.pipeline`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        let forward = self.forward_redundancy.unwrap_or(self.redundancy);
        within(
            &f("generation_size"),
            self.generation_size,
            "an integer",
            "[1, 64]",
        )?;
        within(&f("redundancy"), self.redundancy, "a number", "[1, 10]")?;
        within(&f("forward_redundancy"), forward, "a number", "[1, 10]")?;
        positive(&f("give_up_s"), self.give_up_s, "seconds")?;
        positive(&f("close_idle_s"), self.close_idle_s, "seconds")?;
        within(
            &f("base_redundancy"),
            self.base_redundancy,
            "a number",
            "[1, 10]",
        )?;
        within(&f("ewma_alpha"), self.ewma_alpha, "a number", "(0, 1]")?;
        within(&f("report_lag"), self.report_lag, "an integer", "[1, 4]")?;
        within(
            &f("generations_kept"),
            self.generations_kept,
            "an integer",
            "[1, 64]",
        )
    }

    /// The parameters; `combo` for ComboCoding (ACKs coded, received combinations sent
    /// on as they came).
    pub fn params(&self, combo: bool) -> PipelineParams {
        PipelineParams {
            generation_size: self.generation_size as usize,
            redundancy: self.redundancy,
            forward_redundancy: self.forward_redundancy.unwrap_or(self.redundancy),
            give_up: secs(self.give_up_s),
            code_acks: self.code_acks || combo,
            generations_kept: self.generations_kept as usize,
            close_idle: secs(self.close_idle_s),
            forward_received: combo,
            adaptive: self.adaptive.then_some(Adaptation {
                base_redundancy: self.base_redundancy,
                alpha: self.ewma_alpha,
                report_lag: self.report_lag,
                per_report: self.estimate == Estimate::PerReport,
            }),
        }
    }
}
