//! Builds: the steps that make what a suite's rows run (its subjects' and harnesses' `build`),
//! in order of first need, each identical step (same command, same directory) once. Used by
//! `wirebench build` and before `wirebench run`. Each language's tool decides what is up to date
//! (Cargo, `go build`'s cache, Vite, Maven): a step whose outputs are current costs its tool's
//! check, not a build.

use crate::suite::{Build, Profile, Suite};

/// One command of a build, and what needs it (for messages).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub workdir: Option<String>,
    pub argv: Vec<String>,
    pub needed_by: Vec<String>,
}

/// Steps gathered over one or more suites.
#[derive(Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
}

impl Plan {
    /// Adds the steps of what `suite` runs: the subjects of the scenarios and harnesses whose
    /// id matches `only` (all without it) and, for a run, that its profile does not skip; then
    /// those harnesses.
    pub fn add(&mut self, suite: &Suite, only: Option<&glob::Pattern>, profile: Option<&Profile>) {
        let selected = |id: &str| only.is_none_or(|p| p.matches(id));
        let harnesses: Vec<_> = suite.harnesses.iter().filter(|h| selected(&h.id)).collect();
        let subjects = suite
            .scenarios
            .iter()
            .filter(|s| selected(&s.id) && !profile.is_some_and(|p| p.skips(&s.id)))
            .map(|s| &s.subject)
            .chain(harnesses.iter().flat_map(|h| &h.subjects));
        for name in subjects {
            let Some(spec) = suite.subjects.get(name) else { continue };
            // What its setup runs is built first.
            for other in spec.needs.iter().filter_map(|n| suite.subjects.get(n).map(|s| (n, s))) {
                self.push(
                    &format!("subject `{}` for `{name}`", other.0),
                    other.1.build.as_ref(),
                    other.1.workdir.as_deref(),
                );
            }
            self.push(&format!("subject `{name}`"), spec.build.as_ref(), spec.workdir.as_deref());
        }
        for h in harnesses {
            self.push(&format!("harness `{}`", h.id), h.build.as_ref(), h.workdir.as_deref());
        }
    }

