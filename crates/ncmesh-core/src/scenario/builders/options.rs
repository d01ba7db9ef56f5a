//! Builder options: the option map the CLI passes ([`BuildOptions`]), its parsing with
//! errors that name the option, the value and what is allowed ([`Opts`]), and the options
//! every kind accepts ([`Common`]: seed and timing).

use crate::check::fnum;
use crate::scenario::ScenarioError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Builder options: option name -> JSON value, as the CLI passes them
/// (`--hops 4 --spacing 200 --file path --seed 2` -> {"hops": 4, "spacing": 200, ...}).
///
/// Names are matched after replacing '-' with '_' (so `start-spread` = `start_spread`);
/// a null value counts as not given. Numbers may also be given as numeric strings,
/// booleans as "true"/"false".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BuildOptions {
    /// Option name to value, as given.
    pub values: BTreeMap<String, Value>,
}

impl BuildOptions {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }
    /// Builder style: `BuildOptions::new().with("hops", 6).with("spacing", 180.0)`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.set(key, value);
        self
    }
    /// Sets option `key` (replacing an earlier value).
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.values.insert(key.to_string(), value.into());
    }
    /// Options from (name, value) pairs.
    pub fn from_map<K: Into<String>, I: IntoIterator<Item = (K, Value)>>(items: I) -> Self {
        BuildOptions {
            values: items.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }
}

impl From<BTreeMap<String, Value>> for BuildOptions {
    fn from(values: BTreeMap<String, Value>) -> Self {
        BuildOptions { values }
    }
}

impl From<serde_json::Map<String, Value>> for BuildOptions {
    fn from(m: serde_json::Map<String, Value>) -> Self {
        BuildOptions {
            values: m.into_iter().collect(),
        }
    }
}

impl From<std::collections::HashMap<String, Value>> for BuildOptions {
    fn from(m: std::collections::HashMap<String, Value>) -> Self {
        BuildOptions {
            values: m.into_iter().collect(),
        }
    }
}

impl<K: Into<String>> FromIterator<(K, Value)> for BuildOptions {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Self::from_map(iter)
    }
}

/// Options every builder accepts, besides its own.
pub(super) const COMMON: &[&str] = &["seed", "duration", "start", "start_spread", "measure_start"];

/// The options given to one builder, checked against the names it accepts; typed getters
/// turn a bad value into an error naming the option.
pub(super) struct Opts {
    vals: BTreeMap<String, Value>,
}

fn show(v: &Value) -> String {
    v.to_string()
}

impl Opts {
    /// The options of builder `kind`, which accepts `options` and [`COMMON`].
    pub(super) fn new(
        kind: &str,
        options: &[&str],
        opts: &BuildOptions,
    ) -> Result<Opts, ScenarioError> {
        let allowed: Vec<&str> = options.iter().chain(COMMON.iter()).copied().collect();
        let mut vals = BTreeMap::new();
        for (k, v) in &opts.values {
            if v.is_null() {
                continue;
            }
            let key = k.trim().trim_start_matches('-').replace('-', "_");
            if !allowed.contains(&key.as_str()) {
                return Err(ScenarioError::new(
                    key.clone(),
                    format!(
                        "unknown option '{key}' for builder '{kind}'; allowed: {}",
                        allowed.join(", ")
                    ),
                ));
            }
            vals.insert(key, v.clone());
        }
        Ok(Opts { vals })
    }

    pub(super) fn has(&self, k: &str) -> bool {
        self.vals.contains_key(k)
    }

    pub(super) fn number(&self, k: &str) -> Result<Option<f64>, ScenarioError> {
        let Some(v) = self.vals.get(k) else {
            return Ok(None);
        };
        let x = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected a finite number", show(v)),
            )),
        }
    }

    /// A number checked by `ok`, `what` describing the allowed values.
    pub(super) fn f64_where(
        &self,
        k: &str,
        default: f64,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, ScenarioError> {
        match self.number(k)? {
            None => Ok(default),
            Some(x) if ok(x) => Ok(x),
            Some(_) => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected {what}", show(&self.vals[k])),
            )),
        }
    }

    pub(super) fn positive(&self, k: &str, default: f64, unit: &str) -> Result<f64, ScenarioError> {
        self.f64_where(k, default, |x| x > 0.0, &format!("a number > 0 ({unit})"))
    }

    pub(super) fn non_negative(
        &self,
        k: &str,
        default: f64,
        unit: &str,
    ) -> Result<f64, ScenarioError> {
        self.f64_where(k, default, |x| x >= 0.0, &format!("a number >= 0 ({unit})"))
    }

    pub(super) fn int(
        &self,
        k: &str,
        default: u64,
        min: u64,
        max: u64,
    ) -> Result<u64, ScenarioError> {
        let Some(v) = self.vals.get(k) else {
            return Ok(default);
        };
        let bad = || {
            ScenarioError::new(
                k,
                format!(
                    "{} is not allowed: expected an integer in [{min}, {max}]",
                    show(v)
                ),
            )
        };
        let x: Option<i128> = match v {
            Value::Number(n) => n
                .as_u64()
                .map(|u| u as i128)
                .or_else(|| n.as_i64().map(|i| i as i128))
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e18)
                        .map(|f| f as i128)
                }),
            Value::String(s) => s.trim().parse::<i128>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x >= min as i128 && x <= max as i128 => Ok(x as u64),
            _ => Err(bad()),
        }
    }

    pub(super) fn string(&self, k: &str) -> Result<Option<String>, ScenarioError> {
        match self.vals.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected a string", show(v)),
            )),
        }
    }

    pub(super) fn choice(
        &self,
        k: &str,
        default: &'static str,
        allowed: &[&'static str],
    ) -> Result<&'static str, ScenarioError> {
        match self.string(k)? {
            None => Ok(default),
            Some(s) => allowed
                .iter()
                .find(|&&a| a == s.trim())
                .copied()
                .ok_or_else(|| {
                    ScenarioError::new(
                        k,
                        format!(
                            "\"{s}\" is not allowed: expected one of {}",
                            allowed.join(", ")
                        ),
                    )
                }),
        }
    }
}

/// The options every builder accepts: the builder seed and the timing.
pub(super) struct Common {
    pub(super) seed: u64,
    pub(super) duration: f64,
    pub(super) start: f64,
    pub(super) start_spread: f64,
    pub(super) measure_start: f64,
}

/// The common options of `o`, checked (`start` and `measure_start` inside the run).
pub(super) fn common(o: &Opts) -> Result<Common, ScenarioError> {
    let seed = o.int("seed", 1, 0, i64::MAX as u64)?;
    let duration = o.positive("duration", 60.0, "seconds")?;
    let measure_start = if o.has("measure_start") {
        o.f64_where(
            "measure_start",
            0.0,
            |x| x >= 0.0 && x < duration,
            &format!("a time in [0, duration = {}) seconds", fnum(duration)),
        )?
    } else {
        // 10 s as in the anchor; shorter runs keep the first sixth as warm-up.
        (10.0f64).min(duration / 6.0)
    };
    let start = o.f64_where(
        "start",
        1.0,
        |x| x >= 0.0 && x < duration,
        &format!("a time in [0, duration = {}) seconds", fnum(duration)),
    )?;
    let start_spread = o.non_negative("start_spread", 0.0, "seconds")?;
    Ok(Common {
        seed,
        duration,
        start,
        start_spread,
        measure_start,
    })
}
