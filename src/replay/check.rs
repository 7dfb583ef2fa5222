//! A replay looked at before it runs, so that what would stop it, or be ignored by it, is said
//! at once rather than hours into a long trace: the job's ranks against the trace's, and its
//! arguments (`workload.args`): each key one the replay reads, each value one it accepts.
//!
//! What the replay reads and accepts is `lua/mgen/replay.lua`'s to say (`replay.arguments`,
//! `replay.check_argument`; the algorithms are `mgen.coll`'s), so the check asks that Lua,
//! loaded from the library the run uses, in a Lua state of its own: the run and the check
//! cannot disagree.

use mlua::{Lua, Table};
use std::path::Path;

/// What a replay's check found: problems (the key and what is wrong with it), which stop the
/// run before it starts, and warnings.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Found {
    /// Each problem's key (`workload.args.algo_allreduce`) and message.
    pub(crate) problems: Vec<(String, String)>,
    /// Warnings (a key the replay does not read), each a sentence.
    pub(crate) warnings: Vec<String>,
}

/// `mgen.replay` as the check asks it: the library's own Lua, in a state of its own.
pub(crate) struct Rules {
    lua: Lua,
    replay: Table,
}

impl Rules {
    /// Loads `mgen.coll` and `mgen.replay` from the Lua library folder the run uses
    /// ([`crate::files::library_dir`]); an error says why it could not.
    pub(crate) fn load() -> Result<Rules, String> {
        let lua = Lua::new();
        let dir = crate::files::library_dir().join("mgen");
        // (as the run loads it: its bytecode compiled ahead, when it is that text)
        let module = |name: &str, env: &Table| -> Result<Table, String> {
            let path = dir.join(format!("{name}.lua"));
            let path = path.canonicalize().unwrap_or(path);
            let text = crate::files::read_bounded(&path, crate::files::MAX_SOURCE)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            crate::lualib::precompiled::module(&lua, &path, &text)
                .and_then(|f| f.call::<Table>(env.clone()))
                .map_err(|e| format!("{}: {e}", path.display()))
        };
        let setup = || -> mlua::Result<Table> {
            // each module in an environment that falls back to the standard library (the
            // API's globals are nil here: the modules only keep them at load)
            let env = || -> mlua::Result<Table> {
                let e = lua.create_table()?;
                let mt = lua.create_table()?;
                mt.set("__index", lua.globals())?;
                e.set_metatable(Some(mt));
                Ok(e)
            };
            let coll = module("coll", &env()?).map_err(mlua::Error::runtime)?;
            let replay_env = env()?;
            replay_env.set(
                "require",
                lua.create_function(move |_, name: String| match name.as_str() {
                    "mgen.coll" => Ok(coll.clone()),
                    _ => Err(mlua::Error::runtime(format!("no module {name} here"))),
                })?,
            )?;
            module("replay", &replay_env).map_err(mlua::Error::runtime)
        };
        let replay = setup().map_err(|e| e.to_string())?;
        Ok(Rules { lua, replay })
    }

    /// The replay's arguments, sorted (`algo_allreduce`, ..., `flops`, `transport`).
    pub(crate) fn arguments(&self) -> Vec<String> {
        self.replay
            .get::<mlua::Function>("arguments")
            .and_then(|f| f.call::<Vec<String>>(()))
            .unwrap_or_default()
    }

    /// What is wrong with `value` for argument `key`, or None if nothing is.
    pub(crate) fn check(&self, key: &str, value: &toml::Value) -> Option<String> {
        let f = self.replay.get::<mlua::Function>("check_argument").ok()?;
        let v = crate::lualib::toml_to_lua(&self.lua, value).ok()?;
        f.call::<Option<String>>((key, v)).ok().flatten()
    }
}