    /// Adds a build's steps in their order. A step already planned (same command, same
    /// directory) is not added again; a new step goes before the planned ones that come after
    /// it in this build, so that `[wasm, pages]` after an earlier `[pages]` builds the module
    /// before the pages, not after.
    fn push(&mut self, who: &str, build: Option<&Build>, workdir: Option<&str>) {
        let workdir = workdir.map(str::to_string);
        let mut before = self.steps.len();
        for argv in build.map(Build::steps).unwrap_or_default().iter().rev() {
            if argv.is_empty() {
                continue;
            }
            match self.steps.iter().position(|s| s.argv == *argv && s.workdir == workdir) {
                Some(i) => {
                    let step = &mut self.steps[i];
                    if !step.needed_by.iter().any(|n| n == who) {
                        step.needed_by.push(who.to_string());
                    }
                    before = before.min(i);
                }
                None => {
                    let step = Step { workdir: workdir.clone(), argv: argv.to_vec(), needed_by: vec![who.to_string()] };
                    self.steps.insert(before, step);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = r#"
        [subjects.a]
        lang = "rust"
        build = ["cargo", "build", "-p", "x"]
        command = ["a"]
        ports = { plain = "--port" }
        health = { path = "/health" }

        [subjects.b]
        extends = "a"
        command = ["b"]

        [subjects.c]
        extends = "a"
        workdir = "sub/c"
        build = [["go", "build", "."], ["cargo", "build", "-p", "x"]]

        [subjects.unused]
        extends = "a"
        build = ["make", "unused"]

        [subjects.loader]
        extends = "a"
        build = ["make", "loader"]

        [subjects.filled]
        extends = "a"
        needs = ["loader"]

        [[scenarios]]
        id = "a-1"
        subject = "a"
        driver = "http1"
        path = "/"
        connections = 1
        requests = 1

        [[scenarios]]
        id = "b-1"
        subject = "b"
        driver = "http1"
        path = "/"
        connections = 1
        requests = 1

        [[harnesses]]
        id = "h"
        lang = "go"
        workdir = "sub/c"
        build = ["go", "build", "."]
        command = ["h"]
        subjects = ["c"]
    "#;

    fn plan(only: Option<&str>) -> Vec<(Option<String>, String, Vec<String>)> {
        let suite = Suite::parse(SUITE, "s.toml").unwrap();
        let mut plan = Plan::default();
        plan.add(&suite, only.map(|g| glob::Pattern::new(g).unwrap()).as_ref(), None);
        plan.steps.into_iter().map(|s| (s.workdir, s.argv.join(" "), s.needed_by)).collect()
    }

    #[test]
    fn a_step_runs_once_in_its_directory_for_everything_that_needs_it() {
        let steps = plan(None);
        assert_eq!(
            steps,
            vec![
                (None, "cargo build -p x".into(), vec!["subject `a`".into(), "subject `b`".into()]),
                (Some("sub/c".into()), "go build .".into(), vec!["subject `c`".into(), "harness `h`".into()]),
                // The same command from another directory is another step.
                (Some("sub/c".into()), "cargo build -p x".into(), vec!["subject `c`".into()]),
            ]
        );
    }

    #[test]
    fn what_a_subject_needs_is_built_before_it() {
        let text = SUITE.replace("subject = \"b\"", "subject = \"filled\"");
        let suite = Suite::parse(&text, "s.toml").unwrap();
        let mut plan = Plan::default();
        plan.add(&suite, Some(&glob::Pattern::new("b-1").unwrap()), None);
        let steps: Vec<(String, Vec<String>)> =
            plan.steps.into_iter().map(|s| (s.argv.join(" "), s.needed_by)).collect();
        assert_eq!(
            steps,
            vec![
                ("make loader".into(), vec!["subject `loader` for `filled`".into()]),
                ("cargo build -p x".into(), vec!["subject `filled`".into()]),
            ]
        );
        let err = Suite::parse(&text.replace("needs = [\"loader\"]", "needs = [\"gone\"]"), "s.toml")
            .unwrap()
            .check("s.toml", &["http1"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "s.toml: subjects.filled.needs: no subject named `gone` (in the suite or a subjects/**/subject.toml)"
        );
    }

    #[test]
    fn only_what_the_selected_rows_need_is_built() {
        let steps = plan(Some("b-*"));
        assert_eq!(steps, vec![(None, "cargo build -p x".into(), vec!["subject `b`".into()])]);
        let steps = plan(Some("h"));
        assert_eq!(steps.iter().map(|s| s.1.as_str()).collect::<Vec<_>>(), ["go build .", "cargo build -p x"]);
    }

    #[test]
    fn a_run_does_not_build_the_subjects_of_rows_its_profile_skips() {
        let text = SUITE.replace("subject = \"b\"", "subject = \"filled\"");
        let suite = Suite::parse(&text, "s.toml").unwrap();
        let profile = Profile { skip: vec!["b-*".into()], ..suite.profile("smoke").unwrap() };
        let mut plan = Plan::default();
        plan.add(&suite, None, Some(&profile));
        let steps: Vec<String> = plan.steps.iter().map(|s| s.argv.join(" ")).collect();
        // The harness's two steps in sub/c, and subject a's; neither `filled` nor its loader.
        assert_eq!(steps, ["cargo build -p x", "go build .", "cargo build -p x"]);
        assert!(!plan.steps.iter().flat_map(|s| &s.needed_by).any(|n| n.contains("filled")), "{:?}", plan.steps);
        // `wirebench build` names no profile: it builds every row's subject.
        let mut plan = Plan::default();
        plan.add(&suite, None, None);
        assert!(plan.steps.iter().any(|s| s.argv.join(" ") == "make loader"), "{:?}", plan.steps);
    }

    #[test]
    fn a_step_a_later_build_puts_first_comes_before_the_shared_step() {
        let text = r#"
            [[harnesses]]
            id = "pages"
            lang = "ts"
            workdir = "web"
            build = ["./build.sh"]
            command = ["p"]

            [[harnesses]]
            id = "pages-with-module"
            lang = "ts"
            workdir = "web"
            build = [["../module.sh"], ["./build.sh"]]
            command = ["m"]
        "#;
        let mut plan = Plan::default();
        plan.add(&Suite::parse(text, "s.toml").unwrap(), None, None);
        let steps: Vec<(String, Vec<String>)> =
            plan.steps.into_iter().map(|s| (s.argv.join(" "), s.needed_by)).collect();
        assert_eq!(
            steps,
            vec![
                ("../module.sh".into(), vec!["harness `pages-with-module`".into()]),
                ("./build.sh".into(), vec!["harness `pages`".into(), "harness `pages-with-module`".into()]),
            ]
        );
    }
}