/// Checks a job that replays the trace `trace` (as the scenario names it, for messages),
/// which has `trace_ranks` ranks: the job's `ranks` if given must be those, and its `args`
/// must be the replay's with values it accepts (a key it does not read is a warning, with the
/// nearest name it reads). `key` is the job's table as problems name it (`workload`,
/// `job[1]`).
pub(crate) fn job(
    key: &str,
    trace: &Path,
    trace_ranks: u64,
    ranks: Option<u64>,
    args: &toml::Table,
) -> Found {
    let mut found = Found::default();
    if let Some(r) = ranks.filter(|&r| r != trace_ranks) {
        found.problems.push((
            format!("{key}.ranks"),
            format!(
                "{r}, but the trace {} has {trace_ranks} ranks: a replay runs one rank per \
                 rank of its trace (set {key}.ranks = {trace_ranks}, or leave it out)",
                trace.display()
            ),
        ));
    }
    if args.is_empty() {
        return found;
    }
    // (a library that does not load is the run's to report, as it would without the check)
    let Ok(rules) = Rules::load() else {
        return found;
    };
    let known = rules.arguments();
    for (k, v) in args {
        if known.contains(k) {
            if let Some(bad) = rules.check(k, v) {
                found.problems.push((format!("{key}.args.{k}"), bad));
            }
            continue;
        }
        let why = match k.strip_prefix("algo_") {
            Some(action) if super::ACTIONS.iter().any(|a| a.0 == action) => format!(
                " (`{action}` is replayed as it is, by point-to-point messages: it has no \
                 algorithm to choose)"
            ),
            _ => match crate::words::closest(k, known.iter().map(String::as_str)) {
                Some(near) => format!(" (did you mean `{near}`?)"),
                None => String::new(),
            },
        };
        found.warnings.push(format!(
            "{key}.args.{k} is not an argument of the replay, which ignores it{why}; its \
             arguments: {}",
            known.join(", ")
        ));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_library_says_what_it_reads_and_accepts() {
        let rules = Rules::load().unwrap();
        let known = rules.arguments();
        assert!(known.contains(&"flops".to_string()), "{known:?}");
        assert!(known.contains(&"algo_allreduce".to_string()), "{known:?}");
        assert_eq!(rules.check("flops", &toml::Value::Float(2e9)), None);
        let bad = rules.check("flops", &toml::Value::Float(-1.0)).unwrap();
        assert!(
            bad.contains("must be a number > 0 (the rate of compute, flop/s); got -1"),
            "{bad}"
        );
        let bad = rules
            .check("algo_allreduce", &toml::Value::String("rign".into()))
            .unwrap();
        assert!(
            bad.contains(r#""rign" is not an allreduce algorithm of mgen.coll (did you mean "ring"?); they are: "#),
            "{bad}"
        );
        assert!(bad.contains("recursive_doubling"), "{bad}");
        assert_eq!(
            rules.check("algo_barrier", &toml::Value::String("ring".into())),
            None
        );
    }

    #[test]
    fn a_job_s_ranks_and_arguments_are_checked() {
        let t = Path::new("app.txt");
        let f = job(
            "workload",
            t,
            8,
            Some(16),
            &args("flop = 2e9\nalgo_allreduce = 'rign'\nalgo_alltoallv = 'x'\nzzz = 1"),
        );
        let keys: Vec<&str> = f.problems.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(keys, ["workload.ranks", "workload.args.algo_allreduce"]);
        assert!(f.problems[0].1.contains("the trace app.txt has 8 ranks"));
        assert_eq!(f.warnings.len(), 3, "{:?}", f.warnings);
        // (in the order of the keys)
        assert!(
            f.warnings[0].contains("`alltoallv` is replayed as it is"),
            "{:?}",
            f.warnings
        );
        assert!(
            f.warnings[1].starts_with(
                "workload.args.flop is not an argument of the replay, which ignores it (did \
                 you mean `flops`?); its arguments: algo_allgather, "
            ),
            "{:?}",
            f.warnings
        );
        assert!(
            f.warnings[2].starts_with(
                "workload.args.zzz is not an argument of the replay, \
                                       which ignores it; its arguments: "
            ),
            "{:?}",
            f.warnings
        );
        assert_eq!(
            job("job[0]", t, 8, Some(8), &args("flops = 1e9")),
            Found::default()
        );
    }
}
